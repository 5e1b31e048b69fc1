"""`arena show` and `arena export`: review a saved game, as the moderator saw it or exactly as one seat saw it.

Why a module of its own: reviewing is read-only and must never disturb a transcript. Both commands load the file,
rebuild the game by replaying its inputs through a fresh engine (so every view comes from the engine's own `view`),
and draw it with `arena.render`. A bad input (no such file, a foreign or broken transcript, a seat out of range) is
one line on stderr and exit code 2, never a traceback. A file whose hash chain is broken (an edited transcript) is
refused with exit code 1 unless `--force`, and then every output says so in its first line; so is a file whose chain
is intact but which fails verify's other checks (a re-hashed forgery). The HTML page is written with mode 0600.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape as html_escape
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from arena.engine import MODERATOR, Game
from arena.render.console import make_console, render
from arena.render.html import export_html
from arena.render.labels import LANGS
from arena.render.story import StoryOptions
from arena.safe_write import PRIVATE, write_file
from arena.transcript import Transcript, TranscriptError, load

BAD_INPUT = 2
TAMPERED = 1
FORCE_HELP = "Show a file whose hash chain is broken (edited), labelled as such."
LANG_HELP = "The language of the review's lines and labels, en or ru (default: the game's)."


@dataclass(frozen=True)
class Review:
    """A loaded transcript with its game rebuilt: everything the renderers need."""

    transcript: Transcript
    game: Game
    names: dict[int, str]
    call_positions: list[int] | None
    models: dict[int, str]  # each seat's model, to label calls that got no answer
    label: str | None = None  # set when the file failed its chain and --force showed it anyway

    def options(self, lang: str, *, reasoning: bool = True, with_calls: bool = True) -> StoryOptions:
        """The story options of this transcript's review: its names, status, call places and models."""
        return StoryOptions(
            reasoning=reasoning,
            with_calls=with_calls,
            names=self.names,
            status=self.transcript.status,
            call_positions=self.call_positions,
            models=self.models,
            lang=lang,
        )


def fail(message: str, code: int = BAD_INPUT) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def open_review(file: Path, *, force: bool = False) -> Review:
    """Load and rebuild, or exit 2 with the reason (1 for a broken hash chain without `force`). A torn last line
    (a crashed writer) is dropped with a warning."""
    if not file.exists():
        fail(f"{file}: no such file")
    if file.is_dir():
        fail(f"{file}: is a directory, not a transcript")
    try:
        transcript = load(file, repair=True)
    except TranscriptError as exc:
        fail(str(exc))
    label = None
    if transcript.chain == "broken":
        if not force:
            fail(f"{file}: tampered: {transcript.chain_error}; `--force` shows it anyway, labelled", TAMPERED)
        label = f"TAMPERED FILE: its hash chain is broken ({transcript.chain_error}); nothing here can be trusted"
        typer.echo(f"warning: {file}: {label}", err=True)
    else:
        # the chain can be recomputed after an edit: run verify's other checks (replay, call records, end record)
        problem = _verify_problem(transcript)
        if problem is not None:
            if not force:
                fail(f"{file}: fails verify: {problem}; `--force` shows it anyway, labelled", TAMPERED)
            label = f"TAMPERED FILE: it fails verify ({problem}); nothing here can be trusted"
            typer.echo(f"warning: {file}: {label}", err=True)
    try:
        game = transcript.rebuild()
    except TranscriptError as exc:
        fail(str(exc))
    except Exception as exc:  # an engine refusal or bug while replaying: still one clear line
        fail(f"{file}: cannot rebuild the game: {type(exc).__name__}: {exc}")
    if transcript.torn is not None:
        typer.echo(f"warning: {file}: the last line is torn (the writer stopped mid-line); it is left out", err=True)
    recorded = transcript.events
    if game.events[: len(recorded)] != recorded:
        pairs = zip(game.events, recorded, strict=False)
        first = next((i for i, (a, b) in enumerate(pairs) if a != b), len(game.events))  # or past the replay
        typer.echo(
            f"warning: {file}: the replayed game differs from the recorded events from seq {first}; "
            "showing the replay (run `arena verify`)",
            err=True,
        )
    names = {entry.seat: entry.agent.name for entry in transcript.header.seats}
    models = {e.seat: e.agent.reported_model or e.agent.model or "" for e in transcript.header.seats}
    positions = transcript.call_positions if len(transcript.call_positions) == len(transcript.calls) else None
    return Review(transcript, game, names, positions, models, label)


def _verify_problem(transcript: Transcript) -> str | None:
    """What `arena verify` finds wrong with a file whose chain is intact (None: nothing). The same checks, so a
    rechained forgery that verify refuses is never shown unlabelled; a replay costs milliseconds."""
    from arena.transcript import verify

    try:
        verdict = verify(transcript)
    except Exception as exc:  # a crafted file the checks trip over: a failure, not a traceback
        return f"{type(exc).__name__}: {exc}"
    return None if verdict.ok else verdict.message


def _html_label(page: str, label: str) -> str:
    """A banner at the top of the page body saying the file failed its chain (player text never enters it)."""
    banner = (
        '<p role="alert" style="background:#b00020;color:#fff;padding:8px;font-weight:bold;margin:0">'
        f"{html_escape(label)}</p>"
    )
    at = page.find("<body")
    if at < 0:
        return banner + page
    close = page.index(">", at) + 1
    return page[:close] + banner + page[close:]


def check_lang(lang: str | None, review: Review) -> str:
    """`--lang` if given (en or ru, else exit 2), otherwise the language the game was played in."""
    if lang is not None and lang not in LANGS:
        fail(f"--lang {lang!r}: choose en or ru")
    chosen = lang or review.transcript.header.lang
    return chosen if chosen in LANGS else "en"


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
    lang: Annotated[str | None, typer.Option("--lang", help=LANG_HELP)] = None,
    force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
) -> None:
    """Print a game by day and night: speeches, nominations, vote tables, night results and the end."""
    if lang is not None and lang not in LANGS:
        fail(f"--lang {lang!r}: choose en or ru")
    review = open_review(file, force=force)
    viewer = check_seat(seat, review.game)
    console = make_console()
    if review.label is not None:
        typer.echo(f"*** {review.label} ***")
    options = review.options(check_lang(lang, review), reasoning=reasoning, with_calls=calls)
    render(review.game, viewer, review.transcript.calls, review.transcript.inputs, options, console=console)
    from arena.render.totals import totals_table, transcript_totals, unknown_cost_seats

    totals = transcript_totals(review.transcript)
    table = totals_table(totals, viewer, unknown_cost_seats(review.transcript), check_lang(lang, review))
    if table is not None:
        console.print(table)


def export(
    file: Annotated[Path, typer.Argument(help="A transcript (.jsonl) written by `arena play`.")],
    html: Annotated[Path | None, typer.Option("--html", help="Write one self-contained HTML page here.")] = None,
    seat: Annotated[
        int | None,
        typer.Option("--seat", "-s", help="Put only seat N's view in the page (safe to give to that player)."),
    ] = None,
    protocol: Annotated[
        bool, typer.Option("--protocol", help="The judge's score sheet instead: roles, votes, nights, points.")
    ] = False,
    fmt: Annotated[
        str | None, typer.Option("--format", help="The score sheet as html (printable), csv or json (default html).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the score sheet here (default: standard output).")
    ] = None,
    lang: Annotated[
        str | None, typer.Option("--lang", help="The page's or score sheet's language, en or ru (default: the game's).")
    ] = None,
    scoring: Annotated[
        str, typer.Option("--scoring", help="The scoring system: fiim, mwc, or a .toml file (docs/scoring.md).")
    ] = "fiim",
    force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
) -> None:
    """Write one self-contained HTML page of a game (god view and every seat's view), or its judge's score sheet.

    --html PATH: the page, with vote tables and who was alive, in --lang (en, ru; default: the game's language).
    --protocol: the score sheet (roles, fouls, votes, nights, result, points by group), to stdout or --out."""
    if protocol:
        _protocol(file, html, seat, fmt or "html", out, lang, scoring, force)
        return
    for given, name in ((fmt, "--format"), (out, "--out")):
        if given is not None:
            fail(f"{name} goes with --protocol (the score sheet); the game's page is written with --html PATH")
    if html is None:
        fail("give --html PATH for the game's page, or --protocol for the judge's score sheet")
    if lang is not None and lang not in LANGS:
        fail(f"--lang {lang!r}: choose en or ru")
    review = open_review(file, force=force)
    viewer = check_seat(seat, review.game)
    if html.resolve() == file.resolve():
        fail(f"{html}: this is the transcript itself; choose another output file")
    if not html.parent.is_dir():
        fail(f"{html.parent}: no such directory")
    page = export_html(
        review.game,
        review.transcript.calls,
        review.transcript.inputs,
        review.options(check_lang(lang, review)),
        seat=None if viewer == MODERATOR else viewer,
    )
    if review.label is not None:
        page = _html_label(page, review.label)
    try:
        write_file(html, page, mode=PRIVATE)  # 0600: the god view holds roles and private reasoning
    except OSError as exc:  # also a link at the name: nothing is written through it (arena.safe_write)
        fail(f"{html}: cannot write: {exc.strerror}")
    typer.echo(str(html))


def _protocol(
    file: Path, html: Path | None, seat: int | None, fmt: str, out: Path | None, lang: str | None, scoring: str,
    force: bool,
) -> None:  # fmt: skip
    """`arena export FILE --protocol`: the score sheet, to standard output or `out` (mode 0600: it shows every role)."""
    from arena.render.protocol import LANGS, RENDERERS, sheet_of
    from arena.scoring import ScoringError, load_system

    if html is not None or seat is not None:
        fail("--protocol is the judge's sheet of the whole game (every role): it takes no --html or --seat")
    if fmt not in RENDERERS:
        fail(f"--format {fmt!r}: choose html, csv or json")
    if lang is not None and lang not in LANGS:
        fail(f"--lang {lang!r}: choose en or ru")
    try:
        system = load_system(scoring)
    except ScoringError as exc:
        fail(str(exc))
    review = open_review(file, force=force)
    if out is not None:
        if out.resolve() == file.resolve():
            fail(f"{out}: this is the transcript itself; choose another output file")
        if not out.parent.is_dir():
            fail(f"{out.parent}: no such directory")
    try:
        sheet = sheet_of(review.transcript, scoring=system)
    except (ScoringError, ValueError) as exc:
        fail(f"{file}: no score sheet: {exc}")
    text = RENDERERS[fmt](sheet, lang or review.transcript.header.lang)
    if review.label is not None:
        text = _protocol_label(text, fmt, review.label)
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        write_file(out, text, mode=PRIVATE)
    except OSError as exc:
        fail(f"{out}: cannot write: {exc.strerror}")
    typer.echo(str(out), err=True)


def _protocol_label(text: str, fmt: str, label: str) -> str:
    """A file that failed its checks says so first, in every format."""
    if fmt == "html":
        return _html_label(text, label)
    if fmt == "json":
        import json

        data = json.loads(text)
        return json.dumps({"warning": label, **data}, ensure_ascii=False, indent=2) + "\n"
    return f"warning,{json_quote(label)}\n{text}"


def json_quote(text: str) -> str:
    """One CSV cell (quoted, inner quotes doubled)."""
    return '"' + text.replace('"', '""') + '"'


def register(app: typer.Typer) -> None:
    """Add `show` and `export` to `app`."""
    app.command("show")(show)
    app.command("export")(export)
