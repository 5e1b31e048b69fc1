"""Engine fuzz: many seeded random games per preset with the judge's fouls and removals at arbitrary moments, every
step checked against the conformance invariants. Prints games per preset and the violations (which must be 0).

Why this exists: CI plays 2,000 games per preset (`tests/test_conformance.py`); rare interleavings of a judge's
removal with a pending night action only show up over many more. This runs the same games and the same checks
(the conformance test's `play_checked`: random decisions, defaults, re-asks, fouls, removals, replay and
answer-order determinism) at a larger count, from a seed range the CI run does not cover, spread over a process pool.

    nice -n 10 .venv/bin/python bench/fuzz.py                     # 10,000 games per preset from seed 1,000,000
    nice -n 10 .venv/bin/python bench/fuzz.py --games 500 --presets club --jobs 1

A violation names the preset and the seed; reproduce it with `play_checked(load_rules(preset), seed)` from
`tests/test_conformance.py`, then pin the seed in that file's `FUZZ_SEEDS`. Exits 1 if any game broke an invariant.
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path
from types import ModuleType

from arena.engine import PRESETS

CONFORMANCE = Path(__file__).resolve().parent.parent / "tests" / "test_conformance.py"


@cache
def _conformance() -> ModuleType:
    """The conformance test module, loaded from its file: the invariants live there, in one place."""
    spec = importlib.util.spec_from_file_location("arena_conformance", CONFORMANCE)
    if spec is None or spec.loader is None:  # pragma: no cover - the checkout always has it
        raise SystemExit(f"error: cannot load {CONFORMANCE}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _chunk(args: tuple[str, list[int]]) -> tuple[int, list[tuple[int, str]], dict[str, int]]:
    games, failures, winners = _conformance().run_chunk(args)
    return int(games), list(failures), dict(winners)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=10_000, help="games per preset (default 10,000)")
    parser.add_argument("--seed", type=int, default=1_000_000, help="first seed (default 1,000,000)")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=PRESETS, metavar="PRESET")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: cores)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")

    print(f"engine fuzz: {args.games:,} games per preset from seed {args.seed:,}, {args.jobs} processes, "
          f"judge fouls and removals on; python {sys.version.split()[0]}")  # fmt: skip
    header = f"{'preset':<8} {'games':>7} {'violations':>10} {'seconds':>8}  winners"
    print(header)
    print("-" * len(header))
    total_games = total_violations = 0
    _conformance()  # loaded once here; forked workers inherit it
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    with ProcessPoolExecutor(args.jobs, mp_context=context) as pool:
        for preset in args.presets:
            seeds = list(range(args.seed, args.seed + args.games))
            parts = args.jobs * 16  # small chunks keep every process busy to the end
            chunks = [(preset, seeds[i::parts]) for i in range(parts) if seeds[i::parts]]
            start = time.perf_counter()
            results = list(pool.map(_chunk, chunks))
            seconds = time.perf_counter() - start
            games = sum(r[0] for r in results)
            failures = sorted(f for r in results for f in r[1])
            winners: Counter[str] = Counter()
            for r in results:
                winners.update(r[2])
            shown = " ".join(f"{k}={v}" for k, v in sorted(winners.items()))
            print(f"{preset:<8} {games:>7,} {len(failures):>10} {seconds:>8.1f}  {shown}", flush=True)
            for seed, message in failures[:10]:
                print(f"  seed {seed}: {message[:300]}")
            total_games += games
            total_violations += len(failures)
    print(f"total: {total_games:,} games, violations: {total_violations}")
    return 1 if total_violations else 0


if __name__ == "__main__":
    sys.exit(main())
