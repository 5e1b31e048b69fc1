"""The command line's small things (#34): `arena verify DIR`, `arena --version`, help without Python types, and
completion options on the top command only."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import arena
from arena.cli import COMMANDS, app

runner = CliRunner()
ARENA = [sys.executable, "-m", "arena.cli"]


def _folder(tmp_path: Path) -> dict[str, Path]:
    games = tmp_path / "games"
    complete = arena.play(seed=1, out=games)
    tampered = arena.play(seed=2, out=games / "sub")
    lines = tampered.read_text(encoding="utf-8").splitlines()
    end = json.loads(lines[-1])
    end["winner"] = "draw"
    tampered.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n", encoding="utf-8")
    unfinished = arena.play(seed=3, out=games)
    kept = unfinished.read_text(encoding="utf-8").splitlines()
    unfinished.write_text("\n".join(kept[: len(kept) // 2]) + "\n", encoding="utf-8")
    junk = games / "notes.jsonl"
    junk.write_text("not a transcript\n", encoding="utf-8")
    return {"complete": complete, "tampered": tampered, "unfinished": unfinished, "junk": junk}


def test_verify_a_folder_in_parallel_with_a_summary(tmp_path: Path) -> None:
    files = _folder(tmp_path)
    done = subprocess.run([*ARENA, "verify", str(tmp_path / "games"), "--jobs", "2"], capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip
    assert done.returncode == 1, done.stderr  # the worst file's code: tampered
    out = done.stdout.splitlines()
    assert out[-1] == "4 transcripts: 1 verified complete, 1 unfinished or aborted, 1 tampered, 1 not transcripts"
    assert any(line.startswith(f"OK {files['complete']}: ") for line in out)
    assert any(line.startswith(f"UNFINISHED {files['unfinished']}: ") for line in out)
    assert f"error: {files['tampered']}: " in done.stderr and "error: " in done.stderr.split(str(files["junk"]))[0]
    # each file's verdict is the one `arena verify FILE` gives alone
    for name, code in (("complete", 0), ("tampered", 1), ("junk", 2), ("unfinished", 3)):
        alone = runner.invoke(app, ["verify", str(files[name])])
        assert alone.exit_code == code, (name, alone.output)


def test_verify_folder_exit_codes(tmp_path: Path) -> None:
    games = tmp_path / "games"
    arena.play(seed=1, out=games)
    arena.play(seed=2, out=games)
    result = runner.invoke(app, ["verify", str(games), "--jobs", "1"])
    assert result.exit_code == 0 and result.output.splitlines()[-1].startswith("2 transcripts: 2 verified complete")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(app, ["verify", str(empty)])
    assert result.exit_code == 2 and "no transcripts" in result.output


def test_version() -> None:
    done = subprocess.run([*ARENA, "--version"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout == f"arena (mafia-arena) {arena.__version__}\n"


@pytest.mark.parametrize("command", [name for name, _, _ in COMMANDS])
def test_help_shows_no_python_types_and_no_completion_options(command: str) -> None:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    assert not re.search(r"<[^>]*(list\[|\bstr\b|\bPath\b|\bbool\b)[^>]*>", result.output), result.output
    assert "--install-completion" not in result.output and "--show-completion" not in result.output


def test_completion_is_on_the_top_command() -> None:
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert "--install-completion" in result.output and "--version" in result.output
