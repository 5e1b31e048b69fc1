"""`arena show` and `arena export`: review a saved game, as the moderator saw it or exactly as one seat saw it.

Why a module of its own: reviewing is read-only and must never disturb a transcript. Both commands load the file,
rebuild the game by replaying its inputs through a fresh engine (so every view comes from the engine's own `view`),
and draw it with `arena.render`. A bad input (no such file, a foreign or broken transcript, a seat out of range) is
one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from arena.engine import MODERATOR, Game
from arena.render.console import make_console, render
from arena.render.html import export_html
from arena.transcript import Transcript, TranscriptError, load

BAD_INPUT = 2


@dataclass(frozen=True)
class Review:
    """A loaded transcript with its game rebuilt: everything the renderers need."""

    transcript: Transcript
    game: Game
    names: dict[int, str]
    call_positions: list[int] | None


def fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(BAD_INPUT)


def open_review(file: Path) -> Review:
    """Load and rebuild, or exit 2 with the reason. A torn last line (a crashed writer) is dropped with a warning."""
    if not file.exists():
        fail(f"{file}: no such file")
    if file.is_dir():
        fail(f"{file}: is a directory, not a transcript")
    try:
        transcript = load(file, repair=True)
        game = transcript.rebuild()
    except TranscriptError as exc:
        fail(str(exc))
    except Exception as exc:  # an engine refusal or bug while replaying: still one clear line
        fail(f"{file}: cannot rebuild the game: {type(exc).__name__}: {exc}")
    if transcript.torn is not None:
        typer.echo(f"warning: {file}: the last line is torn (the writer stopped mid-line); it is left out", err=True)
    recorded = transcript.events
    if game.events[: len(recorded)] != recorded:
        first = next(i for i, (a, b) in enumerate(zip(game.events, recorded, strict=False)) if a != b)
        typer.echo(
            f"warning: {file}: the replayed game differs from the recorded events from seq {first}; "
            "showing the replay (run `arena verify`)",
            err=True,
        )
    names = {entry.seat: entry.agent.name for entry in transcript.header.seats}
    positions = transcript.call_positions if len(transcript.call_positions) == len(transcript.calls) else None
    return Review(transcript, game, names, positions)


def check_seat(seat: int | None, game: Game) -> int:
    if seat is None:
        return MODERATOR
    if not 1 <= seat <= game.n:
        fail(f"seat {seat} is out of range: this game has seats 1 to {game.n} (leave out --seat for the god view)")
    return seat


def show(
    file: Annotated[Path, typer.Argument(help="A transcript (.jsonl) written by `arena play`.")],
    seat: Annotated[
        int | None, typer.Option("--seat", "-s", help="Show only what seat N saw (default: the god view).")
    ] = None,
    reasoning: Annotated[
        bool, typer.Option("--reasoning", help="Show the seats' private reasoning (a seat view: its own only).")
    ] = False,
    calls: Annotated[bool, typer.Option("--calls", help="Show the model calls (a seat view: its own only).")] = False,
) -> None:
    """Print a game by day and night: speeches, nominations, vote tables, night results and the end."""
    review = open_review(file)
    viewer = check_seat(seat, review.game)
    console = make_console()
    render(
        review.game,
        viewer,
        review.transcript.calls,
        review.transcript.inputs,
        reasoning=reasoning,
        show_calls=calls,
        names=review.names,
        status=review.transcript.status,
        call_positions=review.call_positions,
        console=console,
    )
    from arena.render.totals import totals_table, transcript_totals

    table = totals_table(transcript_totals(review.transcript), viewer)
    if table is not None:
        console.print(table)


def export(
    file: Annotated[Path, typer.Argument(help="A transcript (.jsonl) written by `arena play`.")],
    html: Annotated[Path, typer.Option("--html", help="Write one self-contained HTML page here.")],
    seat: Annotated[
        int | None,
        typer.Option("--seat", "-s", help="Put only seat N's view in the page (safe to give to that player)."),
    ] = None,
) -> None:
    """Write one self-contained HTML page: god view and every seat's view, vote tables, who was alive."""
    review = open_review(file)
    viewer = check_seat(seat, review.game)
    if html.resolve() == file.resolve():
        fail(f"{html}: this is the transcript itself; choose another output file")
    if not html.parent.is_dir():
        fail(f"{html.parent}: no such directory")
    page = export_html(
        review.game,
        review.transcript.calls,
        review.transcript.inputs,
        seat=None if viewer == MODERATOR else viewer,
        names=review.names,
        status=review.transcript.status,
        call_positions=review.call_positions,
    )
    try:
        html.write_text(page, encoding="utf-8")
    except OSError as exc:
        fail(f"{html}: cannot write: {exc.strerror}")
    typer.echo(str(html))


def register(app: typer.Typer) -> None:
    """Add `show` and `export` to `app`."""
    app.command("show")(show)
    app.command("export")(export)
