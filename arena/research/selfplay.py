"""Bot games with balanced fixed seatings: real 7-against-3 data for the ratings and metrics, with no model.

Each deal (a seed) is played four times with two configurations A and B, with the same cards: A or B all town
against A or B all black, so each configuration plays each seat and each side equally often, against each other
configuration. One transcript per game goes to the folder, as `arena tournament`
writes them; the configuration of a seat is its AgentSpec name in the header.

    python -m arena.research.selfplay OUT --games 200 [--probes] [--preset fiim]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Iterator
from pathlib import Path

from arena.agents import BUILTIN, AgentSpec
from arena.engine import Game, Role, RuleSet, load_rules
from arena.orchestrator import run_game
from arena.players.base import Player
from arena.players.factory import build_player
from arena.transcript import TranscriptWriter, default_path, make_header

BLACK = frozenset({Role.MAFIA, Role.DON})


def deal(rules: RuleSet, seed: int) -> list[Role]:
    """The roles the engine would deal from `seed`, read from a throwaway game (the engine owns the deal)."""
    return list(Game(rules, seed).roles[1:])


def seatings(roles: list[Role], a: AgentSpec, b: AgentSpec) -> Iterator[dict[int, AgentSpec]]:
    """The four balanced seatings of one deal: every configuration plays each side against each configuration
    (A/A, A/B, B/A, B/B as town/black), so the side term and both sides' skills are each identified."""
    seats = range(1, len(roles) + 1)
    for town, black in ((a, a), (a, b), (b, a), (b, b)):
        yield {s: (black if roles[s - 1] in BLACK else town) for s in seats}


async def play_one(
    rules: RuleSet, seed: int, roles: list[Role], agents: dict[int, AgentSpec], out: Path, game_id: str
) -> Path:
    header = make_header(rules, seed, agents, roles=roles, game_id=game_id)
    path = default_path(out, header)
    writer = TranscriptWriter.create(path, header)
    players: dict[int, Player] = {
        s: build_player(spec, s, seed=seed, rules=rules, lang="en") for s, spec in agents.items()
    }
    try:
        await run_game(Game(rules, seed, roles=roles), players, writer)
    finally:
        writer.close()
    return path


def play_balanced(
    out: Path,
    games: int,
    *,
    rules: RuleSet | None = None,
    a: AgentSpec = BUILTIN["bot:heuristic"],
    b: AgentSpec = BUILTIN["bot:random"],
    first_seed: int = 1,
) -> list[Path]:
    """Play `games` games (rounded up to a multiple of 4) into `out`; return the transcript paths."""
    rules = rules or load_rules("fiim")
    paths: list[Path] = []
    seed = first_seed
    while len(paths) < games:
        roles = deal(rules, seed)
        for index, agents in enumerate(seatings(roles, a, b)):
            game_id = f"s{seed:05d}{index}"
            paths.append(asyncio.run(play_one(rules, seed, roles, agents, out, game_id)))
        seed += 1
    return paths


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--preset", default="fiim")
    parser.add_argument("--probes", action="store_true", help="turn the daily belief probes on")
    parser.add_argument("--first-seed", type=int, default=1)
    args = parser.parse_args(argv)
    rules = load_rules(args.preset, overrides=["probes.daily=true"] if args.probes else None)
    paths = play_balanced(args.out, args.games, rules=rules, first_seed=args.first_seed)
    print(f"{len(paths)} games written to {args.out}")


if __name__ == "__main__":
    main()
