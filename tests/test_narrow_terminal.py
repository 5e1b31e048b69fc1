"""At 80 columns nothing the commands print is cut (issue #20: "heurist…", "0:00:…", "· nothin", "┘200/200")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ARENA = [sys.executable, "-m", "arena.cli"]
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "tournament-bots.toml"


def _run(args: list[str]) -> str:
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    done = subprocess.run([*ARENA, *args], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout + done.stderr


def _never_cut(text: str) -> None:
    assert "…" not in text, [line for line in text.splitlines() if "…" in line]
    drawn = [line for line in text.splitlines() if any(ch in line for ch in "│┃━─┘")]  # tables, bars, rules
    assert drawn and all(len(line) <= 80 for line in drawn), max(drawn, key=len)


def test_a_game_shown_at_80_columns_keeps_every_legend_whole(tmp_path: Path) -> None:
    out = _run(["play", "--seed", "3", "--quiet", "--out", str(tmp_path)])
    (path,) = tmp_path.iterdir()
    shown = _run(["show", str(path)])
    _never_cut(shown)
    assert "○ a vote counted by default, for the last nominee (R5.7)" in shown
    assert "· nothing" in shown
    assert out


def test_the_tournament_tables_and_progress_fit_80_columns(tmp_path: Path) -> None:
    plan = _run(["tournament", str(EXAMPLE), "--dry-run"])
    _never_cut(plan)
    assert "heuristic" in plan
    small = tmp_path / "t.toml"
    small.write_text(EXAMPLE.read_text(encoding="utf-8").replace("games = 200", "games = 4"), encoding="utf-8")
    ran = _run(["tournament", str(small), "--out", str(tmp_path / "runs")])
    _never_cut(ran)
    assert any(line.startswith("4/4 games complete") for line in ran.splitlines()), ran[-600:]
