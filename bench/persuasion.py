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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--sample", type=int, default=60)
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--folder", type=Path, default=None, help="keep the games here (reused when present)")
    args = parser.parse_args(argv)

    from arena.players.factory import build_player
    from arena.research.persuasion import EFFECTS, BotAsker, Item, load_items, ranking, run, sample, summarise
    from arena.research.planted import config_name, play

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
    by_speech: dict[str, list] = defaultdict(list)
    for e in effects:
        by_speech[f"{e.game}#{e.speech}"].append(e)
    truth = {(r.config, r.effect): r.interval.value for r in summarise(effects)}
    print("truth (mean over every pair): " + "; ".join(f"{c} {e} {v:+.4f}" for (c, e), v in sorted(truth.items())))
    held: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    t_held: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])  # mean ± t·SE, for comparison
    t10_held: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])  # ... printed with 10+ moved games
    t_above = t10_above = 0
    import numpy as np

    from arena.research.intervals import ratio
    first = above = 0
    persuasive = config_name("persuader", 1.0)
    for draw in range(args.draws):
        chosen = sample(items, args.sample, seed=draw)
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
            hit = t_iv.low - 1e-12 <= truth[(r.config, r.effect)] <= t_iv.high + 1e-12
            t_cell[0] += hit
            moved = len({g for v, g in mine if v != 0})
            if moved >= 10:
                t10_held[(r.config, r.effect)][1] += 1
                t10_held[(r.config, r.effect)][0] += hit
            if r.config == persuasive and r.effect == "p_accused":
                t_above += t_iv.low > 0
                t10_above += moved >= 10 and t_iv.low > 0
        ranked = ranking(rows)
        if ranked and ranked[0].config == persuasive:
            first += 1
            above += ranked[0].interval.low > 0
    print(f"\n{args.draws} samples of {args.sample} speeches: coverage of the printed 95 % intervals")
    print("| speaker configuration | effect | truth | coverage | samples with an interval | a mean ± t·SE instead |"
          " t·SE, only with 10+ games moved (samples) |")
    print("|---|---|---|---|---|---|---|")
    for (config, effect), (ok, n) in sorted(held.items()):
        if effect in EFFECTS:
            t_ok, t_n = t_held[(config, effect)]
            k_ok, k_n = t10_held[(config, effect)]
            shown = f"{k_ok / k_n:.3f} ({k_n})" if k_n else "– (0)"
            print(f"| {config} | {effect} | {truth[(config, effect)]:+.4f} | {ok / n:.3f} | {n} | {t_ok / t_n:.3f} | "
                  f"{shown} |")
    print(f"\nthe persuasive speaker ranked first by p_accused in {first / args.draws:.1%} of the samples, with an "
          f"interval above zero in {above / args.draws:.1%} (t·SE: {t_above / args.draws:.1%}; t·SE with 10+ games "
          f"moved: {t10_above / args.draws:.1%})")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
