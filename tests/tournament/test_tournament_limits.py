"""The per-provider limiter: `max_concurrent_requests` caps the requests in flight across every game on the loop,
a 429 halves the window and pauses everyone, successes grow the window back, and `requests_per_minute` spaces the
starts. (Counts and order only; no timing is asserted.)"""

from __future__ import annotations

import asyncio
import time

from arena.llm.limits import ProviderLimiter, limiter_for


def test_concurrency_cap_holds_across_callers() -> None:
    async def scenario() -> tuple[int, int]:
        limiter = limiter_for("http://127.0.0.1:1/v1", max_concurrent=2)
        assert limiter_for("http://127.0.0.1:1/v1") is limiter  # one per provider on the loop
        busy = peak = 0

        async def call() -> None:
            nonlocal busy, peak
            async with limiter.slot():
                busy += 1
                peak = max(peak, busy)
                await asyncio.sleep(0.001)
                busy -= 1

        await asyncio.gather(*(call() for _ in range(12)))
        return peak, limiter.stats.requests

    peak, requests = asyncio.run(scenario())
    assert peak == 2 and requests == 12


def test_a_429_halves_the_window_and_successes_restore_it() -> None:
    async def scenario() -> list[float]:
        limiter = ProviderLimiter(max_concurrent=8)
        seen = [limiter.window]
        limiter.throttle(0.0)
        seen.append(limiter.window)
        limiter.throttle(0.0)
        seen.append(limiter.window)
        for _ in range(200):
            async with limiter.slot():
                pass
        seen.append(limiter.window)
        return seen

    assert asyncio.run(scenario()) == [8.0, 4.0, 2.0, 8.0]


def test_requests_per_minute_spaces_the_starts() -> None:
    async def scenario() -> tuple[float, float, float, float]:
        limiter = ProviderLimiter(requests_per_minute=6000)  # one start per 10 ms

        async def call() -> None:
            async with limiter.slot():
                pass

        before = time.monotonic()
        await asyncio.gather(*(call() for _ in range(4)))
        return before, time.monotonic(), limiter.next_start, limiter.interval

    before, after, next_start, interval = asyncio.run(scenario())
    assert interval == 0.01
    assert next_start >= before + 4 * interval  # four starts reserved one interval apart
    assert after - before >= 3 * interval  # the fourth waited for its turn (a lower bound: sleeps never end early)
