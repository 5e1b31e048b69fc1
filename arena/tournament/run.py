"""The tournament driver: skip finished games, resume started ones, start the rest while the budget allows, and
write `tournament.json` at the start and the end. `Driver` holds the rules of what starts and what counts, with no
console; `run_tournament` feeds it the executor's messages, and a `RunDisplay` (display.py) shows progress and live
standings, observing only.

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.agents import AgentSpec
from arena.safe_write import PRIVATE, write_file
from arena.tournament import manifest
from arena.tournament.cost import Estimate
from arena.tournament.display import RunDisplay
from arena.tournament.executors import Executor
from arena.tournament.model import Tournament, TournamentError
from arena.tournament.play import GameResult, GameTask, differences, provider_of, result_of
from arena.tournament.schedule import GamePlan
from arena.tournament.standings import as_json, standings
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


class Taken(Enum):
    """What `Driver.take` did with a result."""

    COUNTED = "counted"  # complete, or an error: counted once, its cost spent
    AGAIN = "again"  # a second answer for a game already counted (or finished on disk): never counted twice
    PAUSED = "paused"  # saved and resumable, never counted; its provider was paused already
    PAUSES = "pauses"  # the same, and the first of its provider: the provider's other games wait


@dataclass
class Driver:
    """The run's rules, with no console: which game starts next (`admit`) and which result counts (`take`).

    The budget: a game starts only if the spend of the finished games, plus the estimate of every game in flight,
    plus its own estimate stays within the cap; a finished game's cost replaces its estimate. A game with no estimate
    (`per_game` 0: no calibration, or a configuration that is not estimated) commits nothing until its cost is
    known, so the cap then holds only what has been spent. Once the budget refuses a game, nothing more starts; the
    games in flight finish. A game counts once: a second result for it (a retry, a resumed game reported again,
    a cluster's answer that came twice) is dropped; a paused game counts never and holds its provider's games back.
    """

    state: RunState
    games: Sequence[int]  # every planned game
    queue: list[int]  # the games to start, in order
    providers: dict[int, set[str]]  # game -> the providers of its seats
    per_game: Sequence[float]  # game -> estimated cost in USD
    budget: float | None = None
    jobs: int = 8
    in_flight: set[int] = field(default_factory=set)

    def adopt(self, running: set[int]) -> None:
        """Games already running (a cluster's, taken over by a restarted driver): in flight, not started again."""
        self.queue = [i for i in self.queue if i not in running]
        self.in_flight.update(running)

    def admit(self) -> int | None:
        """The game to start next, now in flight; None while none may start (jobs full, every game left waits for a
        paused provider, the budget refused one, or none is left)."""
        state = self.state
        if not self.queue or len(self.in_flight) >= self.jobs or state.stop_reason:
            return None
        startable = [i for i in self.queue if not self.providers[i] & state.paused.keys()]
        if not startable:
            return None
        index = startable[0]
        if self.budget is not None:
            committed = state.spent + sum(self.per_game[i] for i in self.in_flight)
            if committed + self.per_game[index] > self.budget:
                state.stop_reason = (
                    f"budget: ${state.spent:.4f} spent, ${committed - state.spent:.4f} estimated for the "
                    f"{len(self.in_flight)} running game(s), and the next game's estimate of "
                    f"${self.per_game[index]:.4f} would pass the cap of ${self.budget:g}"
                )
                return None
        self.queue.remove(index)
        self.in_flight.add(index)
        return index

    def started(self, index: int) -> None:
        self.state.running.add(index)

    def take(self, result: GameResult) -> Taken:
        """Count `result`, unless its game was counted already or it paused."""
        state = self.state
        self.in_flight.discard(result.index)
        state.running.discard(result.index)
        if result.index in state.results:
            return Taken.AGAIN
        if result.status == "paused":
            state.paused_games[result.index] = result
            if result.provider in state.paused:
                return Taken.PAUSED
            state.paused[result.provider] = result.error or "its model gave no answer"
            return Taken.PAUSES
        state.results[result.index] = result
        state.spent += result.cost_usd
        if result.status != "complete":
            state.errors += 1
        return Taken.COUNTED

    def finish(self) -> str:
        """Once nothing is in flight: the run's status, with why it stopped in `state.stop_reason`."""
        state = self.state
        if state.paused:
            held = sum(1 for i in self.queue if self.providers[i] & state.paused.keys())
            state.stop_reason = (
                f"paused: {len(state.paused_games)} game(s) stopped because a model gave no answer ("
                + "; ".join(f"{p}: {why}" for p, why in state.paused.items())
                + f"), and {held} game(s) of the same provider(s) were not started; none of them is counted; fix it, "
                "then run the same command again to resume them"
                + (f"; also {state.stop_reason}" if state.stop_reason else "")
            )
            return "paused"
        if state.stop_reason:
            return "stopped"
        if any(i not in state.results for i in self.games):
            state.stop_reason = "some games did not finish"
            return "incomplete"
        state.stop_reason = "all games played"
        return "complete"


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
    started = utc_now()
    state = RunState()
    done, todo = scan(out, plans, lambda plan: task_for(t, plan, specs, out))
    state.results.update(done)
    state.spent = sum(r.cost_usd for r in done.values())
    manifest.write(out, _manifest_data(t, plans, state, options, "running", started))
    by_index = {plan.index: plan for plan in plans}
    tasks_of = {i: task_for(t, by_index[i], specs, out, options.delay) for i in todo}
    driver = Driver(
        state,
        games=list(by_index),
        queue=list(todo),
        providers={i: _providers(task) for i, task in tasks_of.items()},
        per_game=options.estimate.per_game if options.estimate else [0.0] * len(plans),
        budget=options.budget,
        jobs=options.jobs,
    )
    display = RunDisplay(console or Console(highlight=False), state, t.file.name, plans, [c.label for c in t.configs],
                         left=len(todo), budget=options.budget, live=options.progress)  # fmt: skip
    executor = make_executor()
    adopt = getattr(executor, "adopt", None)  # a restarted driver takes over the games still running on a cluster
    if adopt is not None and driver.queue:
        driver.adopt(set(adopt({i: tasks_of[i] for i in driver.queue})))
    status = "complete"
    try:
        display.start()
        for _ in range(10_000_000):  # bounded: every round starts, finishes or waits for a game
            while (index := driver.admit()) is not None:
                executor.submit(tasks_of[index])
            if not driver.in_flight:
                break
            for kind, payload in executor.poll(0.2):
                if kind == "started":
                    driver.started(payload)
                elif kind == "note":  # e.g. a cluster's result that was refused, and the game played again
                    display.note(str(payload))
                else:
                    _take(driver, display, payload, out)
            display.update(in_flight=len(driver.in_flight), left=len(driver.queue))
        status = driver.finish()
        executor.close()
    except KeyboardInterrupt:
        status = "interrupted"
        state.stop_reason = "interrupted (Ctrl-C); run the same command again to resume"
        executor.close(cancel=True)
        raise
    finally:
        display.stop()
        manifest.write(out, _manifest_data(t, plans, state, options, status, started))
    return state


def _take(driver: Driver, display: RunDisplay, result: GameResult, out: Path) -> None:
    """A game's result: its streamed transcript written (unless it was counted already), then counted or not."""
    if result.index not in driver.state.results and result.text is not None:
        _write_streamed(out / manifest.game_file(result.index), result.text)
        result.text = None
    if driver.take(result) is Taken.PAUSES:
        display.paused(result)


def _write_streamed(path: Path, text: str) -> None:
    """A transcript that came back from a Dask worker, in place of a started game's partial file from an earlier
    run (the worker replayed it whole): replaced atomically, never through a link, mode 0600 like every transcript."""
    write_file(path, text, mode=PRIVATE)


