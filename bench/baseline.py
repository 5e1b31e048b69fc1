"""A git ref checked out beside the working tree, for benches that run an older engine next to this one.

`worktree(ref)` adds a detached `git worktree` of `ref` in a temporary folder and removes it afterwards; a bench
then runs its own script (this tree's) with `PYTHONPATH` set to that folder, so the same measurement meets the other
engine's code. Only code is checked out: the old tree uses this tree's installed dependencies.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def worktree(ref: str) -> Iterator[Path]:
    """The repository at `ref`, checked out in a temporary folder for the duration of the `with` block."""
    commit = _git("rev-parse", "--verify", f"{ref}^{{commit}}").strip()
    with tempfile.TemporaryDirectory(prefix="arena-baseline-") as folder:
        tree = Path(folder) / "tree"
        _git("worktree", "add", "--detach", str(tree), commit)
        try:
            yield tree
        finally:
            _git("worktree", "remove", "--force", str(tree))


def _git(*args: str) -> str:
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"error: git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout
