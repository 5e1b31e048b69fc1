"""The fault-mix property at a larger count: games against the stand-in with every fault kind mixed at random, each
one resumed after any stop until it ends, then checked as `arena verify` checks it. Prints the games, the faults
injected, the stops, and every game that does not verify (which must be none).

Why this exists: the suite's property test (`tests/llm/test_llm_fault_mix.py`) plays 200 games with 4 model seats
each, to stay near a minute of CPU; here every seat can be a model, and the count is yours. The games, the mix and
the checks are the test's own (its module is loaded from its file, so they live in one place).

    nice -n 10 .venv/bin/python bench/fault_mix.py              # 500 seeds x 2 schema styles, 10 model seats
    nice -n 10 .venv/bin/python bench/fault_mix.py --seeds 50 --llm-seats 4 --first 1000

Exits 1 if any game does not verify. CPU and wall time are printed with the load average: measure on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent.parent / "tests" / "llm"


def _property() -> ModuleType:
    """The property test's module, loaded from its file (it imports `llmkit` beside it)."""
    sys.path.insert(0, str(TESTS))
    spec = importlib.util.spec_from_file_location("fault_mix_property", TESTS / "test_llm_fault_mix.py")
    if spec is None or spec.loader is None:  # pragma: no cover - the checkout always has it
        raise SystemExit(f"error: cannot load {TESTS / 'test_llm_fault_mix.py'}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=500, help="seeds; each is played in both schema styles")
    parser.add_argument("--first", type=int, default=100_000, help="first seed (the suite plays 0-99)")
    parser.add_argument("--llm-seats", type=int, default=10, choices=range(1, 11), metavar="N", help="model seats")
    parser.add_argument("--concurrency", type=int, default=40, help="games at once on the one event loop")
    args = parser.parse_args(argv)
    os.environ.setdefault("ARENA_TEST_KEY", "sk-bench-fault-mix-0000")
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-fault-mix-0000")
    mix = _property()
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    print(f"fault mix: {args.seeds} seeds x 2 schema styles from seed {args.first:,}, {args.llm_seats} model seats, "
          f"{args.concurrency} at once; load {load[0]:.2f}")  # fmt: skip
    seeds = range(args.first, args.first + args.seeds)
    with tempfile.TemporaryDirectory(prefix="fault-mix-") as folder:
        cpu, wall = time.process_time(), time.perf_counter()
        played = asyncio.run(mix.play_many(Path(folder), seeds, args.llm_seats, args.concurrency))
        play_cpu, play_wall = time.process_time() - cpu, time.perf_counter() - wall
        refused = {p.path.name: problems for p in played if (problems := mix.check_verifies(p.path))}
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    injected: Counter[str] = sum((p.injected for p in played), Counter())
    print(f"games {len(played)}, stops resumed {sum(p.stops for p in played)}, faults {sum(injected.values()):,}")
    print("  " + ", ".join(f"{fault} {count:,}" for fault, count in injected.most_common()))
    print(f"not verified: {len(refused)}")
    for name, problems in list(refused.items())[:20]:
        print(f"  {name}: {problems[0][:300]}")
    print(f"CPU {cpu:.1f} s ({play_cpu:.1f} s playing), wall {wall:.1f} s ({play_wall:.1f} s playing), "
          f"{cpu / max(len(played), 1):.3f} s CPU a game")  # fmt: skip
    return 1 if refused else 0


if __name__ == "__main__":
    raise SystemExit(main())
