"""`kill -9` mid-game, then `arena resume`: the game ends with the same events as an uninterrupted run.

`arena play` runs in a subprocess with the hidden `--delay` (each seat waits before answering) so that it is still
playing when the test kills it. The test waits for the transcript to hold enough lines (a condition, not a fixed
sleep), sends SIGKILL, resumes, and compares the event lines with a run of the same seed that was never stopped.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="needs SIGKILL")

SEED = 7
ARENA = [sys.executable, "-m", "arena.cli"]


def _events(path: Path) -> list[str]:
    """The event lines, byte for byte, without their `hash` (which chains from a header that differs per run)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [re.sub(r',"hash":"[0-9a-f]{64}"}$', "}", line) for line in lines if line.startswith('{"kind":"event"')]


def _wait_for_lines(folder: Path, lines: int, proc: subprocess.Popen[bytes], limit_s: float = 60.0) -> Path:
    deadline = time.monotonic() + limit_s  # a guard against a hang, not a timing assumption
    while time.monotonic() < deadline:
        files = list(folder.glob("*.jsonl"))
        if files and files[0].read_text(encoding="utf-8").count("\n") >= lines:
            return files[0]
        assert proc.poll() is None, "the game ended before it could be killed"
        time.sleep(0.01)
    raise AssertionError("the game did not write enough lines")


@pytest.mark.parametrize("preset", ["fiim", "club"])
def test_kill_9_then_resume_matches_an_uninterrupted_game(tmp_path: Path, preset: str) -> None:
    killed_dir, clean_dir = tmp_path / "killed", tmp_path / "clean"
    args = ["play", "--preset", preset, "--seed", str(SEED), "--quiet"]
    proc = subprocess.Popen([*ARENA, *args, "--out", str(killed_dir), "--delay", "0.02"], cwd=tmp_path)
    try:
        path = _wait_for_lines(killed_dir, 60, proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    cut = path.read_text(encoding="utf-8")
    assert '"kind":"end"' not in cut  # killed mid-game

    resumed = subprocess.run([*ARENA, "resume", str(path), "--quiet"], capture_output=True, text=True, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert f"transcript: {path}" in resumed.stdout
    assert path.read_text(encoding="utf-8").startswith(cut.rsplit("\n", 1)[0])  # appended, never rewritten

    clean = subprocess.run([*ARENA, *args, "--out", str(clean_dir)], capture_output=True, text=True, cwd=tmp_path)
    assert clean.returncode == 0, clean.stderr
    clean_path = next(clean_dir.glob("*.jsonl"))
    assert _events(path) == _events(clean_path)
    end = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
    assert end["kind"] == "end" and end["status"] == "complete"

    verified = subprocess.run([*ARENA, "verify", str(path)], capture_output=True, text=True, cwd=tmp_path)
    assert verified.returncode == 0 and verified.stdout.startswith("OK")
