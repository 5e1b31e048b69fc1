"""The reader's API: `read(text)`, every statement a speech's free text makes, in the order role claims, checks,
then the other kinds (votes, deaths, addresses, accusations, teammates, night targets)."""

from __future__ import annotations

import re
from functools import cache

from arena.research.speech_reader import accusations, deaths, votes
from arena.research.speech_reader.claims import ELLIPTIC, ROLE_WORDS, read_checks, read_roles, reported_checks
from arena.research.speech_reader.fallback import read_fallback
from arena.research.speech_reader.guards import (
    CLAUSE,
    NEGATED_AFTER,
    NEGATED_BEFORE,
    QUESTION,
    REPORTED,
    guarded,
    split_sentences,
    third_person,
)
from arena.research.speech_reader.learned import Model, read_learned, ruled_kinds
from arena.research.speech_reader.seats import normalise
from arena.research.speech_reader.statement import (
    ACCUSE,
    ALIVE,
    CHECK,
    DEAD,
    KINDS,
    ROLE,
    TARGET,
    TEAMMATE,
    VOTE,
    Statement,
)

# the constructions, kind by kind, in the order the reader has always tried them
_SIMPLE = {kind: m.PATTERNS[kind] for kind in KINDS for m in (votes, deaths, accusations) if kind in m.PATTERNS}


_DOUBTED = re.compile(
    r",\s*(?:(?:but|or)\s+)?maybe not\b|,\s*or not\b|(?<![а-я])(?:а\s+)?может,?\s+и\s+нет(?![а-я])|,\s*или нет(?![а-я])"
)
_ASKS = re.compile(r"\s*(?:(?:or|или)\b[^,;:—.!?]*)?\?")  # the statement is asked ("vote for 5?", «врёт или нет?»)
# a death or a vote denied inside the construction («пятого не убили»); "didn't survive" states a death
_DENIED = re.compile(
    r"(?<![а-я])(?:не|ни)(?![а-я])|\b(?:never|wasn't|weren't|isn't|aren't|hasn't|haven't)\b|\bnot\b(?!\s+(?:survive|make))"
)
# a verb whose ending says the speaker votes («голосую», «голосуем»), whoever was named before it
_FIRST = re.compile(r"(?<![а-я])(?:про|за)?голосу(?:ю|ем)(?![а-я])|(?<![а-я])(?:отдаю|отдам|выставляю|иду)(?![а-я])")


@cache
def read_rules(text: str) -> tuple[Statement, ...]:
    """What the hand-written constructions read in `text` (the reader without its learned part)."""
    t = normalise(text)
    sentences = split_sentences(t)
    found: list[Statement] = []
    roles = read_roles(sentences) + [ROLE_WORDS[m.group(1) or m.group(2)] for m in ELLIPTIC.finditer(t)]
    found += [Statement(ROLE, 0, r) for r in roles]
    checks = read_checks(sentences, "sheriff" in roles)
    found += [Statement(CHECK, seat, colour) for seat, colour in checks]
    checked = {seat for seat, _ in checks}
    reported = [reported_checks(sentence) for sentence in sentences]
    for kind, patterns in _SIMPLE.items():
        for sentence, reports in zip(sentences, reported, strict=True):
            if "¤" not in sentence:
                continue  # every construction names a seat
            for pattern in patterns:
                for m in pattern.finditer(sentence):
                    if NEGATED_BEFORE.search(sentence[: m.start()]) or NEGATED_AFTER.match(sentence[m.end() :]):
                        continue
                    if kind != ALIVE and guarded(sentence, m.start(), m.end()):
                        continue
                    if kind != ALIVE and QUESTION.match(sentence):
                        continue  # "is seat 5 mafia?" asks, it does not say
                    if kind in (DEAD, VOTE) and _DENIED.search(m[0]):
                        continue
                    if kind != ALIVE and _DOUBTED.search(sentence[m.end() :]):
                        continue  # "maybe 6 is mafia, maybe not"
                    if kind != ALIVE and _ASKS.match(sentence[m.end() :]):
                        continue  # "vote for 5?": the clause asks
                    if kind == VOTE and third_person(sentence, m.start(m.lastindex or 0)) and not _FIRST.search(m[0]):
                        continue  # "I think seat 3 will vote 5": another seat's vote
                    for seat in (int(n) for g in m.groups() if g is not None for n in re.findall(r"\d+", g)):
                        if kind == ACCUSE and seat in reports:
                            continue  # another seat's check told again ("our sheriff checked 6: black")
                        if kind == ACCUSE and seat in checked:
                            continue  # "seat 4 is black, I checked him": a check, not a bare accusation
                        found.append(Statement(kind, seat))
    for sentence in sentences:
        found += [Statement(DEAD, int(n)) for m in deaths.PRESUPPOSED.finditer(sentence) for n in m.groups() if n]
    for sentence, reports in zip(sentences, reported, strict=True):
        for kind, seat in read_fallback(sentence) if not _DOUBTED.search(sentence) else []:
            if kind == ACCUSE and (seat in reports or seat in checked):
                continue
            found.append(Statement(kind, seat))
    mates = {s.seat for s in found if s.kind == TEAMMATE}
    found = [s for s in found if not (s.kind == ACCUSE and s.seat in mates)]  # "6 is our don": a teammate
    return tuple(dict.fromkeys(found))


def merge(rules: tuple[Statement, ...], learned: list[tuple[str, int, str]]) -> tuple[Statement, ...]:
    """The rules' statements and the model's, each once: roles, checks, then the rest; a seat checked or named a
    teammate is no bare accusation, and a check the rules read keeps their colour."""
    found = list(rules) + [Statement(kind, seat, value) for kind, seat, value in learned]
    ruled = {s.seat for s in rules if s.kind == CHECK}
    found = [s for s in found if not (s.kind == CHECK and s.seat in ruled and s not in rules)]
    settled = {s.seat for s in found if s.kind in (CHECK, TEAMMATE)}
    found = [s for s in found if not (s.kind == ACCUSE and s.seat in settled)]
    order = {ROLE: 0, CHECK: 1}
    return tuple(sorted(dict.fromkeys(found), key=lambda s: order.get(s.kind, 2)))


# a negation before a vote or a night target in its clause ("don't shoot 6", "I'm not voting 6")
_NEGATION = re.compile(
    r"\b(?:not|don't|do not|never|won't|will not|can't|cannot|no)\b|(?<![а-я])(?:не|ни|нельзя)(?![а-я])"
)
_FROM_SEAT = re.compile(r"\b(?:from|by)\s+¤|(?<![а-я])от\s+¤")  # a check another seat made ("a red check from 3")


def _owned(sentence: str, kind: str, start: int, end: int) -> bool:
    """Whether the mention at sentence[start:end] may carry the speaker's own statement of `kind`: the rules'
    guards (a condition, another's words, a belief denied, a question, a doubt), and for a vote or a target a
    negation before it in its clause."""
    if kind == ALIVE:
        return True  # a question to a seat addresses it
    if REPORTED.match(sentence, end + len(sentence[end:]) - len(sentence[end:].lstrip(" ,"))):
        return False  # "Seat 4 says he checked 9": seat 4 is the one reported, not what is read
    if guarded(sentence, start, end) or QUESTION.match(sentence) or _DOUBTED.search(sentence[end:]):
        return False
    if _ASKS.match(sentence[end:]):
        return False
    if kind == CHECK:
        return not _FROM_SEAT.search(sentence) and int(re.sub(r"\D", "", sentence[start:end])) not in reported_checks(
            sentence
        )
    if kind in (VOTE, TARGET):
        low = max((m.end() for m in CLAUSE.finditer(sentence, 0, start)), default=0)
        return not _NEGATION.search(sentence, low, start)
    return True


def learned(text: str, rules: tuple[Statement, ...], model: Model | None = None) -> list[tuple[str, int, str]]:
    """The model's statements (learned.py) that the rules' guards leave to the speaker: a seat's statement stands
    when one of its mentions is not in a condition, another's words, a question or (a vote, a target) a negation."""
    t = normalise(text)
    sentences = split_sentences(t)
    out = []
    for kind, seat, value in read_learned(t, ruled_kinds([(s.kind, s.seat, s.value) for s in rules]), model):
        token = re.compile(rf"¤{seat}(?!\d)ᵃ?")
        if kind == ROLE or any(
            _owned(sentence, kind, m.start(), m.end()) for sentence in sentences for m in token.finditer(sentence)
        ):
            out.append((kind, seat, value))
    return out


@cache
def _read(text: str) -> tuple[Statement, ...]:
    rules = read_rules(text)
    return merge(rules, learned(text, rules))


def read(text: str) -> tuple[Statement, ...]:
    """Every statement `text` makes, each once, in the order: role claims, checks, then the other kinds."""
    return _read(text or "")
