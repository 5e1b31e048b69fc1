"""The constructions of an accusation ("I suspect 7", "5 is black", «четвёртый мне не нравится») and of a black
teammate named ("my partner 3", «мы с третьим — команда»), in English and Russian, over the normalised text (`¤N` a
seat). Each pattern's groups hold the seats it states."""

from __future__ import annotations

import re

from arena.research.speech_reader.seats import L, S
from arena.research.speech_reader.statement import ACCUSE, TEAMMATE

PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    ACCUSE: (
        # a seat (or list) called black, with hedges between: "3 smells black", "9 seems like the most obvious mafia"
        re.compile(
            L + r"\s*(?:(?:both|also|all|really|clearly|definitely)\s+)?(?:is|are|'s|=|—|:|was|looks?|seems?|smells?|"
            r"feels?|reads?|remains?|stays?)?\s+(?:(?:definitely|def|clearly|"
            r"probably|surely|obviously|totally|certainly|really|very|pretty|so|both|also|too|just|likely|most likely|"
            r"like|a|an|the|most|obvious|most obvious|100%|for sure|to me|kinda|almost certainly|a black pair|"
            r"the most obvious)\s+){0,4}(?:black|mafia|mafioso|the don|don|scum|suspicious|sus|a liar|lying|fake|"
            r"a wolf|evil)(?![a-z])"
        ),
        re.compile(r"(?:^|[.!?:,]\s*)" + L + r"\s*[—=:]?\s*(?:black|mafia|scum)(?![a-z])"),  # "my read: 5 black"
        re.compile(
            L + r"\s*(?:—|это|,)?\s*(?:(?:точно|явно|скорее|скорее всего|по-любому|стопроцентн[а-я]*|сам[а-я]+|"
            r"очевидн[а-я]*|оба|обе|тоже|для меня|мне|по-моему|наверняка|100%|возможно|безусловно|наиболее|"
            r"самые|самый|вероятн[а-я]*|,|—|это)\s*){0,4}"
            r"(?:черн[а-я]*|мафи[а-я]*|дон|доном|подозрительн[а-я]*|фейк|лжец|врет|лжет|пахнет черн[а-я]*)(?![а-я])"
        ),
        re.compile(
            r"(?:^|[.!?:,]\s*)(?:black team|blacks?|mafia|suspects?|the mafia is|черные|мафия|подозреваемые)\s*[:—=]\s*"
            r"(?:это\s+|скорее\s+|probably\s+|possibly\s+|likely\s+|наверное\s+)?" + L
        ),
        re.compile(
            L + r"\s*,?\s*(?:is|—)?\s*(?:(?:probably|likely|most likely|скорее всего|наверное|возможно|,)\s*)*"
            r"(?:his|her|their|его|ее|их)\s+(?:partner|teammate|напарни[а-я]*)"
        ),
        re.compile(
            r"\bthe only (?:black|mafia|don)\b[^.¤]{0,40}\bis\s+"
            + S
            + r"|(?<![а-я])единственн[а-я]*[^.¤]{0,40}(?:черн|мафи|дон)[^.¤]{0,20}—\s*"
            + S
        ),
        re.compile(
            S + r"\s*,\s*(?:you're|you are|ты|вы)\s+(?:\w+\s+)?(?:black|mafia|the don|a liar|lying|черн[а-я]*|"
            r"мафи[а-я]*|дон|лжец|врешь|лжешь)"
        ),
        re.compile(
            r"(?:мне\s+)?не нравится\s+" + S + r"|" + S + r"\s+(?:мне\s+)?не нравится|"
            r"\bi\s+(?:really\s+)?(?:don't|do not) like\s+" + S
        ),
        re.compile(r"(?<![а-я])не (?:доверяю|верю)\s+" + S),
        re.compile(
            L + r"\s+(?:is|are|'s|looks?|seems?)\s+(?:(?:acting|being|really|very|pretty|so|a bit|kinda|super)\s+)*"
            r"(?:shady|sketchy|fishy|scummy|dodgy|off|weird|suspect)\b"
        ),
        re.compile(
            r"\bscum\s*read\s+(?:on|for)\s+" + L + r"|" + S + r"'s\s+(?:claim|story)\s+is\s+(?:fake|a lie|false)"
        ),
        re.compile(r"\bsomething(?:'s| is)\s+(?:off|fishy|wrong)\s+(?:about|with)\s+" + L),
        re.compile(L + r"\s+(?:[а-я]+\s+)?(?:мутн[а-я]*|темнит|сливается|подозрителен|подозрительна)(?![а-я])"),
        re.compile(r"(?<![а-я])подозрени[а-я]*\s+(?:к|против)\s+" + L),
        re.compile(L + r"\s+(?:[а-я]+\s+)?похож[а-я]*\s+на\s+(?:мафию|черн[а-я]*|дона)"),
        re.compile(r"\bi\s+(?:strongly\s+|really\s+)?suspect\s+" + L),
        re.compile(r"\bmost suspicious\b[^.¤]{0,12}" + L),
        re.compile(
            L + r"\s+(?:is|are|looks?|seems?|'s)\s+(?:(?!not\b|never\b|no\b|than\b|red\b)\w+\s+){0,3}?"
            r"(?:black|mafia|mafioso|don|suspicious|a liar|"
            r"lying|fake)\b"
        ),
        re.compile(L + r"\s+(?:are|is)\s+(?:my|our)\s+(?:main\s+|top\s+|prime\s+)?suspects?\b"),
        re.compile(r"\b(?:my|our)\s+suspicion\s+(?:falls|is|goes)\s+(?:on|to)\s+" + L),
        re.compile(r"\b(?:bad feeling|doubts?|suspicions?)\s+about\s+" + L),
        re.compile(r"(?<![а-я])(?:плохое предчувствие|сомнения|подозрения)\s+(?:насчет|по поводу|о|об)\s+" + L),
        re.compile(L + r"\s+(?:has been|have been|keeps?|kept)\s+lying"),
        re.compile(
            r"\bmost likely\s+(?:the\s+)?(?:don|mafia|mafioso|black)\b[^.¤]{0,8}"
            + L
            + r"|"
            + L
            + r"\s+is\s+(?:the\s+)?most likely\s+(?:the\s+)?(?:don|mafia|mafioso|black)\b"
        ),
        re.compile(S + r"\s*—?\s*(?:самый|самая)\s+(?:вероятный|явный|очевидный)\s+(?:дон|мафиози|черный)"),
        re.compile(S + r"\s+(?:[а-я]+\s+){0,3}(?:ведет себя|играет)\s+(?:[а-я]+\s+)?по-черному"),
        re.compile(S + r"\s+is the one i trust (?:the\s+)?least|\btrust\s+" + S + r"\s+(?:the\s+)?least"),
        re.compile(L + r"\s+(?:look|looks|seem|seems)\s+like\s+(?:the\s+|a\s+)?(?:mafia|mafioso|black|don)\b"),
        re.compile(r"\b(?:main|top|prime|first|biggest)\s+suspect\s+(?:is|:|—)?\s*" + S),
        re.compile(
            L + r"\s+(?:is|are|looks|seems|'s)\s+"
            r"(?:the\s+most\s+|definitely\s+|probably\s+|clearly\s+|very\s+|pretty\s+)?"
            r"(?:black|mafia|a mafioso|the don|suspicious|a liar|lying|a fake|fake)\b(?:\s+to me)?"
        ),
        re.compile(S + r"\s+(?:is not|isn't) the (?:real\s+)?sheriff"),
        re.compile(
            S
            + r"\s+is the one to watch|\bkeep (?:your |our )?eyes on\s+"
            + S
            + r"|\blook at\s+"
            + S
            + r"\s+instead"
            + r"|\b(?:keep an eye on|watch out for|be careful with|beware of)\s+"
            + S
            + r"|(?<![а-я])(?:присматривайте за|присмотритесь к|следите за|осторожнее с|бойтесь)\s+"
            + S
        ),
        re.compile(S + r"\s*—?\s*не шериф|(?<![а-я])(?:смотреть\s+(?:надо|нужно)|смотрите)\s+на\s+" + S),
        re.compile(r"\bi think\s+" + S + r"\s+is\s+(?:black|mafia|the don|a mafioso)\b"),
        re.compile(r"\bi\s+(?:do not|don't)\s+trust\s+" + S),
        re.compile(r"\b(?:do not|don't)\s+believe\s+" + S),
        re.compile(r"(?<![а-я])(?:подозреваю|подозреваемый\s*—?|подозреваемый это)\s+" + L),
        re.compile(r"(?<![а-я])(?:самы[ей]\s+)?подозрительн[а-я]*\s*[—:]\s*" + L),
        re.compile(r"(?<![а-я])подозреваем[а-я]*\s*[—:]\s*" + L),
        re.compile(r"(?<![а-я])подозрени[а-я]*\s+(?:[а-я]+\s+)?(?:падает\s+)?на\s+" + L),
        re.compile(
            r"(?:и\s+)?" + L + r"\s+(?:[а-я]+\s+){0,2}(?:кажутся|кажется|выглядит|выглядят)\s+(?:[а-я]+\s+)?"
            r"(?:черн[а-я]*|подозрительн[а-я]*|мафией|мафиози|доном)"
        ),
        re.compile(S + r"\s+(?:я\s+)?доверяю меньше"),
        re.compile(L + r"\s*(?:—|это)\s*(?:мой|мои|наш)\s+(?:главн[а-я]+\s+|основн[а-я]+\s+)?подозреваем[а-я]*"),
        re.compile(S + r"\s+похож\s+на\s+(?:мафию|черного|дона)"),
        re.compile(
            r"(?<!мы с )"
            + S
            + r"\s+(?:для меня\s+|точно\s+|явно\s+)*(?:—\s*)?(?:черный|мафия|мафиози|дон|подозрител[а-я]*|фейк|"
            r"лжец|врет|лжет)(?![а-я])"
        ),
        re.compile(S + r"\s+(?:[а-я]+\s+){0,2}не (?:доверяю|верю)"),
        re.compile(r"(?<![а-я])не доверяю\s+" + S),
        re.compile(r"(?<![а-я])не верьте\s+" + S),
        # generic constructions: a seat and what people call a black seat, in either order, hedges between
        re.compile(
            L + r"\s*(?:,\s*)?(?:is|are|'s|=|—|:|looks?|seems?|feels?|reads?|smells?|comes? (?:off|across))?\s+"
            r"(?:(?:as|like|definitely|def|clearly|probably|surely|obviously|totally|certainly|really|very|pretty|so|"
            r"super|kinda|kind of|a bit|quite|most likely|likely|for sure|100%|just|also|both|too|to me|imo|tbh|a|an|"
            r"the)\s+){0,4}(?:sus|sussy|scummy|scum|shady|sketchy|fishy|dodgy|evil|dirty|guilty|a wolf|a werewolf|"
            r"a killer|a snake|a rat|a traitor|a fake|faking|bluffing|one of them|one of the (?:blacks|mafia|bad guys|"
            r"killers|wolves)|on the (?:black|mafia) (?:team|side)|in the mafia|part of the (?:mafia|black)(?: team)?|"
            r"(?:a\s+)?members? of the mafia|black|mafia|mafioso)(?![a-z])"
            r"(?!\s+(?:check|checks|claim|team\b|player\s+is\b))"
        ),
        re.compile(
            L + r"\s+(?:is|are|has been|have been|was|were|keeps?|kept)?\s*(?:clearly\s+|obviously\s+|definitely\s+|"
            r"just\s+|totally\s+)?(?:lying|lied|hiding something|faking|fake-?claiming|bussing|pushing lies|"
            r"covering for (?:¤\d{1,2}+|his|her|their|the)|giving (?:me\s+)?(?:mafia|scum|black|bad|evil) vibes|"
            r"gives? (?:me\s+)?(?:off\s+)?(?:mafia|scum|black|bad|evil) vibes|pings? (?:me|my)|"
            r"(?:plays?|acts?|acting|talks?|votes?) like (?:a\s+|the\s+)?(?:mafia|mafioso|don|black|scum|wolf))"
        ),
        re.compile(
            r"\bi(?:'m| am)?\s+(?:really\s+|very\s+|quite\s+|pretty\s+|a bit\s+|kinda\s+)?(?:suspicious|wary|"
            r"skeptical|sceptical) (?:of|about)\s+"
            + L
            + r"|\bi(?:'m| am)\s+(?:looking at|eyeing|watching)\s+"
            + L
            + r"(?!\s+(?:for|as)\b)"
            + r"|\b(?:my|our) (?:eyes are|money(?:'s| is)|bet is|suspicion is|suspicions are|gut says|gut is)\s+"
            r"(?:on\s+)?" + L
        ),
        re.compile(
            r"\bi(?:'ve)?\s+(?:have|got|had|put|see|count)\s+" + L + r"\s+(?:as|down as|pegged as|in|on|among)\s+"
            r"(?:my\s+)?(?:the\s+)?(?:black|mafia|scum|blacks|suspects?|bad guys)\b"
            + r"|\bmy\s+(?:read|gut|feeling|vibe|take|guess|bet)\s+(?:on|about|for)\s+"
            + L
            + r"\s+(?:is|:|—)\s+(?:that he's\s+|that she's\s+)?(?:a\s+|the\s+)?"
            r"(?:black|mafia|scum|scummy|bad|don|negative)\b"
        ),
        re.compile(
            r"(?:^|[.!?,:;—]\s*)(?:and\s+|so\s+|i think\s+|i bet\s+|i'd say\s+)?the\s+(?:real\s+|other\s+)?"
            r"(?:don|mafia|mafioso|black|liar|killer|fake(?: sheriff)?|wolf|scum)\s+"
            r"(?:is|=|:|—|here is|has to be|must be)\s+"
            r"(?:probably\s+|definitely\s+|clearly\s+|obviously\s+|surely\s+|likely\s+|either\s+)?"
            + L
            + r"(?!\s*(?:'s|is|are|and me|and i|will|would|checks?|checked|should|did|was)\b)"
        ),
        re.compile(
            L
            + r"\s+(?:is|are|'s)\s+(?:the one|who) i\s+(?:suspect|trust least|don't trust|distrust|doubt)\b|"
            + L
            + r"\s*(?:—|,)?\s*(?:you're|you are|are|—)\s+(?:all\s+)?(?:my|the|our)\s+(?:main\s+|top\s+|prime\s+)?"
            r"suspects?\b"
        ),
        re.compile(r"\bi\s+(?:really\s+)?(?:distrust|doubt|don't buy|do not buy|can't trust|cannot trust)\s+" + L),
        re.compile(L + r"\s+(?:can't|cannot|can not|shouldn't|should not)\s+be trusted\b"),
        re.compile(
            L + r"\s+(?:is|are|'s)\s+(?:definitely\s+|clearly\s+|obviously\s+|surely\s+)?not\s+(?:a\s+)?"
            r"(?:red|town|townie|civilian|clean|innocent)\b(?!\s*,?\s*(?:i|we)\s+(?:checked|know))"
        ),
        re.compile(
            L + r"\s+(?:is|are|'s|'re)\s+(?:\w+\s+){0,2}?(?:working|playing|voting|pushing|fighting)\s+(?:\w+\s+)?"
            r"(?:for|with|on)\s+(?:the\s+)?(?:blacks|mafia|black team|black side|scum|bad guys)\b"
            + r"|(?:^|[.!?,:;]\s*)(?:my\s+)?(?:suspicion|suspect|suspects|scum|black)\s*(?:list|reads?)\s*[:—=]\s*"
            + L
            + r"|\blist of (?:suspects|blacks)\s*[:—=]\s*"
            + L
        ),
        re.compile(
            r"\b(?:bad|mafia|scum|scummy|black|evil|shady)\s+vibes?\s+(?:from|off|about)\s+"
            + L
            + r"|(?<![а-я])(?:от\s+)?"
            + L
            + r"\s+(?:[а-я]+\s+)?(?:плохие|черные|мафиозные|дурные|нехорошие)\s+"
            r"(?:вибрации|вайбы|ощущения|флюиды)"
            + r"|(?<![а-я])(?:плохие|черные|мафиозные|дурные|нехорошие)\s+(?:вибрации|вайбы|ощущения|флюиды)\s+"
            r"(?:от|насчет)\s+" + L
        ),
        re.compile(
            L
            + r"\s+as\s+(?:my|our|the)\s+(?:main\s+|top\s+|prime\s+|only\s+)?suspects?\b"
            + r"|"
            + L
            + r"\s+being\s+(?:the\s+|a\s+)?(?:mafia|black|don|scum|mafioso|a liar)\b"
            + r"|"
            + L
            + r"\s+(?:is\s+)?(?:still\s+|just\s+)?(?:pretending|faking|posing)\s+(?:to be|as)\s+(?:a\s+)?"
            r"(?:town|red|civilian|sheriff|doctor)\b"
            + r"|"
            + L
            + r"\s+(?:все?\s+|еще\s+)?(?:притворяется|прикидывается|косит под)\s+(?:мирн|красн|шериф|доктор)"
            + r"|"
            + L
            + r"\s*(?:is|—|,)?\s*(?:the only one\s*,?\s+|единственн[а-я]+\s*,?\s+)?(?:whose|чья|чей)\s+"
            r"(?:story|claim|account|история|версия|рассказ)\s+(?:doesn't|does not|не)\s+"
            r"(?:add up|make sense|check out|hold up|сходится|складывается|вяжется)"
        ),
        re.compile(
            L + r"\s+(?:is|'s|are|looks|seems)\s+(?:even\s+|much\s+|way\s+)?(?:shadier|sketchier|scummier|fishier|"
            r"more suspicious|worse|darker)\b"
            + r"|"
            + L
            + r"\s+(?:[а-я]+\s+)?(?:еще\s+|гораздо\s+|намного\s+)?(?:мутнее|подозрительнее|чернее|хуже)(?![а-я])"
            + r"|"
            + L
            + r"\s+(?:really\s+)?(?:worries|bothers|concerns|troubles|scares)\s+me\b"
            + r"|(?<![а-я])(?:беспокоит|тревожит|пугает)\s+(?:меня\s+)?(?:[а-я]+\s+)?"
            + L
        ),
        re.compile(  # what a seat says or does called suspicious: "player 11's arguments … suspicious"
            S + r"'s\s+(?:arguments?|story|behaviou?r|logic|claim|defen[cs]e|vote|votes|play|reasoning|words)\s+"
            r"(?:(?!not\b|never\b)\w+\s+){0,5}?(?:suspicious|fishy|shady|scummy|fake|unconvincing|off)\b"
            + r"|(?<![а-я])(?:аргументы|поведение|логика|версия|история|слова|речь|игра|голосование)\s+"
            + S
            + r"\s+(?:(?!не(?![а-я]))[а-я]+\s+){0,5}?(?:подозрительн[а-я]*|мутн[а-я]*|фальшив[а-я]*|неубедительн[а-я]*)"
        ),
        # Russian: «седьмой явно из чёрной команды», «у меня второй в чёрных», «восьмой играет за мафию»
        re.compile(
            L + r"\s*(?:—\s*)?(?:(?:точно|явно|скорее всего|наверное|по-моему|похоже|однозначно|100%|для меня|тоже|оба|"
            r"сто процентов|по любому|по-любому)\s+)*(?:из|среди|в)\s+(?:черн[а-я]*|мафи[а-я]*|команд[а-я]* мафии|"
            r"черной команд[а-я]*|мафиозн[а-я]*)(?![а-я])"
        ),
        re.compile(
            r"(?<![а-я])у меня\s+" + L + r"\s+(?:[а-я]+\s+)?(?:в|на)\s+(?:черн[а-я]*|мафи[а-я]*|подозрени[а-я]*|"
            r"минусе|минусах)(?![а-я])"
        ),
        re.compile(
            L + r"\s+(?:[а-я]+\s+){0,2}?(?:играет|играют|топит|топят|работает|работают|голосует|голосуют)\s+"
            r"(?:[а-я]+\s+)?(?:за|на)\s+(?:черн[а-я]*|мафи[а-я]*)(?![а-я])"
        ),
        re.compile(
            L + r"\s*(?:—\s*)?(?:(?:точно|явно|однозначно|уж точно|совсем|для меня|по-моему)\s+)*не\s+"
            r"(?:мирн[а-я]*|красн[а-я]*|чист[а-я]*)(?![а-я])(?![^.]*(?<![а-я])(?:проверил|проверка|знаю)(?![а-я]))"
        ),
        re.compile(
            L + r"\s+(?:[а-я]+\s+){0,2}?(?:врет|лжет|врут|лгут|врал|врала|наврал[а]?|соврал[а]?|юлит|виляет|темнит|"
            r"крутит|выкручивается|палится|спалился|спалилась|прокололся|прокололась|сливает|мутит|гонит|"
            r"выгораживает|покрывает|прикрывает|отмазывает)(?![а-я])"
        ),
        re.compile(
            L + r"\s*(?:—\s*)?(?:(?:точно|явно|скорее всего|наверное|по-моему|просто|какой-то|какая-то|очень|"
            r"слишком|подозрительно)\s+)*(?:мутн[а-я]*|скользк[а-я]*|стремн[а-я]*|гнил[а-я]*|лжив[а-я]*|фальшив[а-я]*|"
            r"лжешериф[а-я]*|предатель|крыса|врун[а-я]*|обманщи[а-я]*|самозван[а-я]*|волк|оборотень|змея|убийца)(?![а-я])"
        ),
        re.compile(
            r"(?<![а-я])(?:подозрени[а-я]*|вопросы)\s+(?:[а-я]+\s+)?(?:вызывает|вызывают|у меня к)\s+"
            + L
            + r"|"
            + L
            + r"\s+(?:[а-я]+\s+)?(?:вызывает|вызывают)\s+(?:[а-я]+\s+)?(?:подозрени[а-я]*|сомнени[а-я]*)"
            + r"|"
            + L
            + r"\s+(?:у меня\s+)?(?:под|на)\s+подозрении"
            + r"|(?<![а-я])ставлю на\s+(?:то,?\s+что\s+)?"
            + L
            + r"\s+(?:[а-я]+\s+)?(?:черн|мафи|дон|из черн)"
        ),
        re.compile(
            r"(?:^|[.!?,:;]\s*)(?:а\s+|и\s+|думаю,?\s+)?(?:настоящий\s+|второй\s+)?(?:дон|мафия|мафиози|черный|черная|"
            r"черные|лжец|лжешериф|фейк)\s*(?:—|это|:|=)\s*(?:скорее всего\s+|наверное\s+|точно\s+|явно\s+|"
            r"похоже\s+|это\s+)?" + L + r"(?!\s*(?:и я|и мы|—\s*я)(?![а-я]))"
        ),
        re.compile(
            r"(?<![а-я])(?:не доверяю|не верю|сомневаюсь в|не нравится мне|настораживает|напрягает|смущает)\s+"
            r"(?:[а-я]+\s+)?"
            + L
            + r"|"
            + L
            + r"\s+(?:[а-я]+\s+)?(?:меня\s+)?(?:настораживает|напрягает|смущает|бесит)(?![а-я])"
        ),
        # the seat named after the accusation it answers: "one of them is lying, and I think it's 5", «кто-то врёт,
        # думаю — пятый», "whoever shot me, it's 6 or 9"
        re.compile(
            r"\b(?:lying|liar|lies|black|don|mafia|mafioso|scum|fake|shot me|killed me)\b[^.?]*?"
            r"(?:\b(?:i think|i bet|i'd say|my bet is|my guess is|i guess|i'm sure|probably|surely)\s*,?\s*|,\s*)"
            r"(?:it's|it is|that's|that is)\s+"
            + L
            + r"(?!\s*(?:'s|is|are|was|were|and me)\b)"
            + r"|(?<![а-я])(?:врет|лжет|врут|черн[а-я]*|дон|мафи[а-я]*|фейк|стреляли в меня|убили меня)(?![а-я])[^.?]*?"
            r"(?<![а-я])(?:думаю|наверное|скорее всего|по-моему|ставлю на|уверен)\s*(?:,|—|:)?\s*(?:что\s+|это\s+)?"
            r"(¤\d{1,2}+(?:(?:\s*,\s*|\s+(?:или|и)\s+)¤\d{1,2}+)*)(?!ᵃ)(?!\s*(?:—\s*)?(?:красн|мирн|шериф))"
        ),
    ),
    TEAMMATE: (
        re.compile(
            L
            + r"\s+(?:is|are)\s+(?:one of (?:ours|us)|with us|on our side)\b"
            + r"|"
            + L
            + r"\s*(?:—\s*)?(?:свой|своя|свои|из наших)\s*(?:[.,!;]|$)"
        ),
        re.compile(
            r"\bour\s+(?:guy|man|boy|girl|person)\s*(?:is|:|—)\s*" + S + r"|(?<![а-я])наш[а-я]*\s+(?:человек|парень|"
            r"девушка)\s*(?:—|:|это)?\s*" + S
        ),
        re.compile(
            r"(?:\bme and\s+"
            + S
            + r"|"
            + S
            + r"\s+and me|"
            + S
            + r"\s+and i)\s+are\s+(?:the\s+|both\s+)?(?:mafia|black|"
            r"a team|on the same (?:side|team)|together|partners|in this together|a pair)\b"
        ),
        re.compile(
            r"(?<![а-я])мы\s+с\s+" + S + r"\s+(?:в\s+одной\s+команде|в\s+команде|заодно|вместе|на\s+одной\s+стороне|"
            r"одна\s+команда|в\s+паре|пара|напарники)|"
            r"(?<![а-я])я\s+и\s+" + S + r"\s*(?:—|,)?\s*(?:мафия|черные|команда)"
        ),
        re.compile(
            r"\b(?:my|our)\s+(?:team\s*mates?|partners?|allies|ally|accomplices?|fellow (?:mafia|mafioso)|don)"
            r"\s*(?:were|are|is|was|:|—)?\s*" + L
        ),
        re.compile(
            L + r"\s+(?:is|was|are|were)\s+(?:my|our)\s+(?:team\s*mates?|partners?|ally|allies|accomplices?|don)\b"
        ),
        re.compile(
            r"(?:^|[.!?,]\s*)(?:partner|teammate|fellow mafioso|fellow mafia|comrade|напарник|тиммейт|партнер|"
            r"союзник)\s+" + S
        ),
        re.compile(
            r"(?<![а-я])(?:мо[йия]|наш[а-я]*)\s+(?:напарни[а-я]*|партнер[а-я]*|сообщни[а-я]*|тиммейт[а-я]*|"
            r"союзни[а-я]*|дон)\s*(?:—|:|,)?\s*(?:это\s+)?" + L
        ),
        re.compile(
            L + r"\s*(?:—|был[аи]?|это)?\s*(?:мо[а-я]+|наш[а-я]*)\s+(?:напарни|партнер|сообщни|тиммейт|союзни|"
            r"дон)"
        ),
        re.compile(r"\bmy\s+(?:team\s*mate|partner|fellow mafioso|fellow mafia|accomplice|ally)\b[^.¤]{0,12}" + S),
        re.compile(S + r"\s+is\s+my\s+ally\b|" + S + r"\s*—?\s*мой\s+союзник"),
        re.compile(S + r"\s+is\s+my\s+(?:team\s*mate|partner|accomplice)"),
        re.compile(S + r"[^.¤]{0,16}(?:,\s*my (?:team\s*mate|partner)|\bon our team|\bone of us)\b"),
        re.compile(S + r"[^.¤]{0,16}(?:,\s*мой (?:напарник|тиммейт|партнер)|из нашей команды|один из нас)"),
        re.compile(S + r"\s+and\s+i\s+are\s+(?:the\s+)?(?:mafia|black|a team|partners)"),
        re.compile(r"(?<![а-я])(?:мой|моя)\s+(?:напарни[а-я]*|тиммейт|партнер|сообщни[а-я]*)\s+" + S),
        re.compile(r"(?<![а-я])мы\s+с\s+(?:напарни[а-я]*|тиммейт[а-я]*|партнер[а-я]*)\s*[,—]?\s*" + S),
        re.compile(S + r"\s*(?:—\s*)?(?:мой|моя)\s+(?:напарни[а-я]*|тиммейт|партнер|сообщни[а-я]*)"),
        re.compile(r"(?<![а-я])мы\s+с\s+" + S + r"\s*—?\s*(?:мафия|черные|команда)"),
    ),
}
