"""The games as tasks on a Dask distributed cluster (`--executor dask --scheduler tcp://HOST:PORT`, extra `dask`).

Workers keep no state: each task carries its whole `GameTask` (rules, seating, specs, seed) and runs one game on
its own event loop. By default the transcript's text comes back with the result and the driver writes it; with a
shared folder (`shared=True`, the same `--out` path mounted on every worker) the worker writes it there itself, so a
started game can be resumed from its file.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

from arena.tournament.executors import Message
from arena.tournament.play import GameResult, GameTask, run_task


class DaskExecutor:
    def __init__(self, scheduler: str | Any, *, shared: bool = False) -> None:
        try:
            from distributed import Client
        except ImportError as exc:
            raise RuntimeError(f"the dask executor needs the dask extra (pip install -e '.[dask]'): {exc}") from None
        self.client = scheduler if isinstance(scheduler, Client) else Client(scheduler)  # type: ignore[no-untyped-call]
        self._own = not isinstance(scheduler, Client)
        self.shared = shared
        self.futures: dict[Any, GameTask] = {}
        self._started: list[Message] = []

    def submit(self, task: GameTask) -> None:
        sent = task if self.shared else dataclasses.replace(task, path=None)
        future = self.client.submit(run_task, sent, pure=False, key=f"arena-game-{task.game_id}")
        self.futures[future] = task
        self._started.append(("started", task.index))

    def poll(self, timeout: float) -> list[Message]:
        from distributed import wait

        out, self._started = self._started, []
        if not self.futures:
            return out
        try:
            done, _ = wait(list(self.futures), timeout=timeout, return_when="FIRST_COMPLETED")  # type: ignore[no-untyped-call]
        except TimeoutError:
            return out
        for future in done:
            task = self.futures.pop(future)
            try:
                result: GameResult = future.result()
            except Exception as exc:  # a worker lost or a task that raised: that game failed, the others go on
                result = GameResult(task.index, "failed", error=f"{type(exc).__name__}: {exc}")
            out.append(("done", result))
        return out

    def close(self, *, cancel: bool = False) -> None:
        if cancel:
            for future in self.futures:
                with contextlib.suppress(Exception):
                    future.cancel()
        if self._own:
            self.client.close()  # type: ignore[no-untyped-call]
