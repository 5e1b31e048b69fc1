"""What a tournament runs on a Dask worker: batches of games, the model keys the driver hands over, the
cluster-wide provider limits.

A batch (`Batch`) is one Dask task of one or more games. Games with model seats run on the worker's own event loop
(an `async` task), so every game on a worker shares one HTTP pool per provider (the direct path of
`arena/llm/direct.py`) and one limiter per provider, as in a process of the local executor, with the cluster-wide
gates of `dask_limits.py` in front of the provider. Games of bots only are CPU work: they run in a worker thread
(a plain task), so the worker's loop stays free for Dask.

The answer is plain data only (`answer`): per game its index, the transcript's text (None with a shared folder,
where the worker wrote it), an error if the game could not be played, and advisory figures for the bench. The
driver checks all of it (`received.py`).

The keys: the driver's `KeyPlugin` is a Dask worker plugin holding the keys the tournament's model seats need. The
scheduler hands it to every worker as it joins (also one started again after a crash); `setup` puts the keys into
this process's memory (`arena.agents.hand_keys`), never into its environment; removing the plugin at the end of
the run (`teardown`) takes them out again.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from arena.agents import hand_keys, withdraw_keys
from arena.tournament.dask_limits import ProviderPlan, install
from arena.tournament.play import GameTask, play_task


@dataclass(frozen=True)
class Batch:
    games: list[GameTask]
    limits: dict[str, ProviderPlan] = field(default_factory=dict)
    topic: str = ""  # the run's Dask event topic for 429s


def answer(task: GameTask, *, text: str | None = None, error: str | None = None, **stats: Any) -> dict[str, Any]:
    """One game's entry in a batch's answer: strings and numbers only."""
    return {"index": task.index, "text": text, "error": error, **stats}


async def _one(task: GameTask) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        result = await play_task(task)
    except Exception as exc:  # a file that cannot be opened or resumed: that game's failure, the others go on
        return answer(task, error="".join(traceback.format_exception_only(exc)).strip())
    return answer(task, text=result.text, error=result.error, batches=result.batches, call_rounds=result.call_rounds,
                  batch_calls=list(result.batch_calls), wall_s=round(time.perf_counter() - started, 4))  # fmt: skip


async def _all(batch: Batch) -> list[dict[str, Any]]:
    return list(await asyncio.gather(*(_one(task) for task in batch.games)))


_PREPARED: set[int] = set()


def _prepare() -> None:
    """Once per worker loop: the direct HTTP path and the tuned collector, as in a local executor's process."""
    from arena.llm.pool import use_aiohttp
    from arena.tournament.executors import tune_gc

    loop = asyncio.get_running_loop()
    if id(loop) in _PREPARED:
        return
    use_aiohttp()
    warm()  # at once if `warm` ran already
    tune_gc()
    _PREPARED.add(id(loop))


def warm() -> None:
    """Import the LLM stack and compile the default prompt set now (`Client.run` on every worker before the first
    batch): a worker's start-up then does not fall into its first games."""
    from arena.tournament.executors import warm_up

    warm_up()


async def play_batch(batch: Batch) -> list[dict[str, Any]]:
    """A batch with model seats, on the worker's event loop (shared pools and limiters)."""
    _prepare()
    await install(batch.limits, batch.topic)
    return await _all(batch)


def play_batch_in_thread(batch: Batch) -> list[dict[str, Any]]:
    """A batch of bot games, in a worker thread on a loop of its own."""
    return asyncio.run(_all(batch))


class KeyPlugin(WorkerPlugin):
    """The model keys of one run, in the memory of every worker while the run lasts."""

    def __init__(self, name: str, keys: Mapping[str, str]) -> None:
        self.name = name
        self.keys = dict(keys)

    def setup(self, worker: Any) -> None:
        hand_keys(self.keys)

    def teardown(self, worker: Any) -> None:
        withdraw_keys(self.keys)

    def __repr__(self) -> str:  # never the keys, in a log or a traceback
        return f"KeyPlugin({self.name!r}, {sorted(self.keys)})"
