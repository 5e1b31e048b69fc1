"""Playing a game out at the terminal (`arena play`, `arena resume`): the live view while it runs, Ctrl-C (or a seat
whose model gave no answer) leaving the transcript resumable, an internal error closing it, and the report at the
end (roles, failures, totals, the path)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.live import Live
from rich.text import Text

from arena.cli.options import fail
from arena.engine import MODERATOR, Event, EventType, Game, view, visible_events
from arena.live import EventPrinter, status_line
from arena.orchestrator import GameStopped, RunStats, run_game
from arena.pacing import NightPacer
from arena.players.base import Player
from arena.players.delayed import DelayedPlayer
from arena.players.human import HumanPlayer, InputClosed
from arena.render import labels, phrasebook
from arena.transcript import SeatTotals, TranscriptError, TranscriptWriter, load

if TYPE_CHECKING:
    from arena.remote.server import RemoteTable

HUMAN_TIMEOUT: float | None = None  # a person at the terminal is never timed out
REMOTE_LINGER_S = 10.0  # after the game, how long each connected remote agent has to hear that it is over


class RemoteAbsent(Exception):
    """A remote seat's program never connected before the first move: the game stops, saved, before anything is
    played (a result is never made of a seat that was not there). `seat`: the first one missing."""

    def __init__(self, message: str, seat: int) -> None:
        super().__init__(message)
        self.seat = seat


def drive(
    game: Game,
    players: Mapping[int, Player],
    writer: TranscriptWriter,
    *,
    console: Console,
    quiet: bool,
    timeout: float,
    max_reasks: int,
    stats: RunStats,
    humans: list[int],
    human_timeout: float | None = None,
    llm: bool = False,
    seat_timeouts: Mapping[int, float] | None = None,
    remote: RemoteTable | None = None,
    remote_wait: float = 120.0,
) -> None:
    """Run the game with the live view; Ctrl-C leaves the transcript resumable, an internal error closes it. The
    players are closed on the game's loop, where their HTTP clients were made (`llm`: some seat calls a model).
    `remote` serves the remote seats on that loop: their programs have `remote_wait` seconds to connect before the
    first move, and hear the end of the game when it comes."""
    path = writer.path
    timeouts: dict[int, float | None] = dict(seat_timeouts or {})  # a model seat's own deadline (cli/play.py)
    timeouts.update(dict.fromkeys(humans, human_timeout or HUMAN_TIMEOUT))
    lang = writer.header.lang  # the live feed speaks the game's language (the phrase tables)
    printer = EventPrinter(console, game.rules, lang=lang)
    live_ok = not quiet and not humans and console.is_terminal

    def on_event(event: Event) -> None:
        if quiet or humans:
            return
        printer(event)
        if live is not None:
            live.update(status_line(game, lang=lang), refresh=True)

    live = Live(status_line(game, lang=lang), console=console, auto_refresh=False, transient=True) if live_ok else None
    pacer = night_pacer(game, players, set(humans) | (set(remote.lines) if remote is not None else set()))
    try:
        with live if live is not None else contextlib.nullcontext():
            asyncio.run(
                _game(
                    run_game(
                        game,
                        players,
                        writer,
                        timeout_s=timeout,
                        max_reasks=max_reasks,
                        on_event=on_event,
                        timeouts=timeouts,
                        stats=stats,
                        pacer=pacer,
                    ),
                    players,
                    llm,
                    game,
                    remote,
                    remote_wait,
                )
            )
        printer.flush_votes()
        for seat in humans:  # what each human saw after his last decision: the end of the game
            human = players[seat]
            if isinstance(human, DelayedPlayer):
                human = human.inner
            if isinstance(human, HumanPlayer):
                human.show(view(game, seat))
    except RemoteAbsent as exc:
        writer.stop(exc.seat, str(exc), "start the agent, then resume the game")
        writer.close()
        typer.echo(
            f"\nerror: {exc}; the game is saved, nothing was played. Start the agent, then: arena resume {path}",
            err=True,
        )
        raise typer.Exit(1) from None
    except KeyboardInterrupt as exc:
        writer.close()
        what = f"error: {exc}" if isinstance(exc, InputClosed) else "interrupted"
        typer.echo(f"\n{what}; the game is saved. Continue it with: arena resume {path}", err=True)
        raise typer.Exit(1 if isinstance(exc, InputClosed) else 130) from None
    except GameStopped as exc:  # a model gave no answer: never a result made of failures; saved, resumable
        writer.close()
        typer.echo(f"\nerror: the game stopped: {exc}; it is saved. Then: arena resume {path}", err=True)
        raise typer.Exit(1) from None
    except Exception as exc:  # an engine or orchestrator bug: record it, tell the user, no traceback
        writer.abort(f"{type(exc).__name__}: {exc}")
        writer.close()
        fail(f"the game stopped on an internal error ({type(exc).__name__}: {exc}); transcript: {path}", 1)
    writer.close()


def night_pacer(game: Game, players: Mapping[int, Player], watchers: set[int]) -> NightPacer | None:
    """A person at this terminal, or a remote program (`watchers`), could time the nights: each then lasts the same
    whoever lives (arena/pacing.py), and only the other seats' decisions measure a slot. None: nobody to pace for."""
    if not watchers:
        return None
    return NightPacer(game.rules, frozenset(s for s in players if s not in watchers))


async def _game(
    play: Coroutine[object, object, Game],
    players: Mapping[int, Player],
    llm: bool,
    game: Game,
    remote: RemoteTable | None = None,
    remote_wait: float = 120.0,
) -> None:
    """Play on this loop, then close the players on it. A model seat's HTTP client is made at its first call, on
    this loop (`LLMClient`): with aiohttp installed, the plain-JSON path the tournament workers use (`use_aiohttp`),
    whose session belongs to this loop and is closed here, also after Ctrl-C (the game's task is cancelled)."""
    ended = False
    try:
        if remote is not None:
            await remote.start()
            missing = await remote.wait_connected(remote_wait)
            if missing:
                seats = ", ".join(map(str, missing))
                why = f"the remote agent of seat(s) {seats} did not connect within {remote_wait:g} s"
                raise RemoteAbsent(why, missing[0])
        if llm:
            from arena.llm.pool import use_aiohttp

            use_aiohttp()  # ARENA_HTTP_POOL=httpx (or no aiohttp) keeps the SDK's own path
        await play
        ended = True
    finally:
        play.close()  # not started if use_aiohttp failed: no "never awaited" warning
        if remote is not None:
            if ended and game.over:  # each remote program hears the end (its own view of it)
                remote.finish(game)
                await remote.linger(REMOTE_LINGER_S)
            await remote.stop(None if ended else "the game stopped; it is saved and can be resumed")
        await _close(players)


async def _close(players: Mapping[int, Player]) -> None:
    for player in players.values():
        with contextlib.suppress(Exception):  # closing is best effort
            await player.close()


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def failure_line(seat: int, refused: int, timeouts: int, errors: int, defaults: int, lang: str = "en") -> str | None:
    """`seat 3: 1 refused answer, 1 error, 1 default applied`: what went wrong for one seat (None if nothing)."""
    if lang == "ru":  # a count after its noun: no plural forms to choose
        counts = (("отклонённых ответов", refused), ("тайм-аутов", timeouts), ("ошибок", errors))
        said = [f"{what}: {n}" for what, n in (*counts, ("ответов по умолчанию", defaults)) if n]
        return f"место {seat}: {', '.join(said)}" if said else None
    parts = [
        _count(refused, "refused answer", "refused answers") if refused else "",
        _count(timeouts, "timeout", "timeouts") if timeouts else "",
        _count(errors, "error", "errors") if errors else "",
        _count(defaults, "default applied", "defaults applied") if defaults else "",
    ]
    parts = [p for p in parts if p]
    return f"seat {seat}: {', '.join(parts)}" if parts else None


def report(game: Game, stats: RunStats, path: Path | None, console: Console, quiet: bool, lang: str = "en") -> None:
    ru = lang == "ru"
    if not quiet:
        # the god view's deal, read like every other fact through the engine's view (moderator = seat 0)
        deal = next(e for e in visible_events(game, MODERATOR) if e.type is EventType.ROLES_DEALT)
        roles = "  ".join(f"#{seat} {labels.role(role, lang)}" for seat, role in enumerate(deal.roles, start=1))
        head = f"Роли: {roles}  (сид {game.seed})" if ru else f"Roles: {roles}  (seed {game.seed})"
        console.print(Text(head, style="dim"))
        for seat, c in sorted(stats.counters.items()):
            line = failure_line(seat, c.invalid, c.timeouts, c.errors, c.defaults, lang)
            if line:
                console.print(Text(line, style="yellow"))
        result, why = labels.result(game.winner, lang), phrasebook.end_reason(phrasebook.game_end(game.events), lang)
        ended = f"{result} ({why}), день {game.day}" if ru else f"{result} ({why}) on day {game.day}"
        console.print(Text(ended, style="bold"))
        if path is not None:
            from arena.render.totals import totals_table

            table = totals_table(*_totals(path), lang=lang)  # None for a game without model calls
            if table is not None:
                console.print(table)
    typer.echo(f"transcript: {path}")


def _totals(path: Path) -> tuple[dict[int, SeatTotals], int, set[int]]:
    """The game's model-call totals, as its end record carries them; the whole table's view; the seats whose cost
    is unknown (no prices)."""
    from arena.engine import MODERATOR
    from arena.render.totals import unknown_cost_seats

    try:
        transcript = load(path)
    except TranscriptError:
        return {}, MODERATOR, set()
    end = transcript.end
    return (dict(end.totals) if end is not None else {}), MODERATOR, unknown_cost_seats(transcript)
