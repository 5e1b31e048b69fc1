"""Do `arena persuasion`'s intervals hold? Every speech of a folder of scripted games measured, then samples drawn.

Plays `--games` games of the planted persuader family (`arena/research/planted.py`: a speaker whose sheriff claims
the heuristic bots follow, one who only says it suspects the same seat, heuristic bots around them, probes on),
measures the causal effect of EVERY speech on every listener (the bots are re-asked: no model, no cost), and takes
the mean effect of each speaker configuration over all of them as the truth. Then it draws `--draws` samples of
`--sample` speeches as `arena persuasion --sample N` does (spread over the speakers' configurations, seeded) and
counts how often each printed 95 % interval holds the truth, per configuration and effect, and how often the
planted persuasive speaker ranks first with an interval above zero.

    /work/bin/heavy python bench/persuasion.py [--games 120] [--sample 60] [--draws 500] [--folder DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import pickle
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--sample", default="60,120", help="speeches per sample; several: comma-separated")
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--folder", type=Path, default=None, help="keep the games here (reused when present)")
    args = parser.parse_args(argv)

    from arena.players.factory import build_player
    from arena.research.persuasion import BotAsker, Item, load_items, run, summarise
    from arena.research.planted import play

    folder = args.folder or Path(tempfile.mkdtemp(prefix="persuasion-"))
    have = len(list(folder.glob("*.jsonl"))) if folder.is_dir() else 0
    started = time.perf_counter()
    if have < args.games:
        play("persuader", args.games - have, folder, first_seed=have + 1)
    items = load_items(folder)

    def bots(item: Item, seat: int) -> BotAsker:
        t = item.game.transcript
        spec = next(e.agent for e in t.header.seats if e.seat == seat)
        return BotAsker(lambda s: build_player(spec, s, seed=t.header.seed, rules=t.rules, lang=t.header.lang))

    cache = folder / "effects.pickle"  # every pair's effect, kept beside the games (re-measured if they change)
    stamp = sorted(p.name for p in folder.glob("*.jsonl"))
    kept = pickle.loads(cache.read_bytes()) if cache.is_file() else None
    if kept is not None and kept[0] == stamp:
        effects = kept[1]
    else:
        effects = asyncio.run(run(items, bots)).effects
        cache.write_bytes(pickle.dumps((stamp, effects)))
    print(f"{len(items)} speeches of {args.games} games, {len(effects)} (speech, listener, decision) pairs "
          f"measured in {time.perf_counter() - started:.0f} s")  # fmt: skip
    by_speech: dict[str, list[Any]] = defaultdict(list)
    for e in effects:
        by_speech[f"{e.game}#{e.speech}"].append(e)
    truth = {(r.config, r.effect): r.interval.value for r in summarise(effects)}
    print("truth (mean over every pair): " + "; ".join(f"{c} {e} {v:+.4f}" for (c, e), v in sorted(truth.items())))
    for size in (int(x) for x in args.sample.split(",")):
        coverage(items, by_speech, truth, size, args.draws)
    return 0


def coverage(items: list[Any], by_speech: dict[str, list[Any]], truth: dict[tuple[str, str], float], size: int,
             draws: int) -> None:  # fmt: skip
    """Draw samples of `size` speeches as `arena persuasion --sample` does; count the intervals that hold."""
    import numpy as np

    from arena.research.intervals import ratio
    from arena.research.persuasion import EFFECTS, ranking, sample, summarise
    from arena.research.planted import config_name

    held: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    t_held: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])  # a plain mean ± t·SE, for comparison
    first = above = t_above = 0
    persuasive = config_name("persuader", 1.0)
    for draw in range(draws):
        chosen = sample(items, size, seed=draw)
        effects = [e for item in chosen for e in by_speech.get(item.key, [])]
        rows = summarise(effects)
        for r in rows:
            iv = r.interval
            if iv.clusters < 2 or math.isnan(iv.value):
                continue  # printed without an interval
            cell = held[(r.config, r.effect)]
            cell[1] += 1
            cell[0] += iv.low - 1e-12 <= truth[(r.config, r.effect)] <= iv.high + 1e-12
            mine = [(getattr(e, r.effect), e.game) for e in effects if e.speaker_config == r.config
                    and not math.isnan(getattr(e, r.effect))]  # fmt: skip
            games = sorted({g for _, g in mine})
            t_iv = ratio(np.asarray([v for v, _ in mine]), np.ones(len(mine)),
                         np.asarray([games.index(g) for _, g in mine]))  # fmt: skip
            t_cell = t_held[(r.config, r.effect)]
            t_cell[1] += 1
            t_cell[0] += t_iv.low - 1e-12 <= truth[(r.config, r.effect)] <= t_iv.high + 1e-12
            if r.config == persuasive and r.effect == "p_accused":
                t_above += t_iv.low > 0
        ranked = ranking(rows)
        if ranked and ranked[0].config == persuasive:
            first += 1
            above += ranked[0].interval.low > 0
    print(f"\n{draws} samples of {size} speeches: coverage of the printed 95 % intervals")
    print("| speaker configuration | effect | truth | coverage | samples with an interval | a plain mean ± t·SE |")
    print("|---|---|---|---|---|---|")
    for (config, effect), (ok, n) in sorted(held.items()):
        if effect in EFFECTS:
            t_ok, t_n = t_held[(config, effect)]
            print(f"| {config} | {effect} | {truth[(config, effect)]:+.4f} | {ok / n:.3f} | {n} | {t_ok / t_n:.3f} |")
    print(f"\nthe persuasive speaker ranked first by p_accused in {first / draws:.1%} of the samples, with an "
          f"interval above zero in {above / draws:.1%} (a plain mean ± t·SE: {t_above / draws:.1%})", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
