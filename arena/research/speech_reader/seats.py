"""Normalisation: lower case, `ё` as `е`, dashes as one `—`, common misspellings of key words corrected, and every
mention of a seat ("seat 5", "player five", "#5", "игрок 5", «пятого», «пятёрка», "the fifth", a bare 5 that is not a
count or a day) replaced by a token `¤N` (`¤Nᵃ` for a Russian seat in an object case), so the patterns are written
once over `¤N`: `S` (one seat, captured) and `L` (a seat or a list of seats, captured)."""

from __future__ import annotations

import difflib
import re
from functools import cache

from arena.research.speech_reader.statement import MAX_SEAT

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
    r"(?:number\s+|номер\s+|no\.\s*|№\s*|#\s*)?"
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
    r"weeks?\b|hours?\b|guys\b|words?\b|ways?\b|claims?\b|another\b|%|percent|by\b|who\b|that\b|which\b|dons?\b|"
    r"sheriffs?\b|doctors?\b|civilians?\b|maniacs?\b)"
)
_SEAT_AFTER_TOKEN = re.compile(r"(¤\d{1,2}ᵃ?)\s+(?:seat|player|chair|man|woman|lady|номер|мест[а-я]*)(?![a-zа-я])")
# a Russian ordinal written in digits: «4-й», «7-го» (an object case marked as the spelt ordinals are)
_DIGIT_ORDINAL = re.compile(r"(?<![\d¤.,:])(\d{1,2})-(?:(го|ого|ую)|й|ый|ий|ой|му|ому|м|ым|ом)(?![а-я])")
_NOT_SEAT_BEFORE = re.compile(
    r"(?:day|night|round|days|nights|день|ночь|дня|круг|раз|через|there are|there were|we have|only|около)\s*$"
)
_NOT_SEAT_AFTER = re.compile(
    r"^\s*(?:players?|of\b|days?|nights?|votes?|people|minutes?|seconds?|times?|%|percent|игрок|из\b|дн|ноч|"
    r"голос|человек|минут|секунд|раз|процент|утра|вечера|час|mafia\b|of us\b|\.\d|,\d)"
)
_ONE_PRONOUN = re.compile(r"\b(?:the|a|an|this|that|which|every|any|no|each)\s+[a-z'-]+\s*$")
_RU_PLACE = re.compile(  # «второе место»: a seat named by its place
    r"(?<![а-я])(" + "|".join(sorted(_RU_STEMS, key=len, reverse=True)) + r")(?:ое|ого|ому|ом)\s+мест[а-я]*(?![а-я])"
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

    t = _RU_PLACE.sub(lambda m: _seat(_RU_STEMS[m.group(1)]), t)
    t = _RU_ORDINAL.sub(ordinal, t)
    t = _RU_COLLOQ.sub(lambda m: _seat(_RU_COLLOQUIAL[m.group(1)]), t)

    def bare(m: re.Match[str]) -> str:
        if _NOT_SEAT_BEFORE.search(t[: m.start()]) or _NOT_SEAT_AFTER.match(t[m.end() :]):
            return m.group(0)
        return _seat(int(m.group(1)))

    t = _DIGIT_ORDINAL.sub(lambda m: m.group(1) + (OBJECT if m.group(2) else ""), t)
    t = _BARE.sub(bare, t)

    def word(m: re.Match[str]) -> str:
        if _EN_NOT_SEAT_BEFORE.search(t[: m.start()]) or _EN_NOT_SEAT_AFTER.match(t[m.end() :]):
            return m.group(0)
        if m.group(1) == "one" and _ONE_PRONOUN.search(t[: m.start()]):
            return m.group(0)  # "the killed one", "a quiet one": a pronoun
        return _seat(_EN_NUMBERS[m.group(1)])

    t = _EN_BARE.sub(word, t)
    return _SEAT_AFTER_TOKEN.sub(r"\1", t)


# ----- patterns ---------------------------------------------------------------------------------------------------
S = r"¤(\d{1,2}+)ᵃ?"  # a seat token, captured (its digits whole: "¤12" is never "¤1")
# what may stand between the seats of a list: commas, "and"/"or", hedges ("¤10 и, возможно, ¤1"). One token at a time,
# each starting with a different character, so a failed match backtracks in linear time (nested optional spaces did not)
_SEP = (
    r"(?:[\s,]|(?:and|or|possibly|maybe|probably|perhaps|likely|then)\b|"
    r"(?<![а-я])(?:и|или|возможно|наверное|может быть|скорее всего|потом|затем)(?![а-я]))++"
)
L = r"(¤\d{1,2}+ᵃ?(?:" + _SEP + r"¤\d{1,2}+ᵃ?){0,11}+)"  # one seat or a list ("¤7 and ¤9"), captured
