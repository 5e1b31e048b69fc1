"""What a person sees of a tournament run: the progress bar, the live standings, notes and paused providers, on a
Rich console. It only observes: it reads the run's state and prints, and nothing here decides what is started or
counted (that is `run.Driver`'s, which is tested with no console)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Protocol

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Column, Table

from arena.tournament.play import GameResult
from arena.tournament.schedule import GamePlan
from arena.tournament.standings import Standing, standings

REFRESH_S = 0.25  # the live standings are redrawn at most this often (the bar's counts at every round)


class RunState(Protocol):
    """What the display reads of the run's state (`run.RunState`)."""

    results: dict[int, GameResult]
    spent: float
    errors: int


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


class RunDisplay:
    """The run of `state` on `console`: a progress bar and, with `live`, the standings redrawn as games finish."""

    def __init__(
        self,
        console: Console,
        state: RunState,
        name: str,
        plans: Sequence[GamePlan],
        labels: list[str],
        *,
        left: int,
        budget: float | None,
        live: bool,
    ) -> None:
        self.console = console
        self.state = state
        self.plans = plans
        self.labels = labels
        # folding columns: a narrow terminal wraps the words, nothing is cut (80 columns cut "0:00:…")
        self.progress = Progress(
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
        self.bar = self.progress.add_task(name, total=len(plans), completed=len(state.results), running=0, left=left,
                                          spent=state.spent, errors=state.errors,
                                          budget=f" of ${budget:g}" if budget is not None else "")  # fmt: skip
        self.live = Live(console=console, refresh_per_second=4, transient=False) if live else None
        self._drawn = 0.0

    def _view(self) -> Group:
        winners = {i: r.winner for i, r in self.state.results.items() if r.status == "complete"}
        return Group(self.progress, standings_table(standings(self.plans, winners, self.labels)))

    def start(self) -> None:
        if self.live is not None:
            self.live.update(self._view())
            self.live.start()

    def update(self, *, in_flight: int, left: int) -> None:
        """The counts now; the standings too, if they were last drawn over `REFRESH_S` ago."""
        state = self.state
        self.progress.update(self.bar, completed=len(state.results), running=in_flight, left=left, spent=state.spent,
                             errors=state.errors)  # fmt: skip
        now = time.monotonic()
        if self.live is not None and now - self._drawn > REFRESH_S:
            self.live.update(self._view())
            self._drawn = now

    def note(self, text: str) -> None:
        self.console.print(f"[yellow]note:[/] {escape(text)}")

    def paused(self, result: GameResult) -> None:
        """The first game of a provider that stopped because its model gave no answer."""
        self.console.print(
            f"[yellow]paused:[/] {escape(result.provider)}: game {result.index + 1} stopped "
            f"({escape(result.error or '')}); its games are neither counted nor started; run the same "
            "command again to resume them"
        )

    def stop(self) -> None:
        if self.live is None:
            return
        self.live.update(self._view())
        self.live.stop()
        if not self.console.is_terminal:
            self.console.line()  # Live ends its last frame without a newline off a terminal ("┘200/200 games")
