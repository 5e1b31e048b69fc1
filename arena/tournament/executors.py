"""Where the games run. The driver hands out one `GameTask` at a time (so it can stop at the budget) and reads
`("started", index)` and `("done", GameResult)` messages back.

`LocalExecutor` runs a pool of worker processes (spawned, so no lock or thread is inherited); each process runs many
games on its own event loop, taking a new task whenever one of its slots is free. Every game in a process shares one
keep-alive HTTP client per provider (`arena/llm/client.py`) and one limiter per provider (`arena/llm/limits.py`),
so a 429 slows every game of the process. Each process starts its games `stagger` seconds apart: games started
together stay in step, and each vote round of all of them would ask the provider (and the cores) at the same instant;
a fixed offset spreads those bursts, and no game's content depends on when it started. With `processes=0` the games
run on one event loop in a thread of this process (tests, small runs). The Dask executor (`dask_executor.py`) offers
the same three methods.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import multiprocessing
import os
import queue
import signal
import threading
import traceback
from typing import Any, Protocol

from arena.llm.limits import set_process_share
from arena.llm.pool import use_aiohttp
from arena.tournament.play import GameResult, GameTask, play_task

Message = tuple[str, Any]


class Executor(Protocol):
    def submit(self, task: GameTask) -> None: ...

    def poll(self, timeout: float) -> list[Message]: ...

    def close(self, *, cancel: bool = False) -> None: ...


class _Queue(Protocol):
    def get(self, block: bool = True, timeout: float | None = None) -> Any: ...

    def put(self, item: Any) -> None: ...


async def _one(task: GameTask, results: _Queue, slots: asyncio.Semaphore) -> None:
    try:
        result = await play_task(task)
    except Exception as exc:  # a transcript that cannot be opened or resumed: reported, the others go on
        detail = "".join(traceback.format_exception_only(exc)).strip()
        result = GameResult(task.index, "failed", error=detail)
    finally:
        slots.release()
    results.put(("done", result))


def _next(tasks: _Queue, parent: int | None) -> GameTask | None:
    """The next task (None: stop). A worker whose driver died exits at once, as if killed with it: it never outlives
    a killed run, and its unfinished games stay resumable."""
    for _ in range(1_000_000_000):  # bounded only by the run's length; each round waits a second
        try:
            task: GameTask | None = tasks.get(timeout=1.0)
            return task
        except queue.Empty:
            if parent is not None and os.getppid() != parent:
                os._exit(3)
    return None


DEFAULT_STAGGER_S = 0.004  # 64 games on 2 processes start within about 0.13 s, one round trip or so


async def serve(tasks: _Queue, results: _Queue, slots: int, watch_parent: bool = False, stagger: float = 0.0) -> None:
    """Take tasks until a None arrives, playing up to `slots` games at once on this loop, starting them at least
    `stagger` seconds apart."""
    use_aiohttp()  # one pool per provider for many games: aiohttp's, whose work per request does not grow with it
    free = asyncio.Semaphore(slots)
    loop = asyncio.get_running_loop()
    parent = os.getppid() if watch_parent else None
    running: set[asyncio.Task[None]] = set()
    while True:
        await free.acquire()
        task: GameTask | None = await loop.run_in_executor(None, _next, tasks, parent)
        if task is None:
            break
        results.put(("started", task.index))
        job = asyncio.create_task(_one(task, results, free))
        running.add(job)
        job.add_done_callback(running.discard)
        if stagger > 0:
            await asyncio.sleep(stagger)
    if running:
        await asyncio.gather(*running)


GC_THRESHOLDS = (50_000, 20, 100)  # Python's default is (700, 10, 10)


def tune_gc() -> None:
    """A worker's many games allocate container objects fast (messages, records, tasks, template contexts), and
    with the default thresholds the cyclic collector ran every 700 of them, walking the ever larger heap of the
    running games: a fifth of a worker's CPU. The modules loaded so far are frozen out of its walks, and it runs
    every 50,000 allocations (the games' cyclic garbage is small; reference counting frees the rest at once)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def warm_up() -> None:
    """Before a worker's first game: the LLM stack's import (a second or so) and the default prompt set's templates
    compiled (a custom set compiles in its first game), so neither falls into the games' time. The set is loaded
    with the very arguments a seat loads it with (`build_llm_player`: the set's name and the language), since
    `load_prompt_set` remembers each way of calling it apart: `load_prompt_set()` compiled a second copy that no
    game used, and the games compiled theirs during the first game (about a quarter of a second of CPU)."""
    with contextlib.suppress(ImportError):
        import arena.players.llm  # noqa: F401
    with contextlib.suppress(Exception):
        from arena.prompts import load_prompt_set

        load_prompt_set("default", "en")


def _worker(tasks: _Queue, results: _Queue, slots: int, processes: int, stagger: float) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    set_process_share(1 / processes)  # the providers' limits hold for the whole pool, not per process
    warm_up()
    tune_gc()
    asyncio.run(serve(tasks, results, slots, watch_parent=True, stagger=stagger))


class LocalExecutor:
    """`processes` worker processes with `slots` games each (processes=0: one loop in a thread here), each starting
    its games `stagger` seconds apart."""

    def __init__(self, processes: int, slots: int, stagger: float = DEFAULT_STAGGER_S) -> None:
        self.processes = processes
        self.workers: list[Any] = []
        if processes <= 0:
            self.tasks: _Queue = queue.Queue()
            self.results: Any = queue.Queue()
            thread = threading.Thread(
                target=lambda: asyncio.run(serve(self.tasks, self.results, slots, stagger=stagger)), daemon=True
            )
            thread.start()
            self.workers.append(thread)
            return
        context = multiprocessing.get_context("spawn")
        self.tasks = context.Queue()
        self.results = context.Queue()
        for _ in range(processes):
            process = context.Process(
                target=_worker, args=(self.tasks, self.results, slots, processes, stagger), daemon=True
            )
            process.start()
            self.workers.append(process)

    def submit(self, task: GameTask) -> None:
        self.tasks.put(task)

    def poll(self, timeout: float) -> list[Message]:
        out: list[Message] = []
        try:
            out.append(self.results.get(timeout=timeout))
            while True:
                out.append(self.results.get_nowait())
        except queue.Empty:
            pass
        if not out and self.processes > 0:
            dead = [w for w in self.workers if not w.is_alive()]
            if dead:
                raise RuntimeError(f"a worker process died (exit code {dead[0].exitcode})")
        return out

    def close(self, *, cancel: bool = False) -> None:
        if cancel and self.processes > 0:
            for worker in self.workers:
                worker.terminate()
            for worker in self.workers:
                worker.join(timeout=5)
            return
        for _ in self.workers:
            self.tasks.put(None)
        for worker in self.workers:
            worker.join(timeout=60)
        with contextlib.suppress(Exception):
            if self.processes > 0:
                self.tasks.close()  # type: ignore[attr-defined]
                self.results.close()
