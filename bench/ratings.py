"""Validate the side-aware ratings and print the figures (docs/ratings.md quotes them).

1. Simulation: games drawn from known side-aware skills, fitted again and again; prints how often the 95 %
   bootstrap intervals cover the true values (the target is 90–98 %) and how often the ranking is the true one.
2. Real 7-against-3 data: a balanced tournament of heuristic against random bots (or any folder of transcripts):
   the ratings with intervals, the win rates per side, and the held-out log-loss of the side-aware model against
   the plain sum-of-ratings model.

    python bench/ratings.py [--sims 100] [--games 1000] [--boot 100] [--tournament 200] [--folder DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from scipy.special import expit

from arena.research.corpus import load_folder
from arena.research.ratings import (
    Match,
    Truth,
    coverage,
    design,
    fit,
    fit_sum,
    fit_theta,
    held_out,
    matches,
    predict,
    sum_design,
    win_rates,
)
from arena.research.selfplay import play_balanced

TRUTH = Truth(
    h=-0.4,
    town={"a": 1.2, "b": 0.4, "c": -0.4, "d": -1.2},
    mafia={"a": 1.0, "b": 0.4, "c": -0.3, "d": -1.1},
)


def simulation(sims: int, games: int, boot: int) -> None:
    print(f"== simulation: {sims} data sets of {games} games, {boot} bootstrap resamples each, 4 configurations")
    for mixed in (False, True):
        started = time.perf_counter()
        c = coverage(TRUTH, sims, games, boot, seed=11, mixed=mixed)
        kind = "mixed seats (each seat drawn)" if mixed else "one configuration per side"
        print(
            f"{kind:32s} coverage {c.covered}/{c.total} = {c.rate:.1%}   true order recovered "
            f"{c.order_recovered}/{c.simulations}   ({time.perf_counter() - started:.1f} s)"
        )


def real(folder: Path, folds: int) -> None:
    corpus = load_folder(folder)
    games = matches(corpus)
    print(f"== real games: {len(corpus.games)} finished games in {folder} ({len(games)} with a town or mafia win)")
    f = fit(games, boot=200, seed=1)
    for rules, h in f.side.items():
        print(f"side term h[{rules}] = {h.value:+.2f}  [{h.low:+.2f}, {h.high:+.2f}]")
    print(f"{'configuration':16s} {'town skill':>24s} {'mafia skill':>24s} {'combined':>24s}")
    for r in f.ratings:
        cells = [f"{iv.value:+.2f} [{iv.low:+.2f}, {iv.high:+.2f}]" for iv in (r.town, r.mafia, r.combined)]
        print(f"{r.config:16s} {cells[0]:>24s} {cells[1]:>24s} {cells[2]:>24s}")
    for w in win_rates(corpus.games):
        print(f"win rate {w.config:16s} {w.side:6s} {w.wins:4d}/{w.seats:<5d} {w.rate.value:6.1%}"
              f"  [{w.rate.low:.1%}, {w.rate.high:.1%}]")  # fmt: skip
    calibration_table(games)
    h = held_out(games, folds=folds)
    print(f"held-out log-loss ({h.folds}-fold, {h.games} games): side-aware {h.side_aware:.4f}   "
          f"sum-of-ratings {h.sum_of_ratings:.4f}   constant base rate {h.base_rate:.4f}")  # fmt: skip


def calibration_table(games: list[Match]) -> None:
    """Observed town win rate per pairing of configurations, against each model's mean prediction (fit on all)."""
    configs = sorted({c for m in games for c in (*m.town, *m.mafia)})
    d = design(games, configs)
    side = predict(d, fit_theta(d))
    x, _ = sum_design(games, configs)
    summed = expit(x @ fit_sum(games, configs))
    cells: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for m, p_side, p_sum in zip(games, side, summed, strict=True):
        key = ("|".join(sorted(set(m.town))), "|".join(sorted(set(m.mafia))))
        cells.setdefault(key, []).append((float(m.town_won), float(p_side), float(p_sum)))
    print(f"{'town':16s} {'mafia':16s} {'games':>5s} {'town won':>9s} {'side-aware':>11s} {'sum':>7s}")
    for (town, mafia), rows in sorted(cells.items()):
        n = len(rows)
        won, ps, pm = (sum(r[i] for r in rows) / n for i in range(3))
        print(f"{town:16s} {mafia:16s} {n:5d} {won:9.1%} {ps:11.1%} {pm:7.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=100)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--boot", type=int, default=100)
    parser.add_argument("--tournament", type=int, default=200, help="bot games to play when no --folder is given")
    parser.add_argument("--folder", type=Path, help="rate these transcripts instead of playing a tournament")
    parser.add_argument("--folds", type=int, default=10)
    args = parser.parse_args()
    if args.sims > 0:
        simulation(args.sims, args.games, args.boot)
    if args.folder is not None:
        real(args.folder, args.folds)
        return
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        play_balanced(Path(tmp), args.tournament)
        print(f"(played {args.tournament} games in {time.perf_counter() - started:.1f} s)")
        real(Path(tmp), args.folds)


if __name__ == "__main__":
    main()
