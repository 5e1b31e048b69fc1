"""`RemoteTable`: the HTTP server that external agents play their seats through (docs/remote.md).

One server per game, on its own port, bound to 127.0.0.1 unless told otherwise. Each remote seat has its own secret
token (`Authorization: Bearer TOKEN`); a token opens its own seat and nothing else, and a request without a valid
one learns nothing (401, the same answer whatever the seat). The routes:

- `GET /v1/hello`: the seat's number, the table's size, language, rules and deadline.
- `GET /v1/turn?wait=S`: the seat's open turn at once, or waits up to S seconds (default 30, at most 60) for one;
  `waiting` when none came, `over` with the seat's last events once the game is over, `stopped` if it stopped.
- `POST /v1/answer`: `{"turn": N, "decision": {...}}` for the open turn. 200 `received` (the engine then judges it:
  a refusal comes back as the next turn, the same request with `problem` and `attempt` + 1), 422 for a body that is
  no answer (it counts as the attempt, as a model's unreadable answer does), 409 for a turn that is not open (late,
  or answered already: nothing changes).

The socket is bound when the table is made, so its address can be printed before the game's event loop runs; the
server is started on that loop (`start`) and a client that connects earlier waits in the listen queue. Nothing here
reads the game: a turn is built by the seat (`arena/players/remote.py`) from the observation the orchestrator gave
it, and only `finish` reads the seat's own `view` of the ended game.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import os
import re
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from arena.engine import Decision, Game, Observation, Request, RuleSet, view
from arena.remote.protocol import (
    MAX_ANSWER_BYTES,
    PROTOCOL,
    AnswerError,
    Exchange,
    digest,
    over_body,
    read_answer,
    turn_body,
)

LOOPBACK = "127.0.0.1"
TOKEN_ENV = "ARENA_REMOTE_TOKEN_{seat}"  # a seat's token from the environment (else a fresh random one)
TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9._~-]{16,200}$")
POLL_DEFAULT_S = 30.0
POLL_MAX_S = 60.0


class RemoteError(ValueError):
    """A remote table that cannot be set up (a port in use, a token of the wrong shape); the message says why."""


@dataclass
class Turn:
    """One open turn of one seat: the body it is sent, when it opened, whether the program fetched it, and the
    answer when it comes (`text` as received or None, its size, and the decision or why it is unreadable)."""

    number: int
    body: dict[str, Any]
    opened: float
    deadline_s: float | None
    delivered: bool = False
    answer: asyncio.Future[tuple[str | None, int, Decision | None, str | None]] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    def seconds_left(self, now: float) -> float | None:
        if self.deadline_s is None:
            return None
        return round(max(0.0, self.deadline_s - (now - self.opened)), 3)


class SeatLine:
    """One remote seat's side of the table: its token, whether its program has been heard from, its open turn, and
    what it is sent once the game is over or stopped."""

    def __init__(self, seat: int, token: str, from_env: bool) -> None:
        self.seat = seat
        self.token = token
        self.from_env = from_env
        self.connected = False
        self.turns = 0  # turns opened so far (the next one's number is this plus one)
        self.turn: Turn | None = None
        self.delivered_upto = 0  # the seat's events the program has been sent (the last fetched turn's next_number)
        self.final: dict[str, Any] | None = None
        self.final_fetched = False
        self.stopped: str | None = None
        self._wake = asyncio.Event()
        self._poll = 0

    def wake(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()

    def open(self, obs: Observation, request: Request, attempt: int, problem: str | None,
             deadline_s: float | None) -> Turn:  # fmt: skip
        self.turns += 1
        body = turn_body(obs, request, turn=self.turns, attempt=attempt, problem=problem, deadline_s=deadline_s)
        self.turn = Turn(self.turns, body, time.monotonic(), deadline_s)
        self.wake()
        return self.turn

    def close(self, turn: Turn) -> None:
        if self.turn is turn:
            self.turn = None
        if not turn.answer.done():
            turn.answer.cancel()

    def exchange(self, turn: Turn, request: Request, outcome: str, **fields: Any) -> Exchange:
        obs = turn.body["observation"]
        return Exchange(seat=self.seat, turn=turn.number, attempt=turn.body["attempt"], request_kind=request.kind.value,
                        since=obs["since"], upto=obs["next_number"], problem=turn.body["problem"],
                        deadline_s=turn.deadline_s, sent=digest(turn.body), delivered=turn.delivered,
                        outcome=outcome, **fields)  # fmt: skip


class RemoteTable:
    """The remote seats of one game and their server. Make it, add seats (`seat`), `start` it on the game's loop,
    play, then `finish(game)` (each seat is told the game is over), `linger` for the programs to hear it, `stop`.
    `record` receives every exchange (the transcript writer's `exchange`); `deadline_s` is each turn's time limit
    (the table's, None for none)."""

    def __init__(
        self,
        rules: RuleSet,
        *,
        lang: str = "en",
        host: str = LOOPBACK,
        port: int = 0,
        deadline_s: float | None = 60.0,
        record: Callable[[Exchange], None] | None = None,
    ) -> None:
        self.rules = rules
        self.lang = lang
        self.deadline_s = deadline_s
        self.record = record
        self.lines: dict[int, SeatLine] = {}
        try:
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            self.sock = socket.socket(family, socket.SOCK_STREAM)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.sock.bind((host, port))
            self.sock.listen(64)
        except OSError as exc:
            raise RemoteError(f"the remote seats' server cannot listen on {host}:{port}: {exc.strerror}") from None
        self.sock.setblocking(False)
        bound = self.sock.getsockname()
        self.host, self.port = host, int(bound[1])
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self.port}/v1"
        self._runner: web.AppRunner | None = None

    # ----- seats ----------------------------------------------------------------------------------------------------
    def seat(self, seat: int, token: str | None = None) -> SeatLine:
        """Add a remote seat: its token is `token`, else `$ARENA_REMOTE_TOKEN_<seat>`, else a fresh random one."""
        from_env = False
        if token is None:
            token = os.environ.get(TOKEN_ENV.format(seat=seat)) or None
            from_env = token is not None
        if token is None:
            token = secrets.token_urlsafe(32)
        if not TOKEN_SHAPE.match(token):
            where = TOKEN_ENV.format(seat=seat) if from_env else "the token"
            raise RemoteError(f"{where}: a token is 16 to 200 characters of A-Z a-z 0-9 . _ ~ -")
        if any(hmac.compare_digest(token, line.token) for line in self.lines.values()):
            raise RemoteError(f"seat {seat}: every remote seat needs its own token")
        line = self.lines[seat] = SeatLine(seat, token, from_env)
        return line

    def write(self, exchange: Exchange) -> None:
        if self.record is not None:
            self.record(exchange)

    def missing(self) -> list[int]:
        """The remote seats whose program has not been heard from yet."""
        return sorted(s for s, line in self.lines.items() if not line.connected)

    # ----- lifetime ---------------------------------------------------------------------------------------------------
    async def start(self) -> None:
        if self._runner is not None:
            return
        app = web.Application(client_max_size=MAX_ANSWER_BYTES + 4096)
        app.router.add_get("/v1/hello", self._hello)
        app.router.add_get("/v1/turn", self._turn)
        app.router.add_post("/v1/answer", self._answer)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        await web.SockSite(runner, self.sock).start()
        self._runner = runner

    async def wait_connected(self, seconds: float) -> list[int]:
        """Wait up to `seconds` for every remote seat's program to be heard from; the seats still missing."""
        end = time.monotonic() + seconds
        while self.missing() and time.monotonic() < end:
            await asyncio.sleep(0.05)
        return self.missing()

    def finish(self, game: Game) -> None:
        """The game is over: each seat's next poll gets `over`, with its own events since its last fetched turn."""
        for seat, line in self.lines.items():
            line.final = over_body(view(game, seat, line.delivered_upto))
            line.wake()

    async def linger(self, seconds: float) -> None:
        """Wait up to `seconds` for every program that was heard from to fetch the end of the game."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and any(line.connected and not line.final_fetched for line in self.lines.values()):
            await asyncio.sleep(0.05)

    async def stop(self, reason: str | None = None) -> None:
        """Stop serving. `reason`: the game stopped before its end (saved, resumable): waiting polls hear it."""
        for line in self.lines.values():
            if line.final is None:
                line.stopped = reason or "the game stopped"
            line.wake()
        await asyncio.sleep(0)  # waiting polls answer before the server goes
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        with contextlib.suppress(OSError):
            self.sock.close()

    # ----- routes -----------------------------------------------------------------------------------------------------
    def _line_of(self, request: web.Request) -> SeatLine:
        given = request.headers.get("Authorization", "")
        scheme, _, token = given.partition(" ")
        found: SeatLine | None = None
        if scheme.lower() == "bearer" and TOKEN_SHAPE.match(token.strip()):
            for line in self.lines.values():  # every seat is compared, whichever matches
                if hmac.compare_digest(line.token.encode(), token.strip().encode()):
                    found = line
        if found is None:
            why = {"error": "unauthorized: send Authorization: Bearer TOKEN, the seat's token"}
            raise web.HTTPUnauthorized(
                text=json.dumps(why), content_type="application/json", headers={"WWW-Authenticate": "Bearer"}
            )
        found.connected = True
        return found

    async def _hello(self, request: web.Request) -> web.Response:
        line = self._line_of(request)
        return _json({"protocol": PROTOCOL, "seat": line.seat, "players": self.rules.players, "lang": self.lang,
                      "deadline_s": self.deadline_s, "rules": self.rules.model_dump(mode="json")})  # fmt: skip

    async def _turn(self, request: web.Request) -> web.Response:
        line = self._line_of(request)
        try:
            wait = float(request.query.get("wait", POLL_DEFAULT_S))
        except ValueError:
            wait = -1.0
        if not 0 <= wait <= POLL_MAX_S:
            return _json({"error": f"wait: seconds from 0 to {POLL_MAX_S:g}"}, 400)
        line._poll += 1
        mine = line._poll
        line.wake()  # an older poll of the same seat answers `waiting`: this one takes over
        end = time.monotonic() + wait
        while True:
            if mine != line._poll:
                return _json({"protocol": PROTOCOL, "status": "waiting", "seat": line.seat})
            turn = line.turn
            if turn is not None and not turn.answer.done():  # an answered turn closes as its seat resumes
                turn.delivered = True
                line.delivered_upto = turn.body["observation"]["next_number"]
                return _json({**turn.body, "seconds_left": turn.seconds_left(time.monotonic())})
            if line.final is not None:
                line.final_fetched = True
                return _json(line.final)
            if line.stopped is not None:
                return _json({"protocol": PROTOCOL, "status": "stopped", "seat": line.seat, "reason": line.stopped})
            left = end - time.monotonic()
            if left <= 0:
                return _json({"protocol": PROTOCOL, "status": "waiting", "seat": line.seat})
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await line._wake.wait()

    async def _answer(self, request: web.Request) -> web.Response:
        line = self._line_of(request)
        body, size = await _body(request)
        turn = line.turn
        if turn is None or turn.answer.done():
            return _json({"error": "no turn is open for this seat now (answered already, or its time is up)"}, 409)
        text: str | None = None
        decision: Decision | None = None
        error: str | None = None
        if body is None:
            error = f"the answer is over {MAX_ANSWER_BYTES:,} bytes"
        else:
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError:
                error = "the answer is not UTF-8 text"
        if text is not None:
            try:
                number, decision = read_answer(text)
            except AnswerError as exc:
                error = str(exc)
            else:
                if number != turn.number:
                    return _json({"error": f"turn {number} is not open; the open turn is {turn.number}"}, 409)
        turn.answer.set_result((text, size, decision, error))
        if error is not None:
            return _json({"error": error, "turn": turn.number}, 422)
        return _json({"status": "received", "turn": turn.number})


async def _body(request: web.Request) -> tuple[bytes | None, int]:
    """The request's body up to the answer limit (None past it) and its size as far as it was read."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await request.content.read(65536)
        if not chunk:
            return b"".join(chunks), size
        size += len(chunk)
        if size > MAX_ANSWER_BYTES:
            return None, size
        chunks.append(chunk)


def _json(body: dict[str, Any], status: int = 200) -> web.Response:
    return web.Response(text=json.dumps(body, ensure_ascii=False), status=status, content_type="application/json",
                        headers={"Cache-Control": "no-store"})  # fmt: skip
