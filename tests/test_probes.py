"""Daily belief probes (issue 9): private to the prober, never acting, recorded via the rules; bots answer them."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from arena.agents import BUILTIN
from arena.engine import (
    MODERATOR,
    Decision,
    Event,
    EventType,
    Game,
    IllegalDecision,
    Kind,
    Observation,
    Request,
    load_rules,
    view,
)
from arena.orchestrator import run_game
from arena.players.base import Answer, Player
from arena.players.factory import build_player

PROBE_TYPES = (EventType.PROBE, EventType.PROBES_TAKEN)


class FixedProber(Player):
    """Answers probes with one fixed number and everything else as the wrapped player would."""

    def __init__(self, inner: Player, p: float) -> None:
        self.inner = inner
        self.p = p

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        if request.kind is Kind.PROBE:
            return Answer(decision=Decision(beliefs=(self.p,) * len(request.options)))
        return await self.inner.decide(observation, request, problem)


def play(preset: str, seed: int, agent: str, probes: bool, fixed: float | None = None) -> Game:
    rules = load_rules(preset, overrides=["probes.daily=true"] if probes else None)
    players: dict[int, Player] = {}
    for s in range(1, rules.players + 1):
        player = build_player(BUILTIN[agent], s, seed=seed, rules=rules, lang="en")
        players[s] = FixedProber(player, fixed) if fixed is not None else player
    return asyncio.run(run_game(Game(rules, seed), players))


def stream(game: Game) -> list[dict[str, Any]]:
    """The events apart from the probes, without their seq (the probes shift it)."""
    return [{k: v for k, v in e.model_dump().items() if k != "seq"} for e in game.events if e.type not in PROBE_TYPES]


@pytest.mark.parametrize("preset", ["fiim", "club", "edge"])
@pytest.mark.parametrize("agent", ["bot:heuristic", "bot:random"])
def test_probes_on_leave_the_rest_of_the_stream_unchanged(preset: str, agent: str) -> None:
    for seed in (1, 2, 3):
        off = play(preset, seed, agent, probes=False)
        on = play(preset, seed, agent, probes=True)
        assert not any(e.type in PROBE_TYPES for e in off.events)
        assert any(e.type is EventType.PROBE for e in on.events), "the probes-on game holds probes"
        assert stream(on) == stream(off), f"{preset} seed {seed}: probes changed the game"
        assert on.winner == off.winner


def test_a_probe_answer_cannot_act() -> None:
    """Two games that differ only in what every seat answers to the probes: the same game."""
    low = play("fiim", 5, "bot:heuristic", probes=True, fixed=0.0)
    high = play("fiim", 5, "bot:heuristic", probes=True, fixed=1.0)
    assert stream(low) == stream(high)
    probes = [e for e in high.events if e.type is EventType.PROBE]
    assert probes and all(set(e.counts) == {1000} for e in probes)


def test_probe_events_are_the_probers_alone() -> None:
    game = play("fiim", 2, "bot:heuristic", probes=True)
    probes = [e for e in game.events if e.type is EventType.PROBE]
    assert probes
    for seat in range(1, game.n + 1):
        seen = {e.seq for e in view(game, seat).events if e.type is EventType.PROBE}
        assert seen == {e.seq for e in probes if e.seat == seat}
    assert {e.seq for e in view(game, MODERATOR).events if e.type is EventType.PROBE} == {e.seq for e in probes}


def test_each_living_seat_rates_every_other_living_seat_at_each_days_end() -> None:
    game = play("fiim", 3, "bot:heuristic", probes=True)
    days = {e.day for e in game.events if e.type is EventType.PROBE}
    assert days, "at least one day ended with probes"
    for day in days:
        batch = [e for e in game.events if e.type is EventType.PROBE and e.day == day]
        living = sorted(e.seat for e in batch if e.seat is not None)
        for e in batch:
            assert e.seats == tuple(s for s in living if s != e.seat)
            assert len(e.counts) == len(e.seats) and all(0 <= c <= 1000 for c in e.counts)
        taken = [e for e in game.events if e.type is EventType.PROBES_TAKEN and e.day == day]
        assert [t.count for t in taken] == [len(batch)]


def _probe_request(game: Game) -> Request:
    for _ in range(2000):
        pending = game.pending()
        if pending[0].kind is Kind.PROBE:
            return pending[0]
        for r in pending:
            game.apply_default(r.seat, "quiet")
    raise AssertionError("no probe")  # pragma: no cover


def test_illegal_probe_answers_are_refused_and_a_default_costs_no_foul() -> None:
    rules = load_rules("fiim", overrides=["probes.daily=true", "fouls.illegal_action_foul=true"])
    game = Game(rules, 4)
    request = _probe_request(game)
    n = len(request.options)
    for bad, code in (((0.5,) * (n - 1), "probe_size"), ((1.5,) * n, "probe_range"), ((math.nan,) * n, "probe_range")):
        with pytest.raises(IllegalDecision) as caught:
            game.submit(request.seat, Decision(beliefs=bad))
        assert caught.value.code == code
    fouls = list(game.fouls)
    for r in game.pending():
        game.apply_default(r.seat, "no answer")
    assert game.fouls == fouls, "a failed probe fouls nobody: probes never act"
    assert not [e for e in game.events if e.type is EventType.PROBE], "a default gives no probe event"
    taken = [e for e in game.events if e.type is EventType.PROBES_TAKEN]
    assert [e.count for e in taken] == [0]


def test_probes_are_off_by_default_and_recorded_in_the_rules() -> None:
    assert load_rules("fiim").probes.daily is False
    assert load_rules("fiim", overrides=["probes.daily=true"]).model_dump()["probes"] == {"daily": True}


def test_claims_ride_on_the_public_speech_event() -> None:
    game = Game(load_rules("fiim"), 1)
    for _ in range(100):
        r = game.pending()[0]
        if r.kind is Kind.SPEECH:
            break
        for p in game.pending():
            game.apply_default(p.seat, "quiet")
    claim = {"role": "sheriff", "black": (3,), "red": (5, 6)}
    with pytest.raises(IllegalDecision):
        game.check(r.seat, Decision(text="x", claim={"role": "pope"}))  # type: ignore[arg-type]
    game.submit(r.seat, Decision.model_validate({"text": "I am the sheriff", "claim": claim}))
    speech: Event = next(e for e in reversed(game.events) if e.type is EventType.SPEECH)
    assert (speech.roles, speech.seats, speech.counts) == (("sheriff",), (3, 5, 6), (1, 0, 0))
    assert speech.vis.value == "public"


def test_heuristic_bots_beliefs_beat_a_uniform_guess(tmp_path: Any) -> None:
    """Brier score of the heuristic bots' probes against a flat P(black) = 0.3, over all seats and red seats only."""
    from arena.research.corpus import load_folder
    from arena.research.metrics import Counts, measure, rates
    from arena.research.selfplay import play_balanced

    rules = load_rules("fiim", overrides=["probes.daily=true"])
    play_balanced(tmp_path, 40, rules=rules, b=BUILTIN["bot:heuristic"])  # heuristic in every seat
    total = Counts()
    red: list[tuple[float, bool]] = []
    for g in load_folder(tmp_path).games:
        m = measure(g)
        total.add(m.total)
        red += [(p, y) for _, prober, p, y in m.probe_points if not g.black(prober)]
    r = rates(total)
    assert total.probe_pairs > 1000
    assert r["probe_brier"] < r["probe_uniform_brier"], r
    red_brier = sum((p - y) ** 2 for p, y in red) / len(red)
    red_flat = sum((0.3 - y) ** 2 for _, y in red) / len(red)
    assert red_brier == pytest.approx(r["detection_brier"])
    assert red_brier < red_flat, (red_brier, red_flat)
