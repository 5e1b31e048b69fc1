"""R9.7: a forbidden phrase in a speech draws a foul whatever its script. The engine looks only for the ASCII phrases
in an all-ASCII text (`Game.ascii_phrases`), so texts in both scripts and a mixed one are checked here."""

from __future__ import annotations

import pytest

from arena.engine import Decision, EventType, Game, Kind, Request, SpeechKind, load_rules


def fiim() -> Game:
    return Game(load_rules("fiim"), 0)


def quiet(request: Request) -> Decision:
    """Silence, a "no" vote, no target where none is allowed, else the rule's default."""
    if request.kind is Kind.VOTE:
        return Decision(vote=False)
    if request.kind in (Kind.SPEECH, Kind.BLACK_MESSAGE) or request.allow_none:
        return Decision()
    return request.default


def fouls_after(text: str) -> list[str | None]:
    """Seat 1's fouls after he says `text` in his first regular speech (everyone else stays quiet)."""
    game = fiim()
    for _ in range(200):
        pending = game.pending()
        mine = [r for r in pending if r.seat == 1 and r.kind is Kind.SPEECH and r.speech is SpeechKind.REGULAR]
        if mine:
            break
        for request in pending:
            game.submit(request.seat, quiet(request))
    else:
        raise AssertionError("seat 1 never spoke")
    game.submit(1, Decision(text=text))
    return [e.value for e in game.events if e.type is EventType.FOUL and e.seat == 1]


@pytest.mark.parametrize(
    ("text", "fouled"),
    [
        ("I think seat 5 is quiet", False),
        ("I SWEAR seat 5 is red", True),  # ASCII, matched after lowering
        ("Клянусь, пятый красный", True),  # only the Russian phrases can match
        ("seat 5, ей-богу", True),
        ("I bet — seat 5", True),  # a non-ASCII text still checks the ASCII phrases
        ("Честно говоря, пятый", False),
        ("", False),
    ],
)
def test_a_forbidden_phrase_fouls_in_either_script(text: str, fouled: bool) -> None:
    assert fouls_after(text) == (["forbidden_content"] if fouled else [])


def test_the_ascii_phrases_are_the_forbidden_ones_in_ascii() -> None:
    game = fiim()
    assert game.ascii_phrases == tuple(p for p in game.forbidden_phrases if p.isascii())
    assert "i swear" in game.ascii_phrases and "клянусь" not in game.ascii_phrases
