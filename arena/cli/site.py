"""`arena site RUN... --out SITE` builds a static leaderboard site from tournament folders and field placements;
`arena site --check SITE` re-derives every number on it from the transcripts it links (docs/site.md).

A command of its own because it needs the `research` extra (scipy, matplotlib), imported only when it runs. Bad
input is one `error:` line and exit 2; a check that finds a difference exits 1 and names the game or page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.field import need_research
from arena.cli.options import fail
from arena.cli.report import progress_bar


def register(app: typer.Typer) -> None:
    @app.command("site")
    def site_command(
        runs: Annotated[
            list[Path] | None,
            typer.Argument(help="Tournament folders, placement folders (arena tournament --field), or any folders of "
                           "transcripts."),
        ] = None,
        out: Annotated[Path | None, typer.Option("--out", help="A new or empty folder for the site.")] = None,
        check: Annotated[
            Path | None, typer.Option("--check", help="Re-derive every number of this built site from its games.")
        ] = None,
        boot: Annotated[int, typer.Option("--boot", min=0, help="Bootstrap resamples for the intervals.")] = 200,
        scoring: Annotated[
            str | None,
            typer.Option("--scoring", help="Add the points table (fiim or mwc) to each configuration."),
        ] = None,
        no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar.")] = False,
    ) -> None:
        """Build a static leaderboard site from runs (or --check one): replays, every number linked to its games."""
        need_research("arena site")
        from arena.site.inputs import SiteError

        if check is not None:
            if runs or out is not None:
                fail("--check takes the site alone (no RUN folders, no --out)")
            from arena.site.check import check_site

            try:
                with progress_bar(enabled=not no_progress) as progress:
                    result = check_site(check, progress)
            except SiteError as exc:
                fail(str(exc))
            for problem in result.problems:
                typer.echo(f"FAIL {problem}")
            if not result.ok:
                typer.echo(f"{check}: {len(result.problems)} difference(s); the site is not what its games give",
                           err=True)  # fmt: skip
                raise typer.Exit(1)
            typer.echo(f"{check}: {result.games} games verified, {result.pages} files re-derived, all identical")
            return
        if not runs:
            fail("give one or more RUN folders and --out SITE (or --check SITE)")
        if scoring not in (None, "fiim", "mwc"):
            fail(f"--scoring: fiim or mwc (a site's --check re-derives it by name), not {scoring!r}")
        if out is None:
            fail("--out: give the folder to build the site in")
        from arena.site.build import build_site

        try:
            with progress_bar(enabled=not no_progress) as progress:
                built = build_site(list(runs), out, boot=boot, progress=progress, scoring=scoring or "")
        except SiteError as exc:
            fail(str(exc))
        typer.echo(f"{built.games} games, {len(built.boards)} leaderboard(s) -> {built.folder}")
        for b in built.boards:
            typer.echo(f"  {b.page}: {b.title} ({len(b.rows)} rows)")
        typer.echo(f"  site digest {built.digest} (publish it beside the site; --check re-derives every number)")
        typer.echo(f"  open {built.folder / 'index.html'}")
