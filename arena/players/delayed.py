"""A seat that waits before each answer: the hidden `--delay` of `arena play`, `arena resume` and the tournament's
games, which slows a bot game so that a test can kill it mid-game (and check that it resumes)."""

from __future__ import annotations

import asyncio

from arena.engine import Observation, Request
from arena.players.base import Answer, ModelCall, Player


class DelayedPlayer(Player):
    """Waits before answering (the hidden `--delay`): slows a bot game so tests can kill it mid-game."""

    def __init__(self, inner: Player, delay: float) -> None:
        self.inner = inner
        self.seat = inner.seat
        self.delay = delay
        self.model_seat = inner.model_seat

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        await asyncio.sleep(self.delay)
        return await self.inner.decide(observation, request, problem)

    def abandoned_calls(self) -> list[ModelCall]:
        return self.inner.abandoned_calls()

    async def close(self) -> None:
        await self.inner.close()
