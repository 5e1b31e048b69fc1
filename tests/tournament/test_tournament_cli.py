"""`arena tournament`: the bots example runs whole (manifest, one verified transcript per game, standings), a rerun
skips what is done, `--dry-run` shows the balance, and bad input stops with one line naming the field before any
game starts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.transcript import load, verify

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tournament-bots.toml"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["tournament", *args])
    return result.exit_code, result.output


def test_the_bots_example_runs_whole_and_every_transcript_verifies(tmp_path: Path) -> None:
    out = tmp_path / "bots"
    code, output = _run(str(EXAMPLE), "--out", str(out), "--no-progress", "--jobs", "16", "--processes", "2")
    assert code == 0, output
    assert "200/200 games complete, 0 errors" in output
    data = json.loads((out / "tournament.json").read_text())
    assert data["status"] == "complete" and data["done"] == 200 and data["stop_reason"] == "all games played"
    files = sorted(out.glob("game-*.jsonl"))
    assert len(files) == 200
    for entry, path in zip(data["games"], files, strict=True):
        assert entry["file"] == path.name and entry["status"] == "complete"
        transcript = load(path)
        verdict = verify(transcript)
        assert verdict.ok, f"{path.name}: {verdict.message}"
        header = transcript.header
        assert header.seed == entry["seed"]
        assert [r.value for r in header.roles or []] == entry["roles"]  # the fixed seating is in the header
        assert [s.agent.name for s in header.seats] == entry["seats"]
    standings = {row["label"]: row for row in data["standings"]}
    assert set(standings) == {"heuristic", "random"}
    for row in standings.values():
        assert row["games"] == 200  # whole sides (the default): a town and a mafia game each per self-pair game
        assert row["sides"]["red"]["games"] == 100 and row["sides"]["black"]["games"] == 100
        assert 0 <= row["low"] <= row["rate"] <= row["high"] <= 1
    wins = sum(1 for g in data["games"] for side in {"black" if role in ("mafia", "don") else "red"
                                                     for label, role in zip(g["seats"], g["roles"], strict=True)
                                                     if label == "heuristic"}
               if {"town": "red", "mafia": "black"}.get(g["winner"]) == side)  # fmt: skip
    assert standings["heuristic"]["wins"] == wins
    # a second run finds everything done and plays nothing
    before = {p.name: p.read_bytes() for p in files}
    code, output = _run(str(EXAMPLE), "--out", str(out), "--no-progress", "--processes", "0")
    assert code == 0, output
    assert {p.name: p.read_bytes() for p in sorted(out.glob("game-*.jsonl"))} == before
    assert json.loads((out / "tournament.json").read_text())["standings"] == data["standings"]


def test_dry_run_prints_the_balance_table_and_plays_nothing(tmp_path: Path) -> None:
    out = tmp_path / "never"
    code, output = _run(str(EXAMPLE), "--out", str(out), "--dry-run")
    assert code == 0, output
    assert "200 games of fiim" in output
    assert "largest difference between two configurations on any count: 0" in output
    assert "nothing to spend" in output
    assert not out.exists()


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(body)
    return path


POOL = '[[pool]]\nlabel = "a"\nagent = "bot:heuristic"\n[[pool]]\nlabel = "b"\nagent = "bot:random"\n'


@pytest.mark.parametrize(
    ("body", "args", "expected"),
    [
        ('games = 4\n[[pool]]\nlabel = "a"\nagent = "no-such-agent"\n', [],
         "pool[0].agent: unknown agent 'no-such-agent'"),
        ('games = 4\n[[pool]]\nlabel = "a"\nagent = "bot:random"\n[[pool]]\nlabel = "a"\nagent = "bot:heuristic"\n',
         [], "pool[1].label: duplicate label 'a'"),
        ("games = 0\n" + POOL, [], "games: Input should be greater than 0"),
        ("games = 4\nseats = 12\n" + POOL, [], "seats: 12 seats, but the rules 'fiim' seat 10"),
        ("games = 4\n" + POOL, ["--budget", "ten"], "--budget: 'ten' is not a number"),
        ('games = 4\n[rules]\npreset = "nope"\n' + POOL, [], "rules: unknown preset 'nope'"),
        ('games = 4\n[[pool]]\nlabel = "a"\nagent = "bot:random"\ntemperature = 0.5\n', [],
         "pool[0]: temperature only apply to LLM agents"),
        ('games = 4\ncolour = "red"\n' + POOL, [], "colour: Extra inputs are not permitted"),
    ],
)  # fmt: skip
def test_bad_input_names_the_field(tmp_path: Path, body: str, args: list[str], expected: str) -> None:
    out = tmp_path / "out"
    code, output = _run(str(_write(tmp_path, body)), "--out", str(out), "--no-progress", *args)
    assert code == 2, output
    assert output.startswith("error: ") and expected in output, output
    assert "Traceback" not in output
    assert not out.exists()  # nothing started


def test_a_folder_holding_another_tournament_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _write(tmp_path, "games = 2\n" + POOL)
    code, output = _run(str(first), "--out", str(out), "--no-progress", "--processes", "0")
    assert code == 0, output
    other = tmp_path / "other.toml"
    other.write_text("games = 3\n" + POOL)
    before = sorted(p.name for p in out.iterdir())
    code, output = _run(str(other), "--out", str(out), "--no-progress", "--processes", "0")
    assert code == 2 and output.startswith("error: out: ") and "holds another tournament" in output, output
    assert sorted(p.name for p in out.iterdir()) == before
    stray = tmp_path / "stray"
    stray.mkdir()
    shutil.copy(next(out.glob("game-*.jsonl")), stray / "x.jsonl")
    code, output = _run(str(first), "--out", str(stray), "--no-progress")
    assert code == 2 and "out: " in output and "not empty" in output, output
