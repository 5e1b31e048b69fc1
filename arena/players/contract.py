"""The seat contract check, shipped with the package (in the manner of PettingZoo's `api_test`): any `Player` can be
held to it before it plays a counted game.

`check_seat(make, rules)` plays seeded games in which the seat under test holds each role the rules deal, in turn,
beside random legal seats, straight on the engine. At every request it asks the seat (its own `view`, nothing more)
and checks the answer: it is an `Answer` whose decision the engine accepts, or one the engine refuses with a stable
code (counted, and the rule's default taken, as the orchestrator would after its re-asks); it comes within
`time_limit_s` (or the seat's own `time_limit`, when shorter); the seat raises nothing but `PlayerError` (a seat
that says it failed). A `PlayerError` that got no answer at all (`reached` False: the model, or the remote program,
is not there) is a problem too, and ends that game, as the orchestrator stops a game there. Anything else is a
problem, named with its game, seat, role and request. The report is data: counts and problems, no sentences to parse.

`make(seat, seed)` returns the seat, or an awaitable of it: a seat that needs the event loop to start (the remote
seat's `ProgramSeat`, which starts its table and its program) is made by an async factory. A seat with a
`finish(game)` (a program that must hear the game is over) is told when its game ends, then closed.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from arena.engine import Game, IllegalDecision, Role, RuleSet, view
from arena.players.base import Answer, Player, PlayerError
from arena.players.bots import RandomBot

__all__ = ["ContractReport", "Problem", "check_seat"]

MAX_DECISIONS = 20_000  # a game that asks more has not ended: a problem of the engine, not the seat

Make = Callable[[int, int], Player | Awaitable[Player]]  # (seat, seed) -> the seat under test


@runtime_checkable
class Finishes(Protocol):
    """A seat that must be told its game ended (the remote seat's program hears `over`)."""

    def finish(self, game: Game) -> None: ...


@dataclass(frozen=True)
class Problem:
    """One answer that broke the contract."""

    seed: int
    seat: int
    role: str
    request: str  # the request's kind
    code: str  # "timeout", "not_an_answer", "raised", "unreachable", "refused_without_code", "no_end"
    detail: str = ""  # the exception's type, for a person reading the report


@dataclass
class ContractReport:
    """What the check saw: games, decisions asked, accepted, refused by code, the seat's own failures, problems."""

    games: int = 0
    roles: list[str] = field(default_factory=list)
    decisions: int = 0
    accepted: int = 0
    refused: Counter[str] = field(default_factory=Counter)  # the engine's code -> how many
    failed: int = 0  # PlayerError: the seat said it could not answer (the orchestrator re-asks, then defaults)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.decisions > 0


def check_seat(
    make: Make,
    rules: RuleSet,
    *,
    games_per_role: int = 1,
    seed: int = 0,
    time_limit_s: float = 30.0,
) -> ContractReport:
    """Hold the seat `make(seat, seed)` builds to the contract in `games_per_role` games per role the rules deal."""
    return asyncio.run(_check(make, rules, games_per_role, seed, time_limit_s))


async def _check(
    make: Make, rules: RuleSet, games_per_role: int, seed: int, time_limit_s: float
) -> ContractReport:
    report = ContractReport()
    roles = sorted({role for role in Game(rules, seed).roles[1:]}, key=lambda r: r.value)
    report.roles = [role.value for role in roles]
    for role in roles:
        played, at = 0, seed
        while played < games_per_role:
            game = Game(rules, at)
            if role in game.roles[1:]:
                await _play(game, game.roles.index(role, 1), role, make, time_limit_s, report)
                played += 1
            at += 1
    return report


async def _play(
    game: Game, seat: int, role: Role, make: Make, limit: float, report: ContractReport
) -> None:
    """One game with the tested seat at `seat`; every other seat random and legal."""
    made = make(seat, game.seed)
    tested = made if isinstance(made, Player) else await made
    players = {s: (tested if s == seat else RandomBot(s, game.seed)) for s in game.seats()}
    report.games += 1
    try:
        await _turns(game, seat, role, players, limit, report)
        if game.over and isinstance(tested, Finishes):
            tested.finish(game)
    finally:
        for player in players.values():
            await player.close()


async def _turns(
    game: Game, seat: int, role: Role, players: dict[int, Player], limit: float, report: ContractReport
) -> None:
    asked = 0
    while not game.over:
        for request in game.pending():
            asked += 1
            if asked > MAX_DECISIONS:
                report.problems.append(Problem(game.seed, seat, role.value, "", "no_end"))
                return
            if request.seat != seat:
                answer = await players[request.seat].decide(view(game, request.seat), request)
                try:
                    game.submit(request.seat, answer.decision)
                except IllegalDecision:  # not expected of the random seats; the default keeps the game going
                    game.apply_default(request.seat, "the contract check: a random seat's answer was refused")
                continue
            problem = await _ask(game, players[seat], request.kind.value, role, limit, report)
            if problem is not None:
                report.problems.append(problem)
                if problem.code == "unreachable":
                    return  # no answer at all: the orchestrator stops the game here, and so does the check
            if game.request_for(seat) is not None:  # refused or failed: the rule's default, as after the re-asks
                game.apply_default(seat, "the contract check: the seat's answer was not taken")


async def _ask(
    game: Game, player: Player, kind: str, role: Role, limit: float, report: ContractReport
) -> Problem | None:
    """Ask the tested seat once and apply its answer if the engine takes it; the problem, if the contract broke."""
    seat = player.seat
    request = game.request_for(seat)
    assert request is not None
    report.decisions += 1

    def broke(code: str, detail: str = "") -> Problem:
        return Problem(game.seed, seat, role.value, kind, code, detail)

    own = player.time_limit(request)
    try:
        answer = await asyncio.wait_for(player.decide(view(game, seat), request), min(limit, own or limit))
    except TimeoutError:
        return broke("timeout")
    except PlayerError as exc:
        if not exc.reached:
            return broke("unreachable", type(exc).__name__)
        report.failed += 1
        return None
    except Exception as exc:
        return broke("raised", type(exc).__name__)
    if not isinstance(answer, Answer):
        return broke("not_an_answer", type(answer).__name__)
    try:
        game.submit(seat, answer.decision)
    except IllegalDecision as exc:
        if not exc.code:
            return broke("refused_without_code")
        report.refused[exc.code] += 1
        return None
    report.accepted += 1
    return None
