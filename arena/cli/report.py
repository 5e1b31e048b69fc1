"""`arena report DIR`: research measures of a folder of transcripts (a tournament folder, or any games).

A command of its own because it pulls in the optional `research` extra (scipy, matplotlib): imported only when the
command runs, so `arena play` never pays for it. Bad input is one `error:` line and exit 2.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from arena.cli.options import need_transcripts, no_research

BAD_INPUT = 2
Progress = Callable[[str, int, int], None]


@contextmanager
def progress_bar(*, enabled: bool) -> Iterator[Progress | None]:
    """A rich progress bar on stderr while a report is built (the stage, files or games done, time), gone when it
    is done; none when stderr is not a terminal (a script or CI reads a clean stream) or `enabled` is off."""
    console = Console(stderr=True)
    if not enabled or not console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:  # fmt: skip
        task = bar.add_task("reading transcripts", total=None)

        def advance(stage: str, done: int, total: int) -> None:
            bar.update(task, description=stage, completed=done, total=total)

        yield advance


def register(app: typer.Typer) -> None:
    @app.command("report")
    def report_command(
        folder: Annotated[Path, typer.Argument(help="a folder of transcripts (searched recursively)")],
        out: Annotated[Path | None, typer.Option("--out", help="where to write (default: FOLDER/report)")] = None,
        boot: Annotated[int, typer.Option("--boot", min=0, help="bootstrap resamples for the intervals")] = 200,
        no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")] = False,
        scoring: Annotated[
            str | None,
            typer.Option("--scoring", help="add the points table: fiim, mwc, or a .toml file (docs/scoring.md)"),
        ] = None,
    ) -> None:
        """Write report.md, report.html (self-contained) and games/seats/days/decisions CSVs for a folder."""
        need_transcripts(folder)
        try:
            from arena.research.report import ReportError, build, points_sections, write
        except ImportError as exc:
            no_research("arena report", exc)
        system = None
        if scoring is not None:
            from arena.scoring import ScoringError, load_system

            try:
                system = load_system(scoring)
            except ScoringError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(BAD_INPUT) from None
        try:
            with progress_bar(enabled=not no_progress) as progress:
                built = build(folder, boot=boot, progress=progress, scoring=system)
                if progress is not None:
                    progress("writing the report", 0, 1)
                written = write(built, out or folder / "report")
        except ReportError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(BAD_INPUT) from None
        except Exception as exc:  # a bug or an unreadable folder: still one line, never a traceback
            typer.echo(f"error: arena report failed: {type(exc).__name__}: {exc}", err=True)
            raise typer.Exit(1) from None
        typer.echo(f"{written.games} games -> {written.folder}")
        for path in written.files:
            typer.echo(f"  {path}")
        if built.points is not None:  # the points table, as report.md has it
            for title, lines in points_sections(built.points):
                typer.echo(f"\n## {title}\n")
                typer.echo("\n".join(lines))
        _blind(folder, out or folder / "report")


def _blind(folder: Path, out: Path) -> None:
    """Blinded tables' ratings (`*.blind.json`): each configuration's human-likeness, printed and written."""
    from arena.research.blind import BlindError, human_likeness, read_ratings, table_csv, table_md
    from arena.safe_write import write_file

    try:
        ratings = read_ratings(folder)
    except BlindError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(BAD_INPUT) from None
    if not ratings:
        return
    rows = human_likeness(ratings)
    md = (
        "# Human-likeness (blinded tables)\n\n"
        "1: surely a person, 0: surely not, as the people at the table rated it.\n\n"
    )
    write_file(out / "human_likeness.md", md + table_md(rows))
    write_file(out / "human_likeness.csv", table_csv(rows))
    typer.echo(f"human-likeness ({len(ratings)} ratings) -> {out / 'human_likeness.md'}")
    for row in rows:
        s = row.score
        shown = f"{s.value:.2f} ({s.low:.2f}-{s.high:.2f})"
        typer.echo(f"  {row.config}: {shown}, {row.ratings} ratings, {row.games} games")
