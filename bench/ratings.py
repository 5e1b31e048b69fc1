"""Validate the report's statistics in simulation and on real bot games; print the figures docs/ratings.md quotes.

The simulations draw games from `arena/research/simulate.py`'s World, a process the ratings model does not assume
(role weights sheriff ×3 and don ×2, seat-position effects, deal and game noise, draws), seat them under seven
schedules, report on them with the report's own code, and check every interval it prints against the truth.

1. `coverage`: 2, 4 and 8 configurations, 100, 300 and 1,000 games, schedules one-per-side, mixed, unbalanced,
   lopsided, tournament, tournament+sides and repeated-deal: the share of 95 % intervals that hold the truth, per
   kind of quantity, and the share of tournaments whose roles diagnostic says skills differ by role (none do).
2. `equal`: 8 equal configurations: the share of tournaments that mark any "better than" (and any role effect).
3. `cells`: the issue-32 cells: role leverage, the pool's order swapped, bots-sized gaps, a weak filler, three
   identical configurations beside a strong one.
4. `power`: tournaments with a true difference of the size `arena tournament --dry-run` calls detectable at 80 %,
   for 2, 4 and 8 configurations.
5. `town`: the town rate interval's exact coverage given the games seated (no results drawn), for every row of
   `coverage` whose games are independent: what that table's `town rate` column estimates, without its draw.
6. `metrics`: the interval of a clustered ratio (vote accuracy, a mean Brier score) at 100 to 1,000 games.
7. `bots`: the shipped example (`examples/tournament-bots.toml`) at 8 seeds in both orders of its [[pool]], under
   the default schedule and `seats`: every printed difference, its marks, and the paired order effects.
8. `real`: the bots tournament's ratings beside the prior's alternatives, and where the gain over a
   sum-of-ratings rater comes from (held-out log-loss of each step from that rater to the side-aware model).

    python bench/ratings.py [--sims 1000] [--equal-sims 800] [--cell-sims 500] [--power-sims 800]
                            [--metrics-sims 400] [--boot 200] [--jobs 2]
                            [--parts coverage,equal,cells,power,town,metrics,bots,real]
                            [--rows SCHEDULE[:K:GAMES],...] [--seed N]
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
SCHEDULE_NAMES = ("one-per-side", "mixed", "unbalanced", "lopsided", "tournament", "tournament+sides",
                  "repeated-deal")


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
    print("   schedule prints no such interval; 'marked': tournaments with any simultaneous 'better than';")
    print("   'role flag': tournaments saying skills differ by role, which they do not in this world)")
    head = ["schedule", "k", "games", *KINDS, "marked", "role flag"]
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
            row.append(f"{tally.role_marked}/{tally.runs}")
            assert tally.unidentified_printed == 0, "a number was printed for an unidentified quantity"
            print("| " + " | ".join(row) + " |", flush=True)
    print("lowest pooled coverage per kind: " + ", ".join(f"{k} {v:.1%}" for k, v in lowest.items()))


def equal(sims: int, jobs: int, only: set[str] | None = None) -> None:
    # no bootstrap: what this part prints (marks, role and seat effects) rests on the jackknife and on cluster counts
    print(f"== 8 equal configurations (all skills 0; role weights, seat effects and noise as above): {sims} per row")
    print("| schedule | games | any 'better than' | any role effect | any seat effect (seat effects are real) |")
    print("|---|---|---|---|---|")
    cells = [(s, 8, n, sims, 0, True) for s in SCHEDULE_NAMES for n in SIZES
             if only is None or f"{s}:8:{n}" in only or s in only]
    with ProcessPoolExecutor(jobs) as pool:
        for schedule, _, games, tally, _ in pool.map(_coverage_cell, cells):
            runs = tally.runs
            print(f"| {schedule} | {games} | {tally.marked}/{runs} = {tally.marked / runs:.1%} | "
                  f"{tally.role_marked}/{runs} = {tally.role_marked / runs:.1%} | "
                  f"{tally.seat_marked}/{runs} = {tally.seat_marked / runs:.1%} |", flush=True)  # fmt: skip


# The issue-32 cells: (label, schedule, k, games, world options); `reverse` plays the pool the other way round
CELLS: tuple[tuple[str, str, int, int, dict[str, Any]], ...] = (
    ("role leverage ×5/×3", "tournament", 4, 300, {"role_weight": {"sheriff": 5.0, "don": 3.0}}),
    ("role leverage ×5/×3", "one-per-side", 4, 300, {"role_weight": {"sheriff": 5.0, "don": 3.0}}),
    ("weak filler (−0.5)", "tournament", 4, 300, {"filler": -0.5}),
    ("bots-sized gap", "tournament", 2, 200, {"gap": "BOTS"}),
    ("bots-sized gap", "one-per-side", 2, 200, {"gap": "BOTS"}),
    ("issue 18's seats gap", "tournament", 2, 200, {"gap": "BOTS_ISSUE_18"}),
    ("3 identical beside a strong one", "tournament", 4, 300, {"gap": "STRONG"}),
    ("3 identical beside a strong one", "one-per-side", 4, 300, {"gap": "STRONG"}),
    ("3 identical beside a strong one", "tournament+sides", 4, 300, {"gap": "STRONG"}),
    ("3 identical beside a strong one", "lopsided", 4, 300, {"gap": "STRONG"}),
    ("3 identical beside a strong one", "mixed", 4, 300, {"gap": "STRONG"}),
)
SWAPS = (("tournament", 2, 200, "STRONG"), ("tournament", 4, 300, "STRONG"), ("one-per-side", 4, 300, "STRONG"))


def _world(k: int, options: dict[str, Any]) -> Any:
    import arena.research.simulate as sim

    opts = dict(options)
    if isinstance(opts.get("gap"), str):
        opts["gap"] = getattr(sim, opts["gap"])
    return sim.world_for(k, **opts)


def _cell(args: tuple[str, str, int, int, dict[str, Any], int, int, bool]) -> tuple[str, str, int, int, Any]:
    from arena.research.simulate import run

    label, schedule, k, games, options, sims, boot, reverse = args
    seed = 31 * k + games + (17 if reverse else 0) + 1_000_003 * SEED
    return label, schedule, k, games, run(_world(k, options), schedule, k, games, sims, boot=boot, seed=seed,
                                          reverse=reverse)  # fmt: skip


def cells(sims: int, boot: int, jobs: int, only: set[str] | None = None) -> None:
    print(f"== the issue-32 cells: {sims} simulated tournaments each, {boot} block-bootstrap resamples ('false marks':")
    print("   tournaments marking a difference between two configurations the world makes equal, of those judging one;")
    print("   'role flag': tournaments saying skills differ by role, which they do not in these worlds)")
    print("| cell | schedule | k | games | skill | combined skill | pairs (joint) | false marks | role flag | "
          "c0 − c1 (mean estimate) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    work = [(label, s, k, n, o, sims, boot, False) for label, s, k, n, o in CELLS
            if only is None or label in only or f"{s}:{k}:{n}" in only]  # fmt: skip
    with ProcessPoolExecutor(jobs) as pool:
        for label, schedule, k, games, t in pool.map(_cell, work):
            share = "-"
            if t.equal_pairs:
                share = f"{t.false_marked}/{t.equal_pairs} = {t.false_marked / t.equal_pairs:.1%}"
            gap = "-"
            key = next((key for key in t.differences if key.endswith(":c0-c1")), None)
            if key is not None:
                gap = f"{sum(t.differences[key]) / len(t.differences[key]):+.2f}"
            print(f"| {label} | {schedule} | {k} | {games} | {t.rate('skill'):.1%} | "
                  f"{t.rate_of('skill', ':combined'):.1%} | {t.rate('pairs (joint)'):.1%} "
                  f"({t.checked.get('pairs (joint)', 0)}) | {share} | {t.role_marked}/{t.runs} | {gap} |",
                  flush=True)  # fmt: skip
    print(f"== the pool's order swapped (role leverage ×3/×2, c0 strong): {sims} tournaments in each order; every")
    print("   printed difference's mean estimate in each order and their gap in Monte Carlo standard errors")
    print("| schedule | k | games | difference | file order | swapped | gap / its standard error |")
    print("|---|---|---|---|---|---|---|")
    work = [(f"{s}:{k}:{n}", s, k, n, {"gap": g}, sims, 0, reverse) for s, k, n, g in SWAPS
            for reverse in (False, True) if only is None or "swap" in only]  # fmt: skip
    with ProcessPoolExecutor(jobs) as pool:
        done = list(pool.map(_cell, work))
    for one, two in zip(done[::2], done[1::2], strict=True):
        _, schedule, k, games, a = one
        b = two[4]
        for key in sorted(a.differences):
            x, y = a.differences[key], b.differences.get(key, [])
            if len(x) < 2 or len(y) < 2:
                continue
            mx, my = sum(x) / len(x), sum(y) / len(y)
            vx = sum((v - mx) ** 2 for v in x) / (len(x) - 1)
            vy = sum((v - my) ** 2 for v in y) / (len(y) - 1)
            z = (mx - my) / (vx / len(x) + vy / len(y)) ** 0.5
            print(f"| {schedule} | {k} | {games} | {key} | {mx:+.3f} | {my:+.3f} | {z:+.2f} |", flush=True)


POWER_ROWS = (("one-per-side", 2, 300), ("one-per-side", 4, 1000), ("one-per-side", 8, 1000), ("mixed", 2, 1000),
              ("unbalanced", 4, 1000), ("tournament", 2, 1000), ("tournament", 4, 1000), ("tournament", 8, 1000),
              ("tournament", 2, 200), ("repeated-deal", 2, 300))  # fmt: skip


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


def power_check(sims: int, jobs: int, only: set[str] | None = None, scales: tuple[str, ...] = ("report",)) -> None:
    print(f"== power: c0 better than the rest by the dry run's 80 % difference; share of {sims} tournaments that "
          "mark c0 better than c1 (± its Monte Carlo standard error)")  # fmt: skip
    print("   (report scale: the report's logits differ by it, what the dry run is about; world scale: the world's")
    print("   own skills do, which the report shows about 7 % smaller)")
    head = ["schedule", "k", "games", "quantity", "detectable difference", *(f"marked ({s} scale)" for s in scales)]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    cells = [(s, k, n, sims, scale) for s, k, n in POWER_ROWS for scale in scales
             if only is None or f"{s}:{k}:{n}" in only or s in only]
    with ProcessPoolExecutor(jobs) as pool:
        done = list(pool.map(_power_cell, cells))
    for row in range(0, len(done), len(scales)):
        schedule, k, games, kind, diff, _, _, _ = done[row]
        shares = []
        for *_, hits, runs in done[row : row + len(scales)]:
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


def _play_example(folder: Path, schedule: str | None = None, seed: int = 1, swapped: bool = False) -> Path:
    """The shipped example, at another seed, schedule or order of its [[pool]], played into `folder`."""
    from typer.testing import CliRunner

    from arena.cli import app

    root = Path(__file__).resolve().parents[1]
    text = (root / "examples" / "tournament-bots.toml").read_text(encoding="utf-8")
    text = text.replace("seed = 1\n", f"seed = {seed}\n")
    if schedule is not None:
        text = "\n".join(line for line in text.splitlines() if not line.startswith("schedule ="))
        text = text.replace('name = "bots"', f'name = "bots"\nschedule = "{schedule}"')
    if swapped:
        head, first, second = text.split("[[pool]]")
        text = head + "[[pool]]" + second.rstrip() + "\n\n[[pool]]" + first.rstrip() + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    spec = folder / "tournament.toml.in"
    spec.write_text(text, encoding="utf-8")
    out = folder / "games"
    result = CliRunner().invoke(app, ["tournament", str(spec), "--out", str(out), "--no-progress", "--jobs", "4",
                                      "--processes", "0"])  # fmt: skip
    if result.exit_code != 0:
        raise SystemExit(result.output)
    return out


def _bots_cell(args: tuple[str, int, bool]) -> tuple[str, int, bool, list[tuple[str, str, str, float, str | None]]]:
    from arena.research.corpus import load_folder
    from arena.research.ratings import fit
    from arena.research.records import from_games, matches

    schedule, seed, swapped = args
    with tempfile.TemporaryDirectory() as tmp:
        out = _play_example(Path(tmp), schedule, seed, swapped)
        f = fit(matches(from_games(load_folder(out).games)), boot=0)
    rows = []
    for c in f.comparisons:
        a, b, sign = (c.a, c.b, 1.0) if c.a < c.b else (c.b, c.a, -1.0)
        rows.append((c.kind, a, b, sign * c.interval.value, c.better))
    return schedule, seed, swapped, rows


def bots(seeds: int, jobs: int) -> None:
    """The shipped example at `seeds` seeds, in both orders of its [[pool]], under `sides` and `seats`."""
    print(f"== examples/tournament-bots.toml at seeds 1-{seeds}, its [[pool]] in the file's order and swapped: every")
    print("   printed difference (a − b, names in alphabetical order), its mean over the seeds in each order, the")
    print("   paired order effect with its standard error, and how often it was marked (and for whom)")
    print("| schedule | difference | file order | swapped | order effect (paired) | marked |")
    print("|---|---|---|---|---|---|")
    work = [(schedule, seed, swapped) for schedule in ("sides", "seats") for seed in range(1, seeds + 1)
            for swapped in (False, True)]  # fmt: skip
    with ProcessPoolExecutor(jobs) as pool:
        done = list(pool.map(_bots_cell, work))
    for schedule in ("sides", "seats"):
        table: dict[tuple[str, str, str], dict[bool, dict[int, tuple[float, str | None]]]] = {}
        for sched, seed, swapped, rows in done:
            if sched != schedule:
                continue
            for kind, a, b, value, better in rows:
                table.setdefault((kind, a, b), {False: {}, True: {}})[swapped][seed] = (value, better)
        for (kind, a, b), by_order in sorted(table.items()):
            plain = [by_order[False][s][0] for s in sorted(by_order[False])]
            swapped_ = [by_order[True][s][0] for s in sorted(by_order[True])]
            paired = [x - y for x, y in zip(plain, swapped_, strict=True)]
            mean = sum(paired) / len(paired)
            se = (sum((d - mean) ** 2 for d in paired) / (len(paired) - 1) / len(paired)) ** 0.5
            marks: dict[str, int] = {}
            for order in by_order.values():
                for _, better in order.values():
                    if better:
                        marks[better] = marks.get(better, 0) + 1
            shown = ", ".join(f"{who} better {n}/{2 * seeds}" for who, n in sorted(marks.items())) or f"0/{2 * seeds}"
            print(f"| {schedule} | {kind}: {a} − {b} | {sum(plain) / len(plain):+.2f} | "
                  f"{sum(swapped_) / len(swapped_):+.2f} | {mean:+.2f} ± {se:.2f} | {shown} |", flush=True)
        heuristic = [seed for sched, seed, swapped, rows in done if sched == schedule and not swapped
                     and any(b == "random" and a == "heuristic" and better == "heuristic" and kind == "combined"
                             for kind, a, b, _, better in rows)]  # fmt: skip
        print(f"   {schedule}: heuristic marked better than random (combined) at seeds {sorted(heuristic)}")


def real(boot: int, games: int) -> None:
    import numpy as np

    from arena.research.corpus import load_folder
    from arena.research.identify import summary
    from arena.research.ratings import VARIANTS, fit, fit_theta, held_out
    from arena.research.records import from_games, matches
    from arena.research.selfplay import play_balanced

    with tempfile.TemporaryDirectory() as tmp:
        for schedule in ("sides", "seats"):
            out = _play_example(Path(tmp) / schedule, schedule)
            records = from_games(load_folder(out).games)
            f = fit(matches(records), boot=boot, seed=1)
            d = f.design
            print(f"== examples/tournament-bots.toml (200 games, schedule = {schedule!r}):")
            for line in summary(f.identification):
                print("   " + line)
            priors: list[tuple[str, dict[str, Any]]] = [
                ("Firth + N(0, 10²) (the report)", {}),
                ("none (maximum likelihood)", {"firth": False, "prior_sd": np.full(d.columns, 1e4)}),
                ("N(0, 10²)", {"firth": False, "prior_sd": np.full(d.columns, 10.0)}),
                ("N(0, 3²) (issue 18)", {"firth": False, "prior_sd": np.full(d.columns, 3.0)}),
                ("N(0, 1²)", {"firth": False, "prior_sd": np.full(d.columns, 1.0)}),
            ]
            keys = sorted(f.estimates)
            print("| prior | " + " | ".join(f"{c} {k}" for c, k in keys) + " |")
            print("|---|" + "---|" * len(keys))
            for name, options in priors:
                theta = fit_theta(d, **options)
                print(f"| {name} | " + " | ".join(f"{float(f.estimates[key].quantity.coef @ theta):+.2f}"
                                                  for key in keys) + " |")  # fmt: skip
            print("| the report's 95 % interval | " + " | ".join(
                f"[{f.estimates[key].interval.low:+.2f}, {f.estimates[key].interval.high:+.2f}]" for key in keys)
                + " |")  # fmt: skip
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000, help="tournaments per row of `coverage`")
    parser.add_argument("--equal-sims", type=int, default=800, help="tournaments per row of `equal`")
    parser.add_argument("--cell-sims", type=int, default=500, help="tournaments per cell of `cells`")
    parser.add_argument("--power-sims", type=int, default=800, help="tournaments per row of `power`")
    parser.add_argument("--world-scale", action="store_true", help="`power` on the world's scale too")
    parser.add_argument("--metrics-sims", type=int, default=400, help="simulations per cell of `metrics`")
    parser.add_argument("--town-schedules", type=int, default=100, help="schedule draws per cell of `town`")
    parser.add_argument("--bots-seeds", type=int, default=8, help="seeds of the shipped example in `bots`")
    parser.add_argument("--boot", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--parts", default="coverage,equal,cells,power,town,metrics,bots,real")
    parser.add_argument("--seed", type=int, default=0, help="another draw of the simulations (0: the documented one)")
    parser.add_argument("--rows", default="",
                        help="coverage/equal/power rows: SCHEDULE or SCHEDULE:K:GAMES, comma-separated")  # fmt: skip
    parser.add_argument("--selfplay", type=int, default=1000, help="self-play games for the held-out comparison")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    only = set(args.rows.split(",")) if args.rows else None
    global SEED
    SEED = args.seed
    started = time.perf_counter()
    if "coverage" in parts:
        coverage(args.sims, args.boot, args.jobs, only)
    if "equal" in parts:
        equal(args.equal_sims, args.jobs, only)
    if "cells" in parts:
        cells(args.cell_sims, args.boot, args.jobs, only)
    if "power" in parts:
        power_check(args.power_sims, args.jobs, only, ("report", "world") if args.world_scale else ("report",))
    if "town" in parts:
        town_exact(args.town_schedules, args.jobs)
    if "metrics" in parts:
        metrics(args.metrics_sims)
    if "bots" in parts:
        bots(args.bots_seeds, args.jobs)
    if "real" in parts:
        real(args.boot, args.selfplay)
    print(f"(all parts: {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
