"""`arena play` and `arena resume`: run a game live, continue a crashed game (`arena verify` is in verify.py).

Every user error (an unknown preset, a bad rules file, a bad seat spec, a missing agent, an unreadable transcript)
ends with one `error:` line and exit code 2, never a traceback. A game stopped with Ctrl-C stays resumable.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import sys
from collections.abc import Coroutine, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.live import Live
from rich.text import Text

from arena.agents import AgentError, AgentSpec, check_ready, resolve_agent
from arena.engine import (
    MODERATOR,
    Event,
    EventType,
    Game,
    Observation,
    Request,
    RulesError,
    RuleSet,
    load_rules,
    view,
    visible_events,
)
from arena.live import EventPrinter, status_line
from arena.orchestrator import RunStats, counters_from_inputs, run_game
from arena.players.base import Answer, Player
from arena.players.bot_lines import LinesError
from arena.players.factory import PlayerBuildError, build_player
from arena.players.human import HumanPlayer, InputClosed
from arena.transcript import (
    SeatTotals,
    Transcript,
    TranscriptError,
    TranscriptWriter,
    default_path,
    load,
    make_header,
)

DEFAULT_AGENT = "bot:heuristic"
HUMAN_TIMEOUT: float | None = None  # a person at the terminal is never timed out


class Lang(StrEnum):
    EN = "en"
    RU = "ru"


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
        f"Who plays which seat: {SEAT_FORMS}. AGENT is bot:heuristic (the default), bot:random, human, "
        f"openai:MODEL, or the name of an agent definition (found now: {found}; see `arena agents`). "
        "Repeatable; all= applies first, and no other two specs may name the same seat."
    )


class DelayedPlayer(Player):
    """Waits before answering (the hidden `--delay`): slows a bot game so tests can kill it mid-game."""

    def __init__(self, inner: Player, delay: float) -> None:
        self.inner = inner
        self.seat = inner.seat
        self.delay = delay

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        await asyncio.sleep(self.delay)
        return await self.inner.decide(observation, request, problem)

    async def close(self) -> None:
        await self.inner.close()


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


def fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _build_players(
    seats: Mapping[int, AgentSpec], *, seed: int, rules: RuleSet, lang: str, delay: float
) -> dict[int, Player]:
    players: dict[int, Player] = {}
    for seat, spec in seats.items():
        try:
            player = build_player(spec, seat, seed=seed, rules=rules, lang=lang)
        except (PlayerBuildError, LinesError, AgentError) as exc:
            fail(str(exc))
        except ValueError as exc:  # a PromptError (a missing, broken or sandbox-refused template); else a bug
            from arena.prompts import PromptError

            if not isinstance(exc, PromptError):
                raise
            fail(str(exc))
        players[seat] = DelayedPlayer(player, delay) if delay > 0 else player
    return players


def _prompt_hash(seats: Mapping[int, AgentSpec], lang: str) -> str | None:
    """The hash of the prompt set(s) the LLM seats use, for the header (None when no seat uses one)."""
    if not any(spec.kind in ("llm", "langchain") for spec in seats.values()):
        return None
    try:
        from arena.prompts import prompt_set_hash_for

        return prompt_set_hash_for(seats, lang)
    except Exception as exc:  # a missing or broken prompt set: one line, no traceback
        fail(f"prompt set: {exc}")


def _preflight(seats: dict[int, AgentSpec]) -> dict[int, AgentSpec]:
    """Probe each LLM agent once before the game (server up, key accepted) and record the model it reports."""
    if not any(spec.kind == "llm" for spec in seats.values()):
        return seats
    try:
        from arena.llm.preflight import preflight
    except ImportError as exc:
        fail(f"LLM seats need the llm extra (pip install -e '.[llm]'): {exc}")
    try:
        return asyncio.run(preflight(seats))
    except AgentError as exc:
        fail(str(exc))


def _summary(seats: Mapping[int, AgentSpec]) -> str:
    counts: dict[str, int] = {}
    for spec in seats.values():
        counts[spec.name] = counts.get(spec.name, 0) + 1
    return ", ".join(f"{n}× {name}" for name, n in counts.items())


def _drive(
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
) -> None:
    """Run the game with the live view; Ctrl-C leaves the transcript resumable, an internal error closes it. The
    players are closed on the game's loop, where their HTTP clients were made (`llm`: some seat calls a model)."""
    path = writer.path
    timeouts = dict.fromkeys(humans, human_timeout or HUMAN_TIMEOUT)
    printer = EventPrinter(console, game.rules)
    live_ok = not quiet and not humans and console.is_terminal

    def on_event(event: Event) -> None:
        if quiet or humans:
            return
        printer(event)
        if live is not None:
            live.update(status_line(game), refresh=True)

    live = Live(status_line(game), console=console, auto_refresh=False, transient=True) if live_ok else None
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
                    ),
                    players,
                    llm,
                )
            )
        printer.flush_votes()
        for seat in humans:  # what each human saw after his last decision: the end of the game
            human = players[seat]
            if isinstance(human, DelayedPlayer):
                human = human.inner
            if isinstance(human, HumanPlayer):
                human.show(view(game, seat))
    except KeyboardInterrupt as exc:
        writer.close()
        what = f"error: {exc}" if isinstance(exc, InputClosed) else "interrupted"
        typer.echo(f"\n{what}; the game is saved. Continue it with: arena resume {path}", err=True)
        raise typer.Exit(1 if isinstance(exc, InputClosed) else 130) from None
    except Exception as exc:  # an engine or orchestrator bug: record it, tell the user, no traceback
        writer.abort(f"{type(exc).__name__}: {exc}")
        writer.close()
        fail(f"the game stopped on an internal error ({type(exc).__name__}: {exc}); transcript: {path}", 1)
    writer.close()


async def _game(play: Coroutine[object, object, Game], players: Mapping[int, Player], llm: bool) -> None:
    """Play on this loop, then close the players on it. A model seat's HTTP client is made at its first call, on
    this loop (`LLMClient`): with aiohttp installed, the plain-JSON path the tournament workers use (`use_aiohttp`),
    whose session belongs to this loop and is closed here, also after Ctrl-C (the game's task is cancelled)."""
    try:
        if llm:
            from arena.llm.pool import use_aiohttp

            use_aiohttp()  # ARENA_HTTP_POOL=httpx (or no aiohttp) keeps the SDK's own path
        await play
    finally:
        play.close()  # not started if use_aiohttp failed: no "never awaited" warning
        await _close(players)


async def _close(players: Mapping[int, Player]) -> None:
    for player in players.values():
        with contextlib.suppress(Exception):  # closing is best effort
            await player.close()


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def failure_line(seat: int, refused: int, timeouts: int, errors: int, defaults: int) -> str | None:
    """`seat 3: 1 refused answer, 1 error, 1 default applied`: what went wrong for one seat (None if nothing)."""
    parts = [
        _count(refused, "refused answer", "refused answers") if refused else "",
        _count(timeouts, "timeout", "timeouts") if timeouts else "",
        _count(errors, "error", "errors") if errors else "",
        _count(defaults, "default applied", "defaults applied") if defaults else "",
    ]
    parts = [p for p in parts if p]
    return f"seat {seat}: {', '.join(parts)}" if parts else None


def _report(game: Game, stats: RunStats, path: Path | None, console: Console, quiet: bool) -> None:
    if not quiet:
        # the god view's deal, read like every other fact through the engine's view (moderator = seat 0)
        deal = next(e for e in visible_events(game, MODERATOR) if e.type is EventType.ROLES_DEALT)
        roles = "  ".join(f"#{seat} {role}" for seat, role in enumerate(deal.roles, start=1))
        console.print(Text(f"Roles: {roles}", style="dim"))
        for seat, c in sorted(stats.counters.items()):
            line = failure_line(seat, c.invalid, c.timeouts, c.errors, c.defaults)
            if line:
                console.print(Text(line, style="yellow"))
        result = "a draw" if game.winner == "draw" else f"{game.winner} wins"
        console.print(Text(f"{result} ({game.end_reason}) on day {game.day}", style="bold"))
        if path is not None:
            from arena.render.totals import totals_table

            table = totals_table(_totals(path))  # None for a game without model calls
            if table is not None:
                console.print(table)
    typer.echo(f"transcript: {path}")


def _totals(path: Path) -> dict[int, SeatTotals]:
    """The game's model-call totals, as its end record carries them."""
    try:
        end = load(path).end
    except TranscriptError:
        return {}
    return dict(end.totals) if end is not None else {}


# Options that `play` and `resume` share, declared once.
AgentsDir = Annotated[
    Path | None,
    typer.Option(
        help="A folder of agent definitions searched first (then ./agents, the user folder, the package examples)."
    ),
]
SignKeyEnv = Annotated[
    str | None,
    typer.Option(
        "--sign-key-env", envvar="ARENA_SIGN_KEY_ENV", help="Sign the transcript with the key in this variable."
    ),
]
AllowPipedHuman = Annotated[
    bool, typer.Option(help="Let a human seat read its answers from a pipe (tests, scripts).")
]
HumanTimeout = Annotated[
    float | None, typer.Option(help="Seconds a human seat has for one decision (default: no limit).", min=1)
]


def register(app: typer.Typer) -> None:
    """Add `play` and `resume` to `app`."""

    @app.command()
    def play(
        preset: Annotated[
            str | None,
            typer.Option("--preset", "-p", help="Rules preset: fiim (the default), club, classic, aurora, edge."),
        ] = None,
        rules_file: Annotated[
            Path | None, typer.Option("--rules", help="A rules file (TOML or YAML); may name a `base` preset.")
        ] = None,
        rule: Annotated[
            list[str] | None,
            typer.Option(
                "--rule", metavar="KEY=VALUE", help="Override one rule, e.g. voting.protocol=ballot. Repeatable."
            ),
        ] = None,
        seed: Annotated[int | None, typer.Option(help="Seed of the deal (random and printed if not given).")] = None,
        lang: Annotated[Lang, typer.Option(help="Language of the bots' speeches.")] = Lang.EN,
        out: Annotated[Path, typer.Option("--out", help="Directory for the transcript.")] = Path("transcripts"),
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the transcript path.")] = False,
        seat: Annotated[
            list[str] | None,
            typer.Option("--seat", metavar="WHO=AGENT", help=seat_help()),
        ] = None,
        timeout: Annotated[float, typer.Option(help="Seconds a seat has for one decision.", min=0.001)] = 60.0,
        max_reasks: Annotated[int, typer.Option(help="Re-asks after a refused answer before the default.", min=0)] = 2,
        agents_dir: AgentsDir = None,
        delay: Annotated[float, typer.Option(hidden=True, help="Seconds each seat waits before answering.")] = 0.0,
        sign_key_env: SignKeyEnv = None,
        allow_piped_human: AllowPipedHuman = False,
        human_timeout: HumanTimeout = None,
    ) -> None:
        """Play one game, live, and save its transcript under --out (default ./transcripts); the path is printed.

        With no options: the fiim preset, ten heuristic bots (bot:heuristic) and a random seed.
        """
        try:
            rules = load_rules(preset, rules_file, rule or None)
        except RulesError as exc:
            fail(str(exc))
        try:
            seats = parse_seat_specs(seat or [], rules.players, agents_dir)
        except (SeatSpecError, AgentError) as exc:
            fail(str(exc))
        check_human_seats(seats, allow_piped_human)
        seats = _preflight(seats)
        sign_key = _sign_key(sign_key_env)
        seed = seed if seed is not None else random.SystemRandom().randrange(1_000_000)
        console = Console(highlight=False)
        players = _build_players(seats, seed=seed, rules=rules, lang=lang.value, delay=delay)
        header = make_header(rules, seed, seats, lang=lang.value, prompt_set_hash=_prompt_hash(seats, lang.value))
        try:
            writer = TranscriptWriter.create(default_path(out, header), header, sign_key=sign_key)
        except (TranscriptError, OSError) as exc:
            fail(str(exc))
        if not quiet:
            console.print(Text(f"{rules.name} · seed {seed} · {_summary(seats)}", style="bold"))
        _play_out(
            Game(rules, seed), players, writer, seats, RunStats(), console, quiet, timeout, max_reasks, human_timeout
        )

    @app.command()
    def resume(
        file: Annotated[Path, typer.Argument(help="An unfinished transcript (.jsonl).")],
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the transcript path.")] = False,
        timeout: Annotated[float, typer.Option(help="Seconds a seat has for one decision.", min=0.001)] = 60.0,
        max_reasks: Annotated[int, typer.Option(help="Re-asks after a refused answer before the default.", min=0)] = 2,
        delay: Annotated[float, typer.Option(hidden=True, help="Seconds each seat waits before answering.")] = 0.0,
        agents_dir: AgentsDir = None,
        seat: Annotated[
            list[str] | None,
            typer.Option("--seat", help="Play seat N with a local agent instead of the recorded one: N=AGENT."),
        ] = None,
        agents_from_header: Annotated[
            bool,
            typer.Option(
                "--agents-from-header", help="Use the header's agent specs where no local definition matches."
            ),
        ] = False,
        prompt_folder: Annotated[
            list[Path] | None,
            typer.Option("--prompt-folder", help="A prompt set folder the header may name. Repeatable."),
        ] = None,
        sign_key_env: SignKeyEnv = None,
        allow_piped_human: AllowPipedHuman = False,
        human_timeout: HumanTimeout = None,
    ) -> None:
        """Continue a game whose process died, from its transcript, appending to the same file."""
        transcript, game = _load_for_resume(file)
        header = transcript.header
        sign_key = _sign_key(sign_key_env)
        if header.signed and sign_key is None:
            # unsigned, its end record would fail verify ("header says signed"): refuse before anything runs
            fail(
                f"{file}: this game is signed; resume it with --sign-key-env VAR, the variable holding the key it "
                "was signed with (or set ARENA_SIGN_KEY_ENV)"
            )
        seats = _trusted_seats(transcript, agents_dir, seat or [], agents_from_header, prompt_folder or [])
        check_human_seats(seats, allow_piped_human)
        seats = _preflight(seats)
        players = _build_players(seats, seed=header.seed, rules=game.rules, lang=header.lang, delay=delay)
        console = Console(highlight=False)
        if not quiet:
            console.print(
                Text(f"resuming {file} · day {game.day} {game.phase.value} · {len(game.events)} events", style="bold")
            )
        stats = RunStats(counters=counters_from_inputs(transcript.inputs, transcript.calls))
        try:
            writer = TranscriptWriter.append_to(transcript, sign_key=sign_key)
            writer.resumed(seats)
        except (TranscriptError, OSError) as exc:
            fail(str(exc))
        _play_out(game, players, writer, seats, stats, console, quiet, timeout, max_reasks, human_timeout)


def _play_out(
    game: Game,
    players: dict[int, Player],
    writer: TranscriptWriter,
    seats: dict[int, AgentSpec],
    stats: RunStats,
    console: Console,
    quiet: bool,
    timeout: float,
    max_reasks: int,
    human_timeout: float | None = None,
) -> None:
    """Play `game` to its end (a new one, or one rebuilt for resume) and report the result and the path."""
    humans = [s for s, spec in seats.items() if spec.kind == "human"]
    _drive(
        game,
        players,
        writer,
        console=console,
        quiet=quiet,
        timeout=timeout,
        max_reasks=max_reasks,
        stats=stats,
        humans=humans,
        human_timeout=human_timeout,
        llm=any(spec.kind == "llm" for spec in seats.values()),
    )
    _report(game, stats, writer.path, console, quiet)


def _trusted_seats(
    transcript: Transcript, agents_dir: Path | None, overrides: list[str], from_header: bool, folders: list[Path]
) -> dict[int, AgentSpec]:
    """The seats of a resumed game from local definitions (`arena/trust.py`): the header is never trusted."""
    from arena.trust import TrustError, parse_overrides, resume_seats

    recorded = {entry.seat: entry.agent for entry in transcript.header.seats}
    try:
        chosen = parse_overrides(overrides, len(recorded), agents_dir)
        seats = resume_seats(recorded, agents_dir, overrides=chosen, from_header=from_header, prompt_folders=folders)
        for spec in seats.values():
            check_ready(spec)
    except (TrustError, AgentError) as exc:
        fail(str(exc))
    return seats


def _sign_key(variable: str | None) -> bytes | None:
    """The HMAC key for signing, read from the named environment variable (never from a file or the header)."""
    if variable is None:
        return None
    from arena.transcript import sign_key_from_env

    try:
        return sign_key_from_env(variable)
    except TranscriptError as exc:
        fail(str(exc))


def _load_for_resume(file: Path) -> tuple[Transcript, Game]:
    """Load (dropping a torn last line), refuse finished games, and rebuild the game from the inputs."""
    try:
        transcript = load(file, repair=True)
    except TranscriptError as exc:
        fail(str(exc), 1 if exc.damaged else 2)
    if transcript.chain == "broken":
        fail(f"{file}: tampered: {transcript.chain_error}; run `arena verify {file}`", 1)
    if transcript.status == "complete":
        fail(f"{file}: the game is already complete; nothing to resume", 1)
    if transcript.status == "aborted":
        error = transcript.end.error if transcript.end else ""
        fail(f"{file}: the game was aborted by an internal error ({error}); it cannot be resumed", 1)
    try:
        game = transcript.rebuild()
    except TranscriptError as exc:
        fail(str(exc))
    for recorded, replayed in zip(transcript.events, game.events, strict=False):
        if recorded != replayed:
            fail(f"{file}: event seq {recorded.seq} disagrees with the replay; run `arena verify {file}`", 1)
    if len(transcript.events) > len(game.events):
        fail(f"{file}: the file holds events the replay does not produce; run `arena verify {file}`", 1)
    if transcript.torn is not None:
        typer.echo(f"note: dropped a torn last line ({len(transcript.torn)} characters)", err=True)
    return transcript, game
