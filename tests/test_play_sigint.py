"""`arena play &` in a shell script starts with SIGINT ignored (no job control): Ctrl-C or `kill -INT` must still
stop the game, saved and resumable (issue #31). Before, the signal was ignored and the game played on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="needs POSIX signals")


def test_sigint_stops_a_game_started_with_sigint_ignored(tmp_path: Path, interrupt: Callable[..., str]) -> None:
    out = tmp_path / "out"
    command = [sys.executable, "-m", "arena.cli", "play", "--seed", "3", "--quiet", "--out", str(out)]
    command += ["--delay", "0.05"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # fmt: skip

    def under_way() -> bool:
        files = list(out.glob("*.jsonl"))
        return bool(files) and files[0].read_text(encoding="utf-8").count("\n") >= 20

    interrupt(child, under_way)
