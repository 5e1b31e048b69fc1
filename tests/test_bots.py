"""The built-in bots: always legal, reproducible, and the heuristic one plays by its stated rules."""

from __future__ import annotations

import asyncio
import collections
from typing import Any

import pytest

from arena.agents import BUILTIN
from arena.engine import (
    PRESETS,
    Decision,
    Event,
    EventType,
    Game,
    Kind,
    Observation,
    Phase,
    Request,
    Role,
    SpeechKind,
    Team,
    Vis,
    load_rules,
)
from arena.orchestrator import RunStats, run_game
from arena.players.base import Player
from arena.players.bot_lines import Lines, reader
from arena.players.bots import HeuristicBot, RandomBot
from arena.players.factory import build_player


def _game(preset: str, seed: int, town: str = "heuristic", mafia: str = "heuristic", lang: str = "en") -> Game:
    rules = load_rules(preset)
    game = Game(rules, seed)
    players: dict[int, Player] = {}
    for s in game.seats():
        kind = mafia if game.is_black(s) else town
        players[s] = build_player(BUILTIN[f"bot:{kind}"], s, seed=seed, rules=rules, lang=lang)
    stats = RunStats()
    asyncio.run(run_game(game, players, stats=stats))
    for seat, count in stats.counters.items():
        assert count.invalid == count.defaults == count.errors == 0, f"seat {seat} misplayed: {count}"
    return game


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize(
    ("town", "mafia"), [("heuristic", "heuristic"), ("random", "heuristic"), ("heuristic", "random")]
)
def test_bots_only_make_legal_decisions(preset: str, town: str, mafia: str) -> None:
    for seed in range(6):
        assert _game(preset, seed, town, mafia).over


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_heuristic_speeches_stay_within_budget_and_clear_of_forbidden_words(lang: str) -> None:
    for preset in PRESETS:
        for seed in range(8):
            game = _game(preset, seed, lang=lang)
            bad = [e for e in game.events if e.type in (EventType.FOUL, EventType.SPEECH_TRUNCATED)]
            assert not bad, f"{preset} seed {seed}: {bad[0]}"


def test_same_seed_same_game_and_bots_differ_by_seed() -> None:
    a, b, c = _game("club", 3), _game("club", 3), _game("club", 4)
    assert a.events == b.events
    assert a.events != c.events


def test_russian_bots_speak_russian() -> None:
    game = _game("fiim", 2, lang="ru")
    speeches = [e.text or "" for e in game.events if e.type is EventType.SPEECH and e.text]
    assert speeches and all(any("а" <= ch <= "я" for ch in text.lower()) for text in speeches)


def test_the_sheriff_reveals_the_black_he_finds() -> None:
    """Whenever the sheriff has checked a black and speaks afterwards, he claims and names that seat."""
    cases = 0
    for seed in range(25):
        game = _game("fiim", seed)
        sheriff = game.seat_of(Role.SHERIFF)
        found: list[int] = []
        for e in game.events:
            if e.type is EventType.SHERIFF_CHECK and e.value == "black" and e.target is not None:
                found.append(e.target)
            elif e.type is EventType.SPEECH and e.seat == sheriff and found and e.value != "intro":
                reading = reader().read(e.text or "")
                assert reading.claims_sheriff, e.text
                assert all((t, "black") in reading.checks for t in found), e.text
                cases += 1
    assert cases >= 5


def test_the_black_shot_is_unanimous_and_follows_the_kill_order_on_night_one() -> None:
    for seed in range(25):
        game = _game("fiim", seed)
        order = next(e.seats for e in game.events if e.type is EventType.KILL_ORDER)
        results = [e for e in game.events if e.type is EventType.MAFIA_RESULT]
        assert all(r.target is not None for r in results), f"seed {seed}: a heuristic team missed"
        claims_day1 = any(
            e.type is EventType.SPEECH and e.day == 1 and reader().read(e.text or "").claims_sheriff
            for e in game.events
        )
        gone = {e.seat for e in game.events if e.type is EventType.ELIMINATED and e.day == 1}
        if results and not claims_day1:
            assert results[0].target == next(s for s in order if s not in gone)


def test_the_blacks_shoot_the_sheriff_the_don_found() -> None:
    cases = 0
    for seed in range(60):
        game = _game("fiim", seed)
        sheriff = game.seat_of(Role.SHERIFF)
        for e in game.events:
            if e.type is EventType.DON_CHECK and e.value == "sheriff":
                night = e.day + 1
                shot = next((r for r in game.events if r.type is EventType.MAFIA_RESULT and r.day == night), None)
                rival = any(
                    s.type is EventType.SPEECH and s.seat not in game.black and s.seat != sheriff
                    and reader().read(s.text or "").claims_sheriff
                    for s in game.events
                )  # fmt: skip
                dead = {
                    g.seat for g in game.events if g.type is EventType.ELIMINATED and g.seq < (shot.seq if shot else 0)
                }
                if shot is not None and not rival and sheriff not in dead:
                    assert shot.target == sheriff, f"seed {seed}"
                    cases += 1
    assert cases >= 3


def test_blacks_sometimes_claim_sheriff_falsely() -> None:
    fakes = 0
    for seed in range(30):
        game = _game("fiim", seed)
        fakes += any(
            e.type is EventType.SPEECH and e.seat in game.black and reader().read(e.text or "").claims_sheriff
            for e in game.events
        )
    assert 0 < fakes < 30


# ----- one decision from a hand-made observation ------------------------------------------------------------------
def _event(seq: int, type_: EventType, day: int = 1, phase: Phase = Phase.DAY, **fields: Any) -> Event:
    fields.setdefault("vis", Vis.PUBLIC)
    return Event(seq=seq, day=day, phase=phase, type=type_, **fields)


def _obs(
    seat: int, role: Role, events: list[Event], request: Request, alive: tuple[int, ...] = tuple(range(1, 11))
) -> Observation:
    team = Team.BLACK if role in (Role.MAFIA, Role.DON) else Team.RED
    return Observation(
        seat=seat, role=role, team=team, teammates=(), players=10, alive=alive, day=events[-1].day,
        phase=events[-1].phase, fouls=(0,) * 10, nominees=(), events=tuple(events), since=0,
        next_number=events[-1].seq + 1, request=request, winner=None,
    )  # fmt: skip


def _decide(bot: Player, obs: Observation) -> Decision:
    assert obs.request is not None
    return asyncio.run(bot.decide(obs, obs.request)).decision


def test_town_votes_for_the_black_a_sheriff_named() -> None:
    rules = load_rules("fiim")
    claim = _event(0, EventType.SPEECH, seat=2, text="I am the sheriff. My checks: seat 5 black, seat 3 red.")
    for candidate, expected in ((5, True), (7, False), (3, False)):
        request = Request(seat=8, kind=Kind.VOTE, candidate=candidate, subject="nominee", candidates=(3, 5, 7))
        obs = _obs(8, Role.CIVILIAN, [claim], request)
        assert _decide(HeuristicBot(8, 1, rules), obs).vote is expected


def test_town_distrusts_a_claimant_who_calls_it_black() -> None:
    rules = load_rules("fiim")
    events = [
        _event(0, EventType.SPEECH, seat=2, text="I am the sheriff. My checks: seat 5 black."),
        _event(1, EventType.SPEECH, seat=4, text="I am the sheriff. My checks: seat 8 black, seat 2 black."),
    ]
    request = Request(seat=8, kind=Kind.BALLOT, options=(2, 4, 5))
    assert _decide(HeuristicBot(8, 1, rules), _obs(8, Role.CIVILIAN, events, request)).target == 4


def test_blacks_shoot_a_red_sheriff_claimant_first() -> None:
    rules = load_rules("fiim")
    events = [
        _event(
            0, EventType.BLACK_TEAM, day=0, phase=Phase.NIGHT, vis=Vis.BLACK, to=(1, 6, 9), seats=(1, 6, 9), target=9
        ),
        _event(1, EventType.KILL_ORDER, day=0, phase=Phase.NIGHT, vis=Vis.BLACK, to=(1, 6, 9), seat=9, seats=(3, 4, 5)),
        _event(2, EventType.SPEECH, seat=7, text="I am the sheriff. My checks: seat 6 black."),
        _event(3, EventType.PHASE_STARTED, phase=Phase.NIGHT, value="night"),
    ]
    request = Request(seat=1, kind=Kind.SHOOT, options=tuple(range(1, 11)), allow_none=True)
    assert _decide(HeuristicBot(1, 1, rules), _obs(1, Role.MAFIA, events, request)).target == 7
    # without the claim the kill order decides
    request6 = Request(seat=6, kind=Kind.SHOOT, options=tuple(range(1, 11)), allow_none=True)
    assert _decide(HeuristicBot(6, 1, rules), _obs(6, Role.MAFIA, [*events[:2], events[3]], request6)).target == 3


def test_a_bot_answers_the_same_whether_it_saw_events_at_once_or_one_by_one() -> None:
    """Its state is a function of what it has seen, never of how the views were cut (resume relies on this)."""
    game = _game("fiim", 5)
    events = [e for e in game.events if e.visible_to(4)]
    request = Request(seat=4, kind=Kind.SPEECH, max_words=150, speech=SpeechKind.REGULAR)
    whole, piecemeal = HeuristicBot(4, 5, game.rules), HeuristicBot(4, 5, game.rules)
    for i in range(0, len(events), 7):  # many small views, then one more identical call
        asyncio.run(piecemeal.decide(_obs(4, game.roles[4], events[i : i + 7], request), request))
    obs = _obs(4, game.roles[4], events, request)
    assert _decide(whole, obs) == _decide(piecemeal, obs)


def test_random_bot_is_seeded_per_seat_and_request() -> None:
    request = Request(seat=3, kind=Kind.BALLOT, options=tuple(range(1, 11)))
    obs = _obs(3, Role.CIVILIAN, [_event(0, EventType.PHASE_STARTED, value="day")], request)
    picks = {_decide(RandomBot(3, seed), obs).target for seed in range(30)}
    assert _decide(RandomBot(3, 9), obs) == _decide(RandomBot(3, 9), obs)
    assert len(picks) > 3


def test_reader_understands_both_languages() -> None:
    en = reader().read("I am the sheriff. My checks: seat 4 black, seat 7 red. I suspect seat 4 most.")
    assert en.claims_sheriff and en.checks == ((4, "black"), (7, "red")) and en.suspect == 4
    ru = reader().read("Я шериф. Мои проверки: игрок 5 — чёрный, игрок 2 — красный. Подозреваю игрока 5.")
    assert ru.claims_sheriff and ru.checks == ((5, "black"), (2, "red")) and ru.suspect == 5
    assert not reader().read("He voted against our sheriff. Я красный.").claims_sheriff


def test_every_line_renders_in_both_languages() -> None:
    import random

    rng = random.Random(0)
    for lang in ("en", "ru"):
        lines = Lines(lang)
        for key, variants in lines.data.items():
            if key in ("words", "reason", "parse", "checks"):
                continue
            for _ in variants:
                text = lines.say(key, rng, me=1, seat=2, checks="x", order="1, 2", fake=3, reason="r", by=4)
                assert "{" not in text
        for code, variants in lines.data["reason"].items():
            for _ in variants:
                assert "{" not in lines.reason(code, by=3, rng=rng)
        assert lines.checks([(4, "black"), (5, "not_don")])


def test_heuristic_side_beats_random_side() -> None:
    """A small version of bench/bots.py: the heuristic side wins far more often than the random one, both ways."""
    wins: collections.Counter[str] = collections.Counter()
    for seed in range(20):
        wins["town"] += _game("fiim", seed, "heuristic", "random").winner == "town"
        wins["mafia"] += _game("fiim", seed, "random", "heuristic").winner == "mafia"
    assert wins["town"] >= 14 and wins["mafia"] >= 16


def test_factory_builds_bots_and_explains_a_missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    from arena.agents import AgentSpec
    from arena.players import factory

    rules = load_rules("fiim")
    assert isinstance(factory.build_player(BUILTIN["bot:random"], 2, seed=1, rules=rules, lang="en"), RandomBot)
    assert isinstance(factory.build_player(BUILTIN["bot:heuristic"], 2, seed=1, rules=rules, lang="ru"), HeuristicBot)

    def missing(name: str) -> None:
        raise ModuleNotFoundError(f"No module named {name!r}")

    monkeypatch.setattr(importlib, "import_module", missing)
    spec = AgentSpec(name="lc", kind="langchain", langchain_factory="pkg.mod:make")
    with pytest.raises(
        factory.PlayerBuildError, match=r"seat 4 \(lc\) needs arena.players.langchain_seat.*\[langchain\]"
    ):
        factory.build_player(spec, 4, seed=1, rules=rules, lang="en")
