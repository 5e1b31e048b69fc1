"""Bots that talk like players (issue #36): first person, varied lines, replies to what was said about them.

A person at the table found the bots talking about their own seat in the third person ("#7: ... he votes together
with seat 7"), and one line in many speeches ("it is only a feeling so far, but a strong one"). Measured over
whole seeded games of heuristic bots, in both languages.
"""

from __future__ import annotations

import collections
import re

import pytest
from test_bots import _game

from arena.engine import EventType, Game

GAMES = range(1, 13)
OWN_SEAT = {
    "en": r"\bseat {seat}\b",
    "ru": r"\bигрок(?:а|у|ом|е)? {seat}\b",
}


def _speeches(lang: str) -> list[tuple[Game, int, int, str, str]]:
    """(game, seq, seat, speech kind, text) of every speech in the games."""
    out = []
    for seed in GAMES:
        game = _game("fiim", seed, lang=lang)
        for event in game.events:
            if event.type is EventType.SPEECH and event.seat is not None:
                out.append((game, event.seq, event.seat, event.value or "", event.text or ""))
    return out


@pytest.fixture(scope="module", params=["en", "ru"])
def spoken(request: pytest.FixtureRequest) -> tuple[str, list[tuple[Game, int, int, str, str]]]:
    return request.param, _speeches(request.param)


def test_a_bot_never_names_its_own_seat_in_the_third_person(spoken: tuple[str, list]) -> None:  # type: ignore[type-arg]
    lang, speeches = spoken
    own = [
        (seat, text)
        for _, _, seat, kind, text in speeches
        if kind != "intro" and re.search(OWN_SEAT[lang].format(seat=seat), text, re.IGNORECASE)
    ]
    assert not own, own[:3]


def test_no_sentence_fills_the_table(spoken: tuple[str, list]) -> None:  # type: ignore[type-arg]
    """No sentence of more than five words is in more than 11 % of the speeches, and the bots use many (on the
    code the issue tested: 36 such sentences in 12 games, the top one, the "feeling", in 50 of 390 speeches)."""
    _lang, speeches = spoken
    counts: collections.Counter[str] = collections.Counter()
    for *_, text in speeches:
        for sentence in {s.strip() for s in re.split(r"(?<=[.!?])\s+", re.sub(r"\d+", "N", text))}:
            if len(sentence.split()) > 5:
                counts[sentence] += 1
    top, times = counts.most_common(1)[0]
    assert times / len(speeches) <= 0.11, f"{top!r} in {times} of {len(speeches)} speeches"
    assert len(counts) >= 100, len(counts)


def test_a_bot_replies_to_the_seat_that_accused_or_nominated_it(spoken: tuple[str, list]) -> None:  # type: ignore[type-arg]
    """Replies happen, and each names a seat that did accuse or nominate the speaker before (its own view)."""
    lang, speeches = spoken
    pattern = (
        r"Seat (\d+) (?:points at me|wants me gone|nominated me)|seat (\d+)'s words on me|I heard seat (\d+)|"
        r"because of seat (\d+)"
        if lang == "en"
        else r"Игрок (\d+) (?:указывает на меня|хочет меня убрать|выставил меня)|словах игрока (\d+) про меня|"
        r"слышал игрока (\d+)|из-за игрока (\d+)"
    )
    replies = 0
    for game, seq, seat, _kind, text in speeches:
        found = re.search(pattern, text)
        if not found:
            continue
        replies += 1
        by = int(next(g for g in found.groups() if g))
        earlier = [e for e in game.events[:seq] if e.seat == by]
        said = any(e.type is EventType.NOMINATED and e.target == seat for e in earlier) or any(
            e.type is EventType.SPEECH and str(seat) in (e.text or "") for e in earlier
        )
        assert said, f"#{seat} replies to #{by}, who never named it: {text!r}"
    assert replies >= 10, replies
