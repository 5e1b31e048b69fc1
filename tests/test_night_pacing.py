"""Issue 30, security round 3 (medium): at a table of model seats a night with a living don or sheriff lasted one
model call longer (2.61 s against 1.61 s at 1 s latency), so docs/web.md's advice ("bots or models only") did not
hold. Now a night's length does not depend on who is alive to act, at a web table and in `arena play` with a person
at the terminal (`arena/pacing.py`): every night wake-up takes one slot, and the night's secret part ends after as
many slots as a night has with every role alive.

Timed on a virtual clock (tests/virtual_time.py): the model seats' latency is a pause on that clock, so the test
counts what the night waits for, never the wall clock. Games of every preset over several deals, in which the don,
the sheriff, the doctor, the lover and the maniac die on different nights, must give every night of a preset the same
length; on the code before, they did not."""

from __future__ import annotations

import asyncio

import pytest
from virtual_time import VirtualClock

from arena.agents import BUILTIN, AgentSpec
from arena.engine import PRESETS, Event, EventType, Game, Observation, Request, Role, load_rules
from arena.orchestrator import run_game
from arena.pacing import NightPacer
from arena.players.base import Answer, Player
from arena.players.bots import RandomBot
from arena.web.table import Table

LATENCY = 0.8  # seconds a model call takes, on the virtual clock


class SlowModel(Player):
    """A random bot that answers after a model call's latency (on the clock it is given)."""

    def __init__(self, seat: int, seed: int, pause: object) -> None:
        self.seat = seat
        self.inner = RandomBot(seat, seed)
        self.pause = pause

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        await self.pause(LATENCY)  # type: ignore[operator]
        return await self.inner.decide(observation, request, problem)


def _night_lengths(events: list[tuple[Event, float]]) -> list[tuple[float, bool]]:
    """Each night's length as the table sees it: from its start to its first public line after the secret part, the
    Night-1 victim's best move or else the morning; and whether it was the best move (a public decision, asked once
    the secret part is over, so those nights are one model call longer for everyone to see)."""
    lengths, start = [], None
    for event, at in events:
        if event.type is EventType.PHASE_STARTED and event.phase.value == "night":
            start = at
        elif start is not None and (event.phase.value != "night" or event.type is EventType.BEST_MOVE):
            lengths.append((at - start, event.type is EventType.BEST_MOVE))
            start = None
    return lengths


def _game(preset: str, seed: int) -> Game:
    """A game of `preset`; for even seeds the judge removes the night's actors but one black (the sheriff, the don,
    the doctor, the lover, the maniac) at once, so its nights have no checks, kills, heals or visits to wait for."""
    game = Game(load_rules(preset), seed)
    if seed % 2 == 0:
        for role in (Role.SHERIFF, Role.DON, Role.DOCTOR, Role.LOVER, Role.MANIAC):
            seat = game.seat_of(role)
            if seat and not game.over:
                game.remove(seat, "judge")
    return game


async def _web_nights(preset: str, seed: int) -> tuple[list[tuple[float, bool]], list[tuple[int, int, float]]]:
    rules = load_rules(preset)
    clock = VirtualClock()
    seats: dict[int, AgentSpec] = {s: BUILTIN["bot:random"] for s in range(1, rules.players + 1)}
    table = Table(game=_game(preset, seed), seats=seats, lang="en", bot_delay=0.5, clock=clock, pause=clock.pause)
    seen: list[tuple[Event, float]] = []
    hook = table.on_event

    def timed(event: Event) -> None:
        hook(event)
        seen.append((event, clock.now))

    table.on_event = timed  # type: ignore[method-assign]
    players = {s: SlowModel(s, seed, clock.pause) for s in table.game.seats()}
    await clock.run(table.start(players))  # type: ignore[arg-type]
    assert table.pacer is not None
    return _night_lengths(seen), table.pacer.held


@pytest.mark.parametrize("preset", PRESETS)
def test_a_night_at_a_table_of_models_lasts_the_same_whoever_lives(preset: str) -> None:
    lengths: dict[tuple[int, bool], set[float]] = {}
    held = 0
    for seed in range(1, 9):
        nights, padded = asyncio.run(_web_nights(preset, seed))
        held += len(padded)
        for index, (length, best_move) in enumerate(nights):
            if index or seed % 2:  # Night 0 of a game whose actors the judge removed (in public) is its own
                lengths.setdefault((min(index, 1), best_move), set()).add(round(length, 6))
    uneven = {night: sorted(seen) for night, seen in lengths.items() if len(seen) > 1}
    assert not uneven, f"{preset}: nights whose length varied with who was alive: {uneven}"
    assert held > 0, "no night had a dead role's wake-up to wait for: the games prove nothing"


async def _terminal_nights(preset: str, seed: int) -> list[tuple[float, bool]]:
    """`arena play` with a person at seat 1 (answered at once here) and model seats: the pacer `cli/game.py` uses."""
    rules = load_rules(preset)
    clock = VirtualClock()
    game = _game(preset, seed)
    players: dict[int, Player] = {s: SlowModel(s, seed, clock.pause) for s in game.seats()}
    players[1] = RandomBot(1, seed)  # the person: not timed (no pacing slot is measured on a person)
    seen: list[tuple[Event, float]] = []
    pacer = NightPacer(rules, frozenset(s for s in players if s != 1), clock=clock, pause=clock.pause)
    await clock.run(run_game(game, players, on_event=lambda e: seen.append((e, clock.now)), pacer=pacer))
    return _night_lengths(seen)


def test_a_night_in_arena_play_with_a_person_lasts_the_same_whoever_lives() -> None:
    lengths: dict[tuple[int, bool], set[float]] = {}
    for seed in range(1, 9):
        # from Night 1: Night 0 asks every black in turn, the person (answering at once here) among them or not, and
        # nobody dies before it, so it tells the person nothing it does not know
        for index, (length, best_move) in enumerate(asyncio.run(_terminal_nights("fiim", seed))[1:]):
            lengths.setdefault((min(index, 1), best_move), set()).add(round(length, 6))
    assert lengths and all(len(seen) == 1 for seen in lengths.values()), lengths
