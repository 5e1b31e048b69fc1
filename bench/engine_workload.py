"""A fixed engine workload for counting instructions: `engine_throughput.py`'s games (random legal decisions, each
seat's view built before each of its decisions), played once, with no timing.

Timings on this shared machine move with the load; instruction counts do not. Run it under
`valgrind --tool=callgrind` twice, with `--games 40` and with `--games 0` (imports and one warm-up game only), and
subtract: the difference is the engine's work for those games (see bench/README.md).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine_throughput import play_games  # the bench directory is not a package

from arena.engine import PRESETS, load_rules


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games after the warm-up one (0: warm-up only)")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="fiim")
    args = parser.parse_args(argv)
    rules = load_rules(args.preset)
    play_games(rules, range(0, 1))  # warm-up: first-call caches and lazy imports stay out of the difference
    run = play_games(rules, range(1, 1 + args.games))
    print(f"{args.preset}: {run.games} games, {run.decisions} decisions, {run.events} events")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
