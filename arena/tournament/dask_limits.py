"""A provider's limits for a whole Dask cluster, built on Dask's own primitives (no server of ours).

- `max_concurrent_requests`: a `distributed.Semaphore` with that many leases, named for the run and the provider.
  Every request takes a lease on the scheduler before it is sent and gives it back when its answer is in, so the
  cap holds across every worker. A worker that dies holding leases loses them only when the scheduler lets them
  time out (`distributed.scheduler.locks.lease-timeout`, 30 s, checked every `lease-validation-interval`, 10 s):
  until then the cluster runs below the cap, never above it.
- `requests_per_minute`: a second Semaphore whose leases are given back a fixed time after they were taken: with M
  leases held for W = M x 60 / rpm seconds each, no window of W seconds sees more than M starts, cluster-wide.
- A 429: the worker that saw it pauses and halves its window as on one machine (`arena/llm/limits.py`) and logs a
  Dask event (`Worker.log_event`); every other worker subscribes to the run's topic and applies the same pause to
  its own limiter of that provider.

Each request costs two scheduler round trips per semaphore (about a millisecond each on a local network), which is
small against a model's answer. The plan (`cluster_limits`) is plain data made by the driver and sent with every
batch; the gates (`ClusterGate`) live on each worker's event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.agents import AgentSpec
from arena.llm import limits


@dataclass(frozen=True)
class ProviderPlan:
    """One provider's cluster-wide limits: the semaphores' names and sizes (plain data)."""

    key: str  # the provider key of `arena/llm/limits.py` (its base URL)
    concurrency: str | None = None  # Semaphore name for max_concurrent_requests
    max_concurrent: int = 0
    rate: str | None = None  # Semaphore name for requests_per_minute
    rate_leases: int = 0
    window_s: float = 0.0  # each rate lease is held this long


def provider_key(spec: AgentSpec) -> str:
    return spec.base_url or "openai"  # what `arena/llm/client.py` passes to limiter_for


def cluster_limits(specs: Iterable[AgentSpec], run: str) -> dict[str, ProviderPlan]:
    """Per provider of the model seats: the tightest `max_concurrent_requests` and `requests_per_minute` of its
    specs, as semaphores named for the run `run` (none without limits: then only its 429s are shared)."""
    caps: dict[str, int] = {}
    rates: dict[str, float] = {}
    providers: set[str] = set()
    for spec in specs:
        if spec.kind != "llm":
            continue
        key = provider_key(spec)
        providers.add(key)
        if spec.max_concurrent_requests:
            caps[key] = min(caps.get(key, spec.max_concurrent_requests), spec.max_concurrent_requests)
        if spec.requests_per_minute:
            rates[key] = min(rates.get(key, spec.requests_per_minute), spec.requests_per_minute)
    plans: dict[str, ProviderPlan] = {}
    for key in sorted(providers):  # every provider: a 429 pauses it on every worker, limits or not
        tag = hashlib.sha256(key.encode()).hexdigest()[:12]
        rpm = rates.get(key)
        leases = max(1, math.floor(rpm / 60)) if rpm else 0
        plans[key] = ProviderPlan(
            key=key,
            concurrency=f"arena-{run}-{tag}-concurrent" if key in caps else None,
            max_concurrent=caps.get(key, 0),
            rate=f"arena-{run}-{tag}-rate" if rpm else None,
            rate_leases=leases,
            window_s=leases * 60 / rpm if rpm else 0.0,
        )
    return plans


class ClusterGate:
    """`limits.Gate` for one provider on one worker's loop."""

    def __init__(self, plan: ProviderPlan, topic: str, origin: str) -> None:
        import distributed

        dd: Any = distributed  # untyped: used through Any
        self.plan = plan
        self.topic = topic
        self.origin = origin
        self.worker: Any = dd.get_worker()
        self.concurrent: Any = dd.Semaphore(plan.max_concurrent, plan.concurrency) if plan.concurrency else None
        self.rate: Any = dd.Semaphore(plan.rate_leases, plan.rate) if plan.rate else None
        self._held: set[asyncio.TimerHandle] = set()

    async def enter(self) -> None:
        if self.concurrent is not None:
            await self.concurrent.acquire()
        if self.rate is not None:
            try:
                await self.rate.acquire()
            except BaseException:
                if self.concurrent is not None:
                    await self.concurrent.release()
                raise
            loop = asyncio.get_running_loop()
            handle = loop.call_later(self.plan.window_s, self._give_back_rate)
            self._held.add(handle)

    def _give_back_rate(self) -> None:
        assert self.rate is not None
        task = asyncio.ensure_future(self.rate.release())
        task.add_done_callback(lambda done: done.exception() if not done.cancelled() else None)

    async def leave(self) -> None:
        if self.concurrent is not None:
            await self.concurrent.release()

    def throttled(self, pause_s: float) -> None:
        self.worker.log_event(self.topic, {"provider": self.plan.key, "pause_s": pause_s, "origin": self.origin})


_ORIGIN = secrets.token_hex(8)  # this worker process, so it skips its own 429 events
_SUBSCRIBED: set[str] = set()


async def install(plans: Mapping[str, ProviderPlan], topic: str) -> None:
    """Install the gates of `plans` on the running loop (a worker's), once per provider and topic."""
    for key, plan in plans.items():
        gate = limits.gate_for(key)
        if isinstance(gate, ClusterGate) and gate.plan == plan:
            continue
        limits.install_gate(key, ClusterGate(plan, topic, _ORIGIN))  # its semaphores register at first use
    if plans and topic not in _SUBSCRIBED:
        import distributed

        client: Any = getattr(distributed, "get_client")()  # noqa: B009 (untyped: used through Any)
        loop = asyncio.get_running_loop()
        client.subscribe_topic(topic, lambda event: loop.call_soon_threadsafe(_on_throttle, event))
        _SUBSCRIBED.add(topic)


def _on_throttle(event: Any) -> None:
    """Another worker's 429: pause this worker's requests to that provider as well."""
    message = event[1] if isinstance(event, (tuple, list)) and len(event) == 2 else event
    if not isinstance(message, Mapping) or message.get("origin") == _ORIGIN:
        return
    key, pause = message.get("provider"), message.get("pause_s")
    if not isinstance(key, str) or not isinstance(pause, (int, float)):
        return
    limiter = limits.limiters().get(key)
    if limiter is not None:
        limiter.throttle(float(pause), remote=True)
