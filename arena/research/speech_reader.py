"""What a speech says, read from its free text: role claims, claimed checks, stated votes, seats called dead or
addressed as alive, accusations, teammates named and night targets named, in English and Russian.

The reader is deterministic (regular expressions over a normalised text, no model) so a figure built on it can be
reproduced. It reads what the speaker says of himself and of seats ("I checked 5, red", «проверил пятого —
красный», "I will vote 4", "seat 3 was killed"); what he reports of others ("seat 4 says he checked 6"),
hypotheticals ("if I were the sheriff") and negations ("I am not the sheriff") are not statements of his. Its
precision and recall on a labelled corpus of phrasings are measured by `tests/test_speech_reader.py` (the corpus is
`tests/speech_corpus/`).

The text is first normalised: lower case, `ё` as `е`, and every mention of a seat ("seat 5", "player five", "#5",
"игрок 5", «пятого», «пятёрка», a bare 5 that is not a count or a day) replaced by a token `¤5`, so the patterns
are written once over `¤N`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

ROLE, CHECK, VOTE, DEAD, ALIVE, ACCUSE, TEAMMATE, TARGET = (
    "role", "check", "vote", "dead", "alive", "accuse", "teammate", "target",
)  # fmt: skip
KINDS = (ROLE, CHECK, VOTE, DEAD, ALIVE, ACCUSE, TEAMMATE, TARGET)
MAX_SEAT = 12


@dataclass(frozen=True, slots=True, order=True)
class Statement:
    """One thing a speech says: `kind`, the seat it is about (0 for a role claim, which is about the speaker) and a
    value (the role claimed; `black` or `red` for a check)."""

    kind: str
    seat: int = 0
    value: str = ""

    def __str__(self) -> str:
        return " ".join(str(p) for p in (self.kind, self.seat or "", self.value) if p != "")


# ----- normalisation: seats as ¤N ------------------------------------------------------------------------------------
_EN_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_EN_NUMBERS = {w: i for i, w in enumerate(_EN_WORDS, 1)}
_EN_ORDINALS = {
    w: i
    for i, w in enumerate(
        ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
         "twelfth"), 1)
}  # fmt: skip
_RU_STEMS = {
    "перв": 1, "втор": 2, "трет": 3, "четверт": 4, "пят": 5, "шест": 6, "седьм": 7, "восьм": 8, "девят": 9,
    "десят": 10, "одиннадцат": 11, "двенадцат": 12,
}  # fmt: skip
_RU_COLLOQUIAL = {"единиц": 1, "двойк": 2, "тройк": 3, "четверк": 4, "пятерк": 5, "шестерк": 6, "семерк": 7,
                  "восьмерк": 8, "девятк": 9, "десятк": 10}  # fmt: skip
# masculine forms only (a seat is "игрок"); feminine ones name checks and nights ("первая проверка")
_RU_ENDINGS = r"(ый|ий|ой|ого|его|ому|ему|ым|им|ом|ем|ьего|ьему|ьим|ьем|ий)"
_RU_OBJECT = frozenset({"ого", "его", "ьего"})  # genitive/accusative: the seat is an object ("проверил пятого")
OBJECT = (
    "ᵃ"  # marks a Russian seat token in an object case, so "¤7ᵃ проверил" (checked 7) is not "¤7 проверил" (7 checked)
)
_RU_NOT_SEAT_AFTER = r"(?!\s+(?:ноч|ден|дня|днем|круг|раз|голосован|проверк|реч|минут|кандидат))"
_RU_ORDINAL = re.compile(
    r"(?<![а-я])("
    + "|".join(sorted(_RU_STEMS, key=len, reverse=True))
    + r")"
    + _RU_ENDINGS
    + r"(?![а-я])"
    + _RU_NOT_SEAT_AFTER
)
_RU_COLLOQ = re.compile(r"(?<![а-я])(" + "|".join(_RU_COLLOQUIAL) + r")(?:а|у|е|ой|и)(?![а-я])")
_SEAT_WORD = re.compile(
    r"(?:\b(?:seat|player|number|no\.|num\.|игрок[а-я]*|номер[а-я]*|мест[а-я]*)|[#№])\s*(?:number\s+|номер\s+)?"
    r"(\d{1,2}|" + "|".join(_EN_NUMBERS) + r")\b"
)
_EN_ORDINAL_SEAT = re.compile(r"\bthe\s+(" + "|".join(_EN_ORDINALS) + r")\s+(?:seat|player)\b")
_NOT_SEAT_BEFORE = re.compile(r"(?:day|night|round|days|nights|день|ночь|дня|круг|раз|в|через)\s*$")
_NOT_SEAT_AFTER = re.compile(
    r"^\s*(?:players?|of\b|days?|nights?|votes?|people|minutes?|seconds?|times?|%|percent|игрок|из\b|дн|ноч|"
    r"голос|человек|минут|секунд|раз|процент|\.\d|,\d)"
)
_BARE = re.compile(r"(?<![\d¤.,:])(\d{1,2})(?![\d])")


def _seat(n: int) -> str:
    return f"¤{n}" if 1 <= n <= MAX_SEAT else str(n)


def normalise(text: str) -> str:
    """Lower case, `ё` as `е`, dashes as one `—`, and every seat mention as `¤N` (see the module docstring)."""
    t = text.lower().replace("ё", "е").replace("–", "—").replace(" - ", " — ")
    t = re.sub(r"[\"«»“”„]", " ", t)
    t = _SEAT_WORD.sub(lambda m: _seat(int(m.group(1)) if m.group(1).isdigit() else _EN_NUMBERS[m.group(1)]), t)
    t = _EN_ORDINAL_SEAT.sub(lambda m: _seat(_EN_ORDINALS[m.group(1)]), t)
    t = _RU_ORDINAL.sub(lambda m: _seat(_RU_STEMS[m.group(1)]) + (OBJECT if m.group(2) in _RU_OBJECT else ""), t)
    t = _RU_COLLOQ.sub(lambda m: _seat(_RU_COLLOQUIAL[m.group(1)]), t)

    def bare(m: re.Match[str]) -> str:
        if _NOT_SEAT_BEFORE.search(t[: m.start()]) or _NOT_SEAT_AFTER.match(t[m.end() :]):
            return m.group(0)
        return _seat(int(m.group(1)))

    return _BARE.sub(bare, t)


# ----- patterns ---------------------------------------------------------------------------------------------------
S = r"¤(\d{1,2})ᵃ?"  # a seat token, captured
L = r"(¤\d{1,2}ᵃ?(?:\s*(?:,\s*(?:and|и)?|and|or|и|или)\s*¤\d{1,2}ᵃ?)*)"  # one seat or a list ("¤7 and ¤9"), captured
_ROLE_WORDS = {
    "sheriff": "sheriff", "commissar": "sheriff", "detective": "sheriff", "doctor": "doctor", "medic": "doctor",
    "don": "don", "mafia": "mafia", "mafioso": "mafia", "black": "mafia", "maniac": "maniac", "lover": "lover",
    "civilian": "civilian", "citizen": "civilian", "peaceful citizen": "civilian", "peaceful": "civilian",
    "townie": "civilian", "villager": "civilian", "townsperson": "civilian", "town": "civilian", "red": "red",
    "шериф": "sheriff", "комиссар": "sheriff", "доктор": "doctor", "врач": "doctor", "дон": "don",
    "мафия": "mafia", "мафиози": "mafia", "черный": "mafia", "черная": "mafia", "маньяк": "maniac",
    "любовница": "lover", "мирный житель": "civilian", "мирный": "civilian", "мирная": "civilian",
    "мирный игрок": "civilian", "красный": "red", "красная": "red",
}  # fmt: skip
_EN_ROLE = "|".join(sorted((w for w in _ROLE_WORDS if w.isascii()), key=len, reverse=True))
_RU_ROLE = "|".join(sorted((w for w in _ROLE_WORDS if not w.isascii()), key=len, reverse=True))
_ROLE_PATTERNS = (
    re.compile(
        r"\b(?:i am|i'm|im)\s+(?:(?:the|a|an|just|only|simply|real|simple|true|really|actually|honest|plain|"
        r"ordinary|regular)\s+)*(" + _EN_ROLE + r")\b(?![\'’]|\s+(?:seat|player|claim))"
    ),
    re.compile(r"\b(" + _EN_ROLE + r")\s+here\b"),
    re.compile(r"\bnot the (sheriff)\.?\s*i am\b"),
    re.compile(r"\bmy checks as (sheriff)\b"),
    re.compile(
        r"(?:^|[.!?]\s*)as (?:the\s+|a\s+|an\s+)?(?:real\s+|true\s+|only\s+|simple\s+)?(" + _EN_ROLE + r"),?\s+i\b"
    ),
    re.compile(r"(?:^|[.!?]\s*)как\s+(?:настоящий\s+|единственный\s+|простой\s+)?(" + _RU_ROLE + r")(?![а-я])"),
    re.compile(
        r"(?<![а-я])я\s*(?:—\s*)?(?:(?:просто|настоящий|обычный|самый|честный|всего|лишь|только|же|простой)\s+)*("
        + _RU_ROLE
        + r")(?![а-я])"
    ),
    re.compile(r"(?<![а-я])(шериф|комиссар|дон)\s*—\s*я(?![а-я])"),
)
_ELLIPTIC = re.compile(r"\bnot the (sheriff)\.\s*i am\b|не (шериф)\.\s*(?:шериф\s*—\s*я|я\s*—?\s*шериф)")
_TEAM_CLAIMS = (  # the speaker owns the black side: "we, the mafia", "seat 6 and I are mafia"
    re.compile(r"\bwe,?\s+(?:the\s+)?(?:black team|mafia)\b"),
    re.compile(S + r"\s+and\s+i\s+are\s+(?:the\s+)?(?:mafia|black)\b"),
    re.compile(r"(?<![а-я])мы,?\s+мафия"),
    re.compile(r"(?<![а-я])мы\s+с\s+" + S + r"\s*—?\s*(?:мафия|черные)"),
)
_HYPOTHETICAL = re.compile(  # a conditional, or the words of another seat reported: not the speaker's statement
    r"\b(?:if|would|says|claims|claimed|claiming|tells|thinks|believes)\b|\b(?:said|say)\s+(?:that\s+)?i\b|"
    r"(?<![а-я])(?:бы|будь|если|говорит|утверждает|заявляет|заявляется|заявился|называет|считает|думает)(?![а-я])|"
    r"(?<![а-я])(?:говорил|сказал)[а-я]*,?\s+что(?![а-я])"
)
_CLAUSE = re.compile(
    r",?\s+(?:but|although|though|while|whereas)\s+|;\s*|,\s*(?:но|а|хотя|однако)\s+|:\s+|,\s*(?=(?:if|unless|если)\b)"
)

_BLACK = r"(?:black|mafia|mafioso|a mafioso|the don|don|черн[а-я]*|мафи[а-я]*|дон)"
_RED = r"(?:red|clean|a civilian|civilian|a citizen|citizen|peaceful|town|not black|красн[а-я]*|чист[а-я]*|" \
       r"мирн[а-я]*|" \
       r"не черн[а-я]*)"  # fmt: skip
_COLOUR = re.compile(r"(" + _RED + r"|" + _BLACK + r")(?![a-zа-я])")
_CHECK_CUE = re.compile(
    r"\b(?:i checked|i've checked|i have checked|my (?:\w+ )?checks?|check on|according to my check|"
    r"checks? i (?:made|did|have made))\b|"
    r"(?:^|[.!?]\s*)checked\s+¤|"
    r"(?<![а-я])я\s+(?:[а-я]+\s+){0,3}провер[а-я]*|^\s*провер[а-я]*|проверен[а-я]*\s+мною|(?<![а-я])мо[яий][а-я]*\s+"
    r"(?:[а-я]+\s+)?провер(?:к|ок)|(?<![а-я])проверк[аи]\s+на|\bi found\s+¤|(?<![а-я])я\s+(?:[а-я]+\s+)?нашел\s+¤|"
    r"по моей проверке|(?<![а-я])проверил[а]?\s+¤|¤\d{1,2}ᵃ\s+проверил|"
    r"(?<![а-я])(?:перв|втор|трет|последн|ночн)[а-я]*\s+проверк"
)
_CHECK_NOT_MINE = re.compile(
    r"\b(?:he|she|sheriff|¤\d+)\s+checked\b|\bchecked by\b|\ba checked\b|\bchecked (?:him|her|it)\b(?<!i checked him)"
    r"|\b(?:our|your|the|their)\s+sheriff\b(?:(?!\bi\b)[^.]){0,24}\bchecked\b"
    r"|(?<![а-я])(?:он|она|шериф)\s+(?:[а-я]+\s+){0,2}проверил|(?<![а-я])(?:наш|ваш|этот)\s+шериф[^.]{0,24}проверил"
)

_SIMPLE: dict[str, tuple[re.Pattern[str], ...]] = {
    VOTE: (
        re.compile(
            r"\b(?:i|we)(?:'m|'ll|'d| am| will)?\b(?:\s+(?!not\b|never\b)\w+){0,4}?\s+vot(?:e|ing)\s+"
            r"(?:(?!with\b)\w+\s+){0,2}?"
            r"(?:for\s+|against\s+|on\s+|out\s+)?(?:nobody but\s+)?" + S
        ),
        re.compile(
            r"\bmy vote\s*(?:\w+\s+){0,2}?(?:goes to|is on|is for|is|will go to|:|against|for|on)?\s*(?:—\s*)?" + S
        ),
        re.compile(r"\b(?:put|cast|give)\s+my vote\s+(?:on|against|for|to)\s+" + S),
        re.compile(r"\bvote with me\s+(?:against|for|on)\s+" + S),
        re.compile(
            r"\blet'?s\s+(?:vote\s+(?:out\s+|for\s+|against\s+)?|eliminate\s+|kick out\s+|remove\s+|get rid of\s+)" + S
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
    ),
    DEAD: (
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
            L
            + r"\s+(?:is|are|has|have)?\s*(?:already\s+|now\s+)?(?:dead|died|gone|left us|left the game|"
            r"out of the game)\b"
        ),
        re.compile(S + r"\s+(?:died|left us|left the game)"),
        re.compile(
            S
            + r",?\s+(?:who|которого|которую|кого)\s+(?:was\s+|got\s+|вчера\s+|ночью\s+)?"
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
    ALIVE: (
        re.compile(
            r"(?:^|[.!?;,]\s*)((?:¤\d{1,2}\s*[,—:;]\s*)+)(?=[^.!]*(?:\?|\byou\b|\byour\b|explain|speak|tell|answer|"
            r"(?<![а-я])(?:ты|тебе|тебя|твой|твою|твои|твое|твоя|твоего|вы|ваш[а-я]*)(?![а-я])|объясни|скажи|ответь|расскажи))"
        ),
        re.compile(r"\b(?:hear from|listen to|hear what)\s+" + S),
        re.compile(r"(?<![а-я])(?:послушать|послушаем|выслушать|услышать)\s+" + S),
        re.compile(
            r"\b(?:i want to hear|i'd like to hear|i ask|let's hear|i'd like to ask)\s+(?:what\s+|from\s+)?" + S
        ),
        re.compile(
            r"(?<![а-я])(?:хочу услышать|хочу спросить|прошу|послушаем|спрошу)\s*,?\s+(?:что думает\s+|у\s+)?" + S
        ),
    ),
    ACCUSE: (
        re.compile(r"\bi\s+(?:strongly\s+|really\s+)?suspect\s+" + L),
        re.compile(r"\bmost suspicious\b[^.¤]{0,12}" + L),
        re.compile(
            L
            + r"\s+(?:is|are|looks?|seems?|'s)\s+(?:(?!not\b|never\b|no\b)\w+\s+){0,3}?"
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
            L
            + r"\s+(?:is|are|looks|seems|'s)\s+"
            r"(?:the\s+most\s+|definitely\s+|probably\s+|clearly\s+|very\s+|pretty\s+)?"
            r"(?:black|mafia|a mafioso|the don|suspicious|a liar|lying|a fake|fake)\b(?:\s+to me)?"
        ),
        re.compile(S + r"\s+(?:is not|isn't) the (?:real\s+)?sheriff"),
        re.compile(
            S + r"\s+is the one to watch|\bkeep (?:your |our )?eyes on\s+" + S + r"|\blook at\s+" + S + r"\s+instead"
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
    ),
    TEAMMATE: (
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
    TARGET: (
        re.compile(r"\bwe(?:'ll| will)?\s+(?:shoot|kill|take out)\s+" + S + r"\s+tonight"),
        re.compile(r"\btonight\b[^.¤]{0,12}" + S + r"\s+(?:is going down|goes|dies|will die|is dead|leaves)"),
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
_NEGATED_BEFORE = re.compile(
    r"(?:\bnot|\bdon't|\bdo not|\bnever|\bwon't|\bwill not|\bcan't|(?<![а-я])не|(?<![а-я])никогда)"
    r"(?:\s+(?:be|going to|want to|буду|будем|стану|хочу|надо|нужно|стоит|собираюсь|to))?\s*$"
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")


_THAT = re.compile(r"^(?:that|this|это)\s+(?:is\s+|очень\s+|very\s+)*(?:suspicious|подозрительно)")
_PRONOUN = re.compile(r"\b(?:him|he|she|her)\b|(?<![а-я])(?:он|она|него|нему|ним|его|ему|ей|ее)(?![а-я])")


def _sentences(text: str) -> list[str]:
    """The sentences of a normalised text, a pronoun in a sentence that names no seat read as the one seat the
    sentence before named ("I checked 8. He is red.", "Seat 6 says he is the doctor. I don't believe him.")."""
    out: list[str] = []
    previous: set[str] = set()
    for sentence in (s for s in _SENTENCES.split(text) if s.strip()):
        seats = set(re.findall(r"¤\d{1,2}", sentence))
        if not seats and len(previous) == 1:
            seat = next(iter(previous))
            sentence = _PRONOUN.sub(seat, _THAT.sub(seat + " is suspicious", sentence))
        out.append(sentence)
        previous = seats or previous
    return out


def _guarded(sentence: str, start: int, end: int) -> bool:
    """Whether the clause holding sentence[start:end] is a conditional or reports another seat's words."""
    low, high = 0, len(sentence)
    for m in _CLAUSE.finditer(sentence):
        if m.end() <= start:
            low = m.end()
        elif m.start() >= end:
            high = m.start()
            break
    return bool(_HYPOTHETICAL.search(sentence[low:high]))


def _reported_checks(sentence: str) -> set[int]:
    """The seats of checks this sentence reports from another seat ("our sheriff, 1, checked 6 black"): those named
    from the report to the end of its clause."""
    seats: set[int] = set()
    for m in _CHECK_NOT_MINE.finditer(sentence):
        end = next((c.start() for c in _CLAUSE.finditer(sentence) if c.start() >= m.end()), len(sentence))
        start = sentence.rfind(",", 0, m.start()) if m.group(0).startswith("a checked") else m.start()
        seats |= {int(n) for n in re.findall(r"¤(\d{1,2})", sentence[max(start, 0) : end])}
    return seats


def _colour(word: str) -> str:
    return "black" if re.fullmatch(_BLACK, word) else "red"


def _checks(sentences: list[str], sheriff_claimed: bool) -> list[tuple[int, str]]:
    """(seat, colour) pairs the speaker says he found: a seat token followed in the same clause by a colour word, in a
    sentence with a first-person check cue, or in a bare list of "¤N colour" after the speaker's sheriff claim; a
    check named in one sentence and coloured at the head of the next ("I checked 8. He is red.") too."""
    found: list[tuple[int, str]] = []
    pending: int | None = None
    for sentence in sentences:
        cue = bool(_CHECK_CUE.search(sentence)) and not _CHECK_NOT_MINE.search(sentence)
        if pending is not None:
            head = re.match(r"\s*(?:he|she|it|он|она|¤" + str(pending) + r"ᵃ?)?\s*(?:is|'s|was|—)?\s*(?:a\s+)?(\S+)",
                            sentence)  # fmt: skip
            word = head.group(1).strip(".,!;:") if head else ""
            if word and _COLOUR.fullmatch(word):
                found.append((pending, _colour(word)))
        pending = None
        listing = sheriff_claimed and re.fullmatch(r"[\s¤ᵃ\d,;:—.!a-zа-я-]*", sentence) is not None
        if not cue and not listing:
            continue
        seats = list(re.finditer(S, sentence))
        paired = False
        for i, m in enumerate(seats):
            end = seats[i + 1].start() if i + 1 < len(seats) else len(sentence)
            between = sentence[m.end() : end]
            colour = _COLOUR.search(between)
            if colour is None or len(between[: colour.start()].split()) > 8 or _guarded(sentence, m.start(), m.end()):
                continue
            if _NEGATED_BEFORE.search(between[: colour.start()]) and not colour.group(1).startswith("не"):
                continue
            if not cue and not re.match(r"\s*[—:,-]?\s*(?:is\s+)?$", between[: colour.start()]):
                continue  # a sheriff's bare list reads "¤4 black", "¤4 — black"
            found.append((int(m.group(1)), _colour(colour.group(1))))
            paired = True
        if cue and not paired and len(seats) == 1:
            pending = int(seats[0].group(1))
    return found


def _roles(sentences: list[str]) -> list[str]:
    out: list[str] = []
    for sentence in sentences:
        if sentence.rstrip().endswith("?"):
            continue  # a question claims nothing ("do you really think I am mafia?")
        for pattern in _ROLE_PATTERNS:
            for m in pattern.finditer(sentence):
                if not _guarded(sentence, m.start(), m.end()):
                    out.append(_ROLE_WORDS[m.group(1)])
        if any(p.search(sentence) for p in _TEAM_CLAIMS):
            out.append("mafia")
    return out


@cache
def _read(text: str) -> tuple[Statement, ...]:
    t = normalise(text)
    sentences = _sentences(t)
    found: list[Statement] = []
    roles = _roles(sentences) + [_ROLE_WORDS[m.group(1) or m.group(2)] for m in _ELLIPTIC.finditer(t)]
    found += [Statement(ROLE, 0, r) for r in roles]
    checks = _checks(sentences, "sheriff" in roles)
    found += [Statement(CHECK, seat, colour) for seat, colour in checks]
    checked = {seat for seat, _ in checks}
    reported = [_reported_checks(sentence) for sentence in sentences]
    for kind, patterns in _SIMPLE.items():
        for sentence, reports in zip(sentences, reported, strict=True):
            for pattern in patterns:
                for m in pattern.finditer(sentence):
                    if _NEGATED_BEFORE.search(sentence[: m.start()]):
                        continue
                    if kind != ALIVE and _guarded(sentence, m.start(), m.end()):
                        continue
                    for seat in (int(n) for g in m.groups() if g is not None for n in re.findall(r"\d+", g)):
                        if kind == ACCUSE and seat in reports:
                            continue  # another seat's check told again ("our sheriff checked 6: black")
                        if kind == ACCUSE and seat in checked:
                            continue  # "seat 4 is black, I checked him": a check, not a bare accusation
                        found.append(Statement(kind, seat))
    return tuple(dict.fromkeys(found))


def read(text: str) -> tuple[Statement, ...]:
    """Every statement `text` makes, each once, in the order: role claims, checks, then the other kinds."""
    return _read(text or "")
