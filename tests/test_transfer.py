"""Does a skill transfer? `arena report` on a folder of the same configurations under two presets on paired deals
prints Kendall's τ with its interval and the side-term shift (arena/research/transfer.py); the intervals' coverage
in simulation is bench/transfer.py's."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import numpy as np
import pytest

from arena.agents import BUILTIN, AgentSpec
from arena.engine import Game, load_rules
from arena.orchestrator import run_game
from arena.players.base import Player
from arena.players.bots import HeuristicBot, RandomBot
from arena.research.planted import BLACK, PlantedBot, planted_spec
from arena.research.records import Record
from arena.research.report import build, markdown
from arena.research.transfer import pair_key, sign_bounds, transfer
from arena.transcript import TranscriptWriter, default_path, make_header

CONFIGS = ("bot:heuristic", "bot:random", "planted:truth-voter:1.00")


def _spec(config: str) -> AgentSpec:
    return BUILTIN[config] if config in BUILTIN else planted_spec("truth-voter", 1.0)


def _player(config: str, seat: int, seed: int, preset: str) -> Player:
    rules = load_rules(preset)
    if config == "bot:heuristic":
        return HeuristicBot(seat, seed, rules)
    if config == "bot:random":
        return RandomBot(seat, seed)
    return PlantedBot(seat, seed, rules, "truth-voter", 1.0, list(Game(rules, seed).roles[1:]))


async def _game(out: Path, preset: str, seed: int, town: str, mafia: str) -> None:
    rules = load_rules(preset)
    roles = list(Game(rules, seed).roles[1:])
    configs = {s: mafia if roles[s - 1] in BLACK else town for s in range(1, rules.players + 1)}
    header = make_header(rules, seed, {s: _spec(c) for s, c in configs.items()}, roles=roles,
                         game_id=f"{preset}-{seed}-{CONFIGS.index(town)}{CONFIGS.index(mafia)}")  # fmt: skip
    writer = TranscriptWriter.create(default_path(out / preset, header), header)
    try:
        await run_game(Game(rules, seed, roles=roles), {s: _player(c, s, seed, preset) for s, c in configs.items()},
                       writer)  # fmt: skip
    finally:
        writer.close()


@pytest.fixture(scope="module")
def two_presets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three configurations, every (town, mafia) pair on every deal, each deal under `fiim` and under `club`."""
    out = tmp_path_factory.mktemp("two-presets")
    for seed in range(1, 7):
        for preset in ("fiim", "club"):
            for town in CONFIGS:
                for mafia in CONFIGS:
                    asyncio.run(_game(out, preset, seed, town, mafia))
    return out


def test_the_report_prints_kendalls_tau_with_its_interval_and_the_side_shift(two_presets: Path) -> None:
    r = build(two_presets, boot=60)
    t = r.transfer
    assert t is not None and t.by == "rules" and {h.name for h in t.halves} == {"fiim", "club"}
    assert t.paired == 6 and t.configs == sorted(CONFIGS)
    assert t.tau.low <= t.tau.value <= t.tau.high and t.tau.low >= -1 and t.tau.high <= 1
    assert not math.isnan(t.shift.value)
    text = markdown(r)
    section = text.split("## Does a skill transfer?", 1)[1].split("\n## ", 1)[0]
    assert f"Kendall's τ = {t.tau.value:+.2f} [{t.tau.low:+.2f}, {t.tau.high:+.2f}]" in section
    assert "**Side-term shift** h[club] − h[fiim] = " in section


def test_one_preset_prints_no_transfer(two_presets: Path) -> None:
    assert build(two_presets / "fiim", boot=20).transfer is None


def test_paired_deals_share_the_seed_across_presets() -> None:
    fiim = Record("fiim", "fiim|7|civilian,mafia", ("a", "b"), ("civilian", "mafia"), "town")
    club = Record("club", "club|7|doctor,mafia", ("a", "b"), ("doctor", "mafia"), "town")
    assert pair_key(fiim) == pair_key(club) == "7"


def test_taus_interval_is_the_range_the_determined_signs_allow() -> None:
    """Four configurations far apart in both halves: every sign is determined, the interval is the point. Two close
    ones: their pair may go either way (or tie) in both halves, and τ's interval spans what that allows."""
    rng = np.random.default_rng(0)
    apart = [0.0, 1.0, 2.0, 3.0]
    draws = [[v + rng.normal(0, 0.05, 400) for v in apart] for _ in range(2)]
    assert sign_bounds((apart, apart), draws, 100) == (1.0, 1.0)
    close = [0.0, 1.0, 1.02, 3.0]
    draws = [[v + rng.normal(0, 0.05, 400) for v in close] for _ in range(2)]
    low, high = sign_bounds((close, close), draws, 100)
    assert (low, high) == (4 / 6, 1.0)  # one pair of six undetermined in both halves: its product in [-1, 1]


def test_too_few_configurations_give_no_tau() -> None:
    records = [Record("a" if i % 2 else "b", f"x|{i // 2}|c", ("p", "q"), ("civilian", "mafia"), "town")
               for i in range(20)]  # fmt: skip
    assert transfer(records, [r.rules for r in records], by="rules", boot=10) is None
