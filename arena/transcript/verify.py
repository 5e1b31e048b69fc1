"""Verifying a transcript: the hash chain (and, with a key, the end record's signature), then a replay of every
input through the engine, checking that each recorded event is the one the engine emits, that each model call's
answer is the input it produced, that each remote seat's exchange sent the turn the replay gives and that its answer
is the input it became (`arena.remote.check`), and that a finished game ends as its end record says (`arena verify`).
"""

from __future__ import annotations

import hmac
import operator
from collections.abc import Callable
from functools import partial
from typing import Literal

from pydantic import BaseModel, Field

from arena.engine import Event, Failure, Game, IllegalDecision, Input
from arena.remote.check import ExchangeCheck
from arena.transcript.chain import signature
from arena.transcript.figures import figures_problem
from arena.transcript.records import SeatEntry, Transcript, model_seats

Outcome = Literal["complete", "unfinished", "aborted", "tampered"]


class Verdict(BaseModel):
    """The result of checking a transcript: `ok` (nothing wrong found), the `outcome`, and a message; for a
    mismatch, the first event that differs."""

    ok: bool
    message: str
    outcome: Outcome = "tampered"
    events: int = 0
    inputs: int = 0
    seq: int | None = None  # the first event that differs
    notes: list[str] = Field(default_factory=list)  # what was not (or could not be) checked


def _diff(recorded: Event, regenerated: Event) -> str:
    a, b = recorded.model_dump(mode="json"), regenerated.model_dump(mode="json")
    fields = [k for k in a if a[k] != b[k]]
    return ", ".join(f"{k}: recorded {a[k]!r}, replay {b[k]!r}" for k in fields)


def _fields(a: BaseModel, b: BaseModel) -> str:
    x, y = a.model_dump(mode="json"), b.model_dump(mode="json")
    return ", ".join(sorted(k for k in x if x[k] != y.get(k)))


class _CallCheck:
    """Pairs every answered model call with the input its answer became, in file order, and compares them.

    A seat's calls are written just before its inputs: each answer that yielded a Decision is either refused (a
    `reject`, or the final `default`, with the engine's reason) or accepted (the `decide`). The decision read from
    the call's `raw` text must be its `parsed` answer, and `parsed`, read for the request pending at that input,
    must be the recorded decision. So an edited speech or reasoning fails even where the replay cannot see it.
    """

    def __init__(self, transcript: Transcript) -> None:
        self.calls = transcript.calls
        self.positions = transcript.call_positions
        self.models = self._models(transcript.header.seats)
        self.resumes = list(zip(transcript.resume_positions, transcript.resume_calls, transcript.resumes, strict=True))
        self.queue: dict[int, list[int]] = {}
        self.next_call = 0

    @staticmethod
    def _models(seats: list[SeatEntry]) -> set[int]:
        return set(model_seats(seats))

    def before_input(self, index: int) -> str | None:
        """Queue the answered calls written before input `index`; check each one's raw text against `parsed`."""
        while self.resumes and self.resumes[0][0] <= index:
            _, calls_before, resume = self.resumes.pop(0)
            error = self._queue_calls(partial(operator.gt, calls_before))  # the calls written before the resume
            if error:
                return error
            # answers of the batch the crash cut short never became inputs: resume asks those seats again
            self.queue.clear()
            self.models = self._models(resume.seats)  # a resume may seat other agents from here on
        return self._queue_calls(lambda n: self.positions[n] <= index)

    def _queue_calls(self, wanted: Callable[[int], bool]) -> str | None:
        """Queue the next calls while `wanted(number)`, checking each answered one's raw text against `parsed`."""
        from arena.llm.extract import NoJSON, extract_object

        while self.next_call < len(self.calls) and wanted(self.next_call):
            number, call = self.next_call, self.calls[self.next_call]
            self.next_call += 1
            if call.parsed is None:
                continue
            try:
                read = extract_object(call.raw, truncated=call.finish_reason == "length").value
            except (NoJSON, ValueError, RecursionError):
                read = None
            if read != call.parsed:
                return f"call record {number} (seat {call.seat}): its parsed answer is not what its raw text says"
            self.queue.setdefault(call.seat, []).append(number)
        return None

    def at_input(self, index: int, item: Input, game: Game) -> str | None:
        """Check input `index` against the seat's queued answers (before the engine takes it). The answer goes
        through the engine's own check, as the orchestrator's did, so what the engine normalises is compared
        as it was recorded."""
        from arena.llm.schema import ShapeError, to_decision, to_decision_stable

        if item.op not in ("decide", "reject", "default"):
            return None
        queue = self.queue.setdefault(item.seat, [])
        answered = item.op == "decide" or item.code in (Failure.REFUSED, None)  # an answer the engine refused
        if not answered:
            return None
        if not queue:
            if item.seat in self.models:
                return f"input {index} (seat {item.seat}, {item.op}): no model call record gave this answer"
            return None
        number = queue.pop(0)
        request = game.request_for(item.seat)
        if item.op == "decide" and item.decision is not None and request is not None:
            call = self.calls[number]
            assert call.parsed is not None
            try:
                # a stable-shape answer nests its fields under `decision` (no per-request field has that name)
                read = to_decision_stable if isinstance(call.parsed.get("decision"), dict) else to_decision
                decision = read(request, dict(call.parsed), partial=call.finish_reason == "length", players=game.n)
                decision = game.check(item.seat, decision)
            except (ShapeError, IllegalDecision) as exc:
                return f"call record {number} (seat {item.seat}) does not give the recorded decision: {exc}"
            if decision != item.decision:
                return (
                    f"input {index} (seat {item.seat}) differs from the answer of call record {number}: "
                    f"{_fields(item.decision, decision)}"
                )
        if item.op in ("decide", "default") and queue:
            return f"call record {queue[0]} (seat {item.seat}): an answer that no input used"
        return None

    def at_end(self, finished: bool) -> str | None:
        error = self.before_input(len(self.positions) + 2**62)  # every call left
        if error or not finished:
            return error  # an unfinished file may end between a batch's calls and its inputs
        left = sorted(n for queue in self.queue.values() for n in queue)
        return f"call record {left[0]}: an answer that no input used" if left else None


def _exchange_check(transcript: Transcript) -> ExchangeCheck:
    """The check of the remote seats' exchanges (`arena.remote.check`), with who was remote in each stretch."""

    def remote(seats: list[SeatEntry]) -> set[int]:
        return {e.seat for e in seats if e.agent.kind == "remote"}

    resumed = [
        (position, before, remote(record.seats))
        for position, before, record in zip(
            transcript.resume_positions, transcript.resume_exchanges, transcript.resumes, strict=True
        )
    ]
    return ExchangeCheck(transcript.exchanges, transcript.exchange_positions, remote(transcript.header.seats), resumed)


def verify(transcript: Transcript, *, key: bytes | None = None) -> Verdict:
    """Check a transcript: its hash chain (and, with `key`, the end record's signature); then replay its inputs
    and check that every recorded event is the one the engine emits, that every model call's answer is the input
    it produced, and that a finished game ends as its end record says. `outcome` is `complete`, `unfinished` (no
    end record), `aborted` (an internal error stopped the game) or `tampered` (any check failed)."""
    n_in = len(transcript.inputs)
    notes: list[str] = []

    def bad(message: str, seq: int | None = None) -> Verdict:
        return Verdict(ok=False, message=message, seq=seq, inputs=n_in, notes=notes)

    if transcript.chain == "broken":
        return bad(f"tampered: {transcript.chain_error}")
    if transcript.chain == "none":
        notes.append(
            f"a version-{transcript.header.version} file has no hash chain to check: only the replay and the "
            "call records were checked"
        )
    end = transcript.end
    if key is not None:
        if transcript.chain != "ok":
            return bad("no signature to check: a version-1 file is never signed")
        if end is not None:
            if transcript.sig is None:
                return bad("not signed: the end record carries no signature")
            if not hmac.compare_digest(transcript.sig, signature(key, transcript.last_hash)):
                return bad("the signature does not match: not signed with this key, or edited and re-hashed")
            notes.append("signature: valid for this key")
        else:
            notes.append("signature: none yet (an unfinished file is signed when it ends)")
    elif transcript.sig is not None:
        notes.append("signed: pass --key-env VAR to check the signature")
    if transcript.header.signed and end is not None and transcript.sig is None:
        return bad("the header says this file was signed, but its end record carries no signature")
    problem = figures_problem(transcript)  # money and references: no replay sees them
    if problem:
        return bad(problem)
    try:
        game = Game(transcript.rules, transcript.header.seed, roles=transcript.header.roles)
    except Exception as exc:  # a crafted header: one line
        return bad(f"the header's rules or roles do not make a game: {type(exc).__name__}: {exc}")
    calls = _CallCheck(transcript)
    remote = _exchange_check(transcript)
    for index, item in enumerate(transcript.inputs):
        problem = (calls.before_input(index) or remote.before_input(index, game) or calls.at_input(index, item, game)
                   or remote.at_input(index, item, game))  # fmt: skip
        if problem:
            return bad(problem)
        try:
            game.replay([item])
        except IllegalDecision as exc:
            return bad(f"input {index} ({item.op} seat {item.seat}) refused: {exc}")
        except Exception as exc:  # a crafted input the engine cannot take
            return bad(f"input {index} ({item.op} seat {item.seat}) cannot be replayed: {type(exc).__name__}: {exc}")
    recorded, regenerated = transcript.events, game.events
    for a, b in zip(recorded, regenerated, strict=False):
        if a != b:
            return bad(f"event seq {a.seq} ({a.type.value}) differs: {_diff(a, b)}", a.seq)
    if len(recorded) > len(regenerated):
        extra = recorded[len(regenerated)]
        return bad(f"event seq {extra.seq} ({extra.type.value}) is not produced by the replay", extra.seq)
    finished = end is not None and end.status == "complete"
    problem = calls.at_end(finished) or remote.at_end(game)
    if problem:
        return bad(problem)
    if end is not None and end.status == "complete":
        if len(regenerated) != len(recorded):
            seq = len(recorded)
            return bad(f"the replay goes on past the recorded end (event seq {seq})", seq)
        if not game.over or game.winner != end.winner:
            return bad(f"the end record says {end.winner!r}, the replay gives {game.winner!r}")
        how = game.outcome.termination.value if game.outcome is not None else ""
        if (end.events, end.inputs, end.days, end.reason) != (len(recorded), n_in, game.day, how):
            return bad(
                f"the end record says {end.events} events, {end.inputs} inputs, {end.days} days ({end.reason!r}); "
                f"the replay gives {len(recorded)}, {n_in}, {game.day} ({how!r})"
            )
    if end is not None and end.status == "aborted":
        outcome: Outcome = "aborted"
        state = f"aborted by an internal error: {end.error}"
    elif finished:
        outcome, state = "complete", "complete"
    else:
        outcome = "unfinished"
        state = "unfinished: no end record" + ("; the game is over" if game.over else "")
        if transcript.stops:  # the file's last stop: the game stopped on a model that gave no answer
            last = transcript.stops[-1]
            state += f"; stopped on seat {last.seat}: {last.reason}"
    result = f"; {game.winner} wins" if game.winner and game.winner != "draw" else ("; a draw" if game.over else "")
    chain = "; hash chain intact" if transcript.chain == "ok" else ""
    return Verdict(
        ok=True,
        outcome=outcome,
        message=f"{len(recorded)} events and {n_in} inputs replay identically ({state}{result}{chain})",
        events=len(recorded),
        inputs=n_in,
        notes=notes,
    )
