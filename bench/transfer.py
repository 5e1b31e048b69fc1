"""Do the transfer intervals hold? Kendall's τ and the side-term shift between two presets, in simulation.

Two halves of a folder play the same configurations on the same seatings and deals (paired) under two worlds of
`arena/research/simulate.py` (role weights, seat effects, deal and game noise, draws: a process the ratings model
does not assume): B's skills are A's, A's with one adjacent pair swapped, A's with noise, or A's reversed, and B's
side term is A's + 0.3. Each simulated folder is reported on with `arena/research/transfer.py`, and its intervals
are checked against the truth: τ between the two halves' pseudo-true combined skills (what the model estimates
under the process: the fit to every game's true win chance), and the difference of their pseudo-true side terms.

    /work/bin/heavy python bench/transfer.py [--sims 200] [--boot 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import replace


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--boot", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", default="", help="comma-separated row names (default: all)")
    args = parser.parse_args(argv)

    import numpy as np

    from arena.research.simulate import SCHEDULES, World, draw, world_for
    from arena.research.transfer import _kendall, rate_half, transfer

    def variant(world: World, how: str, k: int, rng: np.random.Generator) -> World:
        labels = [f"c{i}" for i in range(k)]
        town, mafia = dict(world.town), dict(world.mafia)
        if how == "swap":  # the two middle configurations trade places on both sides
            order = sorted(labels, key=lambda c: town[c] + mafia[c])
            a, b = order[k // 2 - 1], order[k // 2]
            town[a], town[b], mafia[a], mafia[b] = town[b], town[a], mafia[b], mafia[a]
        elif how == "noise":
            for c in labels:
                town[c] += float(rng.normal(0, 0.4))
                mafia[c] += float(rng.normal(0, 0.4))
        elif how == "reversed":
            for c in labels:
                town[c], mafia[c] = -world.town[c], -world.mafia[c]
        return replace(world, h=world.h + 0.3, town=town, mafia=mafia)

    rows = [(schedule, k, games, how) for schedule in ("repeated-deal", "one-per-side") for k, games in
            ((4, 200), (4, 600), (6, 600)) for how in ("same", "swap", "noise", "reversed")]  # fmt: skip
    wanted = {r for r in args.rows.split(",") if r}
    print(f"== transfer: {args.sims} simulated two-preset folders per row, {args.boot} block-bootstrap resamples")
    print("| schedule | configurations | games per preset | B's skills | mean true τ | τ coverage | mean τ interval |"
          " shift coverage | reported |")
    print("|---|---|---|---|---|---|---|---|---|")
    for schedule, k, games, how in rows:
        name = f"{schedule}:{k}:{games}:{how}"
        if wanted and name not in wanted:
            continue
        started = time.perf_counter()
        rng = np.random.default_rng(args.seed * 7919 + hash(name) % 100_003)
        labels = [f"c{i}" for i in range(k)]
        a_world = world_for(k)
        tau_ok = shift_ok = reported = 0
        taus: list[float] = []
        widths: list[tuple[float, float]] = []
        for _ in range(args.sims):
            b_world = variant(a_world, how, k, rng)
            seatings = SCHEDULES[schedule](labels, games, rng)
            drawn = [draw(w, seatings, rng) for w in (a_world, b_world)]
            records = [r for d in drawn for r in d.records]
            groups = ["a"] * games + ["b"] * games
            t = transfer(records, groups, by="rules", boot=args.boot, seed=int(rng.integers(1 << 30)))
            if t is None:
                continue
            reported += 1
            truth = {}
            for half_name, d in zip(("a", "b"), drawn, strict=True):
                index = [i for i, r in enumerate(d.records) if r.two_sided]
                half = rate_half(half_name, [d.records[i] for i in index], index)
                assert half is not None
                p = np.asarray([d.p_town[i] / (1 - w.draw) for i in index for w in (a_world,)])
                from arena.research.ratings import penalised_fit

                flat = np.full(half.x.shape[1], 1e4)
                theta = np.asarray(penalised_fit(half.x, p, np.ones((1, len(p))), flat, half.theta)[0])
                truth[half_name] = ({c: float(half.combined[c].coef @ theta) for c in t.configs},
                                    float(half.side.coef @ theta) if half.side is not None else math.nan)
            true_tau = _kendall([truth["a"][0][c] for c in t.configs], [truth["b"][0][c] for c in t.configs])
            taus.append(true_tau)
            widths.append((t.tau.low, t.tau.high))
            tau_ok += t.tau.low - 1e-12 <= true_tau <= t.tau.high + 1e-12
            true_shift = truth["a"][1] - truth["b"][1]
            shift_ok += t.shift.low <= true_shift <= t.shift.high
        span = f"[{np.mean([w[0] for w in widths]):+.2f}, {np.mean([w[1] for w in widths]):+.2f}]"
        print(f"| {schedule} | {k} | {games} | {how} | {np.mean(taus):+.2f} | {tau_ok / max(reported, 1):.3f} | "
              f"{span} | {shift_ok / max(reported, 1):.3f} | {reported} |  ({time.perf_counter() - started:.0f} s)",
              flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
