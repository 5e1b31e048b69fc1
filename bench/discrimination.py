"""Does each report metric tell apart agents that truly differ? Planted seats, the report's intervals, power.

For every metric of `arena report` (`arena/research/metrics.py`, RATES), a family of scripted seats that differ by
construction in what the metric measures (`arena/research/planted.py`: a red seat given the truth on k % of its
votes, a black seat that falsely claims sheriff on k % of its speeches, ...) plays `--games` games per family (all
levels of a family in the same games, on other seats, with heuristic bots around them). Then, per metric
(`arena/research/discrimination.py`):

- the planted **effect** (strongest plant − none, with its 95 % interval clustered by game),
- whether the metric puts the plants in the **right order**,
- the **games needed** for the report's 95 % intervals of the strongest plant and of none to lie apart in 80 % of
  folders of that size (drawn from the bench's games),
- the **coverage** of the report's per-configuration intervals and of the effect's interval, on folders of 40 games
  drawn from the bench's games (the truth: the value over all of them),
- **discriminating**: right order and at most 400 games needed.

    /work/bin/heavy python bench/discrimination.py [--games 400] [--families a,b] [--folder DIR] [--json]

With `--json` each metric is one JSON object per line (`metric`, `effect`, `games_needed`, `right_order`, and the
rest). `--folder` keeps the games (one sub-folder per family) and reuses those already there.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path


def _play(family: str, games: int, folder: Path) -> Path:
    from arena.research.planted import play

    out = folder / family
    have = len(list(out.glob("*.jsonl"))) if out.is_dir() else 0
    if have < games:
        play(family, games - have, out, first_seed=have + 1)
    return out


def _fmt(value: float, digits: int = 3) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=400, help="games per family (default 400)")
    parser.add_argument("--families", default="", help="comma-separated families (default: every one)")
    parser.add_argument("--folder", type=Path, default=None, help="keep the games here (reused when present)")
    parser.add_argument("--json", action="store_true", help="one JSON object per metric and line")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from arena.research.corpus import load_folder
    from arena.research.discrimination import COVERAGE_GAMES, MAX_GAMES, POWER, assess, families_for_metrics, pool
    from arena.research.planted import FAMILIES

    wanted = [f for f in args.families.split(",") if f] or [f for f in FAMILIES if FAMILIES[f].metrics]
    folder = args.folder or Path(tempfile.mkdtemp(prefix="discrimination-"))
    by_metric = families_for_metrics()
    results = []
    for family in wanted:
        started = time.perf_counter()
        out = _play(family, args.games, folder)
        games = sorted(load_folder(out).games, key=lambda g: g.seed)[: args.games]
        played = time.perf_counter() - started
        p = pool(FAMILIES[family], games)
        for metric in FAMILIES[family].metrics:
            if by_metric.get(metric) != family:
                continue
            r = assess(p, metric, args.seed)
            results.append(r)
            if args.json:
                effect = r.effect
                print(json.dumps({
                    "metric": r.metric, "effect": effect.value, "effect_low": effect.low, "effect_high": effect.high,
                    "games_needed": r.games_needed, "right_order": r.right_order,
                    "discriminating": r.discriminating, "family": r.family, "direction": r.direction,
                    "levels": {f"{k:.2f}": v.value for k, v in r.values.items()}, "games": len(games),
                    "searched_up_to": r.searched, "coverage": {str(k): v for k, v in r.coverage.items()},
                    "effect_coverage": {str(k): v for k, v in r.effect_coverage.items()},
                }), flush=True)  # fmt: skip
        if not args.json:
            print(f"# {family}: {len(games)} games ({played:.0f} s to play and read)", file=sys.stderr, flush=True)
    if args.json:
        return 0
    print(f"Planted differences, {args.games} games per family; games needed: the report's 95 % intervals of the "
          f"strongest plant and of none apart in {POWER:.0%} of folders; discriminating: right order and at most "
          f"{MAX_GAMES} games; coverage on folders of {' and '.join(map(str, COVERAGE_GAMES))} games drawn from the "
          "bench's, 400 each.\n")  # fmt: skip
    sizes = "/".join(map(str, COVERAGE_GAMES))
    head = ["metric", "family", "values by level", "effect (95 %)", "right order", "games needed",
            f"coverage ({sizes} games)", f"effect coverage ({sizes})", "discriminating"]  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in results:
        values = ", ".join(f"{k:g}: {_fmt(v.value)}" for k, v in r.values.items())
        e = r.effect
        shown = f"{_fmt(e.value)} [{_fmt(e.low)}, {_fmt(e.high)}]"
        needed = "–" if r.direction == 0 else (str(r.games_needed) if r.games_needed else f"> {r.searched}")
        order = "no plant moves it" if r.direction == 0 else ("yes" if r.right_order else "no")
        cov = " / ".join(_fmt(r.coverage[n]) for n in COVERAGE_GAMES)
        effect_cov = " / ".join(_fmt(r.effect_coverage[n]) for n in COVERAGE_GAMES)
        print(f"| {r.metric} | {r.family} | {values} | {shown} | {order} | {needed} | {cov} | {effect_cov} | "
              f"{'yes' if r.discriminating else 'no'} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
