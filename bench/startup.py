"""Start-up time of `arena --help`: the median of 10 runs (and of a bare `python -c pass`, for scale).

Why this exists: every command a user types pays the start-up, and `--help` should not import the engine, the LLM
stack, the scenarios or the renderers (the CLI imports a command's module only when that command runs). The test
`tests/test_cli_startup.py` checks which modules `arena --help` imports; this script prints how long it takes.

    .venv/bin/python bench/startup.py [--runs 10]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(command: list[str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        out.append(time.perf_counter() - start)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=10, help="runs per command (default 10)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    script = Path(sys.executable).with_name("arena")
    arena = [str(script)] if script.is_file() else [shutil.which("arena") or "arena"]
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "arena --help": [*arena, "--help"],
        "arena play --help": [*arena, "play", "--help"],
    }
    print(f"start-up, median (min-max) of {args.runs} runs; load average {os.getloadavg()[0]:.1f}")
    for name, command in commands.items():
        timed(command, 1)  # warm the file cache and the bytecode
        runs = timed(command, args.runs)
        print(f"{name:<20} {statistics.median(runs):6.3f} s  ({min(runs):.3f}-{max(runs):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
