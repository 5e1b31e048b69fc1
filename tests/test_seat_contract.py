"""The seat contract check (`arena.players.contract`): the built-in seats pass it, and it catches a seat that raises,
answers with something else than an Answer, or never answers; a refusal with the engine's code is counted, not a
problem."""

from __future__ import annotations

import asyncio

import pytest

from arena.engine import Decision, Observation, Request, load_rules
from arena.players.base import Answer, Player
from arena.players.bots import HeuristicBot, RandomBot
from arena.players.contract import check_seat


@pytest.mark.parametrize("preset", ["fiim", "club", "edge"])
def test_the_built_in_bots_keep_the_contract_in_every_role(preset: str) -> None:
    rules = load_rules(preset)
    for make in (lambda s, seed: RandomBot(s, seed), lambda s, seed: HeuristicBot(s, seed, rules)):
        report = check_seat(make, rules, seed=3)
        assert report.ok, report.problems
        assert report.games == len(report.roles) >= 3
        assert report.accepted + sum(report.refused.values()) + report.failed == report.decisions > 0


class _Seat(Player):
    def __init__(self, seat: int, how: str) -> None:
        self.seat, self.how = seat, how
        self.never = asyncio.Event()

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        if self.how == "raise":
            raise KeyError("a bug in the seat")
        if self.how == "wrong":
            return Decision()  # type: ignore[return-value]  # what a careless seat returns
        if self.how == "silent":
            await self.never.wait()  # never answers
        return Answer(decision=Decision(target=1, vote=1, nominate=(1, 2)))  # mostly refused, with a code


@pytest.mark.parametrize(("how", "code"), [("raise", "raised"), ("wrong", "not_an_answer"), ("silent", "timeout")])
def test_a_seat_that_breaks_the_contract_is_named(how: str, code: str) -> None:
    rules = load_rules("fiim")
    report = check_seat(lambda s, seed: _Seat(s, how), rules, time_limit_s=0.01)
    assert not report.ok
    assert {p.code for p in report.problems} == {code}
    assert {p.role for p in report.problems} == set(report.roles)  # every role's game found it


def test_a_refused_answer_is_counted_by_its_code_not_a_problem() -> None:
    report = check_seat(lambda s, seed: _Seat(s, "illegal"), load_rules("fiim"))
    assert report.ok
    assert report.refused and all(report.refused.values())
    assert report.accepted < report.decisions
