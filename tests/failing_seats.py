"""Seats that fail in every way the orchestrator records, on a schedule: the game of
`tests/fixtures/v3-failures.jsonl` (written by this module on the version-3 tree, main at f459d92, when a failed
attempt was an English sentence) and of its replay on today's tree (tests/test_failures_as_data.py).

    python tests/failing_seats.py OUT.jsonl    # the game, as this tree's arena writes it

Each planned failure goes to the next first ask it fits, three asks apart: the attempts it fails in order, then the
re-ask answers as the heuristic bot would, unless every attempt fails (then the rule's default, R9.7). A time-out is
the seat's own clock running out (TimeoutError with its limit, as a web table's person's), so no test waits on one.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from arena.agents import resolve_agent
from arena.engine import Decision, Game, Kind, Observation, Request, RuleSet, load_rules
from arena.llm.seat import NoUsableAnswer
from arena.orchestrator import run_game
from arena.players.base import Answer, Player
from arena.players.bots import HeuristicBot
from arena.transcript import TranscriptWriter, make_header

PLAN = [
    ["illegal"], ["hang"], ["malformed"], ["unreached"], ["crash"],
    ["illegal", "illegal", "illegal"], ["hang", "hang", "hang"], ["malformed", "malformed", "malformed"],
    ["server_refused"], ["crash", "crash", "crash"], ["unreached", "illegal"], ["hang", "malformed", "crash"],
]  # fmt: skip
LIMIT_S = 0.5  # the seats' time limit
SEED = 11
_TARGETED = {Kind.BALLOT, Kind.SHOOT, Kind.DON_CHECK, Kind.SHERIFF}


class Schedule:
    """The plan, handed out to first asks."""

    def __init__(self) -> None:
        self.plans, self.gap = list(PLAN), 0

    def take(self, request: Request) -> list[str]:
        if not self.plans or self.gap > 0:
            self.gap -= 1
            return []
        plan = self.plans[0]
        fits = request.kind in _TARGETED or (request.kind is Kind.SPEECH and request.may_nominate)
        if "illegal" in plan and not fits:
            return []
        self.gap = 3
        return self.plans.pop(0)


class Failing(Player):
    """A heuristic bot whose attempts fail as `schedule` says."""

    def __init__(self, seat: int, rules: RuleSet, schedule: Schedule) -> None:
        self.seat, self.bot, self.schedule = seat, HeuristicBot(seat, SEED, rules), schedule
        self.plan: list[str] = []
        self.attempt = 0

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        if problem is None:
            self.plan, self.attempt = self.schedule.take(request), 0
        step = self.plan[self.attempt] if self.attempt < len(self.plan) else None
        self.attempt += 1
        if step == "illegal":  # no seat 99: the engine refuses it (no_such_seat)
            if request.kind is Kind.SPEECH:
                return Answer(decision=Decision(text="I nominate seat 99.", nominate=(99,)))
            return Answer(decision=Decision(target=99, action="check" if request.kind is Kind.SHERIFF else None))
        if step == "hang":
            raise TimeoutError(LIMIT_S)
        if step == "malformed":
            raise NoUsableAnswer("no JSON object found in the answer")
        if step == "unreached":  # never a decision's last attempt, so no stop: asked again
            raise NoUsableAnswer("the model could not be reached: connection refused", reached=False)
        if step == "server_refused":  # said to be reached, so the default follows as in version 3 (not the stop)
            raise NoUsableAnswer("the server refused the request: HTTP 400 bad request", final=True)
        if step == "crash":
            raise RuntimeError("the player's code crashed")
        return await self.bot.decide(observation, request, problem)


def play(out: Path) -> Game:
    """The game, written to `out`."""
    rules = load_rules("fiim")
    bot = resolve_agent("bot:heuristic")
    schedule = Schedule()
    players: dict[int, Player] = {s: Failing(s, rules, schedule) for s in range(1, 11)}
    header = make_header(rules, SEED, dict.fromkeys(range(1, 11), bot), game_id="v3-failures",
                         started_at="2026-12-05T21:30:00Z")  # fmt: skip
    writer = TranscriptWriter.create(out, header)
    try:
        return asyncio.run(run_game(Game(rules, SEED), players, writer, timeout_s=None, timing=False))
    finally:
        writer.close()


if __name__ == "__main__":
    play(Path(sys.argv[1]))
