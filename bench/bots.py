"""Bot baseline benchmark: many complete games per preset, heuristic and random bots in any pairing.

Prints, per preset and pairing, the win rate of each side, the crashes (a game that raised; must be 0), the seats'
invalid answers and defaults, and the orchestrator's overhead per decision: the wall time of `run_game` spent
outside the players (engine, views, validation, transcript serialisation), divided by the decisions.

    python bench/bots.py                                  # 1,000 games per preset, all four pairings
    python bench/bots.py --town heuristic --mafia random  # one pairing
    python bench/bots.py --games 200 --preset fiim --jobs 1

Sides: `mafia` is the black seats (mafia and don), `town` every other seat except the maniac, who is a third party
played by `--maniac` (random by default, so that it favours neither side being measured).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from arena.agents import BUILTIN
from arena.engine import PRESETS, Game, Role, load_rules
from arena.orchestrator import RunStats, run_game
from arena.players.base import Player
from arena.players.factory import build_player
from arena.transcript import TranscriptWriter, make_header

KINDS = ("heuristic", "random")


@dataclass
class Tally:
    games: int = 0
    winners: Counter[str] = field(default_factory=Counter)
    crashes: int = 0
    crash_seeds: list[int] = field(default_factory=list)
    first_error: str = ""
    decisions: int = 0
    invalid: int = 0
    defaults: int = 0
    total_s: float = 0.0
    player_s: float = 0.0
    engine_s: float = 0.0
    wall_s: float = 0.0

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.winners.update(other.winners)
        self.crashes += other.crashes
        self.crash_seeds += other.crash_seeds
        self.first_error = self.first_error or other.first_error
        self.decisions += other.decisions
        self.invalid += other.invalid
        self.defaults += other.defaults
        self.total_s += other.total_s
        self.player_s += other.player_s
        self.engine_s += other.engine_s
        self.wall_s = max(self.wall_s, other.wall_s)


def _kind(game: Game, seat: int, town: str, mafia: str, maniac: str) -> str:
    role = game.roles[seat]
    if game.is_black(seat):
        return mafia
    return maniac if role is Role.MANIAC else town


def play_batch(preset: str, seeds: list[int], town: str, mafia: str, maniac: str, transcript: bool) -> Tally:
    """Play one game per seed in this process and tally them."""
    rules = load_rules(preset)
    tally = Tally()
    started = time.perf_counter()
    for seed in seeds:
        game = Game(rules, seed)
        kinds = {s: _kind(game, s, town, mafia, maniac) for s in game.seats()}
        specs = {s: BUILTIN[f"bot:{k}"] for s, k in kinds.items()}
        players: dict[int, Player] = {
            s: build_player(spec, s, seed=seed, rules=rules, lang="en") for s, spec in specs.items()
        }
        writer = None
        if transcript:
            header = make_header(rules, seed, specs, game_id="bench", started_at="-", version="-")
            writer = TranscriptWriter.to_stream(io.StringIO(), header)
        stats = RunStats()
        tally.games += 1
        try:
            asyncio.run(run_game(game, players, writer, stats=stats))
        except Exception as exc:
            tally.crashes += 1
            tally.crash_seeds.append(seed)
            tally.first_error = tally.first_error or f"seed {seed}: {type(exc).__name__}: {exc}"
            continue
        tally.winners[game.winner or "?"] += 1
        tally.decisions += stats.decisions
        tally.invalid += sum(c.invalid + c.timeouts + c.errors for c in stats.counters.values())
        tally.defaults += sum(c.defaults for c in stats.counters.values())
        tally.total_s += stats.total_s
        tally.player_s += stats.player_s
        tally.engine_s += stats.engine_s
    tally.wall_s = time.perf_counter() - started
    return tally


def run(
    preset: str, games: int, first_seed: int, town: str, mafia: str, maniac: str, jobs: int, transcript: bool
) -> Tally:
    seeds = list(range(first_seed, first_seed + games))
    chunks = [seeds[i::jobs] for i in range(jobs) if seeds[i::jobs]]
    total = Tally()
    if jobs == 1:
        total.add(play_batch(preset, seeds, town, mafia, maniac, transcript))
        return total
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(play_batch, preset, c, town, mafia, maniac, transcript) for c in chunks]
        for future in futures:
            total.add(future.result())
    return total


def report_line(preset: str, town: str, mafia: str, t: Tally) -> str:
    n = max(t.games - t.crashes, 1)
    rate = {side: 100.0 * t.winners.get(side, 0) / n for side in ("town", "mafia", "maniac", "draw")}
    per = 1e6 / max(t.decisions, 1)
    outside_us = per * (t.total_s - t.player_s)
    engine_us = per * t.engine_s
    player_us = per * t.player_s
    return (
        f"{preset:8} {town:>9} {mafia:>9} {t.games:6} {rate['town']:6.1f} {rate['mafia']:6.1f} {rate['maniac']:6.1f} "
        f"{rate['draw']:5.1f} {t.crashes:7} {t.invalid:7} {t.defaults:8} {t.decisions / n:7.1f} {outside_us:9.1f} "
        f"{engine_us:9.1f} {outside_us - engine_us:8.1f} {player_us:8.1f}"
    )


HEADER = (
    f"{'preset':8} {'town':>9} {'mafia':>9} {'games':>6} {'town%':>6} {'mafia%':>6} {'mnc%':>6} {'draw%':>5} "
    f"{'crashes':>7} {'invalid':>7} {'defaults':>8} {'dec/g':>7} {'outside':>9} {'engine':>9} {'orch':>8} "
    f"{'bots':>8}"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games per preset and pairing (default 1000)")
    parser.add_argument("--preset", action="append", choices=PRESETS, help="preset(s); default all")
    parser.add_argument("--town", choices=KINDS, help="bot kind of the town seats; default both")
    parser.add_argument("--mafia", choices=KINDS, help="bot kind of the black seats; default both")
    parser.add_argument("--maniac", choices=KINDS, default="random", help="bot kind of the maniac (default random)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (games use seed, seed+1, ...)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: cores)")
    parser.add_argument("--no-transcript", action="store_true", help="skip writing in-memory transcripts")
    args = parser.parse_args(argv)
    presets = args.preset or list(PRESETS)
    towns = [args.town] if args.town else list(KINDS)
    mafias = [args.mafia] if args.mafia else list(KINDS)
    print(f"{args.games} games per preset and pairing · maniac: {args.maniac} · jobs: {args.jobs}")
    print("times are µs per decision: outside = outside the players (engine + orch), orch = runner + transcript")
    print(HEADER)
    crashes = 0
    for preset in presets:
        for town in towns:
            for mafia in mafias:
                tally = run(preset, args.games, args.seed, town, mafia, args.maniac, args.jobs, not args.no_transcript)
                crashes += tally.crashes
                print(report_line(preset, town, mafia, tally), flush=True)
                if tally.crash_seeds:
                    print(f"  crashed seeds: {sorted(tally.crash_seeds)[:20]}; first error: {tally.first_error}")
    print(f"crashes: {crashes}")
    return 1 if crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
