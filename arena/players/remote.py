"""A seat played by an external program over HTTP (docs/remote.md): the seat opens a turn on its `RemoteTable` line
and waits for the program's answer.

The program is sent exactly what the orchestrator gave the seat: its observation (the engine's `view`, numbered in
the seat's own sequence) and its request, with the turn's attempt, the refusal it repeats and the deadline. Its
answer goes back to the orchestrator as the seat's decision, and the engine judges it like any other: a refusal is
the next turn (the same request, `problem` set), as the one invalid-action policy does for every seat.

The failure contract, as for a model: a body that is no answer is a failed attempt (re-asked with the reason). A
turn the program fetched but did not answer in time gets the rule's default (it was thinking; a re-ask of that
decision is not sent again, like a person's). A turn the program never fetched by the deadline means the program is
gone: that is no answer at all, as from a model that cannot be reached, so the orchestrator stops the game
(`RemoteGone`, `GameStopped`), saved and resumable, instead of playing it on defaults. Every turn, answered or not,
is written as an `Exchange` record through the table, which `arena verify` checks.

`ProgramSeat` is a remote seat with a table and a program of its own, for one game: the seat contract check
(`arena.players.contract`) holds an agent program to the contract through it, over the real protocol.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Sequence

from arena.agents import AgentSpec
from arena.engine import Game, Observation, Request, RuleSet
from arena.players.base import Answer, Player, PlayerError
from arena.remote.protocol import Exchange
from arena.remote.server import TOKEN_ENV, RemoteError, RemoteTable, SeatLine

URL_ENV = "ARENA_REMOTE_URL"  # the table's URL, in a program's environment (its token: TOKEN_ENV)
LINGER_S = 5.0  # how long a program has to fetch the end of its game
EXIT_S = 10.0  # then how long it has to exit before it is killed


class RemoteGone(PlayerError):
    """The program never fetched a turn by its deadline: it is gone (stopped polling, crashed, never came). That is no
    answer at all, as from a model that cannot be reached (`reached` False), so the orchestrator stops the game there,
    saved and resumable (`GameStopped`, a `stop` record): a result is never made of a seat that is not there."""

    def __init__(self, seat: int, deadline: float) -> None:
        super().__init__(
            f"its remote agent did not fetch its turn within {deadline:g} s (it stopped polling, or never came)",
            final=True,
            reached=False,
            fix=f"start the agent of seat {seat} again (with its token), and resume the game",
        )


class RemoteAnswerError(PlayerError):
    """The program's body is no answer (not JSON, an unknown field, a value of the wrong type); the message says why
    and is repeated to the program with the re-ask."""


class RemotePlayer(Player):
    """A seat whose decisions come from an external program through `table`."""

    def __init__(self, seat: int, line: SeatLine, table: RemoteTable) -> None:
        self.seat = seat
        self.line = line
        self.table = table
        self._request: Request | None = None
        self._attempt = 0
        self._timed_out = False

    def time_limit(self, request: Request) -> float | None:
        return self.table.deadline_s  # the deadline each turn states

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        asked = time.monotonic()  # the orchestrator's time limit started just before this call
        again = problem is not None and request == self._request
        attempt = self._attempt + 1 if again else 1
        self._request, self._attempt = request, attempt
        if again and self._timed_out:  # this request's last attempt ran out of time (an answer clears it)
            # one time limit per decision: a timed-out turn is not sent again, the default follows
            self.table.write(Exchange(seat=self.seat, attempt=attempt, request_kind=request.kind.value,
                                      problem=problem, outcome="expired"))  # fmt: skip
            raise TimeoutError
        self._timed_out = False
        turn = self.line.open(observation, request, attempt, problem, self.table.deadline_s)
        outcome = "cancelled"
        fields: dict[str, object] = {}
        try:
            text, size, decision, error = await turn.answer
            fields = {"answer": text, "answer_bytes": size, "error": error,
                      "latency_ms": round((time.monotonic() - turn.opened) * 1000, 1)}  # fmt: skip
            if decision is None:
                outcome = "unreadable"
                raise RemoteAnswerError(error or "no answer")
            outcome = "answered"
            return Answer(decision=decision)
        except asyncio.CancelledError:
            deadline = turn.deadline_s
            if deadline is None or time.monotonic() - asked < deadline - max(0.01, deadline / 100):
                raise  # the game stopped while the turn was open
            self._timed_out = True
            if turn.delivered:
                outcome = "timeout"  # it was thinking: the rule's default
                raise
            outcome = "undelivered"
            raise RemoteGone(self.seat, deadline) from None
        finally:
            self.line.close(turn)
            self.table.write(self.line.exchange(turn, request, outcome, **fields))


def build_remote_player(spec: AgentSpec, seat: int, *, table: RemoteTable) -> RemotePlayer:
    """The remote seat of `seat` on `table` (which gives it its token, unless it has one already, and serves it)."""
    return RemotePlayer(seat, table.lines.get(seat) or table.seat(seat), table)


class ProgramSeat(Player):
    """A remote seat with its own table and program, for one game. `await ProgramSeat.start(seat, rules, command)`
    starts the table on 127.0.0.1 and the program, `command` with `{url}`, `{token}` and `{seat}` filled in (its
    environment also holds `ARENA_REMOTE_URL` and `ARENA_REMOTE_TOKEN_<seat>`); `finish(game)` tells the program the
    game is over; `close` stops the table (a program still polling hears `stopped`) and waits for the program to
    exit (`returncode`), killing it after `EXIT_S`. `arena play` serves its remote seats on one table instead."""

    def __init__(self, seat: int, table: RemoteTable, process: subprocess.Popen[bytes]) -> None:
        self.seat = seat
        self.table = table
        self.remote = RemotePlayer(seat, table.lines[seat], table)
        self.process = process
        self.returncode: int | None = None

    @classmethod
    async def start(
        cls, seat: int, rules: RuleSet, command: Sequence[str], *, deadline_s: float | None = 30.0, lang: str = "en"
    ) -> ProgramSeat:
        table = RemoteTable(rules, lang=lang, deadline_s=deadline_s)
        token = table.seat(seat).token
        argv = [part.replace("{url}", table.url).replace("{token}", token).replace("{seat}", str(seat))
                for part in command]  # fmt: skip
        environment = {**os.environ, URL_ENV: table.url, TOKEN_ENV.format(seat=seat): token}
        await table.start()
        try:  # a plain child waited for in a thread: with asyncio's (3.11) the check stalled now and then in tests
            process = subprocess.Popen(argv, env=environment, stdin=subprocess.DEVNULL)
        except (OSError, IndexError) as exc:
            await table.stop()
            why = exc.strerror if isinstance(exc, OSError) else "no command"
            raise RemoteError(f"the agent program of seat {seat} cannot start: {why} ({' '.join(command)})") from None
        return cls(seat, table, process)

    def time_limit(self, request: Request) -> float | None:
        return self.remote.time_limit(request)

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        return await self.remote.decide(observation, request, problem)

    def finish(self, game: Game) -> None:
        """The game is over: the program's next poll gets `over` (its own view of the end, as from `arena play`)."""
        self.table.finish(game)

    async def close(self) -> None:
        if self.table.lines[self.seat].final is not None:
            await self.table.linger(LINGER_S)
        await self.table.stop()
        try:
            self.returncode = await asyncio.to_thread(self.process.wait, EXIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.returncode = await asyncio.to_thread(self.process.wait)
