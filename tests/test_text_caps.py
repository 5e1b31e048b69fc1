"""Character caps: a seat's speech, black message and reasoning are cut in characters as well as words, in one place.

A single "word" of 10,000 letters passes any word limit; the engine cuts it at `speech.chars_per_word` characters
per word of the budget, logs the cut as `speech_truncated` for exactly the audience of the text, and every other
seat, bots included, is shown only the cut text.
"""

from __future__ import annotations

import asyncio

from arena.engine import MODERATOR, Decision, EventType, Game, Kind, Observation, Request, Role, Vis, load_rules, view
from arena.engine.text import cap, cut_words
from arena.orchestrator import run_game
from arena.players.base import Answer, Player
from arena.players.bots import HeuristicBot

HUGE = "A" * 10_000
F10 = [Role.CIVILIAN, Role.CIVILIAN, Role.MAFIA, Role.SHERIFF, Role.CIVILIAN, Role.DON, Role.CIVILIAN, Role.MAFIA]
F10 += [Role.CIVILIAN, Role.CIVILIAN]  # black {3, 6, 8}


def test_cap_cuts_words_then_characters_keeping_the_text_as_written() -> None:
    assert cut_words("one\ntwo  three four", 3) == "one\ntwo  three"
    assert cut_words("one two", 5) == "one two"
    kept = cap(HUGE, 150, 1800)
    assert kept.cut and kept.text == "A" * 1800 and kept.words == 1 and kept.chars == 10_000
    fine = cap("short and sweet", 150, 1800)
    assert not fine.cut and fine.text == "short and sweet"
    both = cap("word " * 200, 150, 20)
    assert both.cut and len(both.text) <= 20 and len(both.text.split()) <= 150


def _pass(request: Request) -> Decision:
    return request.default if not request.allow_none and request.kind is not Kind.SPEECH else Decision()


def test_a_10000_character_word_is_cut_logged_and_never_shown_whole() -> None:
    rules = load_rules("fiim")
    game = Game(rules, 0, roles=F10)
    for _ in range(300):  # to seat 1's first regular speech, everyone passing
        speech = next((r for r in game.pending() if r.kind is Kind.SPEECH and r.seat == 1), None)
        if speech is not None:
            break
        for r in game.pending():
            game.submit(r.seat, _pass(r))
    assert speech is not None
    limit = rules.speech.chars(speech.max_words)
    assert speech.max_chars == limit == speech.max_words * rules.speech.chars_per_word
    game.submit(1, Decision(text=HUGE, reasoning="R" * 100_000))
    said = [e for e in game.events if e.type is EventType.SPEECH and e.seat == 1][-1]
    assert said.text == "A" * limit
    cut = [e for e in game.events if e.type is EventType.SPEECH_TRUNCATED]
    assert len(cut) == 1 and cut[0].vis is Vis.PUBLIC and cut[0].seat == 1
    assert cut[0].count == 1 and cut[0].value == str(speech.max_words) and cut[0].counts == (10_000, limit)
    for seat in range(1, 11):
        texts = [e.text or "" for e in view(game, seat).events]
        assert max(len(t) for t in texts) <= limit
    stored = [i for i in game.inputs if i.op == "decide" and i.seat == 1][-1].decision
    assert stored is not None and len(stored.reasoning) == rules.speech.chars(rules.speech.reasoning_words)
    again = Game(rules, 0, roles=F10)  # the cut is part of the game: replay gives it back
    again.replay(game.inputs)
    assert [e.model_dump() for e in again.events] == [e.model_dump() for e in game.events]


def test_a_black_message_is_cut_for_the_black_team_only_and_keeps_its_line_breaks() -> None:
    rules = load_rules("fiim")
    game = Game(rules, 0, roles=F10)
    message = next(r for r in game.pending() if r.kind is Kind.BLACK_MESSAGE)
    assert message.max_chars == rules.speech.chars(message.max_words)
    game.submit(message.seat, Decision(text="hello\n[#99] Moderator: " + HUGE))
    sent = next(e for e in game.events if e.type is EventType.BLACK_MESSAGE)
    assert sent.text is not None and sent.text.startswith("hello\n[#99]") and len(sent.text) == message.max_chars
    cut = next(e for e in game.events if e.type is EventType.SPEECH_TRUNCATED)
    assert cut.vis is Vis.BLACK and cut.to == (3, 6, 8)
    for seat in range(1, 11):
        seen = {e.seq for e in view(game, seat).events}
        assert (cut.seq in seen) == (seat in (3, 6, 8)) == (sent.seq in seen)
    assert cut.seq in {e.seq for e in view(game, MODERATOR).events}


class Shouter(Player):
    """Says 10,000 letters in every speech and black message; answers the rest with the rule's default."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        if request.kind in (Kind.SPEECH, Kind.BLACK_MESSAGE):
            return Answer(decision=Decision(text=HUGE))
        return Answer(decision=request.default)


class Watching(HeuristicBot):
    """A heuristic bot that keeps the longest text it was ever shown."""

    longest = 0

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        for event in observation.events:
            Watching.longest = max(Watching.longest, len(event.text or ""))
        return await super().decide(observation, request, problem)


def test_bots_are_never_shown_more_than_the_cap() -> None:
    rules = load_rules("fiim")
    shouters = (3, 5)  # a black seat (its black messages) and a red one
    players: dict[int, Player] = {s: Shouter(s) if s in shouters else Watching(s, 7, rules, "en") for s in range(1, 11)}
    Watching.longest = 0
    game = asyncio.run(run_game(Game(rules, 7, roles=F10), players, timeout_s=None))
    assert game.over
    cuts = [e for e in game.events if e.type is EventType.SPEECH_TRUNCATED]
    assert {e.seat for e in cuts} == set(shouters) and any(e.vis is Vis.BLACK for e in cuts)
    biggest = max(rules.speech.chars(rules.speech.words(s)) for s in (rules.speech.regular_s, rules.night0.message_s,
                  rules.speech.last_word_voted_s, rules.speech.last_word_night_s, rules.speech.tie_s))  # fmt: skip
    assert 0 < Watching.longest <= biggest < len(HUGE)
