"""The seats of a game from the command line: `--seat` specs read into agent specs, the one-human-per-terminal check,
the preflight probe of LLM agents, and the players built from the specs (wrapped in a `DelayedPlayer` for the hidden
`--delay`)."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from arena.agents import AgentError, AgentSpec, resolve_agent
from arena.cli.options import fail
from arena.engine import RuleSet
from arena.players.base import Player
from arena.players.bot_lines import LinesError
from arena.players.delayed import DelayedPlayer
from arena.players.factory import PlayerBuildError, build_player

if TYPE_CHECKING:
    from arena.remote.server import RemoteTable

DEFAULT_AGENT = "bot:heuristic"


class SeatSpecError(ValueError):
    """A `--seat` value that cannot be read; the message shows the accepted forms."""


_SEAT_KEY = re.compile(r"^(all|\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*)$")
SEAT_FORMS = "all=AGENT, N=AGENT, N,M=AGENT or N-K=AGENT (e.g. 3=human)"


def _seats_named(spec: str, key: str, players: int) -> list[int]:
    """The seats a key such as `1,4-6` names, in order; reversed ranges, repeats and unknown seats are errors."""
    targets: list[int] = []
    for part in key.split(","):
        low_text, _, high_text = part.partition("-")
        low, high = int(low_text), int(high_text or low_text)
        if high < low:
            raise SeatSpecError(f"bad --seat {spec!r}: the range {part} runs backwards; write {high}-{low}")
        for seat in range(low, high + 1):
            if not 1 <= seat <= players:
                raise SeatSpecError(f"bad --seat {spec!r}: seat {seat} does not exist (seats are 1 to {players})")
            if seat in targets:
                raise SeatSpecError(f"bad --seat {spec!r}: seat {seat} is named twice")
            targets.append(seat)
    return targets


def parse_seat_specs(specs: list[str], players: int, agents_dir: Path | None = None) -> dict[int, AgentSpec]:
    """`all=bot:random`, `3=human`, `1,4-6=NAME`: `all=` fills every seat first, then each other spec sets its seats.

    A seat named by two specs other than `all=` is an error, like a reversed range (`3-1`) or a seat off the table:
    the command line never silently drops a spec.
    """
    seats = dict.fromkeys(range(1, players + 1), resolve_agent(DEFAULT_AGENT))
    ordered = sorted(specs, key=lambda s: not s.strip().lower().startswith("all="))
    claimed: dict[int, str] = {}
    for spec in ordered:
        key, sep, agent = spec.partition("=")
        key = key.strip().lower()
        if not sep or not agent.strip() or not _SEAT_KEY.match(key):
            raise SeatSpecError(f"bad --seat {spec!r}: use {SEAT_FORMS}")
        targets = list(seats) if key == "all" else _seats_named(spec, key, players)
        resolved = resolve_agent(agent.strip(), agents_dir)
        for seat in targets:
            if key != "all":
                if seat in claimed:
                    raise SeatSpecError(f"--seat {claimed[seat]!r} and --seat {spec!r} both name seat {seat}")
                claimed[seat] = spec
            seats[seat] = resolved
    return seats


def seat_help() -> str:
    """The `--seat` help: the accepted forms and the agents found now (the same lookup `arena agents` prints)."""
    from arena.agents import list_agents

    names = sorted({entry.name for entry in list_agents()})
    found = ", ".join(names) if names else "none"
    return (
        f"Who plays which seat: {SEAT_FORMS}. AGENT is bot:heuristic (the default), bot:random, human, remote, "
        f"openai:MODEL, or the name of an agent definition (found now: {found}; see `arena agents`). "
        "Repeatable; all= applies first, and no other two specs may name the same seat."
    )


def check_human_seats(seats: Mapping[int, AgentSpec], allow_piped: bool) -> None:
    """One human per terminal, and a terminal at all unless piped answers are asked for (tests, scripts)."""
    humans = sorted(s for s, spec in seats.items() if spec.kind == "human")
    if len(humans) > 1:
        fail(
            f"only one human seat per terminal (seats {', '.join(map(str, humans))} are human): one person would "
            "see several seats' secrets; use `arena serve` to seat several people"
        )
    if humans and not allow_piped and not sys.stdin.isatty():
        fail(f"seat {humans[0]} is human but stdin is not a terminal; pass --allow-piped-human to type from a pipe")


def build_players(
    seats: Mapping[int, AgentSpec],
    *,
    seed: int,
    rules: RuleSet,
    lang: str,
    delay: float,
    remote: RemoteTable | None = None,
) -> dict[int, Player]:
    """Each seat's player; remote seats are served by `remote`, and never delayed (their pace is their own)."""
    players: dict[int, Player] = {}
    for seat, spec in seats.items():
        try:
            player = build_player(spec, seat, seed=seed, rules=rules, lang=lang, remote=remote)
        except (PlayerBuildError, LinesError, AgentError) as exc:
            fail(str(exc))
        except ValueError as exc:  # a PromptError (a missing, broken or sandbox-refused template); else a bug
            from arena.prompts import PromptError

            if not isinstance(exc, PromptError):
                raise
            fail(str(exc))
        players[seat] = DelayedPlayer(player, delay) if delay > 0 and spec.kind != "remote" else player
    return players


def prompt_hash(seats: Mapping[int, AgentSpec], lang: str) -> str | None:
    """The hash of the prompt set(s) the LLM seats use, for the header (None when no seat uses one)."""
    if not any(spec.kind in ("llm", "langchain") for spec in seats.values()):
        return None
    try:
        from arena.prompts import prompt_set_hash_for

        return prompt_set_hash_for(seats, lang)
    except Exception as exc:  # a missing or broken prompt set: one line, no traceback
        fail(f"prompt set: {exc}")


def preflight_seats(
    seats: dict[int, AgentSpec], check: Callable[[dict[int, AgentSpec]], None] | None = None
) -> dict[int, AgentSpec]:
    """Probe each LLM agent once before the game (server up, key accepted) and record the model it reports. Each
    server's window is read first, and `check` (the window check of `arena play`) sees the seats before the probe."""
    if not any(spec.kind == "llm" for spec in seats.values()):
        return seats
    try:
        from arena.llm.preflight import preflight, read_windows
    except ImportError as exc:
        fail(f"LLM seats need the llm extra (pip install -e '.[llm]'): {exc}")
    try:
        seats = asyncio.run(read_windows(seats))
        if check is not None:
            check(seats)
        return asyncio.run(preflight(seats))
    except AgentError as exc:
        fail(str(exc))


def seats_summary(seats: Mapping[int, AgentSpec]) -> str:
    counts: dict[str, int] = {}
    for spec in seats.values():
        counts[spec.name] = counts.get(spec.name, 0) + 1
    return ", ".join(f"{n}× {name}" for name, n in counts.items())
