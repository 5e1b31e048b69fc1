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
from arena.llm.rebuild import seat_prompt
from arena.render.phrases import clean
from arena.transcript import TranscriptError, load

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


def at_note(at: int | None, shown: int, total: int) -> str | None:
    """What `--at` was taken to mean, when it is not the point asked for: past the end, or between decisions."""
    if at is None or shown == at + 1:
        return None
    if at >= total:
        return (
            f"--at {at} is past the end of the game (events 0 to {total - 1}); showing the end, after event {shown - 1}"
        )
    return (
        f"no decision was pending right after event {at}; showing the next point where one was, "
        f"right after event {shown - 1}"
    )


def prompt(
    file: Annotated[Path, typer.Argument(help="a transcript (.jsonl)")],
    seat: Annotated[int, typer.Option("--seat", help="the seat whose prompt to print")],
    at: Annotated[
        int | None,
        typer.Option("--at", min=0, help="right after this event seq (default: the seat's last call)"),
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
    """Print the messages seat N was sent (or would be sent) at a point of the game."""
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
        result = seat_prompt(transcript, seat, at, rebuild=rebuild, prompt_set=prompt_set, prompt_folders=folders)
    except (TranscriptError, ValueError, OSError, RecursionError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(BAD_INPUT) from None
    if as_json:
        typer.echo(_json(result.messages))
    else:
        typer.echo(_render(result.messages))
    where = f"call {result.call}" if result.sent else "rebuilt from the game"
    typer.echo(
        f"# seat {seat}, {'sent' if result.sent else 'would be sent'} after {result.events} events ({where})", err=True
    )
    note = at_note(at, result.events, len(transcript.events))
    if note:
        typer.echo(f"# note: {note}", err=True)
    if result.prompt_set_changed:
        typer.echo("# warning: the prompt set changed since this game; the rebuilt turn uses the current one", err=True)


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
    app.command("prompt")(prompt)
