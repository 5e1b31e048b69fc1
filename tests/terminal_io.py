"""Descriptors for the tests that drive a human seat's terminal: a pipe or a pty pair that is always closed, and a
reader that waits on a child's pty until a pattern shows. Shared, so each test opens, closes and waits the same way
(no fixed sleeps; what was read so far is returned for the failure message)."""

from __future__ import annotations

import os
import re
import select
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def pipe() -> Iterator[tuple[int, int]]:
    """A pipe's (read, write) descriptors, closed on the way out."""
    read_fd, write_fd = os.pipe()
    try:
        yield read_fd, write_fd
    finally:
        os.close(write_fd)
        os.close(read_fd)


@contextmanager
def pty_pair() -> Iterator[tuple[int, int]]:
    """A pseudo-terminal's (master, slave) descriptors, closed on the way out."""
    master, slave = os.openpty()
    try:
        yield master, slave
    finally:
        os.close(master)
        os.close(slave)


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
