"""Issue 30, security round 3 (medium): with `fouls.illegal_action_foul` on, a night action replaced by the default
became a public foul during the night, in 5 of 5 presets: the table learnt who acts at night. Now a decision made
at night costs no foul (R9.7), so nothing public tells whether a night actor answered or failed.

Twin games, for every preset with the option on: in one, a night actor's answer is refused and the rule's default
applied; in the other, the actor answers that same default itself. Every other seat's view must be the same in the
two games from start to end (the refusal and the default are told to the actor alone)."""

from __future__ import annotations

import random

import pytest

from arena.engine import Game, Phase, load_rules, view
from arena.engine.decisions import Kind, Request
from arena.engine.events import EventType, Vis
from arena.players.random_policy import random_decision

PRESETS = ("fiim", "club", "classic", "aurora", "edge")
NIGHT_KINDS = {Kind.SHOOT, Kind.DON_CHECK, Kind.SHERIFF, Kind.MANIAC_KILL, Kind.HEAL, Kind.VISIT, Kind.BLACK_MESSAGE,
               Kind.CHOOSE_SIDE, Kind.BEST_MOVE}  # fmt: skip


def _play(preset: str, seed: int, failing: tuple[int, int] | None, refuse: bool) -> Game:
    """A random game. `failing` = (seat, n): that seat's n-th night request is answered with its default, either
    refused first and defaulted by the moderator (`refuse`) or given by the seat itself."""
    rules = load_rules(preset, overrides=["fouls.illegal_action_foul=true"])
    game = Game(rules, seed)
    counted: dict[int, int] = {}
    decisions = 0
    while not game.over:
        for request in game.pending():
            if game.request_for(request.seat) is None:
                continue
            decisions += 1
            rng = random.Random(f"{seed}:{decisions}")
            at_night = game.phase is Phase.NIGHT
            if at_night:
                counted[request.seat] = counted.get(request.seat, 0) + 1
            if failing is not None and at_night and (request.seat, counted[request.seat]) == failing:
                if refuse:
                    game.reject(request.seat, "not JSON")
                    game.apply_default(request.seat, "not JSON")
                else:
                    game.submit(request.seat, request.default)
                continue
            game.submit(request.seat, random_decision(rng, request))
    return game


def _night_requests(preset: str, seed: int) -> list[tuple[int, int, Request]]:
    """(seat, n, request) of every night request of the plain game whose default the seat may also give itself."""
    rules = load_rules(preset, overrides=["fouls.illegal_action_foul=true"])
    game = Game(rules, seed)
    out, counted, decisions = [], {}, 0
    while not game.over:
        for request in game.pending():
            if game.request_for(request.seat) is None:
                continue
            decisions += 1
            if game.phase is Phase.NIGHT:
                counted[request.seat] = counted.get(request.seat, 0) + 1
                try:
                    game.check(request.seat, request.default)
                    out.append((request.seat, counted[request.seat], request))
                except Exception:  # a default the seat could not give itself (none here so far)
                    pass
            game.submit(request.seat, random_decision(random.Random(f"{seed}:{decisions}"), request))
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_a_defaulted_night_action_is_not_public(preset: str) -> None:
    kinds: set[Kind] = set()
    twins = 0
    for seed in range(1, 9):
        picked: dict[Kind, int] = {}
        for seat, n, request in _night_requests(preset, seed):
            if picked.get(request.kind, 0) >= 1 + seed % 2:  # every kind of night decision, one or two of each
                continue
            picked[request.kind] = picked.get(request.kind, 0) + 1
            refused = _play(preset, seed, (seat, n), refuse=True)
            answered = _play(preset, seed, (seat, n), refuse=False)
            assert any(e.type is EventType.DEFAULT_APPLIED and e.seat == seat for e in refused.events)
            for other in range(1, refused.rules.players + 1):
                if other == seat:
                    continue
                seen = view(refused, other).as_seen().events, view(answered, other).as_seen().events  # own numbers
                assert seen[0] == seen[1], (preset, seed, request.kind, other)
            public_night_fouls = [
                e for e in refused.events if e.type is EventType.FOUL and e.vis is Vis.PUBLIC and e.phase is Phase.NIGHT
            ]
            assert not public_night_fouls
            kinds.add(request.kind)
            twins += 1
    assert twins >= 30 and {Kind.SHOOT, Kind.SHERIFF} <= kinds, (twins, kinds)


def test_a_defaulted_day_decision_still_costs_its_foul() -> None:
    """The option is unchanged by day: a vote or a speech replaced by the default costs one public foul."""
    rules = load_rules("fiim", overrides=["fouls.illegal_action_foul=true"])
    game = Game(rules, 3)
    while not game.over and not (game.phase is Phase.DAY and game.pending()):
        for request in game.pending():
            game.submit(request.seat, random_decision(random.Random(request.seat), request))
    request = game.pending()[0]
    game.apply_default(request.seat, "not JSON")
    fouls = [e for e in game.events if e.type is EventType.FOUL]
    assert [(e.seat, e.value, e.vis) for e in fouls] == [(request.seat, "illegal_action", Vis.PUBLIC)]
