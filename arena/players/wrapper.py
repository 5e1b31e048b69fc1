"""A seat that passes another seat's decisions through, timed or changed: the hidden `--delay` (`delayed.py`), a
bot's noise (`noisy.py`), a bench's tap. To the orchestrator it is the seat it wraps: the same number, whether a
model answers it, its time limit, the calls a cut decision leaves and its connections to close."""

from __future__ import annotations

from arena.engine import Observation, Request
from arena.players.base import Answer, ModelCall, Player


class Wrapper(Player):
    """`inner` as it is; a subclass changes `decide` (and calls `self.inner.decide`)."""

    def __init__(self, inner: Player) -> None:
        self.inner = inner
        self.seat = inner.seat
        self.model_seat = inner.model_seat

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        return await self.inner.decide(observation, request, problem)

    def time_limit(self, request: Request) -> float | None:
        return self.inner.time_limit(request)

    def abandoned_calls(self) -> list[ModelCall]:
        return self.inner.abandoned_calls()

    async def close(self) -> None:
        await self.inner.close()
