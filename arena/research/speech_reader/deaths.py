"""The constructions of a seat spoken of as out of the game ("seat 3 was killed", «убили пятого») and of a night's
target named ("we shoot 5 tonight", «ночью стреляем в девятого»), in English and Russian, over the normalised text
(`¤N` a seat, `¤Nᵃ` one in an object case). Each pattern's groups hold the seats it states."""

from __future__ import annotations

import re

from arena.research.speech_reader.seats import L, S
from arena.research.speech_reader.statement import DEAD, TARGET

PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    DEAD: (
        re.compile(r"\b(?:killed|shot|lynched|executed)\s+" + L + r"(?!\s+(?:tonight|at night))"),
        re.compile(L + r"\s+(?:got\s+|was\s+)?(?:night-?killed|nk'?d|flipped\s+(?:red|black|town|scum|mafia))"),
        re.compile(
            r"\b(?:took out|taken out)\s+" + L + r"(?!\s+tonight)|(?<![а-я])(?:мафия|они)\s+(?:[а-я]+\s+)?"
            r"(?:убрала|убрали|убила|убили)\s+" + L
        ),
        re.compile(L + r"\s+(?:is|are)\s+no longer with us|" + L + r"\s+(?:с нами\s+)?больше нет(?![а-я])"),
        re.compile(
            r"\bwe(?:'ve|\s+have)?\s+(?:already\s+)?lost\s+" + L + r"|(?<![а-я])мы\s+(?:уже\s+)?потеряли\s+" + L
        ),
        re.compile(
            r"¤(\d{1,2})ᵃ\s+(?:[а-я]+\s+){0,2}(?:убил|убила|застрелил|застрелила|отстрелил|отстрелила|отстрелял|"
            r"отстреляла)(?![а-я])"
        ),  # «четвёртого убил маньяк»: the seat is the object
        re.compile(r"(?<![а-я])(?:убили|отстреляли|потеряли|заголосовали|застрелили)[^.:¤]{0,20}:\s*" + L),
        re.compile(r"(?<![а-я])(?:убил[аи]?|застрелил[аи]?|отстрелял[аи]?|отстрелил[аи]?)\s+" + L),
        re.compile(r"\b(?:dead|gone|out|eliminated|killed)\b[^.:¤]{0,20}:\s*" + L),
        re.compile(
            L + r"\s+(?:was|were|got|has been|have been)\s+(?:lynched|executed|kicked(?: out)?|found dead)"
            r"|" + L + r"\s+(?:didn't|did not)\s+survive"
        ),
        re.compile(
            L + r"\s+(?:[а-я]+\s+)?(?:погиб(?:ла|ли)?|вылетел[аи]?)(?![а-я])|"
            r"(?<![а-я])(?:погиб(?:ла|ли)?|вылетел[аи]?)\s+(?:[а-я]+\s+)?" + S
        ),
        re.compile(
            L + r"\s+(?:[а-я]+\s+)?(?:выкинули|посадили|выбросили)(?![а-я])|"
            r"(?<![а-я])(?:выкинули|посадили|убитый|убитого)\s+(?:[а-я]+\s+)?" + S
        ),
        re.compile(L + r"\s+(?:is|are|was|were)\s+(?:already\s+)?out\b(?!\s+of\s+(?:line|mind|order))"),
        re.compile(
            r"\b(?:shot|killed|died|voted out|removed|eliminated)\s+(?:last night|yesterday|tonight|at night|"
            r"this morning|on night \w+)?\s*[:—]\s*" + L
        ),
        re.compile(r"(?<![а-я])(?:ушли|мертвы|выбыли|погибли|убиты)[^.:¤]{0,20}:\s*" + L),
        re.compile(
            r"(?:dead|died|killed|shot|убил|убит|застрел|отстрел|мертв|умер)[^.]*?"
            r"(?:\bit was|\bthat was|(?<![а-я])это был[а]?)\s+" + S
        ),
        re.compile(r"(?:dead|died|killed|shot)[^.]*?,\s*" + S + r"\s+was\s+(?:him|her)\b"),
        re.compile(L + r"\s+(?:[а-я]+\s+){0,2}(?:удалили|отстреляли|убрали|вынесли|выгнали|заголосовали)(?![а-я])"),
        re.compile(r"(?<![а-я])(?:удалили|отстреляли|вынесли)\s+(?:[а-я]+\s+){0,2}" + S),
        re.compile(
            L + r",?\s+(?:who\s+)?(?:was|got|has been|have been|were|is)\s+(?:killed|shot|voted out|eliminated|"
            r"removed)"
        ),
        re.compile(r"\bwe\s+lost\s+" + S),
        re.compile(r"\bvoted out\s+" + S),
        re.compile(r"(?<![а-я])заголосовал[а-я]*\s+" + S),
        re.compile(r"(?<![а-я])мы\s+потеряли\s+" + S),
        re.compile(S + r"\s+(?:killed|shot)\s+(?:at night|last night|tonight)"),
        re.compile(r"\bthe late\s+" + S),
        re.compile(
            L + r"\s+(?:is|are|has|have)?\s*(?:already\s+|now\s+)?(?:dead|died|gone|left us|left the game|"
            r"out of the game)\b"
        ),
        re.compile(S + r"\s+(?:died|left us|left the game)"),
        re.compile(
            S + r",?\s+(?:who|которого|которую|кого)\s+(?:was\s+|got\s+|вчера\s+|ночью\s+)?"
            r"(?:killed|shot|voted out|убили|"
            r"застрелили|заголосовали|выгнали)"
        ),
        re.compile(r"\b(?:rip|r\.i\.p\.?)\s+" + S),
        re.compile(r"\b(?:since|now that)\s+" + S + r"\s+is\s+(?:gone|dead|out)"),
        re.compile(L + r"\s+(?:уже\s+|теперь\s+)?(?:убит[а-я]*|мертв[а-я]*|умер|покинул[а-я]*|ушел|выбыл|застрелен)"),
        re.compile(r"(?<![а-я])(?:убили|застрелили|заголосовали|выгнали|отстрелили)\s+(?:[а-я]+\s+){0,2}" + S),
        re.compile(L + r"\s+(?:[а-я]+\s+){0,2}(?:убили|застрелили|заголосовали|выгнали|отстрелили)"),
        re.compile(r"(?<![а-я])(?:покойн[а-я]*|ушедш[а-я]*|погибш[а-я]*)\s+" + S),
        re.compile(r"¤(\d{1,2})ᵃ\s+(?:уже\s+|больше\s+)?нет(?![а-я])"),
    ),
    TARGET: (
        re.compile(
            r"\b(?:kill|shoot|take out)\b[^.¤]{0,30}\btonight\b[^.¤]{0,6}(?:that's|that is|i\.e\.|—)\s*"
            + S
            + r"|(?<![а-я])ночью\s+(?:мы\s+)?(?:стреляем|убираем|уберем|убьем|валим)\s+(?:в\s+)?[^.¤]{0,20}"
            r"(?:это|т\.е\.|—)\s*" + S
        ),
        re.compile(r"(?<![а-я])(?:стреляем|отстреливаем|отстреляем|стрельнем|валим|завалим)\s+(?:в\s+|по\s+)?" + S),
        re.compile(r"(?:^|[.!?,;]\s*)(?:shoot|kill)\s+(?:the\s+)?" + S + r"\s+(?:tonight|at night)"),
        re.compile(
            r"\b(?:tonight|tonight's|at night)\b[^.¤]{0,25}?\b(?:shoot|kill|take out|go for|go after|hit)\s+"
            r"(?:the\s+)?" + S
        ),
        re.compile(
            r"\b(?:let's|we(?:'ll| will)?)\s+(?:shoot|kill|take out|go for|go after|hit)\s+(?:the\s+)?"
            + S
            + r"\s+(?:tonight|at night)"
        ),
        re.compile(r"\b(?:tonight's|night|our)?\s*target\s*(?:tonight|for tonight)?\s*(?:is|:|—)\s*" + S),
        re.compile(
            r"(?<![а-я])(?:сегодня|ночью|этой ночью)\s+(?:ночью\s+)?(?:мы\s+)?(?:стреляем|отстреливаем|отстреляем|"
            r"стрельнем|валим|завалим|убьем|убиваем|идем в|идем на|пойдем в|пойдем на|пойдем за)\s+" + S
        ),
        # "remove" is the day's vote too: a target when said of the night or to a partner
        re.compile(r"(?<![а-я])(?:сегодня\s+)?ночью\s+(?:мы\s+)?(?:убираем|уберем)\s+" + S),
        re.compile(r"(?<![а-я])(?:сегодня\s+)?(?:убираем|уберем)\s+" + S + r"(?=[^.]*напарни)"),
        re.compile(r"(?<![а-я])давай(?:те)?\s+(?:сегодня\s+)?ночью\s+(?:[а-я]+\s+)?" + S),
        re.compile(r"\bwe(?:'ll| will)?\s+(?:shoot|kill|take out)\s+" + S + r"\s+tonight"),
        re.compile(
            r"\btonight\b[^.¤]{0,12}" + S + r"\s+(?:is going down|goes|dies|will die|is dead|leaves|"
            r"(?:must|should|has to|needs to|will) (?:die|go))"
        ),
        re.compile(
            r"(?<![а-я])(?:сегодня\s+|этой\s+)?ночью\s+" + S + r"\s+(?:должен|должна|обязан)\s+(?:умереть|уйти)"
        ),
        re.compile(r"(?<![а-я])(?:этой|сегодня)\s+ночью[^.¤]{0,12}" + S + r"\s+(?:уходит|уйдет|умрет|погибнет)"),
        re.compile(r"(?<![а-я])(?:этой|сегодня)\s+ночью\s+(?:мы\s+)?(?:убираем|уберем|стреляем|убьем|убиваем)\s+" + S),
        re.compile(r"\btonight\s+(?:we|they|the mafia)(?:'ll| will)?\s+(?:shoot|kill|take out|go after)\s+" + S),
        re.compile(
            r"\b(?:mafia|they|we)\s+(?:will\s+|'ll\s+)?(?:probably\s+|likely\s+)?(?:go after|shoot|kill|come for)\s+"
            + S
            + r"\s+tonight"
        ),
        re.compile(r"\btonight\s+" + S + r"\s+(?:dies|will die|is dead)"),
        re.compile(S + r"\s+(?:dies|will die)\s+tonight"),
        re.compile(r"\b(?:our\s+)?target\s+(?:tonight\s+|for tonight\s+)?is\s+" + S),
        re.compile(r"\bwe\s+shoot\s+" + S),
        re.compile(
            r"(?<![а-я])(?:ночью|сегодня ночью|этой ночью)\s+(?:мы\s+)?(?:стреляем|убьем|убиваем|отстреляем)\s+" + S
        ),
        re.compile(r"(?<![а-я])(?:стреляем|убьем)\s+" + S + r"\s+(?:этой\s+|сегодня\s+)?ночью"),
        re.compile(r"(?<![а-я])(?:этой ночью|ночью|сегодня ночью)\s+(?:умрет|умирает|уходит)\s+" + S),
        re.compile(r"\blet'?s\s+(?:shoot|kill)\s+" + S),
        re.compile(r"(?<![а-я])давай(?:те)?\s+(?:[а-я]+\s+){0,3}?(?:застрелим|убьем|пристрелим|отстреляем)\s+" + S),
        re.compile(S + r"\s+умрет\s+(?:этой|сегодня)\s+ночью"),
        re.compile(
            r"(?<![а-я])(?:мафия|мы|они)\s+(?:[а-я]+\s+){0,3}(?:пойдет|пойдем|придет|придут|пойдут)\s+за\s+" + S
        ),
        re.compile(r"(?<![а-я])цель\s+(?:этой ночью|на ночь|сегодня|на эту ночь)?\s*—?\s*" + S),
    ),
}
