"""`arena serve` in a child process on 127.0.0.1 for the security tests: started, its links read, stopped."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Served:
    proc: subprocess.Popen[str]
    port: int
    links: dict[str, str] = field(default_factory=dict)

    def path(self, what: str) -> str:
        """The path of a printed link (`replays`, `spectators`, `seat 1`, ...)."""
        return re.sub(r"^http://[^/]+", "", self.links[what])


@contextlib.contextmanager
def serve(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Iterator[Served]:
    """`arena serve ARGS` until every link is printed and the port listens; SIGTERM (then SIGKILL) at the end."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--port", str(port), *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd, env={**os.environ, **(env or {})},
    )  # fmt: skip
    served = Served(proc, port)
    try:
        assert proc.stdout is not None
        while True:
            line = proc.stdout.readline()
            assert line or proc.poll() is None, "the server did not start"
            who, _, url = line.partition(": ")
            if url.startswith("http"):
                served.links[who] = url.strip()
            if who == "replays":
                break
        deadline = time.monotonic() + 30  # the links are printed at start-up, just before the socket listens
        while True:
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline, "the server does not listen"
                time.sleep(0.05)
        threading.Thread(target=proc.stdout.read, daemon=True).start()  # drain: a full pipe would block it
        yield served
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def finishes(action: Callable[[], Any], within: float = 30.0) -> tuple[bool, Any]:
    """Run `action` in a daemon thread: (whether it returned or raised within `within` seconds, its outcome). A
    reader stuck on a FIFO cannot be interrupted, so the thread is left behind (the test unblocks it after)."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(action())
        except BaseException as exc:  # the outcome is the test's to judge
            box.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(within)
    return (not thread.is_alive(), box[0] if box else None)


def unblock(fifo: Path) -> None:
    """Release a reader waiting in open() on `fifo` (a writer appears and goes at once)."""
    with contextlib.suppress(OSError):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
