"""A seat that waits before each answer: the hidden `--delay` of `arena play`, `arena resume` and the tournament's
games, which slows a bot game so that a test can kill it mid-game (and check that it resumes)."""

from __future__ import annotations

import asyncio

from arena.engine import Observation, Request
from arena.players.base import Answer, Player
from arena.players.wrapper import Wrapper


class DelayedPlayer(Wrapper):
    """Waits before answering (the hidden `--delay`): slows a bot game so tests can kill it mid-game."""

    def __init__(self, inner: Player, delay: float) -> None:
        super().__init__(inner)
        self.delay = delay

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        await asyncio.sleep(self.delay)
        return await self.inner.decide(observation, request, problem)
