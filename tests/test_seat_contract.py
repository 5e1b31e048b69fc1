"""The seat contract check (`arena.players.contract`): the built-in seats pass it (the bots here, the remote seat
driven by an external program over HTTP on 127.0.0.1, the model seats in tests/llm/test_llm_contract.py), and it
catches a seat that raises, answers with something else than an Answer, never answers, or gets no answer at all; a
refusal with the engine's code is counted, not a problem."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from arena.engine import Decision, Observation, Request, load_rules
from arena.players.base import Answer, Player, PlayerError
from arena.players.bots import HeuristicBot, RandomBot
from arena.players.contract import check_seat
from arena.players.remote import ProgramSeat

CLIENT = Path(__file__).resolve().parent.parent / "examples" / "remote" / "client.py"  # never imports arena


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
        if self.how == "gone":
            raise PlayerError("the model could not be reached", reached=False)
        return Answer(decision=Decision(target=1, vote=1, nominate=(1, 2)))  # mostly refused, with a code


@pytest.mark.parametrize(
    ("how", "code"), [("raise", "raised"), ("wrong", "not_an_answer"), ("silent", "timeout"), ("gone", "unreachable")]
)
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


def test_a_seat_that_gets_no_answer_at_all_ends_its_game_there() -> None:
    report = check_seat(lambda s, seed: _Seat(s, "gone"), load_rules("fiim"))
    assert report.decisions == report.games == len(report.problems)  # one question per game, as the game stops


def test_a_remote_seat_driven_by_an_external_program_keeps_the_contract() -> None:
    """The reference client (examples/remote/client.py, the standard library only) plays the seat in its own process,
    over the real protocol on 127.0.0.1: a table and a program per game, each told the game is over at its end."""
    rules = load_rules("fiim")
    command = [sys.executable, str(CLIENT), "--url", "{url}", "--token", "{token}", "--seed", "{seat}"]
    seats: list[ProgramSeat] = []

    async def make(seat: int, seed: int) -> ProgramSeat:
        seats.append(await ProgramSeat.start(seat, rules, command, deadline_s=60))
        return seats[-1]

    report = check_seat(make, rules, seed=5)
    assert report.ok, report.problems
    assert report.games == len(report.roles) == len(seats) == 4
    assert report.accepted > 0 and report.accepted + sum(report.refused.values()) + report.failed == report.decisions
    assert sum(seat.table.lines[seat.seat].turns for seat in seats) == report.decisions  # every one over the wire
    assert [seat.returncode for seat in seats] == [0] * 4  # each program heard `over` and ended well
