"""Per-provider request limits shared by every seat of every game running on one event loop.

A tournament runs many games at once in one process; each game's seats make their own calls. Limits belong to the
provider (its endpoint), not to a seat: `max_concurrent_requests` caps the requests in flight, `requests_per_minute`
spaces their starts, and a 429 from any request pauses the whole provider for the wait the server asked for and
halves the concurrency window (raised again by one per window of successes). So one game's 429 slows every game in
the process, instead of the other games hammering on while one seat backs off.

The limiter is looked up by `limiter_for(key, ...)`, one per (event loop, provider key): asyncio primitives belong
to one loop, and a process runs one loop for its games.

On a Dask cluster the limits hold for the whole cluster instead: the worker installs a `Gate` per provider on its
loop (`install_gate`, from `arena/tournament/dask_limits.py`), which takes a cluster-wide slot before each request
and gives it back after, and tells every other worker of a 429. The limiter then keeps only its local part (the
window that a 429 halves, and the pause).
"""

from __future__ import annotations

import asyncio
import math
import time
import weakref
from dataclasses import dataclass
from typing import Protocol

DEFAULT_PAUSE_S = 1.0  # a 429 without Retry-After pauses the provider this long
MAX_PAUSE_S = 30.0


@dataclass
class LimiterStats:
    requests: int = 0
    throttles: int = 0  # 429s seen
    paused_waits: int = 0  # requests that waited for a pause another request's 429 started (or their own)
    window_min: float = math.inf  # the smallest concurrency window reached
    remote_throttles: int = 0  # 429s another worker of the cluster saw (counted in `throttles` too)


class Gate(Protocol):
    """A provider's cluster-wide limits (`arena/tournament/dask_limits.py`)."""

    async def enter(self) -> None:
        """Wait for a cluster-wide slot (and the request-rate budget)."""

    async def leave(self) -> None:
        """Give the slot back."""

    def throttled(self, pause_s: float) -> None:
        """This worker saw a 429 asking for `pause_s`: tell the others."""


class ProviderLimiter:
    """Concurrency window (AIMD on 429), request spacing (requests per minute) and a shared pause after a 429."""

    def __init__(
        self, max_concurrent: int | None = None, requests_per_minute: float | None = None, gate: Gate | None = None
    ) -> None:
        self.gate = gate
        self.cap = float(max_concurrent) if max_concurrent else math.inf
        self.window = self.cap
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self.in_flight = 0
        self.paused_until = 0.0
        self.next_start = 0.0
        self.stats = LimiterStats()
        self._changed = asyncio.Condition()
        self._waiting = 0

    async def _acquire(self) -> None:
        waited = False
        for _ in range(1_000_000):  # bounded: each round either takes the slot or waits for a change
            now = time.monotonic()
            if self.paused_until > now:
                waited = True
                await asyncio.sleep(self.paused_until - now)
                continue
            if self.in_flight < max(self.window, 1.0):  # no await between the test and the take: no race
                self.in_flight += 1
                break
            async with self._changed:
                if self.in_flight < max(self.window, 1.0):  # freed while we took the lock
                    self.in_flight += 1
                    break
                self._waiting += 1
                try:
                    await self._changed.wait()
                finally:
                    self._waiting -= 1
        if waited:
            self.stats.paused_waits += 1
        if self.interval:
            now = time.monotonic()
            start = max(now, self.next_start)
            self.next_start = start + self.interval
            if start > now:
                await asyncio.sleep(start - now)
        if self.gate is not None:
            try:
                await self.gate.enter()
            except BaseException:  # cancelled while waiting for the cluster: the local slot goes back
                await self._release(gated=False)
                raise
        self.stats.requests += 1

    async def _release(self, gated: bool = True) -> None:
        if gated and self.gate is not None:
            try:
                await self.gate.leave()
            finally:
                await self._release(gated=False)
            return
        self.in_flight -= 1
        if self._waiting:  # the common case (nobody queued) takes no lock
            async with self._changed:
                self._changed.notify_all()

    def throttle(self, wait_s: float | None, *, remote: bool = False) -> None:
        """A 429: pause every request of this provider and halve the window (`remote`: another worker's 429)."""
        pause = min(wait_s if wait_s is not None else DEFAULT_PAUSE_S, MAX_PAUSE_S)
        self.paused_until = max(self.paused_until, time.monotonic() + pause)
        current = self.window if math.isfinite(self.window) else float(max(self.in_flight, 2))
        self.window = max(current / 2, 1.0)
        self.stats.throttles += 1
        self.stats.remote_throttles += remote
        self.stats.window_min = min(self.stats.window_min, self.window)
        if self.gate is not None and not remote:
            self.gate.throttled(pause)

    def _success(self) -> None:
        if self.window < self.cap:
            self.window = min(self.window + 1.0 / max(self.window, 1.0), self.cap)
            if not math.isfinite(self.cap) and self.window >= 1024:
                self.window = math.inf

    def slot(self) -> _Slot:
        """Hold one request slot; a 429 raised inside throttles the provider for everyone."""
        return _Slot(self)

    def _failed(self, exc: BaseException) -> None:
        if getattr(exc, "status_code", None) == 429:  # openai.RateLimitError, without importing the SDK here
            response = getattr(exc, "response", None)
            headers = dict(response.headers) if response is not None else None
            self.throttle(retry_after(headers))


class _Slot:
    """`ProviderLimiter.slot()`: a plain async context manager (one per request; a generator-based one cost a few
    times as much). On leaving: a 429 throttles, any other exception passes, success widens the window; the slot is
    released in every case."""

    __slots__ = ("_limiter",)

    def __init__(self, limiter: ProviderLimiter) -> None:
        self._limiter = limiter

    async def __aenter__(self) -> None:
        await self._limiter._acquire()

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        limiter = self._limiter
        try:
            if exc is None:
                limiter._success()
            elif isinstance(exc, Exception):
                limiter._failed(exc)
        finally:
            await limiter._release()


_SHARE = 1.0  # this process's share of each provider's limits (a pool of P worker processes: 1/P each)


def retry_after(headers: dict[str, str] | None) -> float | None:
    from arena.llm.retry import retry_after_seconds  # imports the SDK: only once a 429 has arrived

    return retry_after_seconds(headers)


def set_process_share(fraction: float) -> None:
    """Give this process `fraction` of every provider's limits (a tournament worker among P: 1/P)."""
    global _SHARE
    _SHARE = min(max(fraction, 0.0), 1.0) or 1.0


_REGISTRY: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, ProviderLimiter]] = (
    weakref.WeakKeyDictionary()
)
_GATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Gate]] = weakref.WeakKeyDictionary()


def install_gate(key: str, gate: Gate) -> None:
    """From now on, provider `key`'s requests on the running loop go through `gate` (its cluster-wide limits),
    and the loop's own caps for it are dropped: the gate holds them for the whole cluster."""
    loop = asyncio.get_running_loop()
    _GATES.setdefault(loop, {})[key] = gate
    limiter = _REGISTRY.get(loop, {}).get(key)
    if limiter is not None:
        limiter.gate, limiter.cap, limiter.window, limiter.interval = gate, math.inf, math.inf, 0.0


def gate_for(key: str) -> Gate | None:
    """The gate installed for provider `key` on the running loop, if any."""
    return _GATES.get(asyncio.get_running_loop(), {}).get(key)


def limiter_for(
    key: str, max_concurrent: int | None = None, requests_per_minute: float | None = None
) -> ProviderLimiter:
    """The running loop's limiter for provider `key` (its endpoint); the first caller's limits set it up, and a
    later caller with tighter limits tightens it."""
    if max_concurrent:
        max_concurrent = max(1, math.floor(max_concurrent * _SHARE))
    if requests_per_minute:
        requests_per_minute = requests_per_minute * _SHARE
    loop = asyncio.get_running_loop()
    by_key = _REGISTRY.setdefault(loop, {})
    limiter = by_key.get(key)
    if limiter is None:
        gate = _GATES.get(loop, {}).get(key)
        if gate is not None:  # the cluster holds this provider's limits
            limiter = by_key[key] = ProviderLimiter(gate=gate)
            return limiter
        limiter = by_key[key] = ProviderLimiter(max_concurrent, requests_per_minute)
        return limiter
    if limiter.gate is not None:
        return limiter
    if max_concurrent and max_concurrent < limiter.cap:
        limiter.cap = float(max_concurrent)
        limiter.window = min(limiter.window, limiter.cap)
    if requests_per_minute and 60.0 / requests_per_minute > limiter.interval:
        limiter.interval = 60.0 / requests_per_minute
    return limiter


def limiters() -> dict[str, ProviderLimiter]:
    """The running loop's limiters by provider key (for progress and tests)."""
    return dict(_REGISTRY.get(asyncio.get_running_loop(), {}))
