"""One live table of `arena serve`: a game run by the orchestrator, its human seats waiting on web pages.

Why it exists: the browser seat must play under the same orchestrator, invalid-action policy, time limits and
transcript as every other seat. A human seat is a `WebSeat` (a Player) whose `decide` publishes the shared form
(`arena.human.form`) and waits for the page's answer; the orchestrator's per-seat time limit applies the rule's
default to a person who does not answer or who left, so the table never stalls. Each human seat has its own secret
token (256 bits), the spectators one more; tokens are compared in constant time. Every page's data is computed from
`arena.engine.view` for that seat (`arena.web.state`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.agents import AgentSpec
from arena.engine import (
    PUBLIC,
    Decision,
    Event,
    EventType,
    Game,
    IllegalDecision,
    Kind,
    Observation,
    Phase,
    Request,
    view,
)
from arena.human.form import Form, FormError, build_form, decision_from, forbidden_phrases
from arena.orchestrator import RunStats, run_game
from arena.players.base import TIMEOUT_PREFIX, Answer, Player
from arena.transcript import TranscriptWriter
from arena.web.state import LogWriter, end_json, god_json, observation_json, speech_seconds

TOKEN_BYTES = 32  # 256 bits per seat link (the issue asks for at least 128)
SPECTATOR = PUBLIC  # the seat number a spectator token maps to
NIGHT_STEPS = 3  # a night of bots lasts this many bot pauses, however many of its actors live
SPEECH_GRACE_S = 5.0  # past a person's speech time, for the page's own send at zero to arrive; then the default


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def same_token(a: str, b: str) -> bool:
    """Constant-time comparison of two tokens (any length, any text)."""
    return hmac.compare_digest(a.encode("utf-8", "replace"), b.encode("utf-8", "replace"))


@dataclass
class Ask:
    """One pending decision of one human seat, as the page sees it. `limit_s` is the clock the page shows: for a
    speech the rules' speech time (the server allows SPEECH_GRACE_S more), otherwise the human time limit."""

    id: str
    seat: int
    form: Form
    problem: str | None
    started: float
    limit_s: float | None
    future: asyncio.Future[Decision]


@dataclass
class Speaker:
    seat: int
    started: float
    seconds: int


class WebSeat(Player):
    """A human seat played from a web page. A decision whose time ran out is not waited for again on re-asks."""

    def __init__(self, table: Table, seat: int) -> None:
        self.table = table
        self.seat = seat
        self._timed_out: Request | None = None

    def time_limit(self, request: Request) -> float | None:
        """A speech binds at the rules' time, plus the grace for the page's own send at zero. The same figure on a
        re-ask (the page's clock goes on from the first ask), so the record names one limit."""
        if request.kind is not Kind.SPEECH:
            return None
        return speech_seconds(self.table.rules, request.max_words) + self.table.speech_grace_s

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        if problem and problem.startswith(TIMEOUT_PREFIX) and self._timed_out == request:
            raise TimeoutError  # the seat's time is up for this decision: straight on to the rule's default
        try:
            decision = await self.table.ask(self.seat, observation, request, problem)
        except (asyncio.CancelledError, TimeoutError):
            self._timed_out = request
            raise
        self._timed_out = None
        return Answer(decision=decision)


class Paced(Player):
    """A bot or model seat that also tells the table who speaks (a speech is a public turn) and waits a little, so
    people can follow the game. At night it waits for the night's fixed end instead (`Table.night_pause`): a pause
    per decision would make a night with more living actors last longer, and tell the table who still acts."""

    def __init__(self, inner: Player, table: Table, delay: float) -> None:
        self.inner = inner
        self.table = table
        self.seat = inner.seat
        self.delay = delay

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        self.table.speaking(self.seat, request)
        if observation.phase is Phase.NIGHT:
            await self.table.night_pause()
        elif self.delay > 0:
            await self.table.pause(self.delay)
        return await self.inner.decide(observation, request, problem)

    async def close(self) -> None:
        await self.inner.close()


@dataclass
class Table:
    """A game, its seats, its tokens and the pages' pending decisions."""

    game: Game
    seats: Mapping[int, AgentSpec]
    lang: str
    writer: TranscriptWriter | None = None
    human_timeout: float | None = 120.0
    bot_delay: float = 0.0
    stats: RunStats = field(default_factory=RunStats)
    id: str = field(default_factory=lambda: secrets.token_hex(4))
    tokens: dict[int, str] = field(default_factory=dict)
    spectator_token: str = field(default_factory=new_token)
    asks: dict[int, Ask] = field(default_factory=dict)
    version: int = 0
    speaker: Speaker | None = None
    error: str | None = None
    task: asyncio.Task[None] | None = None
    players: dict[int, Player] = field(default_factory=dict)
    # the pacing's clock and sleep (a test drives them by hand), and when the current night's bot decisions may go on
    clock: Callable[[], float] = time.monotonic
    pause: Callable[[float], Awaitable[None]] = asyncio.sleep
    night_ends: float = 0.0
    speech: tuple[int, Request, float] | None = None  # a person's speech being given: seat, request, its start
    speech_grace_s: float = SPEECH_GRACE_S

    def __post_init__(self) -> None:
        self.rules = self.game.rules
        self.logs = {lang: LogWriter(self.rules, lang) for lang in ("en", "ru")}
        self.log = self.logs["en"]
        self._changed = asyncio.Event()
        for seat, spec in self.seats.items():
            if spec.kind == "human":
                self.tokens.setdefault(seat, new_token())

    @property
    def humans(self) -> list[int]:
        return sorted(self.tokens)

    @property
    def over(self) -> bool:
        return self.game.over

    # ----- who is asking --------------------------------------------------------------------------------------
    def seat_of(self, token: str) -> int | None:
        """The seat a token opens (SPECTATOR for the spectator token), or None. Every token is compared."""
        found: int | None = None
        for seat, known in self.tokens.items():
            if same_token(known, token):
                found = seat
        if same_token(self.spectator_token, token):
            found = SPECTATOR
        return found

    # ----- change notification ----------------------------------------------------------------------------------
    def changed(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_change(self, seen: int, timeout: float = 15.0) -> None:
        """Return when the table's version differs from `seen` (or after `timeout`, for a keep-alive)."""
        if self.version != seen:
            return
        event = self._changed
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await event.wait()

    def on_event(self, event: Event) -> None:
        if event.type.value in ("speech", "game_ended", "phase_started", "voting_started"):
            self.speaker = None
        if event.type is EventType.PHASE_STARTED and event.phase is Phase.NIGHT:
            self.night_ends = self.clock() + NIGHT_STEPS * self.bot_delay
        self.changed()

    async def night_pause(self) -> None:
        """Wait until the night's fixed end: every bot decision of a night goes on then, or at once after it, so a
        night of bots lasts NIGHT_STEPS pauses whichever roles still live and act (only the public morning follows)."""
        left = self.night_ends - self.clock()
        if left > 0:
            await self.pause(left)

    def speaking(self, seat: int, request: Request) -> None:
        if request.kind is not Kind.SPEECH:
            return
        started = time.time()
        if seat in self.tokens:  # a person's clock does not restart when the same speech is asked again
            if self.speech is not None and self.speech[:2] == (seat, request):
                started = self.speech[2]
            self.speech = (seat, request, started)
        self.speaker = Speaker(seat, started, speech_seconds(self.rules, request.max_words))
        self.changed()

    # ----- a human's decision ---------------------------------------------------------------------------------------
    async def ask(self, seat: int, obs: Observation, request: Request, problem: str | None) -> Decision:
        self.speaking(seat, request)
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        form = build_form(request, self.rules, self.lang, obs.nominees)
        started, limit = time.time(), self.human_timeout
        if self.speech is not None and self.speech[:2] == (seat, request):
            started, limit = self.speech[2], float(speech_seconds(self.rules, request.max_words))
            if self.human_timeout is not None:
                limit = min(limit, self.human_timeout)
        ask = Ask(secrets.token_urlsafe(12), seat, form, problem, started, limit, future)
        self.asks[seat] = ask
        self.changed()
        try:
            return await future
        finally:
            if self.asks.get(seat) is ask:
                del self.asks[seat]
            self.changed()

    def answer(self, seat: int, ask_id: object, payload: object) -> str | None:
        """Take a page's answer for `seat`; return why it is refused, or None when it is accepted."""
        ask = self.asks.get(seat)
        if ask is None or ask.future.done():
            return "there is no decision of yours pending"
        if not isinstance(ask_id, str) or not same_token(ask.id, ask_id):
            return "that decision is no longer pending (answered, or its time ran out)"
        if not isinstance(payload, dict):
            return "the answer must be an object"
        try:
            decision = decision_from(ask.form, payload)
            self.game.check(seat, decision)  # the engine's own reason, at once
        except (FormError, IllegalDecision) as exc:
            return str(exc)
        ask.future.set_result(decision)
        del self.asks[seat]
        self.changed()
        return None

    # ----- what a page is sent ----------------------------------------------------------------------------------
    def state(self, seat: int, lang: str | None = None) -> dict[str, Any]:
        """The data of one seat's page (or the spectators' page), from the engine's view for that seat only."""
        now = time.time()
        log = self.logs.get(lang or self.lang, self.log)
        if seat == SPECTATOR:
            data = observation_json(view(self.game, PUBLIC), self.game.n, log)
            data["god"] = god_json(self.game, log) if self.game.over else None
        else:
            data = observation_json(view(self.game, seat), self.game.n, log)
            data["forbidden"] = list(forbidden_phrases(self.rules, self.lang))
        data["end"] = end_json(self.game, log)  # None until the game has ended
        data["review"] = self.review_links(seat)
        ask = self.asks.get(seat)
        data["pending"] = None
        if ask is not None:
            left = None if ask.limit_s is None else max(0.0, ask.limit_s - (now - ask.started))
            data["pending"] = {
                "ask": ask.id,
                "form": ask.form.to_json(log.lang),
                "problem": ask.problem,
                "left_s": left,
                "limit_s": ask.limit_s,
            }
        speaker = self.speaker
        data["speaker"] = (
            None
            if speaker is None or self.game.over
            else {
                "seat": speaker.seat,
                "seconds": speaker.seconds,
                "left_s": max(0.0, speaker.seconds - (now - speaker.started)),
            }
        )
        data["over"] = self.game.over
        data["error"] = self.error
        data["players"] = self.game.n
        data["rules"] = self.rules.name
        return data

    def review_links(self, seat: int) -> dict[str, str] | None:
        """Once the game has ended: the replay of it from this page's own seat and as the god view, and its score
        sheet (the routes in `routes/replays.py` check the link and the end again)."""
        if not self.game.over or self.writer is None or self.writer.path is None:
            return None
        token = self.spectator_token if seat == SPECTATOR else self.tokens[seat]
        links = {"god": f"/review/{token}?as=god", "protocol": f"/protocol/{token}"}
        if seat != SPECTATOR:
            links["seat"] = f"/review/{token}"
        return links

    # ----- running ----------------------------------------------------------------------------------------------
    def seat_players(self, others: Mapping[int, Player]) -> dict[int, Player]:
        players: dict[int, Player] = {}
        for seat in self.game.seats():
            if seat in self.tokens:
                players[seat] = WebSeat(self, seat)
            else:
                players[seat] = Paced(others[seat], self, self.bot_delay)
        self.players = players
        return players

    def start(self, others: Mapping[int, Player]) -> asyncio.Task[None]:
        players = self.seat_players(others)
        self.task = asyncio.get_running_loop().create_task(self._run(players), name=f"table-{self.id}")
        return self.task

    async def _run(self, players: Mapping[int, Player]) -> None:
        timeouts: dict[int, float | None] = dict.fromkeys(self.tokens, self.human_timeout)
        try:
            await run_game(
                self.game,
                players,
                self.writer,
                timeout_s=60.0,
                on_event=self.on_event,
                timeouts=timeouts,
                stats=self.stats,
            )
        except asyncio.CancelledError:  # the server stops: the transcript stays resumable
            raise
        except Exception as exc:  # an engine or orchestrator bug: record it, keep serving the pages
            self.error = f"{type(exc).__name__}: {exc}"
            if self.writer is not None:
                self.writer.abort(self.error)
        finally:
            if self.writer is not None:
                self.writer.close()
            for player in players.values():
                with contextlib.suppress(Exception):
                    await player.close()
            self.speaker = None
            self.changed()
