"""Validate the report's statistics in simulation and on real bot games; print the figures docs/ratings.md quotes.

The simulations draw games from `arena/research/simulate.py`'s World, a process the ratings model does not assume
(role weights sheriff ×3 and don ×2, seat-position effects, deal and game noise, draws), seat them under five
schedules, report on them with the report's own code, and check every interval it prints against the truth.

1. `coverage`: 2, 4 and 8 configurations, 100, 300 and 1,000 games, schedules one-per-side, mixed, unbalanced,
   tournament and repeated-deal: the share of 95 % intervals that hold the truth, per kind of quantity.
2. `equal`: 8 equal configurations: the share of tournaments that mark any "better than" (and any role effect).
3. `power`: tournaments with a true difference of the size `arena tournament --dry-run` calls detectable at 80 %.
4. `town`: the town rate interval's exact coverage given the games seated (no results drawn), for every row of
   `coverage` whose games are independent: what that table's `town rate` column estimates, without its draw.
5. `metrics`: the interval of a clustered ratio (vote accuracy, a mean Brier score) at 100 to 1,000 games.
6. `real`: the bots tournament's identification and ratings, and where the gain over a sum-of-ratings rater comes
   from (held-out log-loss of each step from that rater to the side-aware model, on self-play games).

    python bench/ratings.py [--sims 1000] [--equal-sims 800] [--power-sims 800] [--metrics-sims 400] [--boot 200]
                            [--jobs 2] [--parts coverage,equal,power,town,metrics,real] [--rows SCHEDULE[:K:GAMES],...]
                            [--seed N]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small matrices: BLAS threads only fight the worker processes

import argparse
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

KS = (2, 4, 8)
SIZES = (100, 300, 1000)
SCHEDULE_NAMES = ("one-per-side", "mixed", "unbalanced", "tournament", "repeated-deal")


SEED = 0  # --seed: another draw of the same table (0: the one docs/ratings.md shows)


def _coverage_cell(args: tuple[str, int, int, int, int, bool]) -> tuple[str, int, int, Any, float]:
    from arena.research.simulate import run, world_for

    schedule, k, games, sims, boot, equal = args
    started = time.perf_counter()
    seed = k * 7919 + games + 1_000_003 * SEED
    tally = run(world_for(k, equal=equal), schedule, k, games, sims, boot=boot, seed=seed)
    return schedule, k, games, tally, time.perf_counter() - started


def coverage(sims: int, boot: int, jobs: int, only: set[str] | None = None) -> None:
    from arena.research.simulate import KINDS

    print(f"== coverage of 95 % intervals: {sims} simulated tournaments per row, {boot} block-bootstrap resamples")
    print("   (pooled share over every printed quantity of the kind; worst single quantity in brackets; '-': the")
    print("   schedule prints no such interval; 'marked': tournaments with any simultaneous 'better than')")
    head = ["schedule", "k", "games", *KINDS, "marked"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    cells = [(s, k, n, sims, boot, False) for s in SCHEDULE_NAMES for k in KS for n in SIZES
             if only is None or f"{s}:{k}:{n}" in only or s in only]
    lowest: dict[str, float] = {}
    with ProcessPoolExecutor(jobs) as pool:
        for schedule, k, games, tally, _ in pool.map(_coverage_cell, cells):
            row = [schedule, str(k), str(games)]
            for kind in KINDS:
                rate = tally.rate(kind)
                if rate != rate:  # NaN: not printed under this schedule
                    row.append("-")
                    continue
                checked = tally.checked[kind]
                if checked < sims // 4:  # printed in only a few tournaments (the rest had a sparse estimate)
                    row.append(f"{rate:.1%} (n = {checked})")
                    continue
                lowest[kind] = min(lowest.get(kind, 1.0), rate)
                worst = tally.worst(kind, minimum=max(20, sims // 4))
                row.append(f"{rate:.1%}" + (f" ({worst:.0%})" if worst == worst and kind != "pairs (joint)" else ""))
            row.append(f"{tally.marked}/{tally.runs}")
            assert tally.unidentified_printed == 0, "a number was printed for an unidentified quantity"
            print("| " + " | ".join(row) + " |", flush=True)
    print("lowest pooled coverage per kind: " + ", ".join(f"{k} {v:.1%}" for k, v in lowest.items()))


def equal(sims: int, jobs: int) -> None:
    # no bootstrap: what this part prints (marks, role and seat effects) rests on the jackknife and on cluster counts
    print(f"== 8 equal configurations (all skills 0; role weights, seat effects and noise as above): {sims} per row")
    print("| schedule | games | any 'better than' | any role effect | any seat effect (seat effects are real) |")
    print("|---|---|---|---|---|")
    cells = [(s, 8, n, sims, 0, True) for s in SCHEDULE_NAMES for n in SIZES]
    with ProcessPoolExecutor(jobs) as pool:
        for schedule, _, games, tally, _ in pool.map(_coverage_cell, cells):
            runs = tally.runs
            print(f"| {schedule} | {games} | {tally.marked}/{runs} = {tally.marked / runs:.1%} | "
                  f"{tally.role_marked}/{runs} = {tally.role_marked / runs:.1%} | "
                  f"{tally.seat_marked}/{runs} = {tally.seat_marked / runs:.1%} |", flush=True)  # fmt: skip


POWER_ROWS = (("one-per-side", 2, 300), ("one-per-side", 4, 1000), ("mixed", 2, 1000), ("unbalanced", 4, 1000),
              ("tournament", 2, 1000), ("repeated-deal", 2, 300))  # fmt: skip


def _power_cell(args: tuple[str, int, int, int, str]) -> tuple[str, int, int, str, float, str, int, int]:
    import numpy as np

    from arena.research.power import power, seatings_to_matches
    from arena.research.simulate import SCHEDULES, power_run

    schedule, k, games, sims, scale = args
    labels = [f"c{i}" for i in range(k)]
    seatings = SCHEDULES[schedule](labels, games, np.random.default_rng(0))
    p = power(seatings_to_matches([(s.configs, s.roles) for s in seatings], "sim"), labels)
    d = next(x for x in p.detectable if x.kind == ("combined" if schedule == "tournament" else "town"))
    # c0 and c1 are the pool's rarest pair under `unbalanced`: the dry run's figure for the least-measured pair
    size = d.worst if schedule == "unbalanced" else d.difference
    hits, runs = power_run(schedule, k, games, sims, d.kind, size, seed=games + k + 7 * SEED, scale=scale,
                           seatings=seatings)  # the schedule the dry run assessed, every outcome drawn afresh
    return schedule, k, games, d.kind + (" (least-measured pair)" if schedule == "unbalanced" else ""), size, scale, \
        hits, runs


def power_check(sims: int, jobs: int, only: set[str] | None = None) -> None:
    print(f"== power: c0 better than the rest by the dry run's 80 % difference; share of {sims} tournaments that "
          "mark c0 better than c1 (± its Monte Carlo standard error)")  # fmt: skip
    print("   (report scale: the report's logits differ by it, what the dry run is about; world scale: the world's")
    print("   own skills do, which the report shows about 7 % smaller)")
    print("| schedule | k | games | quantity | detectable difference | marked (report scale) | marked (world scale) |")
    print("|---|---|---|---|---|---|---|")
    cells = [(s, k, n, sims, scale) for s, k, n in POWER_ROWS for scale in ("report", "world")
             if only is None or f"{s}:{k}:{n}" in only or s in only]
    with ProcessPoolExecutor(jobs) as pool:
        done = list(pool.map(_power_cell, cells))
    for row in range(0, len(done), 2):
        schedule, k, games, kind, diff, _, _, _ = done[row]
        shares = []
        for *_, hits, runs in done[row : row + 2]:
            share = hits / runs
            shares.append(f"{hits}/{runs} = {share:.1%} ± {(share * (1 - share) / runs) ** 0.5:.1%}")
        print(f"| {schedule} | {k} | {games} | {kind} | {diff:.2f} | {' | '.join(shares)} |", flush=True)


def metrics(sims: int) -> None:
    from arena.research.simulate import metric_run

    print(f"== clustered rate intervals (the report's metrics): coverage over {sims} simulations")
    print("| rate | deals | 100 games | 300 games | 1000 games |")
    print("|---|---|---|---|---|")
    for kind, label in (("proportion", "a proportion (vote accuracy)"), ("mean", "a mean score (Brier)")):
        for replays in (1, 4):
            cells = []
            for n in SIZES:
                hit, runs = metric_run(n, sims, replays=replays, kind=kind, seed=n + replays)
                cells.append(f"{hit / runs:.1%}")
            print(f"| {label} | {'each game its own' if replays == 1 else 'replayed 4 times'} | {' | '.join(cells)} |")


def _town_exact_cell(args: tuple[str, int, int, int]) -> tuple[str, int, int, float]:
    from arena.research.simulate import town_rate_coverage, world_for

    schedule, k, games, schedules = args
    return schedule, k, games, town_rate_coverage(world_for(k), schedule, k, games, schedules, seed=k + games)


def town_exact(schedules: int, jobs: int) -> None:
    print(f"== the town rate interval's exact coverage given the games seated (Poisson-binomial, {schedules} schedule")
    print("   draws a cell): what the coverage table's `town rate` column estimates, without its Monte Carlo error")
    print("| schedule | k | 100 games | 300 games | 1000 games |")
    print("|---|---|---|---|---|")
    cells = [(s, k, n, schedules) for s in SCHEDULE_NAMES if s != "repeated-deal" for k in KS for n in SIZES]
    with ProcessPoolExecutor(jobs) as pool:
        done = list(pool.map(_town_exact_cell, cells))
    for row in range(0, len(done), len(SIZES)):
        schedule, k, _, _ = done[row]
        print(f"| {schedule} | {k} | " + " | ".join(f"{c[3]:.1%}" for c in done[row : row + len(SIZES)]) + " |")


def real(boot: int, games: int) -> None:
    from arena.research.corpus import load_folder
    from arena.research.identify import summary
    from arena.research.ratings import VARIANTS, fit, held_out
    from arena.research.records import from_games, matches
    from arena.research.selfplay import play_balanced

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "bots"
        _play_bots_tournament(folder)
        records = from_games(load_folder(folder).games)
        f = fit(matches(records), boot=boot, seed=1)
        print("== examples/tournament-bots.toml (200 games, tournament seating):")
        for line in summary(f.identification):
            print("   " + line)
        for (config, kind), e in sorted(f.estimates.items()):
            iv = e.interval
            print(f"   {config:10s} {kind:8s} {iv.value:+.2f} [{iv.low:+.2f}, {iv.high:+.2f}]")
        started = time.perf_counter()
        selfplay = Path(tmp) / "selfplay"
        play_balanced(selfplay, games)
        records = from_games(load_folder(selfplay).games)
        print(f"== {len(records)} self-play games (heuristic against random, each deal played 4 times; "
              f"{time.perf_counter() - started:.0f} s): held-out log-loss, 10-fold over deals")  # fmt: skip
        h = held_out(matches(records), folds=10)
        print("| model | held-out log-loss |")
        print("|---|---|")
        for v in VARIANTS:
            print(f"| {v.name} | {h.losses[v.name]:.4f} |")
        print(f"| constant base rate | {h.base_rate:.4f} |")


def _play_bots_tournament(folder: Path) -> None:
    from typer.testing import CliRunner

    from arena.cli import app

    root = Path(__file__).resolve().parents[1]
    result = CliRunner().invoke(app, ["tournament", str(root / "examples" / "tournament-bots.toml"), "--out",
                                      str(folder), "--no-progress", "--jobs", "2"])  # fmt: skip
    if result.exit_code != 0:
        raise SystemExit(result.output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000, help="tournaments per row of `coverage`")
    parser.add_argument("--equal-sims", type=int, default=800, help="tournaments per row of `equal`")
    parser.add_argument("--power-sims", type=int, default=800, help="tournaments per row of `power`")
    parser.add_argument("--metrics-sims", type=int, default=400, help="simulations per cell of `metrics`")
    parser.add_argument("--town-schedules", type=int, default=100, help="schedule draws per cell of `town`")
    parser.add_argument("--boot", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--parts", default="coverage,equal,power,town,metrics,real")
    parser.add_argument("--seed", type=int, default=0, help="another draw of the simulations (0: the documented one)")
    parser.add_argument("--rows", default="", help="coverage/power rows: SCHEDULE or SCHEDULE:K:GAMES, comma-separated")
    parser.add_argument("--selfplay", type=int, default=1000, help="self-play games for the held-out comparison")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    global SEED
    SEED = args.seed
    started = time.perf_counter()
    if "coverage" in parts:
        coverage(args.sims, args.boot, args.jobs, set(args.rows.split(",")) if args.rows else None)
    if "equal" in parts:
        equal(args.equal_sims, args.jobs)
    if "power" in parts:
        power_check(args.power_sims, args.jobs, set(args.rows.split(",")) if args.rows else None)
    if "town" in parts:
        town_exact(args.town_schedules, args.jobs)
    if "metrics" in parts:
        metrics(args.metrics_sims)
    if "real" in parts:
        real(args.boot, args.selfplay)
    print(f"(all parts: {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
