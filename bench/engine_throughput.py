"""Engine throughput: complete random-decision games per preset, on one core, with every decision seeing its seat's
view built the way a real seat builds it.

Why this exists: the engine sits under every LLM game, every bot tournament and every CI run; this measures what
it costs per decision, and compares it with a peer engine (TextArena SecretMafia, see bench/README.md). A fair
comparison needs the observation work a real seat does, so before each decision the deciding seat's view is built
as an append-only conversation: `view(game, seat, since=<the first event that seat has not yet seen>)`. The
decisions come from `arena.players.random_policy.random_decision`, so no player logic is timed beyond that.

    taskset -c 0 .venv/bin/python bench/engine_throughput.py --games 200 --repeats 3
    .venv/bin/python bench/engine_throughput.py --compare --games 200 --rounds 5

`taskset -c 0` pins the run to one core (the figures are per core). Each repeat plays the same seeds, so the repeats
differ only by timing noise; the report gives min / median / max over the repeats.

`--compare` runs our `fiim` engine and TextArena's SecretMafia-v0 side by side in one pool of worker processes, each
pinned to the same core (`--core`), in rounds that interleave the three (ours; theirs in the default wrapper, which
re-renders every player's history as text; theirs raw, with no wrapper), so load swings hit all three alike. Ours
hands each seat its new events with no text, which is the equal work to TextArena's raw environment. It prints both
ratios: ours over the default wrapper, and ours over the raw environment.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

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
        seen = [0] * (game.n + 1)  # per seat: its number of the first event it has not seen
        while not game.over:
            for request in game.pending():
                seat = request.seat
                obs = view(game, seat, since=seen[seat])
                seen[seat] = obs.next_number
                observed += len(obs.events)
                game.submit(seat, random_decision(rng, request))
                decisions += 1
        events += len(game.events)
    return Run(time.perf_counter() - start, len(seeds), decisions, events, observed)


def spread(values: list[float]) -> str:
    return f"{min(values):>9,.0f} {statistics.median(values):>9,.0f} {max(values):>9,.0f}"


PEER_PYTHON = Path.home() / ".cache" / "peer-textarena" / "bin" / "python"
PEER_SCRIPT = Path("/work/shared/bench/textarena_secretmafia.py")


def _pinned(command: list[str], core: int | None) -> list[str]:
    if core is None or shutil.which("taskset") is None:
        return command
    return ["taskset", "-c", str(core), *command]


def _job(name: str, command: list[str]) -> tuple[str, float]:
    """Run one child process and read its decisions/s from the last `steps_per_s=` or `decisions_per_s=` figure."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    found = re.findall(r"(?:steps|decisions)_per_s=([0-9.]+)", done.stdout)
    if done.returncode != 0 or not found:
        raise SystemExit(f"error: {name} failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    return name, float(found[-1])


def compare(args: argparse.Namespace) -> int:
    """Ours (fiim, no view text) against TextArena SecretMafia-v0, default wrapper and raw, interleaved in rounds."""
    peer = Path(args.peer_python)
    if not peer.is_file() or not Path(args.peer_script).is_file():
        print(f"error: the peer needs {peer} and {args.peer_script}; see bench/README.md", file=sys.stderr)
        return 2
    games = str(args.games)
    ours = [sys.executable, __file__, "--child", "--games", games, "--seed", str(args.seed)]
    theirs = [str(peer), args.peer_script, "--games", games, "--players", "10", "--seed", str(args.seed)]
    kinds = {
        "ours fiim (events, no text)": ours,
        "TextArena default wrapper": theirs,
        "TextArena raw (no wrapper)": [*theirs, "--env-id", "SecretMafia-v0-raw"],
    }
    names = list(kinds)
    jobs: list[tuple[str, list[str]]] = []
    for r in range(args.rounds):  # rotate the order every round so drift in load does not favour one side
        for name in names[r % 3 :] + names[: r % 3]:
            jobs.append((name, _pinned(kinds[name], args.core)))
    print(f"engine comparison: {args.rounds} rounds x {args.games} games, one core (taskset -c {args.core}), "
          f"{args.jobs} worker(s); load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    results: dict[str, list[float]] = {name: [] for name in names}
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for name, rate in pool.map(lambda job: _job(*job), jobs):
            results[name].append(rate)
    for name in names:
        print(f"{name:<30} decisions/s {spread(results[name])}  (min med max)")
    ours_med = statistics.median(results[names[0]])
    for name in names[1:]:
        paired = [o / t for o, t in zip(results[names[0]], results[name], strict=True)]  # same round, same load
        print(
            f"ratio ours / {name:<28} {ours_med / statistics.median(results[name]):.2f}x of the medians; "
            f"per round {statistics.median(paired):.2f}x median ({min(paired):.2f}-{max(paired):.2f})"
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


def child(args: argparse.Namespace) -> int:
    """One timed fiim run for `--compare`, after a short warm-up; prints decisions_per_s=..."""
    rules = load_rules("fiim")
    play_games(rules, range(args.seed, args.seed + 5))
    run = play_games(rules, range(args.seed, args.seed + args.games))
    print(f"decisions_per_s={run.decisions / run.seconds:.1f} games={run.games}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200, help="games per preset and repeat (default 200)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per preset (default 3)")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=PRESETS, metavar="PRESET")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--compare", action="store_true", help="ours against TextArena SecretMafia (see above)")
    parser.add_argument("--rounds", type=int, default=5, help="--compare: interleaved rounds (default 5)")
    parser.add_argument("--jobs", type=int, default=1, help="--compare: worker processes at once (default 1)")
    parser.add_argument("--core", type=int, default=0, help="--compare: the core every run is pinned to")
    parser.add_argument("--peer-python", default=str(PEER_PYTHON), help="--compare: python with textarena")
    parser.add_argument("--peer-script", default=str(PEER_SCRIPT), help="--compare: the peer benchmark script")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.games < 1 or args.repeats < 1 or args.rounds < 1 or args.jobs < 1:
        parser.error("--games, --repeats, --rounds and --jobs must be at least 1")
    if args.child:
        return child(args)
    if args.compare:
        return compare(args)

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
