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

import difflib
import re
from dataclasses import dataclass
from functools import cache, lru_cache

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
_RU_ENDINGS = r"(ый|ий|ой|ого|его|ому|ему|ым|им|ом|ем|ьего|ьему|ьим|ьем|ий|ая|ую|ья|ью)"
_RU_OBJECT = frozenset({"ого", "его", "ьего"})  # genitive/accusative: the seat is an object ("проверил пятого")
OBJECT = (
    "ᵃ"  # marks a Russian seat token in an object case, so "¤7ᵃ проверил" (checked 7) is not "¤7 проверил" (7 checked)
)
_RU_NOT_SEAT_AFTER = r"(?!\s+(?:ноч(?!ью)|ден|дня|днем|круг|раз|голосован|проверк|реч|минут|кандидат|очеред|половин))"
_RU_FEMININE = frozenset({"ой", "ая", "ую", "ья", "ью"})  # also a night's or a check's ending: a seat only alone
_RU_ORDINAL = re.compile(
    r"(?<![а-я])("
    + "|".join(sorted(_RU_STEMS, key=len, reverse=True))
    + r")"
    + _RU_ENDINGS
    + r"(?![а-я])"
    + _RU_NOT_SEAT_AFTER
)
_RU_COLLOQ = re.compile(r"(?<![а-я])(" + "|".join(_RU_COLLOQUIAL) + r")(?:а|у|е|ой|и)(?![а-я])")


def _seat(n: int) -> str:
    return f"¤{n}" if 1 <= n <= MAX_SEAT else str(n)


_RU_CARDINALS = {"один": 1, "одного": 1, "два": 2, "двух": 2, "три": 3, "трех": 3, "четыре": 4, "пять": 5,
                 "шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10, "одиннадцать": 11,
                 "двенадцать": 12}  # fmt: skip
_SEAT_WORD = re.compile(
    r"(?:\b(?:seats?|players?|speakers?|numbers?|no\.|num\.|игрок[а-я]*|номер[а-я]*|мест[а-я]*)|[#№])\s*"
    r"(?:number\s+|номер\s+|no\.\s*|№\s*)?"
    r"(\d{1,2}|" + "|".join(_EN_NUMBERS) + "|" + "|".join(_RU_CARDINALS) + r")(?![\w])"
)
# an English ordinal names a seat after "the" ("vote the fifth") or before seat/player ("the 5th seat"), unless a
# count, a day, a check or a turn follows ("the first night", "my second check")
_EN_ORD = "|".join(_EN_ORDINALS)
_EN_ORDINAL_SEAT = re.compile(
    r"(?:\bthe\s+(" + _EN_ORD + r"|\d{1,2}(?:st|nd|rd|th))|\b(\d{1,2}(?:st|nd|rd|th)))(?:\s+(?:seat|player)\b)?"
    r"(?!\s+(?:day|night|round|check|time|vote|speech|option|one|of|sheriff|place|word|thing|and last|half|part|"
    r"phase|speaker|to\b|person|guy|who))|\b(" + _EN_ORD + r")\s+(?:seat|player)\b"
)
# a bare English number word: a seat unless it counts something ("two blacks", "seven of us", "you two")
_EN_BARE = re.compile(r"\b(" + "|".join(_EN_NUMBERS) + r")\b")
_EN_NOT_SEAT_BEFORE = re.compile(
    r"(?:\b(?:you|we|they|the|those|these|other|all|of|for|in|at|about|than|last|next|every|each|only|no|any|some|"
    r"another|a|an|this|that|which|like|just|those|first|after|every|with|by|up to|night|day|round|there are|"
    r"there were|only)|\d)\s*$"
)
_EN_NOT_SEAT_AFTER = re.compile(
    r"^\s*(?:of\b|more\b|thing|days?\b|nights?\b|players?\b|people|blacks?\b|reds?\b|sheriffs?\b|votes?\b|"
    r"times?\b|rounds?\b|mafias?\b|others?\b|left\b|remaining|us\b|them\b|checks?\b|minutes?\b|seconds?\b|"
    r"weeks?\b|hours?\b|guys\b|words?\b|ways?\b|claims?\b|another\b|%|percent|by\b|who\b|that\b|which\b)"
)
_SEAT_AFTER_TOKEN = re.compile(r"(¤\d{1,2}ᵃ?)\s+(?:seat|player|номер|мест[а-я]*)(?![a-zа-я])")
_NOT_SEAT_BEFORE = re.compile(
    r"(?:day|night|round|days|nights|день|ночь|дня|круг|раз|через|there are|there were|we have|only|около)\s*$"
)
_NOT_SEAT_AFTER = re.compile(
    r"^\s*(?:players?|of\b|days?|nights?|votes?|people|minutes?|seconds?|times?|%|percent|игрок|из\b|дн|ноч|"
    r"голос|человек|минут|секунд|раз|процент|утра|вечера|час|mafia\b|of us\b|\.\d|,\d)"
)
_BARE = re.compile(r"(?<![\d¤.,:])(\d{1,2})(?![\d])")
# common misspellings of the words the patterns key on, corrected by closeness ("sherif", "cheked", "civillian")
_KEY_WORDS = ("sheriff", "civilian", "citizen", "checked", "doctor", "mafia", "mafioso", "maniac", "commissar",
              "suspicious", "suspect", "detective", "teammate", "partner")  # fmt: skip
_TOKEN = re.compile(r"[a-z]{5,}")  # English only: a Russian word's many endings would read as misspellings


@cache
def _spelled(word: str) -> str:
    if any(word.startswith(key) for key in _KEY_WORDS):
        return word  # the word itself or one of its forms ("suspected", "шерифа")
    close = difflib.get_close_matches(word, _KEY_WORDS, n=1, cutoff=0.87)
    return close[0] if close else word


def normalise(text: str) -> str:
    """Lower case, `ё` as `е`, dashes as one `—`, and every seat mention as `¤N` (see the module docstring)."""
    t = text.lower().replace("ё", "е").replace("–", "—").replace(" - ", " — ").replace("’", "'")
    t = re.sub(r"[\"«»“”„]", " ", t)
    t = _TOKEN.sub(lambda m: _spelled(m.group(0)), t)
    t = _SEAT_WORD.sub(
        lambda m: _seat(int(g) if (g := m.group(1)).isdigit() else _EN_NUMBERS.get(g) or _RU_CARDINALS[g]), t
    )
    t = _EN_ORDINAL_SEAT.sub(
        lambda m: _seat(_EN_ORDINALS[w] if (w := next(g for g in m.groups() if g)) in _EN_ORDINALS else int(w[:-2])),
        t,
    )

    def ordinal(m: re.Match[str]) -> str:
        rest = t[m.end() :]
        if m.group(2) in _RU_FEMININE and m.group(2) != "ой" and not re.match(r"\s*(?:[,.!?]|$)", rest):
            return m.group(0)  # "первую ночь", "вторая версия": a feminine form names a seat when no noun follows
        if m.group(2) in _RU_FEMININE and re.match(r"\s+ноч", rest):
            return m.group(0)  # "второй ночью": the night, not seat 2
        return _seat(_RU_STEMS[m.group(1)]) + (OBJECT if m.group(2) in _RU_OBJECT | {"ую", "ью"} else "")

    t = _RU_ORDINAL.sub(ordinal, t)
    t = _RU_COLLOQ.sub(lambda m: _seat(_RU_COLLOQUIAL[m.group(1)]), t)

    def bare(m: re.Match[str]) -> str:
        if _NOT_SEAT_BEFORE.search(t[: m.start()]) or _NOT_SEAT_AFTER.match(t[m.end() :]):
            return m.group(0)
        return _seat(int(m.group(1)))

    t = _BARE.sub(bare, t)

    def word(m: re.Match[str]) -> str:
        if _EN_NOT_SEAT_BEFORE.search(t[: m.start()]) or _EN_NOT_SEAT_AFTER.match(t[m.end() :]):
            return m.group(0)
        return _seat(_EN_NUMBERS[m.group(1)])

    t = _EN_BARE.sub(word, t)
    return _SEAT_AFTER_TOKEN.sub(r"\1", t)


# ----- patterns ---------------------------------------------------------------------------------------------------
S = r"¤(\d{1,2})ᵃ?"  # a seat token, captured
# what may stand between the seats of a list: commas, "and"/"or", hedges ("¤10 и, возможно, ¤1"). One token at a time,
# each starting with a different character, so a failed match backtracks in linear time (nested optional spaces did not)
_SEP = (
    r"(?:[\s,]|(?:and|or|possibly|maybe|probably|perhaps|likely)\b|"
    r"(?<![а-я])(?:и|или|возможно|наверное|может быть|скорее всего)(?![а-я]))++"
)
L = r"(¤\d{1,2}ᵃ?(?:" + _SEP + r"¤\d{1,2}ᵃ?){0,11}+)"  # one seat or a list ("¤7 and ¤9"), captured
_ROLE_WORDS = {
    "sheriff": "sheriff", "commissar": "sheriff", "detective": "sheriff", "doctor": "doctor", "medic": "doctor",
    "don": "don", "mafia": "mafia", "mafioso": "mafia", "black": "mafia", "maniac": "maniac", "lover": "lover",
    "civilian": "civilian", "citizen": "civilian", "peaceful citizen": "civilian", "peaceful": "civilian",
    "townie": "civilian", "villager": "civilian", "townsperson": "civilian", "town": "civilian", "red": "red",
    "шериф": "sheriff", "комиссар": "sheriff", "доктор": "doctor", "врач": "doctor", "дон": "don",
    "мафия": "mafia", "мафиози": "mafia", "черный": "mafia", "черная": "mafia", "маньяк": "maniac",
    "любовница": "lover", "мирный житель": "civilian", "мирный": "civilian", "мирная": "civilian",
    "мирный игрок": "civilian", "красный": "red", "красная": "red", "doc": "doctor", "cop": "sheriff",
    "мирняк": "civilian", "civvie": "civilian", "civ": "civilian", "мирная жительница": "civilian",
    "красный игрок": "red",
}  # fmt: skip
_RU_ROLE_GENITIVE = {"шерифа": "sheriff", "комиссара": "sheriff", "доктора": "doctor", "врача": "doctor",
                     "дона": "don", "мафии": "mafia", "мафиози": "mafia", "маньяка": "maniac", "любовницы": "lover",
                     "мирного": "civilian", "мирного жителя": "civilian", "мирных": "civilian"}  # fmt: skip
_EN_ROLE = "|".join(sorted((w for w in _ROLE_WORDS if w.isascii()), key=len, reverse=True))
_RU_ROLE = "|".join(sorted((w for w in _ROLE_WORDS if not w.isascii()), key=len, reverse=True))
_ROLE_PATTERNS = (
    re.compile(
        r"\b(?:i am|i'm|im|i was)\s+(?:(?:the|a|an|just|only|simply|real|simple|true|really|actually|honest|plain|"
        r"ordinary|regular|indeed|definitely|obviously|totally|truly|genuinely|100%|vanilla)\s+)*("
        + _EN_ROLE
        + r")\b(?![\'’]|\s+(?:seat|player|claim))"
    ),
    re.compile(  # "sheriff here" introduces the speaker only at the head of a sentence ("7 is the mafia here" does not)
        r"^\s*(?:(?:a|an|the|just|simple|plain|honest)\s+)*("
        + _EN_ROLE
        + r")\s+here\b|^\s*("
        + _RU_ROLE
        + r")\s+(?:здесь|тут)(?![а-я])"
    ),
    re.compile(
        r"^\s*(?:(?:honest|simple|plain|just|a|an|the|real|честн[а-я]+|прост[а-я]+|обычн[а-я]+|настоящ[а-я]+)\s+)*"
        r"(sheriff|commissar|detective|doctor|don|maniac|lover|civilian|шериф|комиссар|доктор|дон|маньяк|"
        r"любовница|мирный житель|мирный|мирная)"
        r"\s*(?:[.!]+\s*$|,\s*(?=checked|проверил|проверял))"
    ),  # "Sheriff." alone, "шериф, проверил пятого"
    re.compile(
        r"(?<![a-zа-я])(" + _EN_ROLE + "|" + _RU_ROLE + r")(?:\s+claim)?\s*[:—]\s*(?:it's\s+|это\s+)?"
        r"(?:me|я)(?![a-zа-я])"
    ),  # "Red: me", "шериф — я"
    re.compile(r"\bmy\s+(sheriff)\s+checks?\b"),
    re.compile(r"(?:^|[.!?]\s*|\bi(?:'m| am)?\s+)claim(?:ing)?\s+(?:the\s+|to be\s+(?:the\s+)?)?(" + _EN_ROLE + r")\b"),
    re.compile(
        r"(?:\bi am|\bi'm|(?<![а-я])я)\s+¤\d{1,2}\s*(?:,|—|and i'm|and i am|и я)\s*(?:(?:a|an|the|just|simple|"
        r"regular|просто|обычн[а-я]+)\s+)*(" + _EN_ROLE + "|" + _RU_ROLE + r")(?![a-zа-я])"
    ),  # «я игрок 4, мирный»
    re.compile(
        r"\bmy\s+(?:role|card)\s*(?:is|:|—)\s*(?:the\s+|a\s+)?(" + _EN_ROLE + r")\b|(?<![а-я])моя\s+роль\s*"
        r"(?:—|:|это)?\s*(" + _RU_ROLE + r")(?![а-я])"
    ),
    re.compile(
        r"\bi(?:'m| am)?\s+play(?:ing)?\s+(?:as\s+)?(?:the\s+|a\s+)?(" + _EN_ROLE + r")\b"
        r"|\bi\s+(?:got|have|drew)\s+(?:the\s+|a\s+)?(" + _EN_ROLE + r")\s+card\b"
    ),
    re.compile(
        r"(?:^|[.!?,]\s*)(?:just|only|simply|просто|всего лишь)\s+(?:an?\s+)?(?:(?:regular|plain|simple|"
        r"ordinary|обычн[а-я]*|прост[а-я]*)\s+)?(" + _EN_ROLE + "|" + _RU_ROLE + r")(?![a-zа-я])"
    ),
    re.compile(r"\bnot the (sheriff)\.?\s*i am\b"),
    re.compile(r"\bmy checks as (sheriff)\b"),
    re.compile(
        r"(?:^|[.!?]\s*)as (?:the\s+|a\s+|an\s+)?(?:real\s+|true\s+|only\s+|simple\s+)?(" + _EN_ROLE + r"),?\s+i\b"
    ),
    re.compile(r"(?:^|[.!?]\s*)как\s+(?:настоящий\s+|единственный\s+|простой\s+)?(" + _RU_ROLE + r")(?![а-я])"),
    re.compile(
        r"(?<![а-я])я\s*(?:—\s*)?(?:(?:просто|настоящ[а-я]+|обычн[а-я]+|сам[а-я]+|честн[а-я]+|всего|лишь|только|же|"
        r"прост[а-я]+|действительно|правда)\s+)*(" + _RU_ROLE + r")(?![а-я])"
    ),
    re.compile(r"(?<![а-я])(шериф|комиссар|дон)\s*—\s*я(?![а-я])"),
)
_RU_ROLE_INSTRUMENTAL = {"шерифом": "sheriff", "комиссаром": "sheriff", "доктором": "doctor", "доном": "don",
                         "мафией": "mafia", "мирным": "civilian", "мирным жителем": "civilian", "красным": "red",
                         "маньяком": "maniac", "любовницей": "lover"}  # fmt: skip
_SPEAKING = re.compile(  # "sheriff speaking:", «говорит шериф:» at a sentence's head
    r"^\s*(sheriff|doctor|don|civilian)\s+(?:speaking|talking)\b|^\s*говорит\s+(шериф|доктор|дон|мирный)(?![а-я])"
)
_DECLARE = re.compile(  # «заявляюсь шерифом», "sheriff claim"
    r"(?<![а-я])(?:заявляюсь|вскрываюсь|объявляюсь|играю)\s+("
    + "|".join(sorted(_RU_ROLE_INSTRUMENTAL, key=len, reverse=True))
    + r")(?![а-я])|^\s*(sheriff|doctor|civilian|don)\s+claim\b(?!\s+(?:of|by|from)\b)"
)
_CARD = re.compile(
    r"(?<![а-я])(?:у меня|моя|мне (?:пришла|досталась))\s+(?:[а-я]+\s+)?карта\s+("
    + "|".join(sorted(_RU_ROLE_GENITIVE, key=len, reverse=True))
    + r")(?![а-я])"
)
_SARCASM = re.compile(r"^\s*(?:sure|yeah,? right|yeah,? sure|oh,? sure|ну да|ага|конечно|да-да|ну конечно)\b")
_RETRACTED = re.compile(r"^[\s,.!—-]*(?:just\s+)?(?:kidding|joking|шучу|шутка)")
_ELLIPTIC = re.compile(r"\bnot the (sheriff)\.\s*i am\b|не (шериф)\.\s*(?:шериф\s*—\s*я|я\s*—?\s*шериф)")
_TEAM_CLAIMS = (  # the speaker owns the black side: "we, the mafia", "seat 6 and I are mafia"
    re.compile(r"\bwe,?\s+(?:the\s+)?(?:black team|mafia)\b"),
    re.compile(S + r"\s+and\s+i\s+are\s+(?:the\s+)?(?:mafia|black)\b"),
    re.compile(r"(?<![а-я])мы,?\s+мафия"),
    re.compile(r"(?<![а-я])мы\s+с\s+" + S + r"\s*—?\s*(?:мафия|черные)"),
    re.compile(r"\b(?:me and\s+" + S + r"|" + S + r"\s+and me)\s+are\s+(?:the\s+|both\s+)?(?:mafia|black)\b"),
    re.compile(r"(?<![а-я])я\s+и\s+" + S + r"\s*(?:—|,)?\s*(?:мафия|черные)"),
)
_CONDITIONAL = re.compile(  # a conditional: not the speaker's statement ("если что", "just in case", is none)
    r"\b(?:if|would)\b|(?<![а-я])(?:бы|будь|если(?!\s+что(?![а-я])))(?![а-я])|"
    r"\b(?:was|were)\s+(?:going to|gonna|about to)\b|\bwanted to\b|(?<![а-я])(?:собирал(?:ся|ась)|хотел[а]?)(?![а-я])"
)
_REPORTED = re.compile(  # another seat's words reported (the game's or the host's words are the record)
    r"\b(?:(?<!game )(?<!host )(?<!judge )(?<!check )(?<!investigation )(?<!result )(?<!gut )(?<!instinct )says|claims|"
    r"claimed|(?<!gut )(?<!instinct )tells|thinks|"
    r"believes)\b|"
    r"\b(?:said|say)\s+(?:that\s+)?i\b|(?<!\bi )(?<!\bas i )(?<!\bi've )(?<!\bi have )\bsaid\b(?!,)|\bi thought\b|"
    r"(?<!я )(?<!как )(?<!я уже )сказал[а]?(?![а-я])|"
    r"(?:¤\d{1,2}|\bhe|\bshe|\bthey)\s+(?:is\s+|are\s+|was\s+)?claiming\b|"
    r"(?<![а-я])(?:говорит|утверждает|заявляет|заявляется|заявился|называет|считает|думает|думал[а]?|считал[а]?)(?![а-я])|"
    r"(?<![а-я])(?:говорил|сказал)[а-я]*,?\s+что(?![а-я])"
)
_NOT_BELIEVED = re.compile(
    r"\b(?:don't|do not|doesn't|does not|never|can't|cannot)\s+(?:really\s+)?(?:think|believe|suspect|feel|say)\b|"
    r"(?<![а-я])не\s+(?:думаю|считаю|верю,? что|кажется|скажу|могу сказать)(?![а-я])"
)
_ACCORDING = re.compile(r"\baccording to\s+¤|(?<![а-я])по словам\s+¤")
_IF_AFTER = re.compile(r"^,?\s*(?:if|если)\b(?![^.]*(?:\bnot\b|n't\b|(?<![а-я])не(?![а-я])))")
_CLAUSE = re.compile(
    r",?\s+(?:but|although|though|while|whereas)\s+|;\s*|,\s*(?:но|а|хотя|однако)\s+|:\s+|"
    r",\s*(?=(?:if|unless|если)\b)"
)

_BLACK = r"(?:black|mafia|mafioso|a mafioso|the don|don|guilty|scum|черн[а-я]*|мафи[а-я]*|дон)"
_RED = r"(?:red|clean|a civilian|civilian|a citizen|citizen|peaceful|town|not black|innocent|not guilty|" \
       r"красн[а-я]*|чист[а-я]*|мирн[а-я]*|" \
       r"не черн[а-я]*)"  # fmt: skip
_COLOUR = re.compile(r"(" + _RED + r"|" + _BLACK + r")(?![a-zа-я])")
_CHECK_CUE = re.compile(
    r"\b(?:i checked|i've checked|i have checked|my (?:\w+ )?checks?|check on|according to my check|i cleared|"
    r"i looked at|i investigated|"
    r"i've cleared|my (?:investigation|result)s?|"
    r"checks? i (?:made|did|have made))\b|"
    r"(?:^|[.!?,;:—]\s*)checked\s+¤|(?:^|[.!?]\s*)(?:check|checks|проверка|проверки)\s*[:—]|"
    r"(?<![а-я])я\s+(?:[а-я]+\s+){0,3}провер[а-я]*|^\s*провер[а-я]*|проверен[а-я]*\s+мною|(?<![а-я])мо[яий][а-я]*\s+"
    r"(?:[а-я]+\s+)?провер(?:к|ок)|(?<![а-я])проверк[аи]\s+на|\bi found\s+¤|(?<![а-я])я\s+(?:[а-я]+\s+)?нашел\s+¤|"
    r"по моей проверке|(?<![а-я])проверил[а]?\s+¤|¤\d{1,2}ᵃ\s+провер(?:ил|ял)|"
    r"(?<![а-я])(?:по)?смотрел[а]?\s+(?:ночью\s+)?¤\d{1,2}ᵃ|"
    r"(?<![а-я])(?:перв|втор|трет|последн|ночн)[а-я]*\s+проверк"
)
_CHECK_NOT_MINE = re.compile(
    r"\b(?:he|she|sheriff|¤\d+),?\s+(?:checked|found)\b|\bchecked by\b|\ba checked\b|"
    r"\bchecked (?:him|her|it)\b(?<!i checked him)"
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
            r"(?:в|за|против)\s+|(?=¤\d{1,2}(?!ᵃ)))" + S  # «голос шестого»: seat 6's vote, not the speaker's
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
    ),
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
    ALIVE: (
        re.compile(
            r"(?:^|[.!?;,—]\s*)(?:(?:hey|ok|okay|so|well|now|эй|так|ну|итак)\s*,?\s*)?"
            r"((?:¤\d{1,2}(?:\s+(?:and|и)\s+¤\d{1,2}){0,11}+\s*(?:[,—:;]|(?=\s+(?:please|пожалуйста)\b))\s*){1,12}+)"
            r"(?!\s*(?:это\s+|the\s+)?(?:черн|красн|мафи|дон|шериф|доктор|мирн|маньяк|black|red|mafia))"
            r"(?!\s*(?:you're|you are|ты|вы)\s+(?:\w+\s+)?(?:black|mafia|the don|a liar|lying|черн|мафи|дон|лжец|вр))"
            r"(?![^.!]{0,200}\btrust you\b)(?![^.!]{0,200}(?<![а-я])(?:вам|тебе)\s+(?:[а-я]+\s+)?доверяю)"
            r"(?=[^.!]{0,200}(?:\?|\byou\b|\byour\b|explain|speak|tell|answer|convince|say\b|defend|justify|care to|"
            r"stop\b|"
            r"\btalk\b|хватит|перестань|поговори|"
            r"(?<![а-я])(?:ты|тебе|тебя|твой|твою|твои|твое|твоя|твоего|вы|ваш[а-я]*|объясни|скажи|ответь|расскажи|убеди|"
            r"говори|поясни|оправдайся|защищайся|выскажись|объясните|скажите|ответьте)(?![а-я])))"
        ),
        re.compile(r"\b(?:hear from|listen to|hear what|hear)\s+" + L),
        re.compile(
            r"\bquestions?\s+(?:for|to)\s+"
            + S
            + r"|(?<![а-я])вопрос[а-я]*\s+(?:к|для)\s+"
            + S
            + r"|\bi (?:want|would like|'d like) to ask\s+"
            + S
        ),
        re.compile(
            r"\b(?:can|could|would|will)\s+" + L + r"\s+(?:tell|explain|answer|say|share|walk)\b|"
            r"(?<![а-я])(?:может|могут)\s+ли\s+" + L + r"\s+(?:объясн|сказать|ответ|рассказ)"
        ),
        re.compile(
            r"\b(?:know|hear|understand)\s+what\s+" + S + r"\s+(?:thinks|says|has to say|makes of)|(?<![а-я])"
            r"(?:знать|услышать|понять|спросить),?\s+что\s+(?:думает|скажет|считает)\s+" + S
        ),
        re.compile(
            r"\b(?:i want|i'd like|i ask|i need|i'd ask)\s+" + S + r"\s+to\s+(?:explain|speak|answer|tell|talk|"
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
            r"очевидн[а-я]*|оба|обе|тоже|для меня|мне|по-моему|наверняка|100%|возможно|безусловно|,|—|это)\s*){0,4}"
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
            L + r"\s+(?:is|are|looks?|seems?|'s)\s+(?:(?!not\b|never\b|no\b)\w+\s+){0,3}?"
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
    ),
    TEAMMATE: (
        re.compile(
            r"\bour\s+(?:guy|man|boy|girl|person)\s*(?:is|:|—)\s*" + S + r"|(?<![а-я])наш[а-я]*\s+(?:человек|парень|"
            r"девушка)\s*(?:—|:|это)?\s*" + S
        ),
        re.compile(
            r"\b(?:me and\s+" + S + r"|" + S + r"\s+and me)\s+are\s+(?:the\s+|both\s+)?(?:mafia|black|a team)\b"
        ),
        re.compile(
            r"(?<![а-я])мы\s+с\s+" + S + r"\s+(?:в\s+одной\s+команде|в\s+команде|заодно|вместе)|"
            r"(?<![а-я])я\s+и\s+" + S + r"\s*(?:—|,)?\s*(?:мафия|черные|команда)"
        ),
        re.compile(
            r"\b(?:my|our)\s+(?:team\s*mates?|partners?|allies|ally|accomplices?|fellow (?:mafia|mafioso)|don)"
            r"\s*(?:were|are|is|was|:|—)?\s*" + L
        ),
        re.compile(
            L + r"\s+(?:is|was|are|were)\s+(?:my|our)\s+(?:team\s*mates?|partners?|ally|allies|accomplices?|don)\b"
        ),
        re.compile(r"(?:^|[.!?,]\s*)(?:partner|напарник)\s+" + S),
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
_NEGATED_BEFORE = re.compile(
    r"(?:\bnot|\bdon't|\bdo not|\bnever|\bwon't|\bwill not|\bcan't|(?<![а-я])не|(?<![а-я])никогда)"
    r"(?:\s+(?:be|going to|want to|буду|будем|стану|хочу|надо|нужно|стоит|собираюсь|to))?\s*$"
)
_QUESTION = re.compile(
    r"^\s*(?:(?:so|and|but|then|а|и|так|ну)\s*,?\s*)?(?:is|are|was|were|do|does|did|who|why|what|how|can|could|"
    r"should|will|would|have|has|кто|почему|зачем|что|как|разве|неужели|может)\b[^.!]*\?\s*$"
    r"|^[^.!]*(?<![а-я])ли(?![а-я])[^.!]*\?\s*$|^\s*¤\d{1,2}ᵃ?\s+(?:черн[а-я]*|мафи[а-я]*|black|mafia)\s*\?\s*$"
)
_SUBJECT = re.compile(
    r"\b(?P<me>i|i'm|i'll|i've|i'd|we|we'll|let's|everyone|everybody|all|guys|town|my|me)\b|(?<![а-я])(?P<ru_me>я|мы|"
    r"давайте|все|мой|моя|мне|меня)(?![а-я])|\b(?P<they>he|she|they)\b|(?<![а-я])(?P<ru_they>он|она|они)(?![а-я])|"
    r"(?<!for )(?<!against )(?<!with )(?<!за )(?<!против )(?P<seat>¤\d{1,2})(?!ᵃ)"
)


def _third_person(sentence: str, start: int) -> bool:
    """Whether the last subject before `start` in its clause is another seat or a third person."""
    low = max((m.end() for m in _CLAUSE.finditer(sentence, 0, start)), default=0)
    last = None
    for m in _SUBJECT.finditer(sentence, low, start):
        last = m
    return last is not None and last.lastgroup in {"they", "ru_they", "seat"}


_NEGATED_AFTER = re.compile(r"\s*(?:не\s+(?:буду|будем|стану|станем|хочу|надо|нужно|стоит)|not\b)")
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")


_THAT = re.compile(r"^(?:that|this|это)\s+(?:is\s+|очень\s+|very\s+)*(?:suspicious|подозрительно)")
_PRONOUN = re.compile(r"\b(?:him|he|she|her)\b|(?<![а-я])(?:он|она|него|нему|ним|его|ему|ей|ее)(?![а-я])")


_OBJECT_PRONOUN = re.compile(  # the object of the speaker's vote or trust ("I'm voting her", "I don't trust him")
    r"\b((?:voting|vote|vote for|vote against|trust|believe|suspect|nominate|nominating|like|kill|shoot|hear)\s+)"
    r"(?:him|her)\b"
)


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
        elif len(seats) == 1:  # "the lady in seat 4 — I'm voting her": a pronoun after the one seat named
            seat = next(iter(seats))
            at = sentence.index(seat) + len(seat)
            sentence = sentence[:at] + _OBJECT_PRONOUN.sub(r"\g<1>" + seat, sentence[at:])
        out.append(sentence)
        previous = seats or previous
    return out


def _guarded(sentence: str, start: int, end: int) -> bool:
    """Whether sentence[start:end] is not the speaker's own statement: its clause is a conditional, or reports
    another's words before it ("seat 4 says he checked 6", "according to 5, ..."), or the clause after it makes it
    conditional ("I'll vote 6, if the sheriff confirms"; "unless" and "if ... not" keep it)."""
    low, high, following = 0, len(sentence), ""
    for m_start, m_end in _starts(_CLAUSE, sentence):
        if m_end <= start:
            low = m_end
        elif m_start >= end:
            high, following = m_start, sentence[m_start:]
            break
    clause = sentence[low:high]
    if _starts(_CONDITIONAL, clause) or _IF_AFTER.match(following):
        return True
    if any(r < end - low for r, _ in _starts(_REPORTED, clause)):
        return True
    if any(n < start - low for n, _ in _starts(_NOT_BELIEVED, clause)):
        return True  # "I don't think 1 is mafia"
    return any(a < start for a, _ in _starts(_ACCORDING, sentence))


@lru_cache(maxsize=4096)
def _starts(pattern: re.Pattern[str], text: str) -> tuple[tuple[int, int], ...]:
    """The spans of `pattern` in `text`, kept: a sentence's many matches ask the same of it (linear, not quadratic)."""
    return tuple(m.span() for m in pattern.finditer(text))


def _reported_checks(sentence: str) -> set[int]:
    """The seats of checks this sentence reports from another seat ("our sheriff, 1, checked 6 black"): those named
    from the report to the end of its clause."""
    seats: set[int] = set()
    for m in _CHECK_NOT_MINE.finditer(sentence):
        end = next((c.start() for c in _CLAUSE.finditer(sentence) if c.start() >= m.end()), len(sentence))
        start = sentence.rfind(",", 0, m.start()) if m.group(0).startswith("a checked") else m.start()
        seats |= {int(n) for n in re.findall(r"¤(\d{1,2})", sentence[max(start, 0) : end])}
    return seats


_COL = r"(red|black|красн[а-я]*|черн[а-я]*)"
_CHECK_NOUN = r"(?:check|проверк[а-я]*)"
_COLOURED_CHECKS = (  # a check named by its colour: "my red check", «красная проверка на девятого»
    re.compile(
        S + r"\s*(?:—|:|is|was|был[а]?|-)?\s*(?:my|a|an|мо[а-я]+|от меня|у меня)?\s*" + _COL + r"\s+" + _CHECK_NOUN
    ),
    re.compile(r"(?<![а-я])у\s+" + S + r"\s+(?:от меня\s+)?" + _COL + r"\s+проверк"),
    re.compile(_COL + r"\s+" + _CHECK_NOUN + r"\s+(?:on|на|у|for)\s+" + S),
    re.compile(r"(?:\bmy|(?<![а-я])мо[а-я]+)\s+" + _COL + r"\s+" + _CHECK_NOUN + r"\s*(?:is|was|:|—|это)\s*" + S),
)
_PRONOUN_CHECK = re.compile(r"\b(?:he|she)\s+(?:was|is)\s+my\s+" + _COL + r"\s+check|(?<![а-я])(?:он|она)\s+"
                            r"(?:был[а]?\s+)?мо[а-я]+\s+" + _COL + r"\s+проверк")  # fmt: skip


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
            head = re.match(r"\s*(?:result|результат)?\s*[:—]?\s*(?:he|she|it|он|она|¤" + str(pending)
                            + r"ᵃ?)?\s*(?:is|'s|was|—)?\s*(?:a\s+)?(\S+)",
                            sentence)  # fmt: skip
            word = head.group(1).strip(".,!;:") if head else ""
            if word and _COLOUR.fullmatch(word):
                found.append((pending, _colour(word)))
        pending = None
        listing = sheriff_claimed and re.fullmatch(r"[\s¤ᵃ\d,;:—.!a-zа-я'-]*", sentence) is not None
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
            if not cue and not re.match(r"\s*[—:,-]?\s*(?:is\s+|у меня\s+|for me\s+)?$", between[: colour.start()]):
                continue  # a sheriff's bare list reads "¤4 black", "¤4 — black"
            found.append((int(m.group(1)), _colour(colour.group(1))))
            paired = True
        if cue and not paired and len(seats) == 1:
            pending = int(seats[0].group(1))
    for sentence in sentences:
        if _CHECK_NOT_MINE.search(sentence):
            continue
        for pattern in _COLOURED_CHECKS:
            for m in pattern.finditer(sentence):
                seat, word = (m.group(1), m.group(2)) if m.group(1).isdigit() else (m.group(2), m.group(1))
                if not _guarded(sentence, m.start(), m.end()) and not re.match(
                    r"[а-я]*\s*(?:от|from|by)\s+¤", sentence[m.end() :]
                ):
                    found.append((int(seat), _colour(word)))  # not «красная проверка от третьего»
        for m in _PRONOUN_CHECK.finditer(sentence):
            before = re.findall(r"¤(\d{1,2})", sentence[: m.start()])
            if before and not _guarded(sentence, m.start(), m.end()):
                found.append((int(before[-1]), _colour(m.group(1) or m.group(2))))
    return list(dict.fromkeys(found))


def _roles(sentences: list[str]) -> list[str]:
    out: list[str] = []
    for sentence in sentences:
        if sentence.rstrip().endswith("?"):
            continue  # a question claims nothing ("do you really think I am mafia?")
        if _SARCASM.match(sentence):
            continue  # "sure, I'm totally the mafia", «ну да, конечно, я мафия»
        for pattern in _ROLE_PATTERNS:
            for m in pattern.finditer(sentence):
                if not _guarded(sentence, m.start(), m.end()) and not _RETRACTED.match(sentence[m.end() :]):
                    out.append(_ROLE_WORDS[next(g for g in m.groups() if g)])
        if any(p.search(sentence) for p in _TEAM_CLAIMS):
            out.append("mafia")
        out += [_ROLE_WORDS[m.group(1) or m.group(2)] for m in _SPEAKING.finditer(sentence)]
        for m in _DECLARE.finditer(sentence):
            if not _guarded(sentence, m.start(), m.end()):
                out.append(_RU_ROLE_INSTRUMENTAL.get(m.group(1) or "") or _ROLE_WORDS[m.group(2)])
        for m in _CARD.finditer(sentence):  # «у меня карта шерифа»
            if not _guarded(sentence, m.start(), m.end()):
                out.append(_RU_ROLE_GENITIVE[m.group(1)])
    return out


# ----- the fallback: a seat and a kind's key word in one clause ------------------------------------------------------
# The patterns above know constructions; people find new ones. A clause (a sentence cut at ";", "but", "and", «а»,
# «но», «и», "because") that names seats and holds a kind's key word, with none of the words that turn a statement into
# something else (a negation, a question, a condition, another's words, the past of a vote, a future of a death),
# states that kind of those seats.
_CHUNKS = re.compile(
    r"[;,](?!\s*(?:and|и)?\s*¤)|\s+(?:but|so|because|while|whereas|than)\s+|\s+and\s+(?!¤)|"
    r"\s*(?<![а-я])(?:а|но|потому что|так что|чем)\s+|\s+и\s+(?!¤)"
)
_NEGATION = re.compile(r"\b(?:not|no|never|n't|nobody|none)\b|n't\b|(?<![а-я])(?:не|нет|ни|никогда|никто)(?![а-я])")
_OTHERS_WORDS = re.compile(
    r"\b(?:accused|accuses|called|calls|named|names|says|said|claims|claimed|thinks|according|wants|asked|checked|found|"
    r"if|would|could|might|whether|unless)\b|(?<![а-я])(?:обвинил[а-я]*|назвал[а-я]*|говорит|сказал[а-я]*|"
    r"считает|думает|думал[а-я]*|хочет|проверил[а-я]*|нашел|если|бы|может быть|вдруг|ли)(?![а-я])"
)
_FALLBACK: dict[str, tuple[re.Pattern[str], re.Pattern[str] | None]] = {
    # kind: (the key word, words that must not be in the clause besides the common ones)
    ACCUSE: (
        re.compile(
            r"\b(?:black|mafia|mafioso|don|scum|scummy|liar|lying|lies|suspicious|suspect|rat|shady|fishy|fake|wolf|evil|"
            r"guilty)\b|(?<![а-я])(?:черн[а-я]*|мафи[а-я]*|дон|доном|лжец|врет|лжет|врун[а-я]*|подозр[а-я]*|нечист[а-я]*|"
            r"мутн[а-я]*|мути[а-я]*|фейк)(?![а-я])"
        ),
        re.compile(
            r"\b(?:our|my|i am|i'm|we|we're|killed|shot|kill|shoot|tonight|dead|red|town|trust|clean|checks?|"
            r"sheriff|team|partner|checking|checked|about|took|overnight)\b|(?<![а-я])(?:наш[а-я]*|мой|моя|мы|я|убил[а-я]*|"
            r"убит[а-я]*|убрал[а-я]*|"
            r"стреля[а-я]*|ночью|"
            r"мертв[а-я]*|красн[а-я]*|мирн[а-я]*|доверя[а-я]*|провер[а-я]*|шериф[а-я]*|напарни[а-я]*)(?![а-я])"
        ),
    ),
    VOTE: (
        re.compile(
            r"\b(?:vote|voting|nominate|nominating|lynch)\b|(?<![а-я])(?:голос|голосую|голосуем|голосуйте|"
            r"проголосую|проголосуем|выставляю|выставляем)(?![а-я])"
        ),
        re.compile(
            r"\b(?:voted|your|his|her|their|he|she|they|yesterday|tomorrow|who|with|explain|before|after|"
            r"please)\b|¤\d+'s|(?<![а-я])(?:голосовал[а-я]*|твой|ваш|его|ее|их|он|она|они|вчера|кто|свой|свою|"
            r"прошу|поясни|объясн[а-я]*|перед|после|вместе|пожалуйста)(?![а-я])|голос[а-я]*\s+¤\d+ᵃ"
        ),
    ),
    DEAD: (
        re.compile(
            r"\b(?:dead|died|killed|shot|eliminated|lynched|rip|gone|passed)\b|(?<![а-я])(?:мертв[а-я]*|умер[а-я]*|"
            r"убит[а-я]*|убили|застрелили|отстреляли|отстрелили|заголосовали|выбыл[а-я]*|погиб[а-я]*|помянем|"
            r"покойн[а-я]*)(?![а-я])"
        ),
        re.compile(
            r"\b(?:tonight|will|gonna|going|want|wants|try|tries|survived|saved|healed|almost|nearly|who)\b|"
            r"(?<![а-я])(?:сегодня|буд[а-я]*|хоч[а-я]*|хотят|попроб[а-я]*|выжил[а-я]*|спас[а-я]*|вылечил[а-я]*|"
            r"чуть|кто)(?![а-я])"
        ),
    ),
    TARGET: (
        re.compile(
            r"\b(?:target|shoot|kill|hit|take out|go for)\b.*\b(?:tonight|at night)\b|\b(?:tonight|at night)\b.*"
            r"\b(?:target|shoot|kill|hit|take out|go for)\b|(?<![а-я])(?:цель|стреляем|убираем|валим|убьем)"
            r"(?![а-я]).*ноч|ноч.*(?<![а-я])(?:цель|стреляем|убираем|валим|убьем)(?![а-я])"
        ),
        re.compile(r"\b(?:they|mafia|doctor|save|protect|heal)\b|(?<![а-я])(?:они|мафия|доктор|лечи[а-я]*)(?![а-я])"),
    ),
}


_HEDGE_ASIDE = re.compile(
    r",\s*(?:похоже|кажется|скорее всего|наверное|возможно|по-моему|по ощущениям|i think|probably|maybe|perhaps|"
    r"i guess|i believe|i feel|most likely|clearly|obviously)\s*,"
)


def _fallback(sentence: str) -> list[tuple[str, int]]:
    """(kind, seat) read from the clauses of one sentence by the fallback (see above)."""
    sentence = _HEDGE_ASIDE.sub(" ", sentence)  # "восьмой, похоже, лжец": an aside, not a clause
    if _QUESTION.match(sentence) or sentence.rstrip().endswith("?") or _CONDITIONAL.search(sentence):
        return []
    if _ACCORDING.search(sentence):
        return []
    out: list[tuple[str, int]] = []
    cues = [m.start() for p in (_OTHERS_WORDS, _REPORTED, _NOT_BELIEVED) for m in p.finditer(sentence)]
    start = 0
    for chunk in _CHUNKS.split(sentence):
        start = sentence.find(chunk, start)
        end = start + len(chunk)
        seats = [int(n) for n in re.findall(r"¤(\d{1,2})", chunk)]
        if not seats or _NEGATION.search(chunk) or any(c < end for c in cues):
            continue  # "the sheriff said 5 is black", «не думаю, что первый — мафия»: all that follows is not his
        for kind, (key, veto) in _FALLBACK.items():
            if key.search(chunk) and not (veto and veto.search(chunk)):
                if len(set(seats)) > 1 and (kind in (VOTE, TARGET) or not re.fullmatch(r"[^¤]*" + L + r"[^¤]*", chunk)):
                    continue  # one vote, one target; seats apart in one clause play different parts
                out += [(kind, seat) for seat in seats]
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
                    if _NEGATED_BEFORE.search(sentence[: m.start()]) or _NEGATED_AFTER.match(sentence[m.end() :]):
                        continue
                    if kind != ALIVE and _guarded(sentence, m.start(), m.end()):
                        continue
                    if kind != ALIVE and _QUESTION.match(sentence):
                        continue  # "is seat 5 mafia?" asks, it does not say
                    if kind == VOTE and _third_person(sentence, m.start(m.lastindex or 0)):
                        continue  # "I think seat 3 will vote 5": another seat's vote
                    for seat in (int(n) for g in m.groups() if g is not None for n in re.findall(r"\d+", g)):
                        if kind == ACCUSE and seat in reports:
                            continue  # another seat's check told again ("our sheriff checked 6: black")
                        if kind == ACCUSE and seat in checked:
                            continue  # "seat 4 is black, I checked him": a check, not a bare accusation
                        found.append(Statement(kind, seat))
    for sentence, reports in zip(sentences, reported, strict=True):
        for kind, seat in _fallback(sentence):
            if kind == ACCUSE and (seat in reports or seat in checked):
                continue
            found.append(Statement(kind, seat))
    mates = {s.seat for s in found if s.kind == TEAMMATE}
    found = [s for s in found if not (s.kind == ACCUSE and s.seat in mates)]  # "6 is our don": a teammate
    return tuple(dict.fromkeys(found))


def read(text: str) -> tuple[Statement, ...]:
    """Every statement `text` makes, each once, in the order: role claims, checks, then the other kinds."""
    return _read(text or "")
