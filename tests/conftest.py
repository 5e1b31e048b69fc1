"""Fixtures every test folder shares."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.transcript import Transcript, load

Interrupt = Callable[["subprocess.Popen[str]", Callable[[], bool]], str]


def _interrupt(child: subprocess.Popen[str], under_way: Callable[[], bool]) -> str:
    try:
        for _ in range(2400):  # a condition; 2 min bounds a hang on a busy machine
            if under_way() or child.poll() is not None:
                break
            time.sleep(0.05)
        assert child.poll() is None, "the game ended before it could be interrupted"
        child.send_signal(signal.SIGINT)
        _, stderr = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 130, stderr
    assert "interrupted; the game is saved. Continue it with: arena resume" in stderr
    return stderr


@pytest.fixture
def interrupt() -> Interrupt:
    """`interrupt(child, under_way)`: Ctrl-C (SIGINT) to an `arena` process once `under_way()` holds; it must stop,
    saved and resumable (exit 130, the resume line on stderr), which is returned."""
    return _interrupt


def _stopped_unreached(out: Path, stderr: str, port: int) -> Transcript:
    [path] = list(out.glob("*.jsonl"))
    lines = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "the game stopped: seat" in lines[0], stderr  # one line: who, why, what to fix
    assert "could not be reached" in lines[0] and f"127.0.0.1:{port}" in lines[0]
    assert f"arena resume {path}" in lines[0]
    stopped = load(path)
    assert stopped.end is None and stopped.status == "started"  # saved, resumable, not sealed
    [stop] = stopped.stops
    assert stop.reason.startswith("the model could not be reached") and "start the model's server" in stop.fix
    return stopped


@pytest.fixture
def stopped_unreached() -> Callable[[Path, str, int], Transcript]:
    """`stopped_unreached(out, stderr, port)`: the one game in `out` stopped because the model server on `port`
    could not be reached, as `arena play` says it (one error line: who, why, how to resume) and saves it (started,
    with a `stop` record); the transcript, loaded."""
    return _stopped_unreached
