"""The constructions of a stated vote or nomination ("I will vote 4", «голосую за пятого», "my nomination: 7") and of
a seat addressed as alive ("seat 9, explain", «вопрос к третьему»), in English and Russian, over the normalised text
(`¤N` a seat). Each pattern's groups hold the seats it states."""

from __future__ import annotations

import re

from arena.research.speech_reader.seats import L, S
from arena.research.speech_reader.statement import ALIVE, VOTE

PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    VOTE: (
        re.compile(
            r"\b(?:i|we)(?:'m|'ll|'d| am| will)?\b(?:\s+(?!not\b|never\b)\w+){0,4}?\s+vot(?:e|ing)\s+"
            r"(?:(?!with\b|we\b|that\b|they\b|to\b)\w+\s+){0,2}?"
            r"(?:for\s+|against\s+|on\s+|out\s+)?(?:nobody but\s+)?" + S
        ),
        re.compile(
            r"\bmy vote\s*(?:\w+\s+){0,2}?(?:goes to|is on|is for|is|will go to|:|against|for|on)?\s*(?:—\s*)?" + S
        ),
        re.compile(r"\b(?:put|cast|give)\s+my vote\s+(?:on|against|for|to)\s+" + S),
        re.compile(r"\bvote with me\s+(?:against|for|on)\s+" + S),
        re.compile(
            r"\blet'?s\s+(?:vote\s+(?:out\s+|for\s+|against\s+)?|eliminate\s+|kick out\s+|remove\s+|get rid of\s+)"
            + S
            + r"(?!\s+(?:tonight|at night)\b)"
        ),
        re.compile(r"\b(?:everyone|all|anyone)\s+who\s+trusts?\s+me\s+votes?\s+(?:for|against)\s+" + S),
        re.compile(r"(?:^|[.!?;,]\s*|\band\s+)vote\s+(?:for\s+|against\s+|out\s+)?" + S),
        re.compile(r"(?:^|[.!?;,]\s*)vote\s+" + S + r"\s+out"),
        re.compile(r"\border you to vote\s+(?:for\s+)?" + S),
        re.compile(
            r"(?<![а-я])(?:голосую|проголосую|голосуем|проголосуем|голосуйте|голосуют|голосовать|голос)"
            r"(?:\s+[а-я]+){0,2}?\s+(?:за|против)\s+" + S
        ),
        re.compile(r"(?<![а-я])мой голос\s*(?:[а-я]+\s+){0,2}?(?:—|-|:|за|против|отдаю)?\s*(?:за\s+)?" + S),
        re.compile(r"(?<![а-я])(?:свой|мой)\s+голос\s+(?:[а-я]+\s+)?отда[а-я]*\s+(?:за\s+|против\s+)?" + S),
        re.compile(
            r"(?<![а-я])давайте\s+(?:(?!не(?![а-я]))[а-я]+\s+){0,2}?(?:выгоним|заголосуем|уберем|голосовать за)\s+" + S
        ),
        # the verb before its seat, after anyone but a third person or a question ("everyone vote 4", "gonna vote #3")
        re.compile(
            r"(?<!\byou )(?<!\bhe )(?<!\bshe )(?<!\bthey )(?<!\bdid )(?<!\bwho )(?<!\bshould )(?<!\bwhy )"
            r"\b(?:vote|voting)\s+(?:for\s+|against\s+|on\s+|out\s+)?(?:the\s+)?" + S + r"(?![^.]*\?)"
        ),
        re.compile(r"\bmy\s+(?:\w+\s+)?vote\s*(?:is|goes to|will go to|:|—)\s*(?:for\s+|on\s+)?" + S),
        re.compile(r"(?:^|[.!?]\s*)vote\s*[:—]\s*" + S),
        re.compile(
            r"\b(?:i\s+|i'll\s+|i will\s+|i'm\s+|i am\s+|then i\s+)?(?:nominate|nominating|put up|putting up|"
            r"am putting up)\s+(?:the\s+)?" + S
        ),
        re.compile(
            r"(?<![а-я])(?:про|за)?голос(?:ую|уем|уйте|уют|овать)\s+(?:[а-я]+\s+)?(?:за|в|против)?\s*(?:[а-я]+\s+на\s+)?"
            + S
        ),
        re.compile(
            r"(?<![а-я])(?:итоговый\s+|мой\s+|свой\s+)?голос(?:\s+мой)?\s*(?:(?:—|:|-)\s*(?:в|за|против)?\s*|"
            r"(?:в|за|против)\s+|(?=¤\d{1,2}+(?!ᵃ)))" + S  # «голос шестого»: seat 6's vote, not the speaker's
        ),
        re.compile(r"(?<![а-я])(?:кидаю|отдаю|ставлю|отдам)\s+(?:свой\s+|мой\s+)?голос\s+(?:в|за|на|против)\s+" + S),
        re.compile(r"(?<![а-я])за\s+" + S + r"\s+(?:[а-я]+\s+)?(?:про|за)?голос(?:ую|уем|уйте|уют|овать)(?![а-я])"),
        re.compile(r"(?<![а-я])я\s+(?:тоже\s+|только\s+)?за\s+" + S + r"\s*(?:[.!]|$)"),
        re.compile(
            r"(?<![а-я])(?:выставля[юе]м?|выставлю|выставим|выставляйте|выдвигаю|выдвину)\s+(?:на голосование\s+)?" + S
        ),
        re.compile(
            r"(?<![а-я])(?:выгоняем|выгоним|выгоните)\s+" + S + r"|(?<![а-я])(?:присоединяюсь|поддерживаю)\s+(?:к\s+)?"
            r"(?:голосовани[а-я]*|выставлени[а-я]*)\s+(?:за|против)?\s*" + S
        ),
        re.compile(r"(?:^|[.!?,;]\s*)(?:lynch|eliminate)\s+(?:the\s+)?" + S),
        re.compile(r"\bvot(?:e|ing)\s+with\s+[^.¤]{0,24}?,?\s+(?:for|against)\s+" + S),
        re.compile(r"(?<![а-я])(?:сажаем|сажаю|посадим|посажу)\s+" + S),
        re.compile(r"\bmy nomination\s*(?:is|:|—)\s*" + S + r"|(?<![а-я])моя кандидатура\s*(?:—|:|это)?\s*" + S),
        re.compile(S + r"\s*(?:—|is)\s*(?:my)\s+(?:pick|choice)\b|" + S + r"\s*—\s*мой выбор"),
        re.compile(S + r"\s+gets my vote|\bi'?m going with\s+" + S + r"|\bmy (?:pick|choice) (?:is|:|—)\s*" + S),
        re.compile(r"\bvote to (?:eliminate|kick|remove|lynch|execute|get rid of)\s+" + S + r"|\blet'?s lynch\s+" + S),
        re.compile(r"(?<![а-я])я\s+(?:тоже\s+)?против\s+" + S + r"\s*(?:[.!]|$)|(?<![а-я])мой выбор\s*(?:—|:)?\s*" + S),
        re.compile(
            r"(?<![а-я])(?:предлагаю|давайте|надо|нужно)\s+(?:[а-я]+\s+)?(?:выгнать|убрать|заголосовать|выставить|"
            r"голосовать за)\s+" + S
        ),
        re.compile(
            r"(?<![а-я])(?:голос\s+(?:свой\s+)?(?:отдаю|отдам)|(?:отдаю|отдам)\s+(?:свой\s+|мой\s+)?голос)\s+(?:за\s+)?"
            + S
            + r"|(?<![а-я])(?<!ночью )(?:иду|захожу|пойду)\s+(?:в|против)\s+"
            + S
            + r"(?![^.]*ноч)"
            + r"|\b(?:so\s+)?i(?:'ll| will)?\s+go\s+(?:with\s+|for\s+|on\s+)?"
            + S
            + r"(?!\s+(?:tonight|at night))"
        ),
        re.compile(
            r"\b(?:let's|let us|we should|we need to|we must|we have to|i want to)\s+"
            r"(?:get|kick|throw|vote|push|send|boot)\s+" + S + r"\s+out\b"
        ),
        re.compile(  # the vote given to the seat just accused: "…4 is the don, and that's where my vote goes"
            S + r"[^.¤]*?(?:that's where my vote goes|my vote goes there|hence my vote|so that's my vote|"
            r"туда и (?:мой\s+)?голос|туда (?:мой\s+)?голос|за него и голос[а-я]*)"
            + r"|\bi\s+want\s+(?:the\s+)?"
            + S
            + r"\s+(?:out|gone|eliminated)\b"
            + r"|(?<![а-я])хочу,?\s+чтобы\s+"
            + S
            + r"\s+(?:[а-я]+\s+)?(?:покинул[а]?|ушел|ушла|вылетел[а]?)(?![а-я])"
        ),
        re.compile(
            r"\b(?:my\s+)?hand\s+(?:goes\s+|is\s+)?up\s+(?:for|against)\s+"
            + S
            + r"|\b(?:raising|raise|i raise)\s+my hand\s+(?:for|against)\s+"
            + S
            + r"|(?<![а-я])(?:моя\s+)?рук[аи]\s+(?:[а-я]+\s+)?(?:за|против)\s+"
            + S
            + r"|(?<![а-я])поднимаю\s+руку\s+(?:за|против)\s+"
            + S
        ),
    ),
    ALIVE: (
        re.compile(
            r"(?:^|[.!?;,—]\s*)(?:(?:hey|ok|okay|so|well|now|and|then|эй|так|ну|итак|теперь|а|и)\s*,?\s*)?"
            r"((?:¤\d{1,2}+(?:\s+(?:and|и)\s+¤\d{1,2}+){0,11}+\s*(?:[,—:;]|(?=\s+(?:please|пожалуйста)\b))\s*){1,12}+)"
            r"(?!\s*(?:это\s+|the\s+)?(?:черн|красн|мафи|дон|шериф|доктор|мирн|маньяк|black|red|mafia))"
            r"(?!\s*(?:you're|you are|ты|вы)\s+(?:\w+\s+)?(?:black|mafia|the don|a liar|lying|suspects|черн|мафи|"
            r"дон|лжец|вр|подозреваем))"
            r"(?![^.!]{0,200}\btrust you\b)(?![^.!]{0,200}(?<![а-я])(?:вам|тебе)\s+(?:[а-я]+\s+)?доверяю)"
            r"(?=[^.!]{0,200}(?:\?|\byou\b|\byour\b|explain|speak|tell|answer|convince|say\b|defend|justify|care to|"
            r"stop\b|remind|clarify|elaborate|comment|confirm|go ahead|your turn|speak up|"
            r"\btalk\b|хватит|перестань|поговори|"
            r"(?<![а-я])(?:ты|тебе|тебя|твой|твою|твои|твое|твоя|твоего|вы|ваш[а-я]*|объясни|скажи|ответь|расскажи|убеди|"
            r"говори|поясни|оправдайся|оправдывайся|оправдывайтесь|объясняйся|отвечай|отвечайте|рассказывай|защищайся|выскажись|объясните|скажите|ответьте|расскажите|поясните|говорите|"
            r"убедите|оправдайтесь|защищайтесь|выскажитесь|напомни|напомните|уточни|уточните|подтверди|подтвердите|"
            r"прокомментируй|прокомментируйте|твоя очередь|ваша очередь)(?![а-я])))"
        ),
        re.compile(r"\b(?:hear from|listen to|hear what|hear)\s+" + L),
        re.compile(
            r"\bquestions?\s+(?:for|to)\s+"
            + S
            + r"|(?<![а-я])вопрос[а-я]*\s+(?:(?:к|для)\s+"
            + S
            + r"|¤(\d{1,2}+)(?!ᵃ))"  # «вопрос восьмому»; «вопрос пятого» is seat 5's question
            + r"|\bi (?:want|would like|'d like) to ask\s+"
            + S
        ),
        re.compile(
            r"\b(?:can|could|would|will)\s+"
            + L
            + r"\s+(?:(?:both|all|please|maybe|also|now)\s+)?(?:tell|explain|answer|"
            r"say|share|walk|speak|talk|comment|clarify|elaborate|respond|remind|confirm|give|describe|justify)\b|"
            r"(?<![а-я])(?:может|могут)\s+ли\s+" + L + r"\s+(?:объясн|сказать|ответ|рассказ)"
        ),
        re.compile(
            r"\b(?:know|hear|understand)\s+what\s+" + S + r"\s+(?:thinks|says|has to say|makes of)|(?<![а-я])"
            r"(?:знать|услышать|понять|спросить),?\s+что\s+(?:думает|скажет|считает)\s+" + S
        ),
        re.compile(
            r"\b(?:i want|i'd like|i ask|i need|i'd ask|i request that|i ask that|request that)\s+"
            + S
            + r"\s+(?:to\s+)?(?:explain|speak|answer|tell|talk|"
            r"defend|justify|comment|say)"
        ),
        re.compile(
            S + r"\s+(?:прошу|попрошу|хочу попросить)\s+(?:объясн|высказ|ответ|рассказ|оправда|поясни|"
            r"прокомментир)|(?<![а-я])(?:прошу|попрошу)\s+" + S + r"\s+(?:объясн|высказ|ответ|рассказ|оправда)"
        ),
        re.compile(r",\s*" + S + r"\s*\?\s*$"),  # "do you really think I'm mafia, seat 3?"
        re.compile(r"(?<![а-я])слово\s+" + S + r"|\bfloor to\s+" + S + r"|\b" + S + r",?\s+you're up\b"),
        re.compile(r"(?<![а-я])(?:послушать|послушаем|выслушать|услышать)\s+" + L),
        re.compile(
            r"\b(?:i want to hear|i'd like to hear|i ask|let's hear|i'd like to ask)\s+(?:what\s+|from\s+)?" + S
        ),
        re.compile(
            r"(?<![а-я])(?:хочу услышать|хочу спросить|прошу|послушаем|спрошу)\s*,?\s+(?:что думает\s+|у\s+)?" + S
        ),
    ),
}
