"""A virtual clock for timing tests: `pause(s)` waits until the clock reaches now + s, and the clock moves only when
every task is waiting on it, straight to the next wake-up. Concurrent pauses overlap as real sleeps do (ten seats
pausing 1 s at once take 1 s), and no test waits on the wall clock or depends on the machine's speed."""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class VirtualClock:
    def __init__(self) -> None:
        self.now = 0.0
        self._wakes: list[tuple[float, int, asyncio.Future[None]]] = []
        self._count = 0

    def __call__(self) -> float:
        return self.now

    async def pause(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._count += 1
        heapq.heappush(self._wakes, (self.now + max(seconds, 0.0), self._count, future))
        await future

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro`, moving the clock whenever nothing else can run (the event loop's ready queue is empty)."""
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(coro)
        while not task.done():
            await asyncio.sleep(0)
            if getattr(loop, "_ready", None) or not self._wakes:
                continue  # something else can still run (or nothing waits on the clock: an outside wait)
            when = self._wakes[0][0]
            self.now = max(self.now, when)
            while self._wakes and self._wakes[0][0] <= self.now:
                _, _, future = heapq.heappop(self._wakes)
                if not future.done():
                    future.set_result(None)
        return task.result()
