"""Waiting for a condition another thread makes true (a table playing on the test client's loop): the web tests
share it, so each polls the same way and fails with the same message."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(predicate: Callable[[], object], limit_s: float = 30.0) -> None:
    """Return once `predicate()` is true; fail the test after `limit_s` seconds."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out after {limit_s} s")
