"""SIGKILL a tournament mid-run (the driver and its worker processes), run the same command again, and the final
table, every game's result and every game's events equal those of a run that was never stopped.

The killed run uses the hidden `--delay` (each seat waits before answering) so that games are mid-way when the
test kills it; the test waits for a condition (some games finished, others started), not a fixed time.
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
from tournament_files import BOTS_POOL

pytestmark = pytest.mark.skipif(os.name != "posix", reason="needs SIGKILL and process groups")

ARENA = [sys.executable, "-m", "arena.cli", "tournament"]
BODY = 'name = "kill"\ngames = 12\nseed = 3\n' + BOTS_POOL + '[[pool]]\nlabel = "h2"\nagent = "bot:heuristic"\n'


def _events(path: Path) -> list[str]:
    """The event lines without their chain hash (the chain starts at the header, which holds the start time)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [re.sub(r',"hash":"[0-9a-f]{64}"}$', "}", line) for line in lines if line.startswith('{"kind":"event"')]


def _state(out: Path) -> tuple[int, int]:
    complete = started = 0
    for path in out.glob("game-*.jsonl"):
        text = path.read_text(encoding="utf-8")
        if '"kind":"end"' in text:
            complete += 1
        elif text.count("\n") > 20:
            started += 1
    return complete, started


def test_sigkill_then_resume_gives_the_same_table(tmp_path: Path) -> None:
    spec = tmp_path / "kill.toml"
    spec.write_text(BODY)
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    proc = subprocess.Popen(
        [*ARENA, str(spec), "--out", str(killed), "--no-progress", "--jobs", "4", "--processes", "1",
         "--delay", "0.004"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120  # a guard against a hang, not a timing assumption
        while time.monotonic() < deadline:
            complete, started = _state(killed) if killed.exists() else (0, 0)
            if complete >= 2 and started >= 1:
                break
            assert proc.poll() is None, "the run ended before it could be killed"
            time.sleep(0.02)
        else:
            raise AssertionError("the run did not get far enough")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    complete, started = _state(killed)
    assert complete < 12 and started >= 1  # really cut mid-run, with games cut mid-game
    manifest = json.loads((killed / "tournament.json").read_text())
    assert manifest["status"] == "running"  # the killed run never wrote its end
    resumed = subprocess.run([*ARENA, str(spec), "--out", str(killed), "--no-progress", "--processes", "1"],
                             capture_output=True, text=True, timeout=300)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    whole = subprocess.run([*ARENA, str(spec), "--out", str(clean), "--no-progress", "--processes", "1"],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert whole.returncode == 0, whole.stderr
    a = json.loads((killed / "tournament.json").read_text())
    b = json.loads((clean / "tournament.json").read_text())
    assert a["status"] == b["status"] == "complete"
    assert a["standings"] == b["standings"]
    assert [(g["winner"], g["seats"], g["roles"]) for g in a["games"]] == [
        (g["winner"], g["seats"], g["roles"]) for g in b["games"]
    ]
    for path in sorted(clean.glob("game-*.jsonl")):
        assert _events(killed / path.name) == _events(path), path.name
