"""The stand-in server (`python -m arena.standin`) in a process of its own, for the benchmarks that measure a
client against it: its CPU and its GIL stay apart from the client's. Shared by `tournament.py` and `standin.py`."""

from __future__ import annotations

import subprocess
import sys


def start_standin(latency: float, *options: str) -> tuple[subprocess.Popen[str], str]:
    """Start a stand-in on a free port of 127.0.0.1 answering `latency` seconds after each request (more command
    line `options`, e.g. `--salt S --vary` or `--record FILE`); the process and its base URL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.standin", "--port", "0", "--latency", str(latency), *options],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def stop_standin(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.wait(timeout=10)
