"""`arena show`: a game drawn in the terminal with rich, for the god view or exactly what one seat saw.

Why it exists: a transcript is the product's record, and reviewing a game means reading it by day and night: who
said what, who nominated whom, how everyone voted, what the night brought, and (from one seat's chair) only what
that seat could know. Everything drawn comes from a `Story` (`story.py`), which is built from the engine's `view`.

Player text is data, never markup: every piece of text is a `rich.text.Text` (no markup parsing, no emoji codes, no
highlighting), and each chapter is a two-column grid whose left column holds the marker of who is talking (`»` a
player, `•` the moderator, `♠` the black team, `◆` a private event, `⚖` moderator-only), so a speech that wraps or
contains newlines stays inside its own column and cannot pass for a moderator line.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import IO

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from arena.engine import MODERATOR, Game, Input
from arena.players.base import ModelCall
from arena.render.story import Chapter, Line, Note, Span, Story, VoteRound, build_story, clean, seat_label

STYLES: dict[str, str] = {
    "plain": "",
    "seat": "bold cyan",
    "role": "bold magenta",
    "dim": "dim",
    "good": "green",
    "bad": "bold red",
    "label": "bold",
    "black": "bold white on grey23",
    "private": "yellow",
    "moderator": "bold yellow",
    "vote": "cyan",
    "warn": "dark_orange",
}
MARKERS = {"public": "•", "black": "♠", "private": "◆", "moderator": "⚖"}
VOTE_MARKS = {"yes": "●", "default": "○", "no": "✗", "abstain": "·", "aye": "✓"}
YES_NO = {"yes": "aye", "no": "no"}  # a yes/no round draws ✓ and ✗
CALL_TEXT_LIMIT = 600


def _text(spans: Sequence[Span]) -> Text:
    out = Text()
    for span in spans:
        out.append(span.text, style=STYLES.get(span.style, ""))
    return out


def _tag(line: Line, viewer: int) -> Text:
    """Who could see a non-public line: the god view says to whom, a seat view says it was for the viewer."""
    if line.audience == "public":
        return Text()
    if line.audience == "moderator":
        return Text("[moderator only] ", style="bold yellow")
    if line.audience == "black":
        return Text("[black team] ", style="bold white on grey23")
    if viewer == MODERATOR:
        who = seat_label(line.speaker) if line.speaker is not None else "one seat"
        return Text(f"[to {who}] ", style="yellow")
    return Text("[only you] ", style="yellow")


def _line(line: Line, viewer: int) -> tuple[Text, Text]:
    marker = "»" if line.event == "speech" else MARKERS[line.audience]
    body = _tag(line, viewer)
    body.append_text(_text(line.spans))
    if line.quote is not None:
        body.append(" ")
        body.append(line.quote, style="italic" if line.quote != "(silence)" else "dim italic")
    return Text(marker, style="dim" if line.audience == "public" else "yellow"), body


def _cell(mark: str | None) -> Text:
    if mark is None:
        return Text("")
    style = {"yes": "bold green", "aye": "bold green", "default": "green", "no": "red"}.get(mark, "dim")
    return Text(VOTE_MARKS.get(mark, mark), style=style)


def vote_table(round_: VoteRound) -> Table:
    """Candidates × voters for one round (● a vote, ○ counted by default); a yes/no round (lift, acquittal,
    threshold) is one row of ✓ and ✗."""
    table = Table(title=Text(round_.title, style="bold"), title_justify="left", show_edge=False, pad_edge=False)
    table.add_column(Text(""), no_wrap=True)
    voters = round_.voters
    for v in voters:
        table.add_column(Text(seat_label(v), style="cyan"), justify="center", no_wrap=True)
    table.add_column(Text("Σ", style="bold"), justify="right")
    for row in round_.rows:
        if round_.yes_no:
            label = Text("yes / no", style="bold")
            cells = [_cell(YES_NO.get(round_.marks.get((None, v)) or "")) for v in voters]
        else:
            label = Text(seat_label(row), style="bold cyan") if row is not None else Text("abstain", style="dim")
            cells = [_cell(round_.marks.get((row, v))) for v in voters]
        table.add_row(label, *cells, Text(str(round_.row_total(row)), style="bold"))
    if not voters:
        table.caption = Text("no votes were cast", style="dim")
    return table


def _note(note: Note, show_calls: bool) -> tuple[Text, RenderableType]:
    if note.kind == "reasoning":
        body = Text()
        body.append(f"reasoning of {seat_label(note.seat)}", style="bold blue")
        body.append(f" ({note.request or 'decision'}): ", style="blue")
        body.append(note.text, style="italic blue")
        return Text("✎", style="blue"), body
    body = Text()
    body.append(f"model call of {seat_label(note.seat)}", style="bold magenta")
    body.append(f" ({note.request or 'decision'}): ", style="magenta")
    body.append(note.text, style="magenta")
    if show_calls and note.call is not None:
        raw = clean(note.call.raw)
        if len(raw) > CALL_TEXT_LIMIT:
            raw = raw[:CALL_TEXT_LIMIT] + f"… ({len(raw)} characters)"
        body.append(f"\n{len(note.call.messages)} new messages; reply: ", style="dim")
        body.append(raw or "(empty)", style="dim italic")
    return Text("⚙", style="magenta"), body


def chapter(chapter_: Chapter, viewer: int, *, reasoning: bool, show_calls: bool) -> RenderableType:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=1, no_wrap=True)
    grid.add_column(ratio=1)
    for item in chapter_.items:
        if isinstance(item, Line):
            grid.add_row(*_line(item, viewer))
        elif isinstance(item, VoteRound):
            grid.add_row(Text("☐", style="cyan"), vote_table(item))
        elif (item.kind == "reasoning" and reasoning) or (item.kind == "call" and show_calls):
            grid.add_row(*_note(item, show_calls))
    return Group(Rule(Text(chapter_.title, style="bold"), align="left"), grid)


def roster(story: Story) -> Table:
    table = Table(title=Text("Seats", style="bold"), title_justify="left", show_edge=False)
    table.add_column(Text("seat"), no_wrap=True)
    if any(s.name for s in story.seats):
        table.add_column(Text("player"))
    table.add_column(Text("role (as far as this view knows)" if story.viewer != MODERATOR else "role"))
    table.add_column(Text("left the game"))
    for s in story.seats:
        cells = [Text(seat_label(s.seat), style="bold cyan")]
        if any(x.name for x in story.seats):
            cells.append(Text(s.name))
        you = " (you)" if s.seat == story.viewer else ""
        cells.append(Text(f"{s.role}{you}", style="magenta") if s.role else Text("?", style="dim"))
        cells.append(Text(s.fate or "", style="red"))
        table.add_row(*cells)
    return table


def timeline(story: Story) -> Table:
    """Who was alive in each phase: ● alive, ✝ left in that phase (with how), blank afterwards."""
    table = Table(title=Text("Who was alive", style="bold"), title_justify="left", show_edge=False, pad_edge=False)
    table.add_column(Text("seat"), no_wrap=True)
    short = [t.replace("Night ", "N").replace("Day ", "D") for t in story.timeline_columns]
    for title in short:
        table.add_column(Text(title), justify="center", no_wrap=True)
    for seat, row in story.timeline.items():
        cells = []
        for cell in row:
            if cell == "alive":
                cells.append(Text("●", style="green"))
            elif cell.startswith("out:"):
                cells.append(Text("✝ " + cell[4:], style="bold red"))
            else:
                cells.append(Text(""))
        table.add_row(Text(seat_label(seat), style="cyan"), *cells)
    return table


def header(story: Story) -> Panel:
    body = Text()
    body.append(f"Rules {story.rules} · {story.players} players", style="bold")
    if story.seed is not None:
        body.append(f" · seed {story.seed}")
    if story.status:
        body.append(f" · transcript {story.status}")
    if story.viewer != MODERATOR:
        body.append(f"\nYou are {seat_label(story.viewer)}, ")
        body.append(story.role or "?", style="bold magenta")
        if story.side == "mafia_ally":
            body.append(" (ally of the mafia)")
        if story.teammates:
            known = {s.seat: s.role for s in story.seats}
            body.append(" · your black team: ")
            for i, mate in enumerate(story.teammates):
                body.append(", " if i else "")
                body.append(seat_label(mate), style="bold cyan")
                body.append(f" {known.get(mate) or ''}".rstrip(), style="magenta")
    if story.winner:
        body.append("\nResult: ", style="bold")
        body.append(f"{story.winner} wins", style="bold green")
        body.append(f" ({story.end_reason})" if story.end_reason else "")
    else:
        body.append("\nThe game is not over.", style="dim")
    return Panel(body, title=Text(story.title, style="bold"), title_align="left")


def renderables(story: Story, *, reasoning: bool = False, show_calls: bool = False) -> list[RenderableType]:
    out: list[RenderableType] = [header(story), roster(story)]
    out += [chapter(c, story.viewer, reasoning=reasoning, show_calls=show_calls) for c in story.chapters]
    out.append(timeline(story))
    return out


def render(
    game: Game,
    viewer: int,
    calls: Sequence[ModelCall] = (),
    inputs: Sequence[Input] = (),
    *,
    reasoning: bool = False,
    show_calls: bool = False,
    names: Mapping[int, str] | None = None,
    status: str | None = None,
    console: Console | None = None,
) -> None:
    """Print the game as `viewer` (1..N, or MODERATOR) saw it. Raises ValueError for a seat out of range."""
    story = build_story(
        game, viewer, calls, inputs, reasoning=reasoning, with_calls=show_calls, names=names, status=status
    )
    console = console or make_console()
    for item in renderables(story, reasoning=reasoning, show_calls=show_calls):
        console.print(item)


def make_console(file: IO[str] | None = None, width: int | None = None, color: bool | None = None) -> Console:
    """A console that never interprets text: no markup, no emoji codes, no highlighting."""
    return Console(
        file=file,
        width=width,
        markup=False,
        emoji=False,
        highlight=False,
        color_system=None if color is False else "auto",
        no_color=color is False,
    )


def render_text(
    game: Game,
    viewer: int,
    calls: Sequence[ModelCall] = (),
    inputs: Sequence[Input] = (),
    *,
    reasoning: bool = False,
    show_calls: bool = False,
    names: Mapping[int, str] | None = None,
    width: int = 160,
) -> str:
    """The same drawing as plain text (no colours), e.g. for tests and for piping."""
    buffer = io.StringIO()
    console = make_console(buffer, width, color=False)
    render(game, viewer, calls, inputs, reasoning=reasoning, show_calls=show_calls, names=names, console=console)
    return buffer.getvalue()
