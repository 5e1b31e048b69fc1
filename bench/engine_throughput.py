"""Engine throughput: complete random-decision games per preset, on one core, with every decision seeing its seat's
view built the way a real seat builds it.

Why this exists: the engine sits under every LLM game, every bot tournament and every CI run; this measures what
it costs per decision, and compares it with a peer engine (TextArena SecretMafia, see bench/README.md). A fair
comparison needs the observation work a real seat does, so before each decision the deciding seat's view is built
as an append-only conversation: `view(game, seat, since=<the first event that seat has not yet seen>)`. The
decisions come from `arena.players.random_policy.random_decision`, so no player logic is timed beyond that.

    taskset -c 0 .venv/bin/python bench/engine_throughput.py --games 200 --repeats 3

`taskset -c 0` pins the run to one core (the figures are per core). Each repeat plays the same seeds, so the repeats
differ only by timing noise; the report gives min / median / max over the repeats.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import dataclass

from arena.engine import PRESETS, Game, RuleSet, load_rules, view
from arena.players.random_policy import random_decision


@dataclass(frozen=True)
class Run:
    seconds: float
    games: int
    decisions: int
    events: int
    observed: int  # events handed to seats through their views


def play_games(rules: RuleSet, seeds: range) -> Run:
    """Play one game per seed to the end; time it all (game setup included)."""
    decisions = events = observed = 0
    start = time.perf_counter()
    for seed in seeds:
        game = Game(rules, seed)
        rng = random.Random(seed)
        seen = [0] * (game.n + 1)  # per seat: the next event seq it has not seen
        while not game.over:
            for request in game.pending():
                seat = request.seat
                obs = view(game, seat, since=seen[seat])
                seen[seat] = obs.next_seq
                observed += len(obs.events)
                game.submit(seat, random_decision(rng, request))
                decisions += 1
        events += len(game.events)
    return Run(time.perf_counter() - start, len(seeds), decisions, events, observed)


def spread(values: list[float]) -> str:
    return f"{min(values):>9,.0f} {statistics.median(values):>9,.0f} {max(values):>9,.0f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200, help="games per preset and repeat (default 200)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per preset (default 3)")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=PRESETS, metavar="PRESET")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.repeats < 1:
        parser.error("--games and --repeats must be at least 1")

    print(f"engine throughput: {args.games} games x {args.repeats} repeats per preset; python {sys.version.split()[0]}")
    print("(games/s and decisions/s: min / median / max over the repeats; the deciding seat's view is built")
    print(" incrementally before every decision)")
    header = f"{'preset':<8} {'games/s (min med max)':>29} {'decisions/s (min med max)':>29} {'dec/game':>9}"
    print(header)
    print("-" * len(header))
    for preset in args.presets:
        rules = load_rules(preset)
        seeds = range(args.seed, args.seed + args.games)
        play_games(rules, range(args.seed, args.seed + min(5, args.games)))  # warm up imports and caches
        runs = [play_games(rules, seeds) for _ in range(args.repeats)]
        games_s = [r.games / r.seconds for r in runs]
        decisions_s = [r.decisions / r.seconds for r in runs]
        per_game = runs[0].decisions / runs[0].games
        print(f"{preset:<8} {spread(games_s):>29} {spread(decisions_s):>29} {per_game:>9.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
