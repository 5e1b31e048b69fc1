"""The points table of `arena report --scoring`: totals, points per game and groups by hand; ranked and tie-broken as
mafiaratings' compare_scores does; the first-night compensation counted over the tournament; the interval's
coverage in a small simulation; and the command, report.md and points.csv, whose columns docs/metrics.md defines."""

from __future__ import annotations

import csv
import io
import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.engine import load_rules
from arena.research.points import (
    SeatGame,
    World,
    csv_rows,
    points_table,
    simulate_coverage,
    simulate_tournament,
    table_cells,
    table_head,
)
from arena.research.selfplay import play_balanced
from arena.scoring import SeatFacts, load_system

FIIM = load_system("fiim")
MWC = load_system("mwc")
DOCS = Path(__file__).resolve().parents[1] / "docs" / "metrics.md"


def _seat(game: int, config: str, role: str, *flags: str, extra: float = 0.0, deal: str = "") -> SeatGame:
    team = "black" if role in ("mafia", "don") else "red"
    facts = SeatFacts(1, role, team, frozenset({"played", *flags}), extra_points=extra)
    return SeatGame(game, deal or f"d{game}", config, facts)


def test_totals_per_game_and_groups_by_hand() -> None:
    items = [
        _seat(0, "a", "sheriff", "win"),  # 1 + 0.3
        _seat(0, "b", "don", "loss"),  # 0.3
        _seat(1, "a", "civilian", "loss", "killed_first_night", "legacy_2"),  # 0.3 + 0.5 + Ci
        _seat(1, "b", "mafia", "win", "bonus", extra=0.4),  # 1 + 0.3 + 0.4
        _seat(2, "a", "mafia", "win", "removed_by_fouls"),  # 1 + 0.3 - 0.5
        _seat(2, "b", "civilian", "loss"),  # 0.3
    ]
    table = points_table(items, FIIM)
    rows = {r.config: r for r in table.configs}
    # a: 3 seat-games, one red first-night kill: Ci = min(1 * 0.5 / round(3 * 0.4), 0.5) = 0.5
    assert rows["a"].groups == pytest.approx({"main": 2.0, "extra": 0.9, "legacy": 0.5, "penalty": -0.5, "night1": 0.5})
    assert rows["a"].total == pytest.approx(3.4) and rows["a"].seats == 3 and rows["a"].games == 3
    assert rows["a"].per_game.value == pytest.approx(3.4 / 3)
    assert rows["b"].total == pytest.approx(2.3)
    assert [r.config for r in table.configs] == ["a", "b"] and table.configs[0].rank == 1
    assert (rows["a"].wins, rows["a"].special_role_wins, rows["a"].killed_first_night) == (2, 1, 1)
    assert rows["a"].tie_breaks == pytest.approx((0.9 - 0.5 + 0.5, 2, 1, 1))  # (epg) w s k
    roles = {(r.config, r.role): r for r in table.roles}
    assert roles[("a", "civilian")].total == pytest.approx(1.3) and roles[("b", "don")].total == pytest.approx(0.3)
    assert [r.role for r in table.roles if r.config == "a"] == ["civilian", "sheriff", "mafia"]


def test_the_compensation_counts_over_the_tournament() -> None:
    """mafiaratings' counter(0, 0) is the player's games in the event: 5 seat-games, shot once on Night 1 and lost,
    give 1 * 0.5 / round(2) = 0.25, not the one-game 0.5."""
    items = [_seat(0, "a", "civilian", "loss", "killed_first_night")] + [_seat(g, "a", "civilian", "win")
                                                                         for g in range(1, 5)]  # fmt: skip
    assert points_table(items, FIIM).configs[0].groups["night1"] == pytest.approx(0.25)


def test_ties_are_broken_as_compare_scores_does() -> None:
    """Equal totals: the larger extra + penalty + legacy first ('(epg)wsk'), then more wins."""
    items = [
        _seat(0, "x", "civilian", "win"),  # 1.3: main 1, extra 0.3
        _seat(0, "y", "civilian", "loss", "bonus", extra=1.0),  # 1.3: extra 1.3
        _seat(1, "z", "civilian", "win"),  # 1.3 and the same tie-breaks as x: by name
    ]
    table = points_table(items, FIIM)
    assert [r.config for r in table.configs] == ["y", "x", "z"]
    assert [r.rank for r in table.configs] == [1, 2, 3]
    mwc = points_table(items, MWC)  # ranked by points per game: x and z 4 (a win), y 1
    assert [r.config for r in mwc.configs][-1] == "y"


def test_the_interval_is_clustered_by_deal() -> None:
    """Four replays of one deal are one cluster: the interval counts deals, not games."""
    items = simulate_tournament(World({"a": 0.3, "b": 0.0}), ["a", "b"], 12, random.Random(3))
    table = points_table(items, FIIM)
    assert all(r.per_game.clusters == 12 for r in table.configs)
    assert all(r.per_game.low < r.per_game.value < r.per_game.high for r in table.configs)


def test_coverage_in_a_small_simulation() -> None:
    """A smoke check (the figures are bench/points.py's): 60 tournaments of 25 deals; each configuration's interval
    holds the truth in at least 85 % of them (the binomial 95 % range of a correct 95 % interval is 88-100 %)."""
    coverage = simulate_coverage(FIIM, tournaments=60, deals=25, truth_tournaments=150, seed=7)
    assert set(coverage) == {"a", "b", "c"}
    for config, (share, truth) in coverage.items():
        assert share >= 0.85, (config, share, truth)
        assert 0.3 < truth < 1.3


def test_csv_columns_are_the_docs() -> None:
    items = [_seat(0, "a", "sheriff", "win"), _seat(0, "b", "don", "loss")]
    columns, rows = csv_rows(points_table(items, FIIM))
    text = DOCS.read_text(encoding="utf-8").split("## Points (`arena report --scoring`)", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`([a-z_+0-9]+)`", text))
    assert set(columns) <= documented, set(columns) - documented
    assert [r["grouping"] for r in rows] == ["config", "config", "role", "role"]
    head = table_head(FIIM)
    assert len(head) == len(table_cells(points_table(items, FIIM))[0])
    for name in head:  # every column of the printed table is defined in docs/metrics.md
        assert f"`{name}`" in text, name


@pytest.fixture(scope="module")
def bots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    games = tmp_path_factory.mktemp("games")
    play_balanced(games, 8, rules=load_rules("fiim"))
    return games


def test_report_prints_and_writes_the_points_table(bots: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", str(bots), "--out", str(tmp_path), "--boot", "20", "--scoring", "fiim"])
    assert result.exit_code == 0, result.output
    assert "## Points (fiim)" in result.output and "## Points per role (fiim)" in result.output
    assert "| rank | configuration | games | seat-games | total |" in result.output
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "## Points (fiim)" in md and md.index("## Points (fiim)") > md.index("## Ratings")
    rows = list(csv.DictReader(io.StringIO((tmp_path / "points.csv").read_text(encoding="utf-8"))))
    configs = [r for r in rows if r["grouping"] == "config"]
    assert {r["config"] for r in configs} == {"bot:heuristic", "bot:random"}
    assert sum(int(r["seats"]) for r in configs) == 8 * 10  # every seat of every game, once
    for r in configs:
        groups = sum(float(r[g]) for g in FIIM.groups)
        assert float(r["total"]) == pytest.approx(groups)
        assert float(r["low"]) <= float(r["per_game"]) <= float(r["high"])
    plain = CliRunner().invoke(app, ["report", str(bots), "--out", str(tmp_path / "b"), "--boot", "20"])
    assert "Points" not in plain.output and not (tmp_path / "b" / "points.csv").exists()
    bad = CliRunner().invoke(app, ["report", str(bots), "--scoring", "nope"])
    assert bad.exit_code == 2 and "unknown scoring system" in bad.output
