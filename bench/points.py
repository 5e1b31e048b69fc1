"""The points table's interval in simulation: the share of 95 % intervals of points per game that hold the truth.

Games come from `arena/research/points.py`'s World, a process the interval does not assume (a random effect per
deal shared by its replays, teammates winning together, skewed points, configurations holding 1 to 3 seats a game
unevenly, the first-night compensation counted over the whole tournament), scored with the `fiim` file by the
report's own `points_table`. The truth of a configuration is its expected points per seat-game, pooled over
`--truth` other tournaments of the same world and design.

    python bench/points.py [--tournaments 1000] [--truth 3000] [--deals 10,25,50] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import time

from arena.research.points import simulate_coverage
from arena.scoring import load_system


def wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=1000)
    parser.add_argument("--truth", type=int, default=3000)
    parser.add_argument("--deals", default="10,25,50")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    system = load_system("fiim")
    print(f"{args.tournaments} tournaments a row, truth from {args.truth} more; 4 games a deal")
    print(f"{'deals':>5} {'games':>5}  config  coverage  (95 % of the count)   truth")
    for deals in (int(d) for d in args.deals.split(",")):
        start = time.perf_counter()
        result = simulate_coverage(system, tournaments=args.tournaments, deals=deals,
                                   truth_tournaments=args.truth, seed=args.seed + deals)  # fmt: skip
        for config, (share, truth) in result.items():
            low, high = wilson(round(share * args.tournaments), args.tournaments)
            print(f"{deals:>5} {deals * 4:>5}  {config:>6}  {share:8.1%}  ({low:.1%}–{high:.1%})  {truth:8.4f}")
        print(f"      ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
