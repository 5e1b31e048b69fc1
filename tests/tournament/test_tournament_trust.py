"""A rerun of a tournament only counts or continues game files that are the planned games: a file whose hash chain
is broken (an edited winner) or whose header is another game's (a copied file, other seats, other rules) refuses
the run, naming the file and what differs; nothing is counted or played.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.tournament.manifest import game_file
from arena.tournament.model import Tournament, TournamentError, load_tournament
from arena.tournament.play import GameTask, differences, play_task
from arena.tournament.run import scan, task_for
from arena.tournament.schedule import GamePlan, make_schedule
from arena.transcript import TranscriptError, load

BODY = 'name = "trust"\ngames = 3\nseed = 5\n[[pool]]\nlabel = "a"\nagent = "bot:heuristic"\n' \
       '[[pool]]\nlabel = "b"\nagent = "bot:random"\n'  # fmt: skip


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("trust")
    spec = base / "t.toml"
    spec.write_text(BODY)
    out = base / "out"
    result = CliRunner().invoke(app, ["tournament", str(spec), "--out", str(out), "--no-progress", "--processes", "0"])
    assert result.exit_code == 0, result.output
    return spec, out


def _setup(spec: Path, out: Path) -> tuple[Tournament, list[GamePlan], dict[str, GameTask]]:
    t = load_tournament(spec)
    plans = make_schedule([c.label for c in t.configs], t.filler.label, t.rules, t.file.games, t.file.seed)
    specs = {c.label: c.spec for c in [*t.configs, t.filler]}
    return t, plans, {game_file(p.index): task_for(t, p, specs, out) for p in plans}


def _copy(played: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    spec, out = played
    shutil.copytree(out, tmp_path / "out")
    return spec, tmp_path / "out"


def _scan(spec: Path, out: Path) -> None:
    _, plans, tasks = _setup(spec, out)
    scan(out, plans, lambda plan: tasks[game_file(plan.index)])


def test_an_intact_folder_is_counted(played: tuple[Path, Path], tmp_path: Path) -> None:
    spec, out = _copy(played, tmp_path)
    _, plans, tasks = _setup(spec, out)
    done, todo = scan(out, plans, lambda plan: tasks[game_file(plan.index)])
    assert sorted(done) == [0, 1, 2] and todo == []
    for name, task in tasks.items():
        assert differences(load(out / name), task) == []


def test_a_flipped_winner_refuses_the_rerun(played: tuple[Path, Path], tmp_path: Path) -> None:
    spec, out = _copy(played, tmp_path)
    path = out / game_file(1)
    lines = path.read_text().splitlines(keepends=True)
    end = json.loads(lines[-1])
    end["winner"] = "mafia" if end["winner"] == "town" else "town"
    lines[-1] = json.dumps(end, separators=(",", ":")) + "\n"
    path.write_text("".join(lines))
    with pytest.raises(TournamentError) as info:
        _scan(spec, out)
    message = str(info.value)
    assert str(path) in message and "hash chain broken" in message and "move them away" in message
    assert game_file(0) not in message  # only the bad file is named
    # a worker handed that game refuses it too, rather than reporting its edited result
    _, _, tasks = _setup(spec, out)
    with pytest.raises(TranscriptError) as refused:
        asyncio.run(play_task(tasks[game_file(1)]))
    assert "hash chain broken" in str(refused.value)


def test_a_copied_game_file_refuses_the_rerun(played: tuple[Path, Path], tmp_path: Path) -> None:
    spec, out = _copy(played, tmp_path)
    shutil.copy(out / game_file(0), out / game_file(2))  # chain intact, but game 1's header
    with pytest.raises(TournamentError) as info:
        _scan(spec, out)
    message = str(info.value)
    assert str(out / game_file(2)) in message and "planned" in message
    _, _, tasks = _setup(spec, out)
    found = " ".join(differences(load(out / game_file(2)), tasks[game_file(2)]))
    assert "game id" in found and "seed" in found


def test_other_seats_roles_or_rules_are_named(played: tuple[Path, Path], tmp_path: Path) -> None:
    spec, out = _copy(played, tmp_path)
    _, _, tasks = _setup(spec, out)
    task = tasks[game_file(0)]
    transcript = load(out / game_file(0))
    other_label = {**task.seats[1], "name": "zzz"}
    temp_label = {**task.seats[1], "temperature": 0.123}
    cases = {
        "seat 1 is": dataclasses.replace(task, seats={**task.seats, 1: other_label}),
        "(temperature)": dataclasses.replace(task, seats={**task.seats, 1: temp_label}),
        "roles": dataclasses.replace(task, roles=list(reversed(task.roles))),
        "rules differ": dataclasses.replace(task, rules={**task.rules, "name": "other"}),
        "seed": dataclasses.replace(task, seed=task.seed + 1),
    }
    for expected, changed in cases.items():
        if changed == task:
            continue
        found = "; ".join(differences(transcript, changed))
        assert expected in found, (expected, found)


@pytest.mark.parametrize(
    "data",
    [
        b'games = 2\nname = "\xff\xfe"\n',
        ("a = " + "[" * 5000 + "]" * 5000 + "\n").encode(),
        b'name = "x"\n' * 500_000,
    ],
    ids=["not-utf8", "deeply-nested", "huge"],
)
def test_a_hostile_tournament_file_is_one_error_naming_it(tmp_path: Path, data: bytes) -> None:
    spec = tmp_path / "t.toml"
    spec.write_bytes(data)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["tournament", str(spec), "--out", str(out), "--no-progress"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: {spec}: ") and result.output.count("\n") == 1, result.output
    assert not out.exists()


@pytest.mark.parametrize(
    "data",
    [b'{"format": "mafia-arena-tournament", "name": "\xff"}', ("[" * 100_000 + "]" * 100_000).encode()],
    ids=["not-utf8", "deeply-nested"],
)
def test_a_hostile_manifest_in_out_is_one_error(tmp_path: Path, data: bytes) -> None:
    spec = tmp_path / "t.toml"
    spec.write_text(BODY)
    out = tmp_path / "out"
    out.mkdir()
    (out / "tournament.json").write_bytes(data)
    result = CliRunner().invoke(app, ["tournament", str(spec), "--out", str(out), "--no-progress"])
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"error: out: {out / 'tournament.json'} is not a readable tournament manifest")
    assert result.output.count("\n") == 1, result.output
    assert sorted(p.name for p in out.iterdir()) == ["tournament.json"]  # nothing started


def test_the_command_refuses_a_tampered_folder_with_one_error_line(tmp_path: Path) -> None:
    """Through `arena tournament` itself: exit 2, one `error:` line naming the file, no traceback."""
    import subprocess
    import sys

    example = Path(__file__).resolve().parents[2] / "examples" / "tournament-bots.toml"
    spec = tmp_path / "t.toml"
    spec.write_text(example.read_text().replace("games = 200", "games = 2"))
    out = tmp_path / "out"
    args = [sys.executable, "-m", "arena.cli", "tournament", str(spec), "--out", str(out), "--no-progress"]
    assert subprocess.run(args, capture_output=True, text=True, timeout=300, check=False).returncode == 0
    game = out / "game-0001.jsonl"
    lines = game.read_text().splitlines()
    end = json.loads(lines[-1])
    end["winner"] = "mafia" if end["winner"] != "mafia" else "town"
    game.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n")
    done = subprocess.run(args, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "game-0001.jsonl" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
