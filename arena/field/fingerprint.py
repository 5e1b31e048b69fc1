"""A field's behaviour, pinned: what its members decide, decision by decision, in fixed games among themselves.

A field's ratings hold only while its opponents play as they did when it was frozen. Their words may change (the
bots' speech lines are rewritten to sound like players) without changing the field, so the fingerprint hashes every
input to the engine with its text left out (votes, nominations, claims as structured data, shots, checks, defaults)
and each game's winner, over one game per ordered pair of members on the field's first deals. A change that alters
any of those decisions (a new rule of play, a different random draw, a speech the other bots now read differently)
changes the fingerprint, and the field refuses to place anyone (`check_behaviour`); docs/reference.md says how a new
version is then calibrated against the old one.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
from itertools import product

from arena.engine import Game, Role, Team
from arena.engine.roles import base_team
from arena.field.definition import FieldError, FieldVersion, dealt
from arena.orchestrator import run_game
from arena.players.factory import build_player
from arena.transcript import TranscriptWriter, make_header

FIXED_CLOCK = "2000-01-01T00:00:00Z"  # the writer's clock: nothing of a fingerprint game depends on the time


def pairs(field: FieldVersion) -> list[tuple[str, str]]:
    """(town, mafia) member labels, every ordered pair: the fingerprint's games."""
    return [(town, mafia) for town, mafia in product(field.labels, field.labels)]


def whole_sides(roles: list[Role], town: str, mafia: str) -> tuple[str, ...]:
    """Seat labels with `town` on every red seat and `mafia` on every black one (a field's rules have no third
    side: `definition.two_sided`)."""
    return tuple(mafia if base_team(role) is Team.BLACK else town for role in roles)


async def _game(field: FieldVersion, deal: int, town: str, mafia: str) -> list[str]:
    rules, seed = field.rules, field.deal_seed(deal)
    roles = dealt(rules, seed)
    specs = {m.label: m.spec() for m in field.members}
    seats = {s: specs[label] for s, label in enumerate(whole_sides(roles, town, mafia), start=1)}
    header = make_header(rules, seed, seats, roles=roles, game_id="fingerprint", started_at=FIXED_CLOCK)
    writer = TranscriptWriter.to_stream(io.StringIO(), header, clock=lambda: FIXED_CLOCK)
    game = Game(rules, seed, roles=roles)
    players = {s: build_player(spec, s, seed=seed, rules=rules, lang="en") for s, spec in seats.items()}
    await run_game(game, players, writer)
    writer.close()
    lines = [json.dumps([item.op, item.seat, item.decision.model_dump(mode="json", exclude={"text", "reasoning"})
                         if item.decision else None], sort_keys=True) for item in game.inputs]  # fmt: skip
    return [*lines, json.dumps(["winner", game.winner])]


def digest_lines(lines: list[str]) -> str:
    return hashlib.sha256("".join(f"{line}\n" for line in lines).encode()).hexdigest()


def behaviour(field: FieldVersion) -> tuple[int, str]:
    """(games played, the sha256 of every decision in them, words left out)."""
    games = pairs(field)
    lines: list[str] = []
    for i, (town, mafia) in enumerate(games):
        lines += asyncio.run(_game(field, i % field.file.deals.count, town, mafia))
    return len(games), digest_lines(lines)


def self_play(field: FieldVersion) -> dict[str, str]:
    """Each member's behaviour alone: the fingerprint of one game it plays against itself (its own code only), so a
    later version can tell which members are unchanged and may anchor it to this one."""
    return {label: digest_lines(asyncio.run(_game(field, 0, label, label))) for label in field.labels}


def check_behaviour(field: FieldVersion) -> None:
    """Refuse a field whose members no longer play as they did when it was frozen."""
    games, found = behaviour(field)
    pinned = field.file.behaviour
    if games != pinned.games or found != pinned.fingerprint:
        raise FieldError(
            f"field {field.name}: its opponents no longer play as they did when it was frozen (behaviour "
            f"fingerprint {found[:12]} over {games} games, the field's {pinned.fingerprint[:12]} over {pinned.games}): "
            "a bot's decisions changed, so the frozen ratings do not describe these opponents and no placement is "
            "made. Calibrate a new field version (docs/reference.md, 'A new version')"
        )
