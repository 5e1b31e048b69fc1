"""A bot at a lower strength: it plays as its own bot, except that each decision it acts on (a vote, a ballot, a
shot, a check, a heal, a best move, a side) is drawn at random among the legal ones with probability `noise`. What it
says (speeches with their nominations and claims, the black team's night message) stays the bot's own, so a weaker
setting still talks like the bot.

The reference field (`arena/field/`) spreads its opponents over the scale this way: `bot:heuristic` at noise 0, 0.5
and 1 lies between the heuristic and the random bot. The draw is keyed like the bots' own (seed, seat, what the seat
has seen, the request), so a noisy bot is as reproducible and resumable as the bot it wraps.
"""

from __future__ import annotations

from arena.engine import Kind, Observation, Request
from arena.players.base import Answer, Player
from arena.players.bot_memory import ProbeOffset
from arena.players.bots import decision_rng
from arena.players.random_policy import random_decision
from arena.players.wrapper import Wrapper

SPOKEN = frozenset({Kind.SPEECH, Kind.BLACK_MESSAGE, Kind.PROBE})  # words and beliefs: never replaced


class NoisyBot(Wrapper):
    """`inner`'s decisions, each act replaced by a random legal one with probability `noise`."""

    def __init__(self, inner: Player, seat: int, seed: int, noise: float) -> None:
        super().__init__(inner)
        self.seat = seat
        self.seed = seed
        self.noise = noise
        self.probes = ProbeOffset()

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        answer = await self.inner.decide(observation, request, problem)  # always asked: its memory stays current
        probes = self.probes.update(observation.events)
        if request.kind in SPOKEN or problem is not None:
            return answer
        rng = decision_rng("noise", self.seed, self.seat, observation, request, problem, probes)
        if rng.random() < self.noise:
            return Answer(decision=random_decision(rng, request))
        return answer
