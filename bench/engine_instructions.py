"""The engine's work in instructions: `engine_workload.py` under callgrind, its `--games N` run minus its `--games 0`
run (imports and a warm-up game), so the count is the N games' own. With `--baseline REF`, the same for the engine
at that git ref (checked out into a temporary git worktree), in the same run.

Why this exists: wall-clock figures on this shared machine move with the load; instruction counts do not (they repeat
to the thousand with the hash seed fixed). It is the steady figure behind a speed claim (bench/README.md).

    .venv/bin/python bench/engine_instructions.py --games 40
    .venv/bin/python bench/engine_instructions.py --games 40 --baseline main
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from baseline import worktree  # the bench directory is not a package

WORKLOAD = Path(__file__).resolve().parent / "engine_workload.py"


def instructions(games: int, preset: str, tree: Path | None) -> int:
    """Instructions of `engine_workload.py --games N` under callgrind (PYTHONHASHSEED=0); `tree`: the engine's code."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    with tempfile.TemporaryDirectory(prefix="arena-callgrind-") as folder:
        out = Path(folder) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, str(WORKLOAD)]
        done = subprocess.run([*command, "--games", str(games), "--preset", preset], env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"error: callgrind failed: {done.stderr.strip()[-1000:]}")
    return int(found.group(1))


def work(games: int, preset: str, tree: Path | None) -> int:
    return instructions(games, preset, tree) - instructions(0, preset, tree)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=40, help="games counted (default 40)")
    parser.add_argument("--preset", default="fiim", help="the preset played (default fiim)")
    parser.add_argument("--baseline", metavar="REF", help="also count the engine at this git ref")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("error: valgrind is not installed", file=sys.stderr)
        return 2
    print(f"engine instructions: {args.games} {args.preset} games with their views, callgrind, minus 0 games")
    ours = work(args.games, args.preset, None)
    print(f"this tree    {ours / 1e6:9.1f}M")
    if args.baseline:
        with worktree(args.baseline) as tree:
            theirs = work(args.games, args.preset, tree)
        print(f"{args.baseline:<12} {theirs / 1e6:9.1f}M   this tree / baseline {ours / theirs:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
