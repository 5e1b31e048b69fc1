"""`arena tournament FILE.toml`: run a tournament (or, with --dry-run, show its balance table and cost estimate).

Everything in the file and the options is checked before any game starts; bad input is one `error:` line naming the
field. Heavy modules are imported inside the command, so `arena --help` stays fast.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NamedTuple, NoReturn

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from arena.agents import AgentSpec
    from arena.tournament.model import Tournament
    from arena.tournament.run import RunOptions
    from arena.tournament.schedule import GamePlan


def fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _budget(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        fail(f"--budget: {text!r} is not a number (USD, e.g. --budget 2.50)")
    if not math.isfinite(value) or value < 0:
        fail(f"--budget: {text!r} must be a finite amount of USD, zero or more")
    return value


def register(app: typer.Typer) -> None:
    """Add `tournament` to `app`."""

    @app.command()
    def tournament(
        file: Annotated[
            Path | None, typer.Argument(help="The tournament file (TOML); see docs/tournaments.md. Not with --field.")
        ] = None,
        out: Annotated[
            Path | None, typer.Option("--out", help="Output folder (transcripts + tournament.json); else the file's.")
        ] = None,
        dry_run: Annotated[
            bool, typer.Option("--dry-run", help="Print the balance table and the cost estimate; play nothing.")
        ] = False,
        budget: Annotated[
            str | None, typer.Option("--budget", help="USD cap: no new game starts once it would be passed.")
        ] = None,
        jobs: Annotated[int, typer.Option("--jobs", "-j", help="Games at once, in all.", min=1)] = 8,
        processes: Annotated[
            int | None,
            typer.Option(help="Worker processes of the local executor (default: CPUs, at most --jobs; 0: this one)."),
        ] = None,
        executor: Annotated[str, typer.Option(help="local (a process pool) or dask.")] = "local",
        scheduler: Annotated[
            str | None,
            typer.Option(help="The Dask scheduler, tls://HOST:PORT (with --executor dask; none: a local cluster)."),
        ] = None,
        tls: Annotated[
            Path | None,
            typer.Option("--tls", help="The cluster's credentials folder (`arena cluster-certs`), with --scheduler."),
        ] = None,
        shared_out: Annotated[
            bool, typer.Option("--shared-out", help="Dask workers write into --out themselves (a shared folder).")
        ] = False,
        games_per_task: Annotated[
            int, typer.Option(help="Games per Dask task (0: from the measured game time).", min=0)
        ] = 0,
        calibration_games: Annotated[
            int,
            typer.Option(
                help="At least this many calibration games against a private local stand-in; more, up to 64, until "
                "the estimate's standard error is within 4 %.",
                min=1,
            ),
        ] = 3,
        agents_dir: Annotated[
            Path | None,
            typer.Option(
                help="A folder of agent definitions searched first (then ./agents, the user folder, the package "
                "examples)."
            ),
        ] = None,
        prompt_folder: Annotated[
            list[Path] | None,
            typer.Option("--prompt-folder", help="A prompt set folder a pool entry's prompt_set may name. Repeatable."),
        ] = None,
        no_progress: Annotated[bool, typer.Option("--no-progress", help="No live progress; a summary at the end.")] = (
            False
        ),
        detect: Annotated[
            float | None,
            typer.Option(
                "--detect",
                help="Print the games this schedule needs to detect a skill difference of D logits with 80 % power; "
                "play nothing.",
            ),
        ] = None,
        field: Annotated[
            str | None,
            typer.Option("--field", help="Place --entrant on a frozen reference field (docs/reference.md)."),
        ] = None,
        entrant: Annotated[
            str | None,
            typer.Option("--entrant", help="With --field: the agent to place (a name, or FILE.toml:LABEL for a "
                         "tournament file's configuration)."),
        ] = None,
        label: Annotated[
            str | None, typer.Option("--label", help="With --field: the entrant's label (default: from its name).")
        ] = None,
        games: Annotated[
            int | None, typer.Option("--games", help="With --field: the placement's games (default: the field's).")
        ] = None,
        until_width: Annotated[
            float | None,
            typer.Option("--until-width", help="With --field: play until the combined skill's 95 % interval is at "
                         "most W logits wide (Stein's two-stage procedure), or the games cap."),
        ] = None,
        max_games: Annotated[
            int | None, typer.Option("--max-games", help="With --field: the games cap (default: the field's).")
        ] = None,
        delay: Annotated[float, typer.Option(hidden=True, help="Seconds each seat waits before answering.")] = 0.0,
    ) -> None:
        """Play a tournament of configurations, balanced by side, role and seat; resumable; with a cost cap."""
        from rich.console import Console

        if field is not None:
            if file is not None:
                fail("--field places an entrant on a field; it takes no tournament FILE")
            from arena.cli.field import place_entrant

            place_entrant(field_name=field, entrant=entrant, label=label, out=out, games=games, dry_run=dry_run,
                          until_width=until_width, max_games=max_games, agents_dir=agents_dir,
                          prompt_folders=prompt_folder or [], jobs=jobs, processes=processes, no_progress=no_progress,
                          budget=_budget(budget))  # fmt: skip
            return
        if file is None:
            fail("give a tournament FILE (docs/tournaments.md), or --field NAME --entrant AGENT (docs/reference.md)")
        if entrant is not None or games is not None or until_width is not None or max_games is not None:
            fail("--entrant, --games, --until-width and --max-games go with --field NAME")

        from arena.tournament.manifest import check_folder
        from arena.tournament.model import TournamentError, load_tournament
        from arena.tournament.schedule import make_schedule

        cap = _budget(budget)
        if detect is not None and not (math.isfinite(detect) and detect > 0):
            fail(f"--detect: {detect} must be a positive difference in logits, e.g. --detect 0.4")
        if executor not in ("local", "dask"):
            fail(f"--executor: {executor!r} is not one of local, dask")
        if executor == "dask" and scheduler:
            from arena.tournament.tls import ClusterError, check_address

            try:
                check_address(scheduler)
            except ClusterError as exc:
                fail(str(exc))
            if tls is None:
                fail(f"--tls: connecting to {scheduler} needs the cluster's credentials folder (--tls DIR)")
        try:
            t = load_tournament(file, agents_dir, check_env=not dry_run, out=out, prompt_folders=prompt_folder or ())
        except TournamentError as exc:
            fail(str(exc))
        if detect is not None and not dry_run:  # the schedule's statistics only: nothing is played or written
            _statistics(t, detect)
            return
        if cap is not None:  # a cap cannot hold over calls whose cost is unknown
            from arena.agents import unpriced

            unknown = unpriced((c.label, c.spec) for c in [*t.configs, t.filler])
            if unknown:
                fail(f"--budget: the cost of {', '.join(unknown)} is unknown (no price_*_per_m in its agent "
                     "definition; a local server can say `free = true`), so a budget cannot be kept")  # fmt: skip
        folder = out or (Path(t.file.out) if t.file.out else None)
        if folder is None and not dry_run:
            fail(f"{file}: out: no output folder; give --out DIR or out = \"DIR\" in the file")
        if folder is not None:
            try:
                check_folder(folder, t.fingerprint, t.file.name)
            except TournamentError as exc:
                fail(str(exc))
        console = Console(highlight=False)
        labels = [c.label for c in t.configs]
        plans = make_schedule(labels, t.filler.label, t.rules, t.file.games, t.seed, kind=t.file.schedule)
        estimate = None
        if dry_run or cap is not None:
            from arena.tournament.cost import calibrate
            from arena.tournament.cost import estimate as scale

            try:
                per_seat = calibrate(t, plans, calibration_games)
            except Exception as exc:  # a prompt set that does not load, etc.: one line
                fail(f"cost calibration failed: {type(exc).__name__}: {exc}")
            estimate = scale(t, plans, per_seat, calibration_games)
        if dry_run:
            from arena.tournament.report import balance_table, estimate_table

            console.print(balance_table(t, plans))
            assert estimate is not None
            console.print(estimate_table(estimate, cap))
            _statistics(t, detect)
            return
        assert folder is not None
        from arena.cli.options import preflight_configs
        from arena.tournament.run import RunOptions

        options = RunOptions(out=folder, jobs=jobs, budget=cap, estimate=estimate, progress=not no_progress,
                             executor_name=executor, delay=delay)  # fmt: skip
        cluster = _Cluster(scheduler, tls, shared_out, games_per_task)
        _run(t, plans, preflight_configs(t), options, console, processes=processes, cluster=cluster)


def _statistics(t: Tournament, detect: float | None) -> None:
    """What the schedule identifies and the smallest difference it detects (arena/research/power.py)."""
    try:
        from arena.research.power import schedule_lines
    except ImportError:
        typer.echo("(what the schedule identifies and detects: pip install 'mafia-arena[research]')")
        return
    typer.echo("\n".join(schedule_lines([c.label for c in t.configs], t.filler.label, t.rules, t.file.games,
                                         t.seed, t.file.schedule, detect)))  # fmt: skip


class _Cluster(NamedTuple):
    scheduler: str | None
    tls: Path | None
    shared: bool
    games_per_task: int


def _run(
    t: Tournament,
    plans: list[GamePlan],
    specs: dict[str, AgentSpec],
    options: RunOptions,
    console: Console,
    *,
    processes: int | None,
    cluster: _Cluster,
) -> None:
    from arena.tournament.display import standings_table
    from arena.tournament.executors import Executor, LocalExecutor
    from arena.tournament.run import run_tournament
    from arena.tournament.standings import standings

    count = min(os.cpu_count() or 1, options.jobs) if processes is None else processes

    def make_executor() -> Executor:
        if options.executor_name == "dask":
            from arena.tournament.dask_executor import DaskExecutor, connect, needed_keys
            from arena.tournament.tls import ClusterError

            threads = math.ceil(options.jobs / max(count, 1))
            try:
                connection = connect(cluster.scheduler, cluster.tls, workers=max(count, 1), threads=threads,
                                     hide=needed_keys(specs.values()))  # fmt: skip
                return DaskExecutor(connection, specs=specs.values(), out=options.out, shared=cluster.shared,
                                    games_per_task=cluster.games_per_task)  # fmt: skip
            except (ClusterError, OSError) as exc:
                fail(str(exc))
        return LocalExecutor(count, math.ceil(options.jobs / max(count, 1)))

    from arena.tournament.model import TournamentError

    folder = options.out
    try:
        state = run_tournament(t, plans, specs, make_executor, options, console)
    except TournamentError as exc:  # e.g. a game file in --out that is not the planned game: nothing was run
        fail(str(exc))
    except KeyboardInterrupt:
        typer.echo(f"\ninterrupted; run the same command again to resume ({folder})", err=True)
        raise typer.Exit(130) from None
    if not options.progress:
        winners = {i: r.winner for i, r in state.results.items() if r.status == "complete"}
        console.print(standings_table(standings(plans, winners, [c.label for c in t.configs])))
    done = sum(1 for r in state.results.values() if r.status == "complete")
    typer.echo(f"{done}/{len(plans)} games complete, {state.errors} errors, ${state.spent:.4f} spent; "
               f"stopped: {state.stop_reason}")  # fmt: skip
    typer.echo(f"manifest: {folder / 'tournament.json'}")
    if state.paused:  # games stopped on a model that gave no answer: saved, not counted, resumed by a new run
        raise typer.Exit(1)
