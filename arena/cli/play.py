"""`arena play` and `arena resume`: run a game live, continue a crashed game (`arena verify` is in verify.py).

Every user error (an unknown preset, a bad rules file, a bad seat spec, a missing agent, an unreadable transcript)
ends with one `error:` line and exit code 2, never a traceback. A game stopped with Ctrl-C stays resumable.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.text import Text

from arena.agents import AgentError, AgentSpec, check_ready
from arena.cli.game import drive, report
from arena.cli.options import AgentsDir, AllowPipedHuman, HumanTimeout, Lang, SignKeyEnv, fail, read_sign_key
from arena.cli.remote import RemoteHost, RemotePort, RemoteWait, remote_table
from arena.cli.seats import (
    SeatSpecError,
    build_players,
    check_human_seats,
    parse_seat_specs,
    preflight_seats,
    prompt_hash,
    seat_help,
    seats_summary,
)
from arena.engine import Game, RulesError, load_rules
from arena.orchestrator import RunStats, counters_from_inputs
from arena.players.base import Player
from arena.seeds import draw_seed
from arena.transcript import Transcript, TranscriptError, TranscriptWriter, default_path, load, make_header

BOT_TIMEOUT = 60.0  # seconds a seat without a model has for one decision, unless --timeout
TIMEOUT_HELP = (
    "Seconds a seat has for one decision. Default: a model seat's agent timeout_s times its attempts "
    f"(retries + 1), any other seat {BOT_TIMEOUT:g}."
)


def interruptible() -> None:
    """Make Ctrl-C and `kill -INT` stop the game, saved and resumable, even when the shell started this process with
    SIGINT ignored (`arena play &` in a script: no job control, so background jobs ignore SIGINT)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def decision_timeouts(seats: Mapping[int, AgentSpec], timeout: float | None) -> tuple[float, dict[int, float]]:
    """The decision deadline for every seat and the per-seat ones: `--timeout` for all when given, else each model
    seat's from its agent (every attempt may take `timeout_s`: a slow local model is not cut off by a default meant
    for bots) and `BOT_TIMEOUT` for the rest."""
    if timeout is not None:
        return timeout, {}
    models = {s: spec.timeout_s * (spec.retries + 1) for s, spec in seats.items() if spec.kind in ("llm", "langchain")}
    return BOT_TIMEOUT, models


if TYPE_CHECKING:
    from arena.remote.server import RemoteTable


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
        seed: Annotated[
            int | None, typer.Option(help="Seed of the deal (else 128 random bits, printed with the roles at the end).")
        ] = None,
        lang: Annotated[Lang, typer.Option(help="Language of the bots' speeches and of the live feed.")] = Lang.EN,
        out: Annotated[Path, typer.Option("--out", help="Directory for the transcript.")] = Path("transcripts"),
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the transcript path.")] = False,
        seat: Annotated[
            list[str] | None,
            typer.Option("--seat", metavar="WHO=AGENT", help=seat_help()),
        ] = None,
        timeout: Annotated[float | None, typer.Option(help=TIMEOUT_HELP, min=0.001)] = None,
        max_reasks: Annotated[int, typer.Option(help="Re-asks after a refused answer before the default.", min=0)] = 2,
        agents_dir: AgentsDir = None,
        delay: Annotated[float, typer.Option(hidden=True, help="Seconds each seat waits before answering.")] = 0.0,
        sign_key_env: SignKeyEnv = None,
        allow_piped_human: AllowPipedHuman = False,
        human_timeout: HumanTimeout = None,
        remote_host: RemoteHost = "127.0.0.1",
        remote_port: RemotePort = 0,
        remote_wait: RemoteWait = 120.0,
    ) -> None:
        """Play one game, live, and save its transcript under --out (default ./transcripts); the path is printed.

        With no options: the fiim preset, ten heuristic bots (bot:heuristic) and a random seed.
        """
        interruptible()
        try:
            rules = load_rules(preset, rules_file, rule or None)
        except RulesError as exc:
            fail(str(exc))
        try:
            seats = parse_seat_specs(seat or [], rules.players, agents_dir)
        except (SeatSpecError, AgentError) as exc:
            fail(str(exc))
        check_human_seats(seats, allow_piped_human)
        seed = seed if seed is not None else draw_seed()  # 128 random bits: no seat can search for the deal
        seats = preflight_seats(seats, lambda found: check_window(found, Game(rules, seed), lang.value))
        sign_key = read_sign_key(sign_key_env)
        console = Console(highlight=False)
        remote = remote_table(
            seats,
            rules,
            lang=lang.value,
            host=remote_host,
            port=remote_port,
            timeout=timeout if timeout is not None else BOT_TIMEOUT,
        )
        players = build_players(seats, seed=seed, rules=rules, lang=lang.value, delay=delay, remote=remote)
        header = make_header(rules, seed, seats, lang=lang.value, prompt_set_hash=prompt_hash(seats, lang.value))
        try:
            writer = TranscriptWriter.create(default_path(out, header), header, sign_key=sign_key)
        except (TranscriptError, OSError) as exc:
            fail(str(exc))
        if remote is not None:
            remote.record = writer.exchange
        if not quiet:
            # the seed gives every card away: a person at this terminal sees it only at the end
            ru = lang.value == "ru"
            hidden = "сид в конце игры" if ru else "seed at the end"
            shown = hidden if any(s.kind == "human" for s in seats.values()) else f"{'сид' if ru else 'seed'} {seed}"
            console.print(Text(f"{rules.name} · {shown} · {seats_summary(seats)}", style="bold"))
        _play_out(
            Game(rules, seed), players, writer, seats, RunStats(), console, quiet, timeout, max_reasks, human_timeout,
            remote, remote_wait,
        )  # fmt: skip

    @app.command()
    def resume(
        file: Annotated[Path, typer.Argument(help="An unfinished transcript (.jsonl).")],
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the transcript path.")] = False,
        timeout: Annotated[float | None, typer.Option(help=TIMEOUT_HELP, min=0.001)] = None,
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
        remote_host: RemoteHost = "127.0.0.1",
        remote_port: RemotePort = 0,
        remote_wait: RemoteWait = 120.0,
    ) -> None:
        """Continue a game whose process died, from its transcript, appending to the same file."""
        interruptible()
        transcript, game = load_for_resume(file)
        header = transcript.header
        sign_key = read_sign_key(sign_key_env)
        if header.signed and sign_key is None:
            # unsigned, its end record would fail verify ("header says signed"): refuse before anything runs
            fail(
                f"{file}: this game is signed; resume it with --sign-key-env VAR, the variable holding the key it "
                "was signed with (or set ARENA_SIGN_KEY_ENV)"
            )
        seats = _trusted_seats(transcript, agents_dir, seat or [], agents_from_header, prompt_folder or [])
        check_human_seats(seats, allow_piped_human)
        seats = preflight_seats(seats, lambda found: check_window(found, game, header.lang))
        remote = remote_table(
            seats,
            game.rules,
            lang=header.lang,
            host=remote_host,
            port=remote_port,
            timeout=timeout if timeout is not None else BOT_TIMEOUT,
        )
        players = build_players(seats, seed=header.seed, rules=game.rules, lang=header.lang, delay=delay, remote=remote)
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
        if remote is not None:
            remote.record = writer.exchange
        _play_out(
            game, players, writer, seats, stats, console, quiet, timeout, max_reasks, human_timeout, remote, remote_wait
        )


def check_window(seats: dict[int, AgentSpec], game: Game, lang: str) -> None:
    """Refuse, before any call, a model whose context window cannot hold a seat's first turn (arena/llm/window.py)."""
    if not any(spec.context_tokens for spec in seats.values()):
        return
    from arena.llm.window import check_windows

    try:
        check_windows(seats, game, lang)
    except AgentError as exc:
        fail(str(exc))


def _play_out(
    game: Game,
    players: dict[int, Player],
    writer: TranscriptWriter,
    seats: dict[int, AgentSpec],
    stats: RunStats,
    console: Console,
    quiet: bool,
    timeout: float | None,
    max_reasks: int,
    human_timeout: float | None = None,
    remote: RemoteTable | None = None,
    remote_wait: float = 120.0,
) -> None:
    """Play `game` to its end (a new one, or one rebuilt for resume) and report the result and the path."""
    humans = [s for s, spec in seats.items() if spec.kind == "human"]
    default, per_seat = decision_timeouts(seats, timeout)
    drive(
        game,
        players,
        writer,
        console=console,
        quiet=quiet,
        timeout=default,
        seat_timeouts=per_seat,
        max_reasks=max_reasks,
        stats=stats,
        humans=humans,
        human_timeout=human_timeout,
        llm=any(spec.kind == "llm" for spec in seats.values()),
        remote=remote,
        remote_wait=remote_wait,
    )
    report(game, stats, writer.path, console, quiet, writer.header.lang)


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


def load_for_resume(file: Path) -> tuple[Transcript, Game]:
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
