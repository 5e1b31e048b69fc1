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
import json
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.agents import AgentSpec
from arena.engine import (
    AWARDS,
    PUBLIC,
    Decision,
    Event,
    Game,
    IllegalDecision,
    Kind,
    Observation,
    Phase,
    Request,
    view,
)
from arena.human.form import Form, FormError, build_form, decision_from, forbidden_phrases
from arena.orchestrator import GameStopped, RunStats, run_game
from arena.pacing import NightPacer
from arena.players.base import Answer, Player
from arena.players.wrapper import Wrapper
from arena.safe_write import write_file
from arena.transcript import TranscriptWriter
from arena.web.state import LogWriter, end_json, god_json, observation_json, speech_seconds

TOKEN_BYTES = 32  # 256 bits per seat link (the issue asks for at least 128)
SPECTATOR = PUBLIC  # the seat number a spectator token maps to
SPEECH_GRACE_S = 5.0  # past a person's speech time, for the page's own send at zero to arrive; then the default


def state_key(data: dict[str, Any]) -> str:
    """A page's state without its clocks and its own number: equal keys mean nothing new for that page."""
    rest = {k: v for k, v in data.items() if k not in ("version", "speaker", "pending")}
    speaker = data.get("speaker")
    pending = data.get("pending")
    rest["speaker"] = speaker["seat"] if speaker else None
    rest["pending"] = pending["ask"] if pending else None
    return json.dumps(rest, sort_keys=True)


def cut_to_budget(decision: Decision, request: Request, max_chars: int) -> Decision:
    """A typed speech as the judge hears it when time is up: its first `max_words` words (within the character
    cap), its nomination and its raised hand kept."""
    words = (decision.text or "").split()
    text = " ".join(words[: request.max_words] if request.max_words else words)[:max_chars]
    return decision.model_copy(update={"text": text})


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def same_token(a: str, b: str) -> bool:
    """Constant-time comparison of two tokens (any length, any text)."""
    return hmac.compare_digest(a.encode("utf-8", "replace"), b.encode("utf-8", "replace"))


@dataclass
class Ask:
    """One pending decision of one human seat, as the page sees it. `limit_s` is the clock the page shows: for a
    speech the table's speech allowance (the rules' time, or more to type it; the server allows SPEECH_GRACE_S
    more), otherwise the human time limit. `draft` is what the page has typed so far (sent as it is typed): it is
    the answer when the clock runs out and the page sent nothing, so a nomination made in the form is never lost."""

    id: str
    seat: int
    form: Form
    problem: str | None
    started: float
    limit_s: float | None
    future: asyncio.Future[Decision]
    draft: Decision | None = None
    draft_json: dict[str, Any] | None = None
    paused_at_start: float = 0.0


@dataclass
class Speaker:
    seat: int
    started: float
    seconds: int
    paused_at_start: float = 0.0  # the table's paused seconds when this clock started (a pause stops every clock)


class WebSeat(Player):
    """A human seat played from a web page. A decision whose time ran out is not waited for again on re-asks."""

    def __init__(self, table: Table, seat: int) -> None:
        self.table = table
        self.seat = seat
        self._timed_out: Request | None = None
        self._limit = 0.0

    def time_limit(self, request: Request) -> float | None:
        """None: a person's clock is the table's (`Table.ask`), which a judge's pause stops and extra time moves;
        it raises TimeoutError(its limit) when the time is up, and the orchestrator records that limit."""
        return None

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        # `_timed_out` is this request only while its time is up (an answer clears it): this re-ask follows it
        if problem is not None and self._timed_out == request:
            raise TimeoutError(self._limit)  # the seat's time is up for this decision: straight on to the default
        try:
            decision = await self.table.ask(self.seat, observation, request, problem)
        except TimeoutError as exc:
            self._timed_out = request
            self._limit = exc.args[0] if exc.args else 0.0
            raise
        except asyncio.CancelledError:
            self._timed_out = request
            raise
        self._timed_out = None
        return Answer(decision=decision)


# how long a bot or a model seat may think over one decision at a live table (the pacing after it and the judge's
# pauses do not count: `Paced` keeps this clock itself)
THINKING_LIMIT_S = 60.0


class Paced(Wrapper):
    """A bot or model seat that also tells the table who speaks (a speech is a public turn) and waits a little by
    day, so people can follow the game. At night it answers at once: the table's night pacer holds each night
    wake-up to its slot, and the night's end to the last slot a full night has (`arena/pacing.py`), so a night
    lasts the same whoever still lives and acts (a pause per decision told the table who still acts).

    It keeps the seat's clock itself: only the inner seat's thinking counts against its limit (the table's, or the
    seat's own if shorter), not a judge's pause nor the pace a speech is shown at, which at a blinded table's typing
    speed can pass a minute. To the orchestrator it is the seat it wraps (`Wrapper`): a model seat whose time ran out
    stops the game, and the calls cut short are written."""

    def __init__(self, inner: Player, table: Table, delay: float, limit_s: float | None = THINKING_LIMIT_S) -> None:
        super().__init__(inner)
        self.table = table
        self.delay = delay
        self.limit_s = limit_s

    def time_limit(self, request: Request) -> float | None:
        return None  # its own clock (`think`); a running out raises TimeoutError(limit), as a person's seat does

    async def think(self, observation: Observation, request: Request, problem: str | None) -> Answer:
        """The inner seat's answer within its limit; TimeoutError(limit) when the limit ran out."""
        own = self.inner.time_limit(request)
        limit = own if self.limit_s is None or (own is not None and own < self.limit_s) else self.limit_s
        clock = asyncio.timeout(limit)
        try:
            async with clock:
                return await self.inner.decide(observation, request, problem)
        except TimeoutError:
            if clock.expired() and limit is not None:
                raise TimeoutError(limit) from None
            raise

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        self.table.speaking(self.seat, request)
        await self.table.unpaused()
        answer = await self.think(observation, request, problem)
        if observation.phase is Phase.NIGHT:  # the table's night pacer holds the night (arena/pacing.py)
            return answer
        if self.delay > 0 and request.kind is Kind.SPEECH:  # it takes the time it takes to say (blinded: to type)
            await self.table.pause(self.table.bot_pace(self.delay, answer.decision.text or ""))
        elif self.delay > 0:
            await self.table.pause(self.table.bot_wait(self.delay))
        await self.table.unpaused()  # nothing is said while the judge holds the table
        return answer


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
    pacer: NightPacer | None = None  # the night's pacing while the game runs
    # the pacing's clock and sleep (a test drives them by hand)
    clock: Callable[[], float] = time.monotonic
    pause: Callable[[float], Awaitable[None]] = asyncio.sleep
    speech: tuple[int, Request, float] | None = None  # a person's speech being given: seat, request, its start
    speech_grace_s: float = SPEECH_GRACE_S
    paused_since: float | None = None  # the judge's pause: when it began (None: the table runs)
    paused_total: float = 0.0  # seconds of the pauses that ended
    extra: dict[int, float] = field(default_factory=dict)  # seat -> the judge's extra seconds for its current turn
    typing_wpm: float = 0.0  # a person's typing speed: a speech's allowance is its word budget at it (0: spoken time)
    bot_wpm: float = 0.0  # the pace a bot's speech is given at (0: the bot delay alone)
    # the lobby: the game waits until every person is here and ready, or the host starts it (`lobby=False`: at once)
    lobby: bool = False
    blind: bool = False  # which seats are people is hidden until the end (no presence is shown)
    sockets: dict[int, int] = field(default_factory=dict)  # seat -> its pages' open sockets
    seen: set[int] = field(default_factory=set)  # the seats whose person has connected at least once
    ready: set[int] = field(default_factory=set)
    claimed: set[int] = field(default_factory=set)  # seats taken through the join link (not offered again)
    guesses: dict[int, dict[int, float]] = field(default_factory=dict)  # blinded: seat -> {seat: P(not human)}
    join_token: str = field(default_factory=new_token)
    judge_token: str | None = None
    # the end record: written at the end, or, at a table with a judge, once the judge closes the score sheet (the
    # awards given after the end, the best player and extra points, are inputs before it)
    sealed: bool = False
    # per page (seat, language): the last state's key and its number. A page never draws a state numbered below one
    # it has drawn; the number moves only when that page's own state changes, so it tells nothing of other seats
    seen_states: dict[tuple[int, str], tuple[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._built: dict[tuple[int, str], tuple[int, dict[str, Any]]] = {}  # (seat, lang) -> (version, state)
        self.rules = self.game.rules
        self.logs = {lang: LogWriter(self.rules, lang) for lang in ("en", "ru")}
        self.log = self.logs["en"]
        self._changed = asyncio.Event()
        for seat, spec in self.seats.items():
            if spec.kind == "human":
                self.tokens.setdefault(seat, new_token())
        self._clock_moved = asyncio.Event()
        self._running = asyncio.Event()
        self._running.set()
        self.opened = asyncio.Event()
        self.sheet_closed = asyncio.Event()  # the judge's "close the score sheet"
        if not self.lobby or not self.tokens:  # a table of bots and models has nobody to wait for
            self.opened.set()

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

    # ----- the lobby and who is here -------------------------------------------------------------------------------
    @property
    def started(self) -> bool:
        return self.opened.is_set()

    def connect(self, seat: int) -> None:
        """A page of `seat` opened its socket."""
        if seat not in self.tokens:
            return
        self.sockets[seat] = self.sockets.get(seat, 0) + 1
        self.seen.add(seat)
        self.changed()

    def disconnect(self, seat: int) -> None:
        if seat not in self.tokens:
            return
        self.sockets[seat] = max(0, self.sockets.get(seat, 0) - 1)
        if not self.sockets[seat] and not self.started:
            self.ready.discard(seat)  # a person who left the lobby is not ready any more
        self.changed()

    def set_ready(self, seat: int, ready: bool = True) -> None:
        """A person says they are ready (or not yet); the game starts when every person is here and ready."""
        if seat not in self.tokens or self.started:
            return
        if ready:
            self.ready.add(seat)
        else:
            self.ready.discard(seat)
        if all(self.sockets.get(s, 0) and s in self.ready for s in self.tokens):
            self.start_now()
        self.changed()

    def start_now(self) -> None:
        """Start the game (the host's Start, or the last person ready)."""
        if not self.opened.is_set():
            self.opened.set()
            self.changed()

    def claim(self, seat: int) -> str | None:
        """Take a free human seat through the join link: its token, or None if it is not free."""
        if seat not in self.tokens or seat in self.claimed or seat in self.seen:
            return None
        self.claimed.add(seat)
        self.changed()
        return self.tokens[seat]

    def free_seats(self) -> list[int]:
        return [s for s in self.humans if s not in self.claimed and s not in self.seen]

    def presence(self, seat: int) -> str:
        """`here`, `away` (was here, no page open now) or `absent` (never came)."""
        if self.sockets.get(seat, 0):
            return "here"
        return "away" if seat in self.seen else "absent"

    def lobby_json(self, viewer: int) -> dict[str, Any] | None:
        """What a page shows before the game starts: each person's seat, here or away, ready or not (at a blinded
        table only the page's own: who is a person is hidden until the end). None once the game has started."""
        if self.started:
            return None
        seats = (
            []
            if self.blind
            else [{"seat": s, "presence": self.presence(s), "ready": s in self.ready} for s in self.humans]
        )
        return {"seats": seats, "ready": viewer in self.ready, "free": [] if self.blind else self.free_seats()}

    def presence_json(self) -> dict[str, str]:
        """During the game: whose person is away (a seat's page shows it); nothing at a blinded table."""
        if self.blind or not self.started:
            return {}
        return {str(s): self.presence(s) for s in self.humans}

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
        self.changed()

    def speech_limit(self, request: Request) -> float:
        """The seconds a speech is given at this table: the rules' speech time, or the time to type its word budget
        at the table's typing speed when that is longer. One figure for every seat (a person's or a bot's clock
        looks the same), so the clock tells nothing of who sits there."""
        limit = float(speech_seconds(self.rules, request.max_words))
        if self.typing_wpm > 0 and request.max_words:
            limit = max(limit, float(round(request.max_words * 60 / self.typing_wpm)))
        if self.human_timeout is not None:  # the longest any decision of a person waits
            limit = min(limit, self.human_timeout)
        return limit

    def bot_pace(self, delay: float, text: str) -> float:
        """How long a bot waits before its speech appears: the bot delay, or the speech's words at the table's
        pace when that is longer (a speech posted at once is too fast to read along)."""
        if self.blind and self.typing_wpm > 0:  # a blinded table: a bot takes a typist's time, give or take
            words = len(text.split())
            jitter = random.Random(f"pace:{self.game.seed}:{len(self.game.events)}").uniform(0.7, 1.3)
            return max(delay, words * 60 / self.typing_wpm * jitter)
        if self.bot_wpm <= 0 or not text:
            return delay
        return max(delay, len(text.split()) * 60 / self.bot_wpm)

    def bot_wait(self, delay: float) -> float:
        """How long a bot waits before any other day decision (a vote): the bot delay; at a blinded table a
        person's few seconds, drawn per decision (a bot answering in exactly one second would be one)."""
        if not self.blind:
            return delay
        return delay * random.Random(f"wait:{self.game.seed}:{len(self.game.events)}").uniform(1.5, 5.0)

    # ----- a blinded table: who was not human? -----------------------------------------------------------------
    def guess(self, seat: int, payload: object) -> str | None:
        """A person's answer to "which seats were not human?" at the end of a blinded game: `{seat: p}` with p the
        confidence (0 to 1) that the seat was a bot or a model, for every other seat. Kept once; the reason it is
        refused, or None."""
        if not (self.blind and self.game.over and seat in self.tokens):
            return "there is no question to answer"
        if seat in self.guesses:
            return "you answered already"
        others = [s for s in self.game.seats() if s != seat]
        if not isinstance(payload, dict) or set(payload) != {str(s) for s in others}:
            return "rate every other seat, from 0 (surely a person) to 1 (surely not)"
        rated: dict[int, float] = {}
        for s in others:
            value = payload[str(s)]
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                return f"seat {s}: a confidence from 0 to 1"
            rated[s] = float(value)
        self.guesses[seat] = rated
        self.write_guesses()
        self.changed()
        return None

    @property
    def revealed(self) -> bool:
        """Whether who sat where may be shown: always, but at a blinded table only once every person answered (the
        god view's reasoning and the replays tell a model from a person)."""
        return not self.blind or all(s in self.guesses for s in self.tokens)

    def blind_json(self, seat: int) -> dict[str, Any] | None:
        """At the end of a blinded game: the question for a person who has not answered, then who was who (a
        spectator sees it once every person has answered, so the link cannot tell a player early)."""
        if not self.blind or not self.game.over:
            return None
        answered = seat in self.guesses
        ask = seat in self.tokens and not answered
        shown = answered if seat in self.tokens else all(s in self.guesses for s in self.tokens)
        truth = {str(s): spec.kind if spec.kind == "human" else spec.name for s, spec in self.seats.items()}
        return {
            "ask": ask,
            "others": [s for s in self.game.seats() if s != seat] if ask else [],
            "truth": truth if shown else None,
            "mine": {str(k): v for k, v in self.guesses.get(seat, {}).items()},
        }

    def write_guesses(self) -> None:
        """The answers beside the transcript (`<game>.blind.json`), rewritten whole at each: `arena report` reads
        them for each configuration's human-likeness."""
        if self.writer is None or self.writer.path is None:
            return
        path = self.writer.path
        data = {
            "game_id": self.writer.header.game_id,
            "transcript": path.name,
            "seats": {str(s): {"kind": spec.kind, "agent": spec.name} for s, spec in sorted(self.seats.items())},
            "guesses": [
                {"by": by, "p_not_human": {str(k): v for k, v in sorted(rated.items())}}
                for by, rated in sorted(self.guesses.items())
            ],
        }
        write_file(path.with_name(path.stem + ".blind.json"), json.dumps(data, indent=1) + "\n")

    def speaking(self, seat: int, request: Request) -> None:
        if request.kind is not Kind.SPEECH:
            return
        started, paused = time.time(), self.paused_now()
        again = self.speech is not None and self.speech[:2] == (seat, request)
        if seat in self.tokens:  # a person's clock does not restart when the same speech is asked again
            if again and self.speech is not None:
                started = self.speech[2]
                paused = self.speaker.paused_at_start if self.speaker is not None else paused
            self.speech = (seat, request, started)
        if not again:
            self.extra.pop(seat, None)
        self.speaker = Speaker(seat, started, round(self.speech_limit(request)), paused)
        self.changed()

    # ----- the clocks: a judge's pause stops them all, extra time moves one ------------------------------------------
    def paused_now(self) -> float:
        """Every second the table has been paused so far (the pause going on included)."""
        ongoing = time.time() - self.paused_since if self.paused_since is not None else 0.0
        return self.paused_total + ongoing

    def left(self, seat: int, started: float, limit: float, paused_at_start: float) -> float:
        """Seconds left on a clock of `limit` started at `started`: the judge's pauses since do not count, and the
        seat's extra time adds."""
        elapsed = time.time() - started - (self.paused_now() - paused_at_start)
        return limit + self.extra.get(seat, 0.0) - elapsed

    async def unpaused(self) -> None:
        await self._running.wait()

    def _moved(self) -> None:
        self._clock_moved.set()
        self._clock_moved = asyncio.Event()

    async def _until(self, future: asyncio.Future[Decision], timeout: float | None) -> None:
        """Wait for the answer, a clock change (pause, resume, extra time) or `timeout` seconds."""
        moved = asyncio.ensure_future(self._clock_moved.wait())
        waits: set[asyncio.Future[Any]] = {future, moved}
        try:
            await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            moved.cancel()

    # ----- a human's decision ---------------------------------------------------------------------------------------
    async def ask(self, seat: int, obs: Observation, request: Request, problem: str | None) -> Decision:
        self.speaking(seat, request)
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        form = build_form(request, self.rules, self.lang, obs.nominees)
        started, limit, paused = time.time(), self.human_timeout, self.paused_now()
        if self.speech is not None and self.speech[:2] == (seat, request):
            started, limit = self.speech[2], self.speech_limit(request)
            paused = self.speaker.paused_at_start if self.speaker is not None else paused
        elif problem is None:
            self.extra.pop(seat, None)  # a new decision: the judge's extra time was for the last one
        ask = Ask(secrets.token_urlsafe(12), seat, form, problem, started, limit, future, paused_at_start=paused)
        self.asks[seat] = ask
        self.changed()
        # a speech has the grace past zero for the page's own send; at zero what the page typed is the answer
        grace = self.speech_grace_s if request.kind is Kind.SPEECH else 0.0
        try:
            while limit is not None and not future.done():
                left = None if self.paused_since is not None else self.left(seat, started, limit, paused)
                if left is not None and left <= 0 and ask.draft is not None:
                    return cut_to_budget(ask.draft, request, form.max_chars)
                if left is not None and left + grace <= 0:
                    raise TimeoutError(limit + self.extra.get(seat, 0.0) + grace)  # no answer within the seat's time
                await self._until(future, None if left is None else (left if left > 0 else left + grace))
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

    def keep_draft(self, seat: int, ask_id: object, payload: object) -> str | None:
        """Keep what the page has typed for its pending speech or message (checked by the form, as an answer would
        be, but over the word budget is kept: it is cut when used); the reason it is refused, or None."""
        ask = self.asks.get(seat)
        if ask is None or ask.future.done() or not ask.form.has_text:
            return "there is no speech of yours pending"
        if not isinstance(ask_id, str) or not same_token(ask.id, ask_id):
            return "that decision is no longer pending"
        if not isinstance(payload, dict):
            return "the draft must be an object"
        try:
            decision = decision_from(ask.form, payload)
        except FormError as exc:
            return str(exc)
        ask.draft = decision
        ask.draft_json = {k: payload[k] for k in ("text", "nominate", "extra", "targets") if k in payload}
        return None

    # ----- the judge ---------------------------------------------------------------------------------------------
    def judge(
        self, action: str, seat: int = 0, reason: str = "", seconds: int = 0, award: str = "", points: float = 0.0
    ) -> str | None:
        """A judge's action, taken by the engine at once and written to the transcript as its input (verify replays
        it): `foul`, `remove`, `pause`, `resume`, `extra_time`, `award` (the score sheet's: extra points, the best
        player, the best move, no auto-bonus, a yellow card; during the game or after its end), and `close` (the
        score sheet is final: the end record is written). The reason it is refused, or None."""
        game = self.game
        reason = reason.strip()[:300]
        try:
            if action == "foul":
                game.foul(seat, reason or "judge")
            elif action == "remove":
                game.remove(seat, reason or "disqualified")
            elif action == "pause":
                game.pause(reason)
                self.paused_since = time.time()
                self._running.clear()
            elif action == "resume":
                game.resume(reason)
                if self.paused_since is not None:
                    self.paused_total += time.time() - self.paused_since
                self.paused_since = None
                self._running.set()
            elif action == "extra_time":
                game.extra_time(seat, seconds, reason)
                self.extra[seat] = self.extra.get(seat, 0.0) + seconds
            elif action == "award":
                if self.sealed:
                    return "the score sheet is closed"
                kind = next((k for k in AWARDS if k == award), None)
                if kind is None:
                    return f"unknown award {award[:40]!r}; allowed: {', '.join(AWARDS)}"
                game.award(seat, kind, points, reason)
            elif action == "close":
                if not game.over:
                    return "the game has not ended: the score sheet closes after the end"
                if self.sealed or self.sheet_closed.is_set():
                    return "the score sheet is closed"
                self.sheet_closed.set()
                self.changed()
                return None
            else:
                return f"unknown action {action[:40]!r}"
        except IllegalDecision as exc:
            return exc.reason
        if self.writer is not None:
            self.writer.input(game.inputs[-1])
            self.writer.sync_events(game)
        for asked, ask in list(self.asks.items()):  # a seat the judge took out (or whose turn went) is not waited for
            if not ask.future.done() and game.request_for(asked) != ask.form.request:
                ask.future.set_result(ask.form.request.default)  # never applied: the orchestrator drops it
        self._moved()
        self.changed()
        return None

    # ----- what a page is sent ----------------------------------------------------------------------------------
    def state(self, seat: int, lang: str | None = None) -> dict[str, Any]:
        """The data of one seat's page (or the spectators' page), from the engine's view for that seat only. What
        depends on the game alone is built once per table version, seat and language (many sockets and polls of one
        link ask for the same state: their work must not grow with their number); the clocks are read each time."""
        log = self.logs.get(lang or self.lang, self.log)
        built = self._built.get((seat, log.lang))
        if built is not None and built[0] == self.version:
            data = dict(built[1])
        else:
            if seat == SPECTATOR:
                data = observation_json(view(self.game, PUBLIC), self.game.n, log)
                data["god"] = god_json(self.game, log) if self.game.over and self.revealed else None
            else:
                data = observation_json(view(self.game, seat), self.game.n, log)
                data["forbidden"] = list(forbidden_phrases(self.rules, self.lang))
            data["end"] = end_json(self.game, log)  # None until the game has ended
            data["sheet"] = self.sheet_json(log.lang)
            data["review"] = self.review_links(seat)
            self._built[(seat, log.lang)] = (self.version, dict(data))
        ask = self.asks.get(seat)
        data["pending"] = None
        if ask is not None:
            left = None
            if ask.limit_s is not None:
                left = max(0.0, self.left(ask.seat, ask.started, ask.limit_s, ask.paused_at_start))
            data["pending"] = {
                "ask": ask.id,
                "form": ask.form.to_json(log.lang),
                "problem": ask.problem,
                "left_s": left,
                "limit_s": ask.limit_s,
                "draft": ask.draft_json,
            }
        speaker = self.speaker
        data["speaker"] = (
            None
            if speaker is None or self.game.over
            else {
                "seat": speaker.seat,
                "seconds": speaker.seconds,
                "left_s": max(0.0, self.left(speaker.seat, speaker.started, speaker.seconds, speaker.paused_at_start)),
                "extra_s": self.extra.get(speaker.seat, 0.0),
            }
        )
        data["over"] = self.game.over
        data["error"] = self.error
        data["paused"] = self.paused_since is not None
        data["blind"] = self.blind_json(seat)
        data["lobby"] = self.lobby_json(seat)
        data["presence"] = self.presence_json()
        data["players"] = self.game.n
        data["rules"] = self.rules.name
        data["version"] = self.number(seat, log.lang, data)
        return data

    def number(self, seat: int, lang: str, data: dict[str, Any]) -> int:
        """The page's state number: it grows by one each time the state of (seat, language) changes, whichever
        request (the socket's push, an HTTP poll) computed it. So a state computed later never has a lower number,
        and a page that drew number N can drop an older answer that arrives late."""
        key = state_key(data)
        last = self.seen_states.get((seat, lang))
        if last is not None and last[0] == key:
            return last[1]
        number = last[1] + 1 if last is not None else 1
        self.seen_states[(seat, lang)] = (key, number)
        return number

    def review_links(self, seat: int) -> dict[str, str] | None:
        """Once the game has ended: the replay of it from this page's own seat and as the god view, and its score
        sheet (the routes in `routes/replays.py` check the link and the end again)."""
        if not self.sealed or not self.revealed or self.writer is None or self.writer.path is None:
            return None
        token = self.spectator_token if seat == SPECTATOR else self.tokens[seat]
        links = {"god": f"/review/{token}?as=god", "protocol": f"/protocol/{token}"}
        if seat != SPECTATOR:
            links["seat"] = f"/review/{token}"
        return links

    def sheet_json(self, lang: str) -> dict[str, Any] | None:
        """Once the game has ended (and, at a blinded table, who sat where is revealed): the score sheet's points
        (`arena.render.protocol.end_table`), and whether the judge may still give awards (`open`)."""
        if not self.game.over or not self.revealed:
            return None
        from arena.render.protocol import end_table, sheet_of

        names = {seat: spec.name for seat, spec in self.seats.items()}
        data = end_table(sheet_of(self.game, names=names), lang)
        data["open"] = not self.sealed and self.judge_token is not None and self.error is None
        return data

    def seal(self) -> None:
        """Write the end record (once): the game's result is final, and its replays and score sheet open."""
        if self.sealed or self.writer is None or not self.game.over:
            return
        self.writer.end(self.game, self.stats.counters)
        self.sealed = True
        self.changed()

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
        # every seat keeps its own clock: a person's is WebSeat's, a bot's or a model's is Paced's (THINKING_LIMIT_S)
        timeouts: dict[int, float | None] = dict.fromkeys(self.game.seats())
        timed = frozenset(s for s in self.game.seats() if s not in self.tokens)  # bots and models, not people
        self.pacer = NightPacer(self.rules, timed, self.bot_delay, self.clock, self.pause)
        try:
            await self.opened.wait()  # the lobby: no seat, bot or person, is asked anything before the start
            await run_game(
                self.game,
                players,
                self.writer,
                timeout_s=None,  # every seat keeps its own clock (above)
                on_event=self.on_event,
                timeouts=timeouts,
                stats=self.stats,
                pacer=self.pacer,
                end_record=False,
            )
            if self.judge_token is not None and self.writer is not None:
                self.changed()  # the judge's page offers the awards after the end, then "close the score sheet"
                await self.sheet_closed.wait()
            self.seal()
        except asyncio.CancelledError:  # the server stops: an ended game is sealed as it is, else stays resumable
            with contextlib.suppress(Exception):
                self.seal()
            raise
        except GameStopped as exc:  # a model seat's server gave no answer: stopped, resumable, never a result
            self.error = f"the game stopped: {exc}"
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
