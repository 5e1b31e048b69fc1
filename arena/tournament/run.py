"""The tournament driver: skip finished games, resume started ones, start the rest while the budget allows, show
progress and live standings, and write `tournament.json` at the start and the end.

Games are handed to the executor one at a time, at most `jobs` in flight. Before each start the driver checks the
budget: the spend of the finished games, plus the estimate for every game in flight, plus the estimate of the next
game must stay within the cap; otherwise it starts nothing more, lets the running games finish, and the manifest
says why it stopped. A game that stops because a seat's model gave no answer (`GameStopped`: the server is gone, the
key is refused) pauses that provider: its game is saved and not counted, no other game of that provider is started,
and the run says so; running the same command again resumes them. Ctrl-C stops the workers at once; every
transcript stays resumable, and the next run of the same file picks up where this one stopped and ends with the same
table as an uninterrupted run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Column, Table

from arena.agents import AgentSpec
from arena.safe_write import PRIVATE, write_file
from arena.tournament import manifest
from arena.tournament.cost import Estimate
from arena.tournament.executors import Executor
from arena.tournament.model import Tournament, TournamentError
from arena.tournament.play import GameResult, GameTask, differences, provider_of, result_of
from arena.tournament.schedule import GamePlan
from arena.tournament.standings import Standing, as_json, standings
from arena.transcript import TranscriptError, load, utc_now


@dataclass
class RunOptions:
    out: Path
    jobs: int = 8
    budget: float | None = None
    estimate: Estimate | None = None
    progress: bool = True
    executor_name: str = "local"
    delay: float = 0.0


@dataclass
class RunState:
    results: dict[int, GameResult] = field(default_factory=dict)
    running: set[int] = field(default_factory=set)
    errors: int = 0
    spent: float = 0.0
    stop_reason: str = ""
    paused: dict[str, str] = field(default_factory=dict)  # provider -> why its game stopped
    paused_games: dict[int, GameResult] = field(default_factory=dict)  # games stopped, saved, not counted


def task_for(t: Tournament, plan: GamePlan, specs: dict[str, AgentSpec], out: Path, delay: float = 0.0) -> GameTask:
    seats = {seat: specs[label].model_dump(mode="json") for seat, label in enumerate(plan.labels, start=1)}
    note = f"tournament {t.file.name} game {plan.index + 1}/{t.file.games}: " + " ".join(
        f"{seat}={label}" for seat, label in enumerate(plan.labels, start=1)
    )
    return GameTask(
        index=plan.index,
        seed=plan.seed,
        rules=t.rules.model_dump(mode="json"),
        roles=[role.value for role in plan.roles],
        seats=seats,
        game_id=f"{t.fingerprint[:8]}-{plan.index + 1:04d}",
        lang=t.file.lang,
        note=note,
        timeout_s=t.file.timeout_s,
        max_reasks=t.file.max_reasks,
        path=str(out / manifest.game_file(plan.index)),
        delay=delay,
    )


def scan(
    out: Path, plans: Sequence[GamePlan], tasks: Callable[[GamePlan], GameTask] | None = None
) -> tuple[dict[int, GameResult], list[int]]:
    """Finished games read from their files, and the indices of the games still to play (new or started).

    With `tasks`, every existing file is checked against its planned game first (hash chain, seed, roles, seats'
    configurations, rules): a file that is not the planned game refuses the whole run, naming every such file and
    what differs, before anything is played or counted."""
    done: dict[int, GameResult] = {}
    todo: list[int] = []
    refused: list[str] = []
    for plan in plans:
        path = out / manifest.game_file(plan.index)
        if path.exists():
            try:
                transcript = load(path, repair=True)
            except TranscriptError:
                todo.append(plan.index)  # play_task reports the broken file as that game's failure
                continue
            found = differences(transcript, tasks(plan)) if tasks is not None else []
            if found:
                refused.append(f"{path}: {'; '.join(found)}")
                continue
            if transcript.status != "started":
                done[plan.index] = result_of(transcript, plan.index, skipped=True)
                continue
        todo.append(plan.index)
    if refused:
        raise TournamentError(
            f"out: {len(refused)} game file(s) are not the planned games, so they are neither counted nor continued: "
            + " | ".join(refused)
            + "; move them away (a moved game is replayed from scratch) or choose another --out"
        )
    return done, todo


def standings_table(rows: Sequence[Standing], title: str = "standings") -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("config")
    table.add_column("games", justify="right")
    table.add_column("win rate (95% CI)", justify="right")
    sides = sorted({side for row in rows for side in row.sides})
    for side in sides:
        table.add_column(side, justify="right")
    for row in rows:
        r = row.overall.row()
        cells = [row.label, str(r["games"]), f"{r['rate']:.2f} ({r['low']:.2f}-{r['high']:.2f})"]
        for side in sides:
            record = row.sides.get(side)
            if record is None or not record.games:
                cells.append("-")
                continue
            s = record.row()
            cells.append(f"{s['rate']:.2f} ({s['low']:.2f}-{s['high']:.2f}) n={s['games']}")
        table.add_row(*cells)
    return table


def _manifest_data(
    t: Tournament, plans: Sequence[GamePlan], state: RunState, options: RunOptions, status: str, started: str
) -> dict[str, Any]:
    winners = {i: r.winner for i, r in state.results.items() if r.status == "complete"}
    rows = standings(plans, winners, [c.label for c in t.configs])
    games = []
    for plan in plans:
        result = state.results.get(plan.index)
        games.append(
            {
                "index": plan.index,
                "seed": plan.seed,
                "file": manifest.game_file(plan.index),
                "seats": list(plan.labels),
                "roles": [role.value for role in plan.roles],
                "status": result.status if result else _unfinished(state, plan.index),
                "winner": result.winner if result else None,
                "cost_usd": round(result.cost_usd, 8) if result else 0.0,
                **({"error": result.error} if result and result.error else {}),
            }
        )
    return {
        "name": t.file.name,
        "fingerprint": t.fingerprint,
        "source": t.source,
        "rules": t.rules.name,
        "players": t.players,
        "games_planned": t.file.games,
        "seed": t.seed,
        "configs": [{"label": c.label, "agent": c.agent, "spec": c.spec.model_dump(mode="json")} for c in t.configs],
        "filler": {"label": t.filler.label, "agent": t.filler.agent},
        "executor": options.executor_name,
        "status": status,
        "stop_reason": state.stop_reason,
        "started_at": started,
        "finished_at": utc_now() if status != "running" else "",
        "done": sum(1 for r in state.results.values() if r.status == "complete"),
        "errors": state.errors,
        "paused": len(state.paused_games),
        "paused_providers": dict(state.paused),
        "spend_usd": round(state.spent, 8),
        "budget_usd": options.budget,
        "estimate": options.estimate.as_json() if options.estimate else None,
        "standings": as_json(rows),
        "games": games,
    }


def _unfinished(state: RunState, index: int) -> str:
    if index in state.paused_games:
        return "paused"
    return "running" if index in state.running else "not started"


def _providers(task: GameTask) -> set[str]:
    return {provider_of(AgentSpec.model_validate(data)) for data in task.seats.values()} - {""}


def run_tournament(
    t: Tournament,
    plans: Sequence[GamePlan],
    specs: dict[str, AgentSpec],
    make_executor: Callable[[], Executor],
    options: RunOptions,
    console: Console | None = None,
) -> RunState:
    """Play every game of `plans` not finished yet; returns the final state (the manifest is written)."""
    out = options.out
    out.mkdir(parents=True, exist_ok=True)
    console = console or Console(highlight=False)
    started = utc_now()
    state = RunState()
    done, todo = scan(out, plans, lambda plan: task_for(t, plan, specs, out))
    state.results.update(done)
    state.spent = sum(r.cost_usd for r in done.values())
    manifest.write(out, _manifest_data(t, plans, state, options, "running", started))
    per_game = options.estimate.per_game if options.estimate else [0.0] * len(plans)
    by_index = {plan.index: plan for plan in plans}
    queue = list(todo)
    progress = Progress(  # folding columns: a narrow terminal wraps the words, nothing is cut (80 columns cut "0:00:…")
        TextColumn("[bold]{task.description}", table_column=Column(overflow="fold")),
        BarColumn(bar_width=20),
        TextColumn(
            "{task.completed}/{task.total} done · {task.fields[running]} running · {task.fields[left]} left"
            " · ${task.fields[spent]:.4f}{task.fields[budget]} · {task.fields[errors]} errors",
            table_column=Column(overflow="fold"),
        ),
        TimeElapsedColumn(table_column=Column(no_wrap=True, min_width=7)),
        TimeRemainingColumn(table_column=Column(no_wrap=True, min_width=7)),
        console=console,
        transient=False,
    )
    bar = progress.add_task(t.file.name, total=len(plans), completed=len(done), running=0, left=len(queue),
                            spent=state.spent, errors=0,
                            budget=f" of ${options.budget:g}" if options.budget is not None else "")  # fmt: skip

    def view() -> Group:
        winners = {i: r.winner for i, r in state.results.items() if r.status == "complete"}
        return Group(progress, standings_table(standings(plans, winners, [c.label for c in t.configs])))

    live = Live(view(), console=console, refresh_per_second=4, transient=False) if options.progress else None
    executor = make_executor()
    tasks_of = {i: task_for(t, by_index[i], specs, out, options.delay) for i in queue}
    in_flight: set[int] = set()
    adopt = getattr(executor, "adopt", None)  # a restarted driver takes over the games still running on a cluster
    if adopt is not None and queue:
        running = adopt({i: tasks_of[i] for i in queue})
        queue = [i for i in queue if i not in running]
        in_flight.update(running)
    last_view = 0.0
    status = "complete"
    try:
        if live is not None:
            live.start()
        for _ in range(10_000_000):  # bounded: every round starts, finishes or waits for a game
            while queue and len(in_flight) < options.jobs and not state.stop_reason:
                startable = [i for i in queue if not _providers(tasks_of[i]) & state.paused.keys()]
                if not startable:  # every game left uses a paused provider: none is started
                    break
                index = startable[0]
                if options.budget is not None:
                    committed = state.spent + sum(per_game[i] for i in in_flight)
                    if committed + per_game[index] > options.budget:
                        state.stop_reason = (
                            f"budget: ${state.spent:.4f} spent, ${committed - state.spent:.4f} estimated for the "
                            f"{len(in_flight)} running game(s), and the next game's estimate of ${per_game[index]:.4f} "
                            f"would pass the cap of ${options.budget:g}"
                        )
                        break
                queue.remove(index)
                executor.submit(tasks_of[index])
                in_flight.add(index)
            if not in_flight:
                break
            for kind, payload in executor.poll(0.2):
                if kind == "started":
                    state.running.add(payload)
                    continue
                if kind == "note":  # e.g. a cluster's result that was refused, and the game played again
                    console.print(f"[yellow]note:[/] {escape(str(payload))}")
                    continue
                result: GameResult = payload
                in_flight.discard(result.index)
                state.running.discard(result.index)
                if result.index in state.results:  # a second answer for a game already counted: never counted twice
                    continue
                if result.text is not None:
                    _write_streamed(out / manifest.game_file(result.index), result.text)
                    result.text = None
                if result.status == "paused":  # saved and resumable: never counted; its provider's games wait
                    state.paused_games[result.index] = result
                    if result.provider not in state.paused:
                        state.paused[result.provider] = result.error or "its model gave no answer"
                        console.print(
                            f"[yellow]paused:[/] {escape(result.provider)}: game {result.index + 1} stopped "
                            f"({escape(result.error or '')}); its games are neither counted nor started; run the same "
                            "command again to resume them"
                        )
                    continue
                state.results[result.index] = result
                state.spent += result.cost_usd
                if result.status != "complete":
                    state.errors += 1
            finished = sum(1 for r in state.results.values())
            progress.update(bar, completed=finished, running=len(in_flight), left=len(queue), spent=state.spent,
                            errors=state.errors)  # fmt: skip
            now = time.monotonic()
            if live is not None and now - last_view > 0.25:
                live.update(view())
                last_view = now
        if state.paused:
            status = "paused"
            held = sum(1 for i in queue if _providers(tasks_of[i]) & state.paused.keys())
            state.stop_reason = (
                f"paused: {len(state.paused_games)} game(s) stopped because a model gave no answer ("
                + "; ".join(f"{p}: {why}" for p, why in state.paused.items())
                + f"), and {held} game(s) of the same provider(s) were not started; none of them is counted; fix it, "
                "then run the same command again to resume them"
                + (f"; also {state.stop_reason}" if state.stop_reason else "")
            )
        elif state.stop_reason:
            status = "stopped"
        elif any(by_index[i].index not in state.results for i in by_index):
            status = "incomplete"
            state.stop_reason = "some games did not finish"
        else:
            state.stop_reason = "all games played"
        executor.close()
    except KeyboardInterrupt:
        status = "interrupted"
        state.stop_reason = "interrupted (Ctrl-C); run the same command again to resume"
        executor.close(cancel=True)
        raise
    finally:
        if live is not None:
            live.update(view())
            live.stop()
            if not console.is_terminal:
                console.line()  # Live ends its last frame without a newline off a terminal ("┘200/200 games")
        manifest.write(out, _manifest_data(t, plans, state, options, status, started))
    return state


def _write_streamed(path: Path, text: str) -> None:
    """A transcript that came back from a Dask worker, in place of a started game's partial file from an earlier
    run (the worker replayed it whole): replaced atomically, never through a link, mode 0600 like every transcript."""
    write_file(path, text, mode=PRIVATE)


