"""Night pacing at a live table: a night lasts the same whoever is alive to act (issue 30: at a table of model seats,
a night with a living don or sheriff lasted one model call longer, 2.61 s against 1.61 s at 1 s latency).

A night is a sequence of wake-ups (batches): the lover's visit, the black team's messages, the shot, the checks and
kills, the club doctor at the stretchers. A dead role's wake-up is skipped by the engine (nobody is asked), so without
pacing a night is shorter when its don, sheriff, doctor, lover or maniac is dead, and a person at the table, or a
spectator, can time it. The pacer waits for a dead role as long as for a living one, as a careful host does:

- every night wake-up takes one **slot** of fixed length: its answers are applied at the slot's end (the models are
  asked at its start). A slot is SLACK times the longest of the last WINDOW batches of bots and models by day (a
  vote asks them all at once, so it holds their slowest), fixed when the night begins: day batches are public, so
  the slot tells nothing of the night;
- before applying the wake-up after which the secret part of the night is over (the next request is the best move or
  the day's, or the game ends; found by replaying the game with the answers on a copy), it waits for the end of the
  night's last slot: as many slots as a night has when every role the rules deal is alive (`full_night`).

So the morning comes the same number of slots after the night began, whoever lives. What it cannot hide: a wake-up
that overruns its slot (a person thinking, a slow or re-asked model) makes that night longer. The pacer sleeps and
reads a clock, so it is no part of the engine: the orchestrator asks it before it applies a batch
(`arena.orchestrator.Pacer`), for `arena serve`'s tables and `arena play` with a person at the terminal.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from arena.engine import Decision, Game, IllegalDecision, Kind, Phase, Request, RuleSet

SLACK = 1.25  # a slot is this many times the longest of the recent day batches of bots and models
WINDOW = 30  # day batches remembered


def _quiet(game: Game, request: Request) -> Decision:
    """A decision that keeps every role alive until night 1 and makes its wake-ups as many as they can be: nobody is
    nominated or voted out, the lover visits nobody, the mafia's shot has a victim (so a club doctor is woken at the
    stretchers), nobody checks, heals or kills."""
    if request.kind is Kind.SPEECH:
        return Decision(text="")
    if request.kind is Kind.VOTE:
        return Decision(vote=False)
    if request.kind is Kind.SHOOT:
        quiet = [s for s in request.options if not game.is_black(s) and game.roles[s].value == "civilian"]
        return Decision(target=quiet[0]) if quiet else request.default
    if request.kind in (Kind.VISIT, Kind.DON_CHECK, Kind.SHERIFF, Kind.MANIAC_KILL, Kind.HEAL) and request.allow_none:
        return Decision()
    if request.kind is Kind.BLACK_MESSAGE:
        return Decision(text="")
    return request.default


def _secret(game: Game, batch: Sequence[Request]) -> bool:
    """A night wake-up whose actors nobody else may know (every night request but the public best move)."""
    return game.phase is Phase.NIGHT and bool(batch) and all(r.kind is not Kind.BEST_MOVE for r in batch)


def full_night(rules: RuleSet) -> tuple[int, int]:
    """The secret wake-ups of Night 0 and of a later night when every role the rules deal is alive and free to act:
    the most a night of these rules can have (the greatest over a few deals)."""
    return _full_night(rules.model_dump_json())


@lru_cache(maxsize=64)
def _full_night(dumped: str) -> tuple[int, int]:
    rules = RuleSet.model_validate_json(dumped)
    most = [0, 0]
    for seed in range(4):
        game, counts = Game(rules, seed), [0, 0]
        while not game.over and game.day < 2:
            batch = game.pending()
            if _secret(game, batch):
                counts[min(game.day, 1)] += 1
            for request in batch:
                if game.request_for(request.seat) is None:
                    continue
                try:
                    game.submit(request.seat, _quiet(game, request))
                except IllegalDecision:
                    game.apply_default(request.seat, "pacing")
        most = [max(most[0], counts[0]), max(most[1], counts[1])]
    return most[0], most[1]


def leaves_secret_night(game: Game, batch: Sequence[Request], answers: Sequence[Decision | None]) -> bool:
    """Whether applying `answers` (None: the rule's default) to `batch` ends the secret part of the night: replayed on a
    copy of the game, the next request is no secret night one (the best move, the day's), or the game is over."""
    copy = Game(game.rules, game.seed, roles=list(game.roles[1:]))  # the same cards, whichever way they were dealt
    copy.replay(list(game.inputs))
    for request, decision in zip(batch, answers, strict=True):
        if copy.over or copy.request_for(request.seat) is None:
            continue
        try:
            if decision is None:
                raise IllegalDecision("default", "pacing")
            copy.submit(request.seat, decision)
        except IllegalDecision:
            copy.apply_default(request.seat, "pacing")
    return copy.over or not _secret(copy, copy.pending())


@dataclass
class NightPacer:
    """Holds each night wake-up to the end of its slot, and the end of a night's secret part to its last slot (see
    the module's docstring). `timed`: the seats whose wake-ups measure a slot (bots and models, not people);
    `slot_min`: the shortest slot (a table's bot delay)."""

    rules: RuleSet
    timed: frozenset[int]
    slot_min: float = 0.0
    clock: Callable[[], float] = time.monotonic
    pause: Callable[[float], Awaitable[None]] = asyncio.sleep
    recent: deque[float] = field(default_factory=lambda: deque(maxlen=WINDOW))  # timed seats' day batches (s)
    night: int | None = None  # the day number of the night being paced
    night_start: float = 0.0
    slot: float = 0.0
    wakeups: int = 0  # the secret wake-ups of this night so far
    asked_at: float = 0.0
    held: list[tuple[int, int, float]] = field(default_factory=list)  # (night, slots, seconds) each night waited for

    def begin(self, game: Game, batch: Sequence[Request]) -> None:
        """Before a batch is asked: the night's start (and its slot, fixed for the whole night) at its first wake-up."""
        self.asked_at = self.clock()
        if _secret(game, batch) and self.night != game.day:
            self.night, self.night_start, self.wakeups = game.day, self.asked_at, 0
            self.slot = max(self.slot_min, SLACK * max(self.recent, default=0.0))

    async def hold(self, game: Game, batch: Sequence[Request], answers: Sequence[Decision | None]) -> None:
        """Before a batch's answers are applied: wait for its slot's end, or for the night's last slot's end."""
        if game.phase is not Phase.NIGHT:
            if batch and all(r.seat in self.timed for r in batch):
                self.recent.append(self.clock() - self.asked_at)
            return
        if not _secret(game, batch) or self.night != game.day:
            return
        self.wakeups += 1
        slots = self.wakeups
        if leaves_secret_night(game, batch, answers):
            slots = max(slots, full_night(self.rules)[min(game.day, 1)])
        end = self.night_start + slots * self.slot
        left = end - self.clock()
        if left > 0:
            await self.pause(left)
        if slots != self.wakeups:
            self.held.append((game.day, slots, self.clock() - self.night_start))
