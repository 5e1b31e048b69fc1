"""`arena show`: a game drawn in the terminal with rich, for the god view or exactly what one seat saw.

Why it exists: a transcript is the product's record, and reviewing a game means reading it by day and night: who
said what, who nominated whom, how everyone voted, what the night brought, and (from one seat's chair) only what
that seat could know. Everything drawn comes from a `Story` (`story.py`), which is built from the engine's `view`.

Player text is data, never markup: every piece of text is a `rich.text.Text` (no markup parsing, no emoji codes, no
highlighting), and every line of a chapter starts with the marker of who is talking (`»` a
player, `•` the moderator, `♠` the black team, `◆` a private event, `⚖` moderator-only), so a speech that wraps or
contains newlines stays indented behind a `┆` gutter (`Hanging`) and cannot pass for a moderator line.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import IO

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.panel import Panel
from rich.rule import Rule
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from arena.engine import MODERATOR, Game, Input
from arena.players.base import ModelCall
from arena.render import labels
from arena.render.labels import label
from arena.render.notes import Note
from arena.render.phrases import Span, clean, seat_label
from arena.render.story import Chapter, Line, Story, StoryOptions, VoteRound, build_story

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
VOTE_MARKS = {"yes": "●", "default": "○", "abstain": "●"}  # an abstention is a mark in the abstain row
CALL_TEXT_LIMIT = 600


def _text(spans: Sequence[Span]) -> Text:
    out = Text()
    for span in spans:
        out.append(span.text, style=STYLES.get(span.style, ""))
    return out


def _tag(line: Line, viewer: int, lang: str = "en") -> Text:
    """Who could see a non-public line: the god view says to whom, a seat view says it was for the viewer."""
    if line.audience == "public":
        return Text()
    if line.audience == "moderator":
        return Text(f"[{label('tag_moderator', lang)}] ", style="bold yellow")
    if line.audience == "black":
        return Text(f"[{label('tag_black', lang)}] ", style="bold white on grey23")
    if viewer == MODERATOR:
        who = ", ".join(seat_label(s) for s in line.to) or label("tag_one_seat", lang)
        return Text(f"[{label('tag_to', lang, who=who)}] ", style="yellow")
    return Text(f"[{label('tag_you', lang)}] ", style="yellow")


def _line(line: Line, viewer: int, lang: str = "en") -> tuple[Text, Text]:
    marker = "»" if line.event == "speech" else MARKERS[line.audience]
    body = _tag(line, viewer, lang)
    body.append_text(_text(line.spans))
    if line.quote is not None:
        body.append(" ")
        body.append(line.quote, style="italic" if line.quote != label("silence", lang) else "dim italic")
    return Text(marker, style="dim" if line.audience == "public" else "yellow"), body


def _mark(mark: str | None, yes_no: bool) -> Text:
    if mark is None:
        return Text("·", style="dim")
    if yes_no:
        return Text("✓", style="bold green") if mark == "yes" else Text("✗", style="red")
    style = {"yes": "bold green", "default": "green", "abstain": "yellow"}.get(mark, "")
    return Text(VOTE_MARKS.get(mark, "?"), style=style)


def vote_table(round_: VoteRound) -> Group:
    """Candidates × voters for one round: ● a vote, ○ counted by default (R5.7), · none; a yes/no round (lift,
    acquittal, threshold) is one row of ✓ and ✗. Drawn as fixed-width text: as clear as a table, far cheaper. The
    grid is never wrapped (its columns would break); the legend under it wraps, so a narrow terminal cuts nothing."""
    voters = round_.voters
    rows = round_.rows
    lang = round_.lang
    yes_no, abstain = label("row_yes_no", lang), label("row_abstain", lang)
    names = [yes_no if round_.yes_no else seat_label(r) if r is not None else abstain for r in rows]
    width = max([len(name) for name in names] + [4])
    out = Text(no_wrap=True, overflow="crop")
    out.append(round_.title, style="bold")
    out.append("\n" + " " * width)
    for v in voters:
        out.append(f" {seat_label(v):>3}", style="cyan")
    out.append(" │   Σ", style="bold")
    for row, name in zip(rows, names, strict=True):
        out.append("\n" + name.ljust(width), style="bold cyan" if row is not None else "bold")
        for v in voters:
            out.append("   ")
            out.append_text(_mark(round_.marks.get((row, v)), round_.yes_no))
        out.append(f" │ {round_.row_total(row):>3}", style="bold")
    notes: list[RenderableType] = [Legend(round_.legend.split("   "))] if round_.legend else []
    if not voters:
        secret = round_.counts is not None and any(round_.counts)
        notes.append(Text(label("ballots_hidden" if secret else "no_votes", lang), "dim"))
    return Group(out, *notes)


class Legend:
    """A legend's entries packed into lines of the console's width, never split inside one entry."""

    def __init__(self, parts: Sequence[str], gap: str = "   ") -> None:
        self.parts = [p for p in parts if p]
        self.gap = gap

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        line = ""
        for part in self.parts:
            joined = f"{line}{self.gap}{part}" if line else part
            if line and cell_len(joined) > width:
                yield Text(line, style="dim")
                joined = part
            line = joined
        if line:
            yield Text(line, style="dim")


def _note(note: Note, show_calls: bool, lang: str = "en") -> tuple[Text, Text]:
    request = labels.request_kind(note.request, lang)
    if note.kind == "reasoning":
        body = Text()
        body.append(label("reasoning_of", lang, seat=seat_label(note.seat)), style="bold blue")
        body.append(f" ({request}): ", style="blue")
        body.append(note.text, style="italic blue")
        return Text("✎", style="blue"), body
    body = Text()
    body.append(label("call_of", lang, seat=seat_label(note.seat)), style="bold magenta")
    body.append(f" ({request}): ", style="magenta")
    body.append(note.text, style="magenta")
    if show_calls and note.call is not None:
        raw = clean(note.call.raw)
        if len(raw) > CALL_TEXT_LIMIT:
            raw = raw[:CALL_TEXT_LIMIT] + label("characters", lang, n=len(raw))
        body.append("\n" + label("new_messages", lang, n=len(note.call.messages)), style="dim")
        body.append(raw or label("empty", lang), style="dim italic")
    return Text("⚙", style="magenta"), body


class Hanging:
    """A marker, then a body wrapped with a hanging indent: continuation lines start under the body, never in the
    marker column, so a player's text (however long, whatever newlines it holds) cannot begin a line of its own."""

    def __init__(self, marker: Text, body: Text, gutter: str = "") -> None:
        self.marker = marker
        self.body = body
        self.gutter = gutter  # drawn at the start of every continuation line (a quote's ┆)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        indent = cell_len(self.marker.plain) + 1
        width = max(options.max_width - indent - cell_len(self.gutter), 10)
        pad = Segment(" " * indent + self.gutter, console.get_style("dim") if self.gutter else None)
        for i, line in enumerate(self.body.wrap(console, width, overflow="fold")):
            if i == 0:
                yield from self.marker.render(console)
                yield Segment(" ")
            else:
                yield pad
            yield from line.render(console)
            yield Segment.line()


def chapter(chapter_: Chapter, viewer: int, *, reasoning: bool, show_calls: bool, lang: str = "en") -> RenderableType:
    """A chapter's title, then its lines, each with its marker; a vote table stands between them, indented."""
    parts: list[RenderableType] = [Rule(Text(chapter_.title, style="bold"), align="left")]
    if all(isinstance(item, Note) for item in chapter_.items):
        parts.append(Text("  " + label("nothing_seat" if viewer != MODERATOR else "nothing_god", lang), "dim"))
    for item in chapter_.items:
        if isinstance(item, VoteRound):
            parts.append(Padding(vote_table(item), (0, 0, 0, 2)))
        elif isinstance(item, Line):
            parts.append(Hanging(*_line(item, viewer, lang), gutter="┆ " if item.quote is not None else ""))
        elif (item.kind == "reasoning" and reasoning) or (item.kind == "call" and show_calls):
            parts.append(Hanging(*_note(item, show_calls, lang)))
    return Group(*parts)


def roster(story: Story) -> Table:
    lang = story.lang
    table = Table(title=Text(label("seats", lang), style="bold"), title_justify="left", show_edge=False)
    table.add_column(Text(label("col_seat", lang)), no_wrap=True)
    if any(s.name for s in story.seats):
        table.add_column(Text(label("col_player", lang)))
    table.add_column(Text(label("col_role_known" if story.viewer != MODERATOR else "col_role", lang)))
    table.add_column(Text(label("col_left", lang)))
    for s in story.seats:
        cells = [Text(seat_label(s.seat), style="bold cyan")]
        if any(x.name for x in story.seats):
            cells.append(Text(s.name))
        you = label("you", lang) if s.seat == story.viewer else ""
        role = labels.role(s.role, lang)
        cells.append(Text(f"{role}{you}", style="magenta") if role else Text("?", style="dim"))
        cells.append(Text(s.fate or "", style="red"))
        table.add_row(*cells)
    return table


TIMELINE_CODES = {"voted": "V", "killed": "K", "lifted": "L", "removed": "R", "nominee": "N"}


def timeline(story: Story) -> Text:
    """Who was alive in each phase: ● alive, ✝ and a letter in the phase a seat left (how), blank afterwards."""
    lang = story.lang
    columns = [short_column(key, lang) for key in story.timeline_keys]
    width = max([len(c) for c in columns] + [2])
    out = Text(no_wrap=True, overflow="crop")
    out.append(label("alive_title", lang), style="bold")
    head = label("col_seat", lang)
    pad = max(len(head), 4)
    out.append("\n" + head.ljust(pad))
    for c in columns:
        out.append(" " + c.center(width), style="dim")
    for seat, row in story.timeline.items():
        out.append("\n" + seat_label(seat).ljust(pad), style="cyan")
        for cell in row:
            out.append(" ")
            if cell == "alive":
                out.append("●".center(width), style="green")
            elif cell.startswith("out:"):
                out.append(("✝" + TIMELINE_CODES.get(cell[4:], "?")).center(width), style="bold red")
            else:
                out.append(" " * width)
    used = sorted({cell[4:] for row in story.timeline.values() for cell in row if cell.startswith("out:")})
    if used:
        legend = " · ".join(f"✝{TIMELINE_CODES.get(how, '?')} {labels.out_word(how, lang)}" for how in used)
        out.append("\n" + legend, style="dim")
    return out


def short_column(key: str, lang: str = "en") -> str:
    """A timeline column's short head from its chapter key: `n1` is N1 (Н1), `d2` is D2 (Д2)."""
    if key[:1] in ("n", "d") and key[1:].isdigit():
        return label("short_night" if key[0] == "n" else "short_day", lang, n=key[1:])
    return key


def header(story: Story) -> Panel:
    lang = story.lang
    body = Text()
    body.append(label("rules_line", lang, rules=story.rules, players=story.players), style="bold")
    if story.seed is not None:
        body.append(label("seed", lang, seed=story.seed))
    if story.status:
        body.append(label("transcript", lang, status=labels.status(story.status, lang)))
    if story.viewer != MODERATOR:
        body.append("\n" + label("you_are", lang, seat=seat_label(story.viewer)))
        body.append(labels.role(story.role, lang) or "?", style="bold magenta")
        if story.side == "mafia_ally":
            body.append(label("ally", lang))
        if story.teammates:
            known = {s.seat: labels.role(s.role, lang) for s in story.seats}
            body.append(label("black_team", lang))
            for i, mate in enumerate(story.teammates):
                body.append(", " if i else "")
                body.append(seat_label(mate), style="bold cyan")
                body.append(f" {known.get(mate) or ''}".rstrip(), style="magenta")
    if story.winner:
        body.append("\n" + label("result", lang), style="bold")
        body.append(labels.result(story.winner, lang), style="bold green")
        body.append(f" ({story.end_reason})" if story.end_reason else "")
    else:
        body.append("\n" + label("not_over", lang), style="dim")
    return Panel(body, title=Text(story.title, style="bold"), title_align="left")


def cache_table(calls: Sequence[ModelCall], viewer: int, lang: str = "en") -> Table | None:
    """Per seat: model calls, prompt tokens, and the share the servers reported as served from their prompt cache.
    A seat's view counts its own calls only."""
    totals: dict[int, list[int]] = {}
    for call in calls:
        if viewer == MODERATOR or call.seat == viewer:
            row = totals.setdefault(call.seat, [0, 0, 0])
            row[0] += 1
            row[1] += call.prompt_tokens
            row[2] += call.cached_tokens
    if not totals:
        return None
    ru = labels.pick(lang) == "ru"
    title = (
        "кэш запросов по местам (токены из кэша, как их сообщили серверы)"
        if ru
        else ("prompt cache per seat (cached tokens as the servers reported them)")
    )
    table = Table(title=title, title_justify="left")
    names = (
        ("место", "вызовы", "токены запроса", "из кэша", "доля кэша")
        if ru
        else ("seat", "calls", "prompt tokens", "cached", "cache hit")
    )
    for i, name in enumerate(names):
        table.add_column(name, justify="left" if i == 0 else "right")
    for seat, (count, prompt, cached) in sorted(totals.items()):
        rate = f"{cached / prompt:.1%}" if prompt else "n/a"
        table.add_row(seat_label(seat), str(count), f"{prompt:,}", f"{cached:,}", rate)
    return table


def renderables(story: Story, *, reasoning: bool = False, show_calls: bool = False) -> list[RenderableType]:
    out: list[RenderableType] = [header(story), roster(story)]
    out += [
        chapter(c, story.viewer, reasoning=reasoning, show_calls=show_calls, lang=story.lang) for c in story.chapters
    ]
    out.append(timeline(story))
    return out


PLAIN = StoryOptions(reasoning=False, with_calls=False)  # the console's default: the game alone


def render(
    game: Game,
    viewer: int,
    calls: Sequence[ModelCall] = (),
    inputs: Sequence[Input] = (),
    options: StoryOptions = PLAIN,
    *,
    console: Console | None = None,
) -> None:
    """Print the game as `viewer` (1..N, or MODERATOR) saw it, in `options.lang` (en, ru). Raises ValueError for a
    seat out of range."""
    story = build_story(game, viewer, calls, inputs, options)
    console = console or make_console()
    for item in renderables(story, reasoning=options.reasoning, show_calls=options.with_calls):
        console.print(item)
    cache = cache_table(calls, viewer, options.lang) if options.with_calls else None
    if cache is not None:
        console.print(cache)


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


def render_text(game: Game, viewer: int, options: StoryOptions = PLAIN, *, width: int = 160) -> str:
    """The game alone (no model calls or inputs: `render` takes those) drawn as plain text, no colours: for tests and
    pipes."""
    buffer = io.StringIO()
    render(game, viewer, options=options, console=make_console(buffer, width, color=False))
    return buffer.getvalue()
