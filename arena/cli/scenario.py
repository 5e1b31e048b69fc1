"""`arena scenario run PATH...`: run scenario files or folders and show every mismatch as a readable diff.

The command exits non-zero when any scenario fails or any file is malformed, so CI and scripts can rely on it.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arena.engine import Event, visible_events
from arena.scenario import CaseResult, FileResult, run_file, scenario_files

scenario_app = typer.Typer(
    name="scenario",
    help="Scripted scenarios with expected outcomes (docs/scenarios.md).",
    no_args_is_help=True,
)


def _event_line(e: Event) -> str:
    fields = [f"{k}={v!r}" for k in ("seat", "target", "seats", "counts", "count", "value", "text")
              if (v := getattr(e, k)) not in (None, (), "")]  # fmt: skip
    return f"#{e.seq:<4} {e.phase.value:<5} {e.day:<2} {e.type.value:<22} {' '.join(fields)}"


def _print_case(console: Console, case: CaseResult, strict: bool, trace: bool) -> None:
    ok = case.ok(strict)
    tag = "[green]PASS[/]" if ok else "[red]FAIL[/]"
    console.print(f"{tag}  {escape(str(case.path))}  {escape(case.name)}")
    if case.error:
        console.print(f"      [red]error:[/] {escape(case.error)}")
    if case.mismatches:
        table = Table(show_header=True, header_style="bold", box=None, padding=(0, 2, 0, 6))
        table.add_column("where")
        table.add_column("expected", style="green")
        table.add_column("actual", style="red")
        for m in case.mismatches:
            table.add_row(escape(m.where), escape(m.expected), escape(m.actual))
        console.print(table)
    for w in case.warnings:
        console.print(f"      [yellow]warning:[/] {escape(w)}")
    if trace and not ok and case.game is not None:
        for e in visible_events(case.game, 0):
            console.print(f"        {escape(_event_line(e))}", highlight=False)


@scenario_app.command("run")
def run(
    paths: list[Path] = typer.Argument(..., help="Scenario files (.yaml) or folders holding them."),  # noqa: B008
    strict: bool = typer.Option(False, "--strict", help="Also fail on warnings: script entries that had no effect."),
    trace: bool = typer.Option(False, "--trace", help="Print the god-view event log of every failing case."),
) -> None:
    """Run scenario files and check their expected outcomes."""
    console = Console(highlight=False, soft_wrap=True)
    files = scenario_files(paths)
    missing = [p for p in files if not p.exists()]
    results: list[FileResult] = [FileResult(p, error=f"{p}: no such file") for p in missing]
    results += [run_file(p) for p in files if p.exists()]
    if not files:
        typer.echo("error: no scenario files found", err=True)
        raise typer.Exit(2)
    for result in results:
        if result.error:
            console.print(f"[red]ERROR[/] {escape(result.error)}")
        for case in result.cases:
            _print_case(console, case, strict, trace)
    cases = [c for r in results for c in r.cases]
    failed = sum(not c.ok(strict) for c in cases)
    malformed = sum(r.error is not None for r in results)
    colour = "green" if not failed and not malformed else "red"
    console.print(
        f"[{colour}]{len(results)} files, {len(cases)} cases: {len(cases) - failed} passed, {failed} failed, "
        f"{malformed} malformed[/]"
    )
    if failed or malformed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the `scenario` command group to `app`."""
    app.add_typer(scenario_app, name="scenario")
