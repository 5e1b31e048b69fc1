"""Descriptors for the tests that drive a human seat's terminal: a pipe or a pty pair that is always closed, and a
reader that waits on a child's pty until a pattern shows. Shared, so each test opens, closes and waits the same way
(no fixed sleeps; what was read so far is returned for the failure message)."""

from __future__ import annotations

import contextlib
import os
import pty
import re
import select
import signal
import sys
import time
from collections.abc import Iterator


@contextlib.contextmanager
def _closed_after(pair: tuple[int, int]) -> Iterator[tuple[int, int]]:
    try:
        yield pair
    finally:
        for fd in pair:
            os.close(fd)


def pipe() -> contextlib.AbstractContextManager[tuple[int, int]]:
    """A pipe's (read, write) descriptors, closed on the way out."""
    return _closed_after(os.pipe())


def pty_pair() -> contextlib.AbstractContextManager[tuple[int, int]]:
    """A pseudo-terminal's (master, slave) descriptors, closed on the way out."""
    return _closed_after(os.openpty())


def read_until(fd: int, pattern: bytes, limit_s: float) -> bytes:
    """What the pty printed until `pattern` (a regular expression) matched, the child closed it, or `limit_s`."""
    seen = b""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and not re.search(pattern, seen):
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed its side
                break
            if not chunk:
                break
            seen += chunk
    return seen


@contextlib.contextmanager
def arena_on_a_pty(*args: str, term: str | None = None) -> Iterator[tuple[int, int]]:
    """`python -m arena.cli ARGS` in a real terminal (a pty): yields (pid, the master's fd); the child is killed
    and reaped and the fd closed on the way out. `term` sets the child's TERM."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the arena command on the pty
        if term is not None:
            os.environ["TERM"] = term
        # Ctrl-C as a person's terminal delivers it: a test run started in the background (a script's `&`, a job
        # beside a CPU burner) ignores SIGINT, and exec keeps that, so the game never heard the Ctrl-C
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.execv(sys.executable, [sys.executable, "-m", "arena.cli", *args])
    try:
        yield pid, fd
    finally:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)
