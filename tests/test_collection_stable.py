"""The suite collects the same tests in every process: pytest-xdist's workers each collect it and refuse to run when
their lists differ ("Different tests were collected between gw0 and gw1"), which made the README's test command
fail when a parameter carried the current time (a gzip header's mtime). Two collections in fresh interpreters, with
different hash seeds (the order of sets) and more than a second apart (anything stamped with the time), must agree.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _collected(hash_seed: str) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-m", "", "-p", "no:cacheprovider"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


@pytest.mark.slow
def test_two_collections_in_fresh_processes_list_the_same_tests() -> None:
    first = _collected("1")
    time.sleep(1.1)  # a value stamped with the time in seconds differs between the two
    second = _collected("2")
    assert len(first) > 1000  # the whole suite, slow tests included (`-m ""`)
    assert first == second, sorted(set(first) ^ set(second))[:10]
