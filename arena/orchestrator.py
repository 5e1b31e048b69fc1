"""The game runner: asks the seats the engine says are pending, and feeds their answers back.

One invalid-action policy for every kind of seat: an answer the engine refuses, a timeout, or an exception from the
player is a failed attempt; it is re-asked with the reason up to `max_reasks` times, then the rule's default is
applied, with the reason of the attempt that ended the decision. A game never aborts because a seat misbehaves. A
model seat whose last attempt got no answer from its model at all (the server could not be reached, refused the
request, or said nothing in time: `PlayerError.reached`) is not misbehaving: a result is never made of transport
failures, so the game stops there instead (`GameStopped`), before anything of that batch is applied; the transcript
records the stop, and `arena resume` asks that batch again.

A batch (a vote round, the night actors) is asked concurrently; a speech is a one-seat batch, so speeches run in
order. Once every seat of a batch has its final answer, the re-asks and answers are applied in seat order, so the
same seed and the same answers give a byte-identical transcript whichever seat answered first.

Seats see incremental views: each call gets `view(game, seat, since)` where `since` is the `next_number` of the last
view that seat returned an answer for (a number in the seat's own sequence, see `arena/engine/view.py`). A player
that wants the whole history keeps it; a fresh player (e.g. after `arena resume`) starts at 0 and so gets everything
it may see.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.engine import JUDGE_OPS, Decision, Event, Failed, Failure, Game, IllegalDecision, Input, Request, view
from arena.engine.text import scrubbed
from arena.players.base import (
    ERROR_PREFIX,
    TIMEOUT_PREFIX,
    TRANSPORT_PREFIX,
    Answer,
    ModelCall,
    Player,
    PlayerError,
)
from arena.transcript import SeatCounters, TranscriptError, TranscriptWriter

EventHook = Callable[[Event], None]


class Pacer(Protocol):
    """Times a live table's batches (`arena.pacing.NightPacer`): told when a batch is asked, and awaited before its
    answers are applied, so a night can last the same whoever is alive to act."""

    def begin(self, game: Game, batch: Sequence[Request]) -> None: ...

    async def hold(self, game: Game, batch: Sequence[Request], answers: Sequence[Decision | None]) -> None: ...


@dataclass
class RunStats:
    """What one run measured: per-seat counters, and wall time inside and outside the players."""

    counters: dict[int, SeatCounters] = field(default_factory=dict)
    total_s: float = 0.0
    batches: int = 0
    call_rounds: int = 0  # per batch, the most model calls one seat made (its sequential chain), summed: the game's
    # critical path in round trips, whatever the concurrency around it
    batch_calls: list[int] = field(default_factory=list)  # model calls per batch, in order (bench/tournament.py)
    engine_s: float = 0.0  # inside the engine: views, checks and inputs (part of the time outside the players)

    @property
    def decisions(self) -> int:
        return sum(c.decisions for c in self.counters.values())

    @property
    def player_s(self) -> float:
        return sum(c.player_s for c in self.counters.values())


@dataclass(frozen=True)
class Stop:
    """Why a game stopped: the seat, the failure that ended its attempts, and one line on what to do about it."""

    seat: int
    reason: str
    fix: str = ""


class GameStopped(Exception):
    """A seat's model gave no answer to a decision's last attempt: the game stopped, saved and resumable, with the
    stop recorded. Its message is one line: the seat, why, and what to do about it."""

    def __init__(self, stop: Stop) -> None:
        super().__init__(f"seat {stop.seat}: {stop.reason}" + (f"; {stop.fix}" if stop.fix else ""))
        self.stop = stop


@dataclass(frozen=True)
class FailedAttempt:
    """One failed attempt: its reason in words (recorded, and shown to the seat on the re-ask), as data (recorded),
    and in the words a stop says."""

    reason: str
    data: Failed
    why: str = ""


@dataclass
class _Outcome:
    """One seat's final word on one request: a legal decision, or the failed attempt after which the default
    applies, or (`stop`) the reason the game stops instead."""

    decision: Decision | None
    rejects: list[FailedAttempt]
    calls: list[ModelCall]
    default: FailedAttempt | None = None
    stop: Stop | None = None


class _Stop(Exception):
    """Carries a seat's KeyboardInterrupt or SystemExit out of a gathered task, as an ordinary exception."""

    def __init__(self, reason: BaseException) -> None:
        super().__init__(str(reason))
        self.reason = reason


class _Runner:
    def __init__(
        self,
        game: Game,
        players: Mapping[int, Player],
        transcript: TranscriptWriter | None,
        timeout_s: float | None,
        max_reasks: int,
        on_event: EventHook | None,
        timeouts: Mapping[int, float | None],
        stats: RunStats,
        pacer: Pacer | None = None,
    ) -> None:
        self.pacer = pacer
        self.game = game
        self.players = players
        self.transcript = transcript
        self.timeout_s = timeout_s
        self.max_reasks = max_reasks
        self.on_event = on_event
        self.timeouts = timeouts
        self.stats = stats
        self.since: dict[int, int] = dict.fromkeys(players, 0)
        self.shown = transcript.events_written if transcript is not None else 0  # on_event sees the rest

    def counters(self, seat: int) -> SeatCounters:
        count = self.stats.counters.get(seat)
        if count is None:
            count = self.stats.counters[seat] = SeatCounters()
        return count

    async def ask(self, request: Request) -> _Outcome:
        """Ask one seat until it gives a legal answer or runs out of attempts."""
        seat = request.seat
        player = self.players[seat]
        count = self.counters(seat)
        timeout = self.timeouts.get(seat, self.timeout_s)
        rejects: list[FailedAttempt] = []
        calls: list[ModelCall] = []
        problem: str | None = None
        fix = ""
        failed = FailedAttempt("", Failed(Failure.ERROR))  # each failed attempt sets its own
        for attempt in range(self.max_reasks + 1):
            own = player.time_limit(request)  # e.g. a person's speech: the rules' time binds (rechecked per attempt)
            if own is not None and (timeout is None or own < timeout):
                timeout = own
            mark = time.perf_counter()
            observation = view(self.game, seat, self.since[seat])
            count.attempts += 1
            started = time.perf_counter()
            self.stats.engine_s += started - mark
            answer: Answer | None = None
            try:
                async with asyncio.timeout(timeout):  # no extra task, so a bot's time is measured exactly
                    answer = await player.decide(observation, request, problem)
            except TimeoutError as exc:
                count.timeouts += 1
                # a seat that keeps its own clock (a live table's person: pauses, extra time) says its limit
                own_limit = exc.args[0] if exc.args and isinstance(exc.args[0], int | float) else None
                limit = timeout if timeout is not None else (own_limit or 0.0)
                reason = f"{TIMEOUT_PREFIX} {limit:g} s"
                calls.extend(player.abandoned_calls())  # a call cut short still belongs in the transcript
                # a model seat's silence is its model's (a transport failure); a bot's or a person's is its own
                failed = FailedAttempt(
                    reason, Failed(Failure.TIMEOUT, round(limit * 1000), not player.model_seat), reason
                )
                fix = f"its model did not answer within {limit:g} s: raise --timeout (or the agent's timeout_s)"
            except Exception as exc:  # a broken seat must not stop the game
                count.errors += 1
                failed = failed_attempt(exc)
                if isinstance(exc, PlayerError):  # the calls of a failed attempt still belong in the transcript
                    calls.extend(exc.calls)
                    fix = exc.fix
                    if exc.final:  # a re-ask would be refused the same way: the default (or the stop) at once
                        return self._final(seat, rejects, calls, failed, fix)
            finally:
                count.player_s += time.perf_counter() - started
            if answer is not None:
                self.since[seat] = observation.next_number
                calls.extend(answer.calls)
                mark = time.perf_counter()
                try:
                    decision = self.game.check(seat, answer.decision)
                except IllegalDecision as exc:
                    count.invalid += 1
                    failed = FailedAttempt(exc.reason, exc.failed())
                else:
                    return _Outcome(decision, rejects, calls)
                finally:
                    self.stats.engine_s += time.perf_counter() - mark
            if attempt == self.max_reasks:
                return self._final(seat, rejects, calls, failed, fix)
            rejects.append(failed)
            problem = failed.reason
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _final(
        seat: int, rejects: list[FailedAttempt], calls: list[ModelCall], failed: FailedAttempt, fix: str
    ) -> _Outcome:
        """The decision's end after its last failed attempt: the default with that attempt's reason, or, when the
        attempt got no answer from the seat's model, the stop."""
        if failed.data.reached:
            return _Outcome(None, rejects, calls, default=failed)
        return _Outcome(None, rejects, calls, default=failed, stop=Stop(seat, failed.why, fix))

    async def ask_all(self, batch: Sequence[Request]) -> list[_Outcome]:
        """Ask a batch concurrently. A seat that stops the game (a KeyboardInterrupt such as a human's closed
        input) stops it from this task: raised inside a gathered task, asyncio would let it escape the event loop
        past the game's task ("Task exception was never retrieved" and a traceback). The other seats are cancelled."""
        tasks = [asyncio.ensure_future(self._stoppable(request)) for request in batch]
        try:
            return list(await asyncio.gather(*tasks))
        except _Stop as stop:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise stop.reason from None

    async def _stoppable(self, request: Request) -> _Outcome:
        try:
            return await self.ask(request)
        except (KeyboardInterrupt, SystemExit) as exc:
            raise _Stop(exc) from None

    def unused(self, outcome: _Outcome, why: str) -> None:
        """Keep the model calls of an answer the engine never took (they were made and paid for). Each answer is
        written as a failed call, its raw text intact, so `verify` pairs no input with it; a call that got no answer
        keeps its own error (the rebuild knows it was never part of the seat's conversation)."""
        if self.transcript is None:
            return
        for call in outcome.calls:
            if not (call.error or "").startswith(TRANSPORT_PREFIX):
                call = call.model_copy(update={"parsed": None, "error": f"unused: {why}"})
            self.record_call(self.transcript, call)

    def apply(self, seat: int, outcome: _Outcome) -> None:
        """Feed one seat's outcome to the engine and log it; called in seat order once the batch is in."""
        game, out = self.game, self.transcript
        count = self.counters(seat)
        decision, failed = outcome.decision, outcome.default
        if out is not None:
            for call in outcome.calls:
                problem = self.record_call(out, call)
                if problem is not None and decision is not None:  # the answer cannot be kept: refused, not taken
                    decision, failed = None, FailedAttempt(f"{ERROR_PREFIX} {problem}", Failed(Failure.ERROR))
        for call in outcome.calls:
            count.prompt_tokens += call.prompt_tokens
            count.cached_tokens += call.cached_tokens
        mark = time.perf_counter()
        records: list[Input] = []
        for refusal in outcome.rejects:  # not `failed`: that is the default's, the failure that ended the attempts
            game.reject(seat, refusal.reason, refusal.data)
            records.append(_input("reject", seat, refusal))
        if decision is not None:
            try:
                game.submit(seat, decision)
                records.append(Input(op="decide", seat=seat, decision=decision))
            except IllegalDecision as exc:  # checked a moment ago; kept so a surprise never stops the game
                decision, failed = None, FailedAttempt(exc.reason, exc.failed())
        if decision is None:
            assert failed is not None  # an outcome without a decision has the failed attempt that ended it
            game.apply_default(seat, failed.reason, failed.data)  # R9.7: the rule's default
            records.append(_input("default", seat, failed))
            count.defaults += 1
        self.stats.engine_s += time.perf_counter() - mark
        count.decisions += 1
        if out is not None:
            for record in records:
                out.input(record)

    @staticmethod
    def record_call(out: TranscriptWriter, call: ModelCall) -> str | None:
        """Write one call record. A record the writer refuses (text no file can hold) is written as a failed call,
        its texts scrubbed (U+FFFD) and its answer dropped, and the reason is returned: the answer is then refused
        (the rule's default applies) instead of ending the game. Its messages stay, so later records that extend
        them still resolve."""
        try:
            out.call(call)
            return None
        except (TranscriptError, ValueError) as exc:  # ValueError: UnicodeError, pydantic's serialisation error
            problem = scrubbed(f"the answer could not be recorded ({type(exc).__name__}: {exc})")[:500]
        kept = call.model_copy(
            update={
                "raw": scrubbed(call.raw),
                "model": scrubbed(call.model),
                "finish_reason": None,
                "messages": _scrubbed_data(call.messages),
                "flags": [],
                "parsed": None,
                "error": f"unrecordable: {problem}",
            }
        )
        out.call(kept)
        return problem

    def flush(self) -> None:
        """Write and show the events the engine emitted since the last flush."""
        events = self.game.events
        if self.transcript is not None:
            self.transcript.sync_events(self.game)
        if self.on_event is not None:
            for index in range(self.shown, len(events)):
                self.on_event(events[index])
        self.shown = len(events)

    async def run(self) -> None:
        game = self.game
        self.flush()  # a resumed game may hold events its file lacks (a batch cut short by the crash)
        while not game.over:
            batch = game.pending()
            if not batch:
                raise RuntimeError(f"the engine has no pending request but the game is not over (day {game.day})")
            missing = [r.seat for r in batch if r.seat not in self.players]
            if missing:
                raise KeyError(f"no player for seat(s) {missing}")
            if self.pacer is not None:
                self.pacer.begin(game, batch)
            if len(batch) == 1:
                outcomes = [await self.ask(batch[0])]
            else:
                outcomes = await self.ask_all(batch)
            stops = [o.stop for o in outcomes if o.stop is not None]
            if stops:  # nothing of this batch is applied: resume asks it again
                for outcome in outcomes:
                    self.unused(outcome, "the game stopped before this answer was applied")
                if self.transcript is not None:
                    self.transcript.stop(stops[0].seat, stops[0].reason, stops[0].fix)
                raise GameStopped(stops[0])
            if self.pacer is not None:  # a live table's night: held to its slot (arena/pacing.py)
                await self.pacer.hold(game, batch, [o.decision for o in outcomes])
            for request, outcome in zip(batch, outcomes, strict=True):  # `pending()` is in seat order
                if game.over:
                    self.unused(outcome, "the game ended before this answer was applied")
                elif game.request_for(request.seat) is None:  # a judge removed the seat while it thought
                    self.unused(outcome, "the seat's request was withdrawn before this answer was applied")
                else:
                    self.apply(request.seat, outcome)
            self.stats.batches += 1
            self.stats.call_rounds += max((len(o.calls) for o in outcomes), default=0)
            self.stats.batch_calls.append(sum(len(o.calls) for o in outcomes))
            self.flush()


def failed_attempt(exc: Exception) -> FailedAttempt:
    """A player's exception as a failed attempt: its code is the exception's (`PlayerError.code`: a model's
    unreadable answer is `malformed`), `error` when its model was not reached or it is no PlayerError."""
    named = f"{type(exc).__name__}: {exc}"
    reason = scrubbed(f"{ERROR_PREFIX} {named}")  # recorded: writable text
    if not isinstance(exc, PlayerError):
        return FailedAttempt(reason, Failed(Failure.ERROR), scrubbed(named))
    code = exc.code if exc.reached else Failure.ERROR
    why = scrubbed(str(exc) if exc.code is Failure.MALFORMED else named)  # a model seat's own words, unnamed
    return FailedAttempt(reason, Failed(code, reached=exc.reached), why)


def _input(op: str, seat: int, attempt: FailedAttempt) -> Input:
    """A reject or default input: the failed attempt in words and as data."""
    failed = attempt.data
    return Input(op=op, seat=seat, reason=attempt.reason, code=failed.code, limit_ms=failed.limit_ms,
                 reached=failed.reached, rule=failed.rule)  # fmt: skip


def _scrubbed_data(value: Any) -> Any:
    """Recorded data with every string's surrogate code points replaced (see `arena.engine.text.scrubbed`)."""
    if isinstance(value, str):
        return scrubbed(value)
    if isinstance(value, dict):
        return {scrubbed(str(k)): _scrubbed_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed_data(v) for v in value]
    return value


def counters_from_inputs(inputs: list[Input], calls: Sequence[ModelCall] = ()) -> dict[int, SeatCounters]:
    """Rebuild the per-seat counters from recorded inputs (resume), the failure kind from each input's code, and
    the token counts from the recorded calls."""
    out: dict[int, SeatCounters] = {}
    for call in calls:
        count = out.setdefault(call.seat, SeatCounters())
        count.prompt_tokens += call.prompt_tokens
        count.cached_tokens += call.cached_tokens
    for item in inputs:
        if item.op in JUDGE_OPS:  # the judge's, not the seat's
            continue
        count = out.setdefault(item.seat, SeatCounters())
        count.attempts += 1
        if item.op == "decide":
            count.decisions += 1
            continue
        failed = item.code
        if failed is Failure.TIMEOUT:
            count.timeouts += 1
        elif failed is Failure.REFUSED:
            count.invalid += 1
        else:
            count.errors += 1
        if item.op == "default":
            count.decisions += 1
            count.defaults += 1
    return out


async def run_game(
    game: Game,
    players: Mapping[int, Player],
    transcript: TranscriptWriter | None = None,
    *,
    timeout_s: float | None = 60.0,
    max_reasks: int = 2,
    on_event: EventHook | None = None,
    timeouts: Mapping[int, float | None] | None = None,
    stats: RunStats | None = None,
    end_record: bool = True,
    timing: bool = True,
    pacer: Pacer | None = None,
) -> Game:
    """Play `game` to its end with `players` (seat -> Player) and return it.

    `timeout_s` bounds each decision (None: no bound); `timeouts` overrides it per seat (a human seat gets None).
    `transcript` receives every input, model call and event as it happens, and the end record when the game is
    over (unless `end_record` is False). `on_event` sees each new event. `stats` collects per-seat counters and
    timings. `timing=False` keeps wall times out of the end record (golden files). `pacer` times a live table's
    nights (`arena.pacing`).
    """
    stats = stats if stats is not None else RunStats()
    runner = _Runner(game, players, transcript, timeout_s, max_reasks, on_event, timeouts or {}, stats, pacer)
    started = time.perf_counter()
    try:
        await runner.run()
    finally:
        stats.total_s += time.perf_counter() - started
    if transcript is not None and end_record:
        transcript.end(game, stats.counters, timing=timing)
    return game
