"""`arena report DIR`: research measures of a folder of transcripts (a tournament folder, or any games).

A command of its own because it pulls in the optional `research` extra (scipy, matplotlib): imported only when the
command runs, so `arena play` never pays for it. Bad input is one `error:` line and exit 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

BAD_INPUT = 2


def register(app: typer.Typer) -> None:
    @app.command("report")
    def report_command(
        folder: Annotated[Path, typer.Argument(help="a folder of transcripts (searched recursively)")],
        out: Annotated[Path | None, typer.Option("--out", help="where to write (default: FOLDER/report)")] = None,
        boot: Annotated[int, typer.Option("--boot", min=0, help="bootstrap resamples for the intervals")] = 200,
        scoring: Annotated[
            str | None,
            typer.Option("--scoring", help="add the points table: fiim, mwc, or a .toml file (docs/scoring.md)"),
        ] = None,
    ) -> None:
        """Write report.md, report.html (self-contained) and games/seats/days/decisions CSVs for a folder."""
        if not folder.is_dir():
            typer.echo(f"error: {folder}: not a folder of transcripts", err=True)
            raise typer.Exit(BAD_INPUT)
        try:
            from arena.research.report import ReportError, build, points_sections, write
        except ImportError as exc:
            typer.echo(f"error: arena report needs the research extra: pip install 'mafia-arena[research]' ({exc})",
                       err=True)  # fmt: skip
            raise typer.Exit(BAD_INPUT) from None
        system = None
        if scoring is not None:
            from arena.scoring import ScoringError, load_system

            try:
                system = load_system(scoring)
            except ScoringError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(BAD_INPUT) from None
        try:
            built = build(folder, boot=boot, scoring=system)
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
