"""Placement coverage on a frozen field, in simulation: the table of docs/reference.md.

For an entrant below, inside and above the field (the world's members are reference-v1's frozen ratings, misspecified
as `arena/research/simulate.py`'s world is: role weights, seat effects, deal and game noise, draws), the share of
simulated placements whose 95 % interval for the combined skill covers the truth (`arena/field/simulate.py`):

- at fixed games (20, 50, 100 and 200 deals: 40 to 400 games);
- stopping at a width W: Stein's two-stage procedure (`--until-width`: a pilot of 20 deals, at most 400), and beside
  it the naive rule, which stops after the first deal whose fixed-games interval is at most W wide, with the
  placement's standard error (floored at the model's) and with the plain jackknife.

    python bench/reference.py                        # 1000 placements a row (naive rules: 400), 2 processes
    python bench/reference.py --sims 200 --naive-sims 100 --jobs 2
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena.field import simulate as sim
from arena.field.definition import load_field
from arena.field.place import Frozen

POSITIONS = ("below", "inside", "above")
FIXED = (20, 50, 100, 200)  # deals
WIDTHS = (1.0, 0.7)
PILOT, CAP = 20, 400
CALIBRATION = 2500


@dataclass(frozen=True)
class Cell:
    position: str
    design: str  # fixed:D | stein:W | naive:W | jackknife:W
    sims: int
    seed: int
    field: str = "reference-v1"


def _field(name: str) -> tuple[Frozen, list[str]]:
    field = load_field(name)
    members = field.labels
    return Frozen(field.file.ratings.h, {m.label: m.town for m in field.members},
                  {m.label: m.mafia for m in field.members}), members  # fmt: skip


def run_cell(cell: Cell) -> tuple[Cell, dict[str, float]]:
    base, members = _field(cell.field)
    rng = np.random.default_rng([cell.seed, POSITIONS.index(cell.position), zlib.crc32(cell.design.encode())])
    world = sim.world_for(base, members, sim.entrants(base, members)[cell.position])
    frozen = sim.calibrate(world, members, CALIBRATION, np.random.default_rng([cell.seed, 1]))
    _, _, target = sim.truth(world, frozen, members, np.random.default_rng([cell.seed, 2]))
    kind, _, value = cell.design.partition(":")
    covered, deals, widths, capped = 0, [], [], 0
    for _ in range(cell.sims):
        p = sim.Placement(world, members, rng)
        if kind == "fixed":
            r = sim.fixed(p, frozen, int(value))
        elif kind == "stein":
            r = sim.stein(p, frozen, float(value), PILOT, CAP)
        else:
            r = sim.naive(p, frozen, float(value), PILOT, CAP, floor=kind == "naive")
        covered += r.estimate.covers(target)
        deals.append(r.deals)
        widths.append(r.estimate.width)
        capped += r.capped
    return cell, {"covered": covered, "sims": cell.sims, "games": 2 * float(np.mean(deals)),
                  "width": float(np.mean(widths)), "capped": capped, "target": target}  # fmt: skip


def cells(sims: int, naive_sims: int, seed: int, field: str) -> list[Cell]:
    out = []
    for position in POSITIONS:
        out += [Cell(position, f"fixed:{d}", sims, seed, field) for d in FIXED]
        for w in WIDTHS:
            out += [Cell(position, f"stein:{w}", sims, seed, field)]
            out += [Cell(position, f"{rule}:{w}", naive_sims, seed, field) for rule in ("naive", "jackknife")]
    return out


NAMES = {
    "fixed": "fixed games",
    "stein": "until width W: Stein's two stages (--until-width)",
    "naive": "until width W: naive, the placement's se",
    "jackknife": "until width W: naive, plain jackknife",
}


def table(results: Sequence[tuple[Cell, dict[str, float]]]) -> str:
    lines = ["| entrant | rule | W | games (mean) | covered | mean width | capped |", "|---|---|---|---|---|---|---|"]
    for cell, r in results:
        kind, _, value = cell.design.partition(":")
        w = value if kind != "fixed" else "-"
        share = r["covered"] / r["sims"]
        lines.append(f"| {cell.position} ({r['target']:+.2f}) | {NAMES[kind]} | {w} | {r['games']:.0f} | "
                     f"{int(r['covered'])}/{int(r['sims'])} = {share:.1%} | {r['width']:.2f} | {int(r['capped'])} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000, help="placements per row (fixed games and Stein)")
    parser.add_argument("--naive-sims", type=int, default=400, help="placements per row of the naive rules")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--field", default="reference-v1", help="the field whose frozen ratings are the world's")
    args = parser.parse_args()
    todo = cells(args.sims, args.naive_sims, args.seed, args.field)
    started = time.time()
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        done = pool.map(run_cell, todo, chunksize=1)
    order = {c: i for i, c in enumerate(todo)}
    done.sort(key=lambda item: order[item[0]])
    print(table(done))
    print(f"\n{len(todo)} rows in {time.time() - started:.0f} s (--sims {args.sims} --naive-sims {args.naive_sims} "
          f"--seed {args.seed}; the entrant's true combined skill on the frozen scale in brackets)")  # fmt: skip


if __name__ == "__main__":
    main()
