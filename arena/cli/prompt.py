"""`arena prompt`: print exactly the messages an LLM seat was sent (or would be sent) at a point of a saved game.

Researchers audit prompts with it; the leak and injection tests read every seat's prompts through it. The work is
in `arena/llm/rebuild.py`; this module parses options, prints, and turns bad input into one line and exit code 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from arena.llm.conversation import Message
from arena.llm.rebuild import Point, decision_point, events_after_inputs, seat_prompt
from arena.render.phrases import clean
from arena.transcript import Transcript, TranscriptError, load

BAD_INPUT = 2


def _render(messages: list[Message]) -> str:
    """The messages as text for a terminal. Their content is untrusted (players' words, models' raw answers), so
    control, bidi and invisible characters are dropped as `arena show` drops them (newlines and tabs kept)."""
    parts = []
    for message in messages:
        parts.append(f"----- {clean(str(message.get('role', '?')))} -----")
        content = message.get("content")
        if content:
            parts.append(clean(str(content)))
        if message.get("tool_calls"):
            parts.append(clean(json.dumps(message["tool_calls"], ensure_ascii=False)))
    return "\n".join(parts)


def _json(messages: list[Message]) -> str:
    """The messages as JSON, exact: a character `clean` would drop is written as its `\\u` escape instead (only
    string contents can hold one), so the terminal gets no control sequence and a reader loses nothing."""
    text = json.dumps(messages, ensure_ascii=False, indent=1)
    return "".join(ch if ch in "\n\t" or clean(ch) == ch else json.dumps(ch)[1:-1] for ch in text)


def at_note(at: int | None, point: Point) -> str | None:
    """What `--at` was taken to mean, when it is not the point asked for: the seat's next decision."""
    if not point.asked:
        return "the seat has been asked for no decision yet in this file: shown, what it has seen, with none"
    if at is None or not point.moved:
        return None
    return (
        f"the seat was not asked for a decision right after its event #{at}; showing its next one, right after its "
        f"event #{point.seen - 1}"
    )


def prompt(
    file: Annotated[Path, typer.Argument(help="a transcript (.jsonl)")],
    seat: Annotated[int, typer.Option("--seat", help="the seat whose prompt to print")],
    at: Annotated[
        int | None,
        typer.Option(
            "--at",
            min=0,
            help="right after the seat's own event #N, the number its prompt shows as [#N] (default: its last call)",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the messages as a JSON list")] = False,
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="rebuild with the current prompt set even where a call was recorded")
    ] = False,
    prompt_set: Annotated[
        str | None,
        typer.Option("--prompt-set", help="rebuild with this prompt set (a shipped name or a folder you trust)"),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="read a file whose hash chain is broken (edited)")] = False,
) -> None:
    """Print the messages seat N was sent (or would be sent) at one of its decisions."""
    try:
        transcript = load(file, repair=True)
        if transcript.chain == "broken":
            if not force:
                typer.echo(f"error: {file}: tampered: {transcript.chain_error}; `--force` reads it anyway", err=True)
                raise typer.Exit(1)
            typer.echo(f"warning: {file}: TAMPERED FILE: {transcript.chain_error}", err=True)
        transcript.rebuild()  # inputs the engine cannot replay: one TranscriptError line, before any prompt work
        players = transcript.rules.players
        if not 1 <= seat <= players:
            raise ValueError(f"seat {seat} is not at this table (seats 1 to {players})")
        folders = [Path(prompt_set)] if prompt_set is not None and Path(prompt_set).is_dir() else []
        recorded = at is None and not rebuild and any(c.seat == seat for c in transcript.calls)
        point = None if recorded else decision_point(transcript, seat, at)  # the seat's numbering
        result = seat_prompt(transcript, seat, rebuild=rebuild, prompt_set=prompt_set, prompt_folders=folders,
                             inputs=point.inputs if point is not None else None)  # fmt: skip
        seen = point.seen if point is not None else _seen(transcript, seat, result.events)
    except (TranscriptError, ValueError, OSError, RecursionError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(BAD_INPUT) from None
    if as_json:
        typer.echo(_json(result.messages))
    else:
        typer.echo(_render(result.messages))
    where = f"call {result.call}" if result.sent else "rebuilt from the game"
    typer.echo(
        f"# seat {seat}, {'sent' if result.sent else 'would be sent'} right after its event #{seen - 1} ({where})",
        err=True,
    )
    note = at_note(at, point) if point is not None else None
    if note:
        typer.echo(f"# note: {note}", err=True)
    if result.prompt_set_changed:
        typer.echo("# warning: the prompt set changed since this game; the rebuilt turn uses the current one", err=True)


def _seen(transcript: Transcript, seat: int, events: int) -> int:
    """How many of its own events `seat` had seen when the game held `events` events."""
    totals, mine = events_after_inputs(transcript, seat)
    return next((n for total, n in zip(totals, mine, strict=True) if total >= events), mine[-1])


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("prompt")(prompt)
