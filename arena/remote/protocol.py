"""The remote seat's wire format (docs/remote.md): what a program is sent, how its answer is read, and the record the
transcript keeps of each exchange.

A turn is built only from the seat's `Observation` (the engine's `view`, events numbered in the seat's own
sequence) and its `Request`, plus the turn's own numbers (turn, attempt, the refusal being repeated, the deadline in
seconds). It holds no clock time and nothing of another seat, so the same game gives the same bytes, and
`arena verify` rebuilds every turn from the replay and compares its digest with the one recorded (`check.py`).

An answer is `{"turn": N, "decision": {...}}`, the decision in the engine's own `Decision` fields. It is read here,
the same way live and in verify; what it decides is the engine's to judge.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from arena.engine import Decision, Event, Observation, Request

PROTOCOL: Final = "mafia-arena-remote/1"
MAX_ANSWER_BYTES: Final = 256 * 1024  # a speech is a few thousand characters; reasoning gets the rest
MAX_NESTING: Final = 32  # a decision nests three levels (decision, claim, a list)

Outcome = Literal["answered", "unreadable", "timeout", "undelivered", "expired", "cancelled"]


def event_json(event: Event) -> dict[str, Any]:
    """One event as the seat is sent it (every field; `seq` is already the seat's own number)."""
    return event.model_dump(mode="json")


def observation_json(obs: Observation) -> dict[str, Any]:
    """The seat's observation as data: its card, the table, and its events from `since` on in its own numbering."""
    return {
        "seat": obs.seat,
        "role": obs.role.value if obs.role is not None else None,
        "team": obs.team.value if obs.team is not None else None,
        "teammates": list(obs.teammates),
        "players": obs.players,
        "alive": list(obs.alive),
        "day": obs.day,
        "phase": obs.phase.value,
        "fouls": list(obs.fouls),
        "nominees": list(obs.nominees),
        "winner": obs.winner,
        "since": obs.since,
        "next_number": obs.next_number,
        "events": [event_json(e) for e in obs.renumbered()],
    }


def request_json(request: Request) -> dict[str, Any]:
    """The request with every field: the kind, the legal options, the caps and the rule's `default`."""
    return request.model_dump(mode="json")


def turn_body(
    obs: Observation,
    request: Request,
    *,
    turn: int,
    attempt: int,
    problem: str | None,
    deadline_s: float | None,
) -> dict[str, Any]:
    """The turn a seat is sent, without `seconds_left` (the one field that depends on when it is fetched)."""
    return {
        "protocol": PROTOCOL,
        "status": "turn",
        "seat": obs.seat,
        "turn": turn,
        "attempt": attempt,
        "problem": problem,
        "deadline_s": deadline_s,
        "observation": observation_json(obs),
        "request": request_json(request),
    }


def over_body(obs: Observation) -> dict[str, Any]:
    """What a seat is sent once the game is over: the winner and its last events (its own view, as ever)."""
    return {"protocol": PROTOCOL, "status": "over", "seat": obs.seat, "winner": obs.winner,
            "observation": observation_json(obs)}  # fmt: skip


def canonical(body: dict[str, Any]) -> bytes:
    """Sorted keys, no spaces, UTF-8: the bytes a turn's digest is taken of."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def digest(body: dict[str, Any]) -> str:
    return hashlib.sha256(canonical(body)).hexdigest()


class AnswerError(ValueError):
    """A body that cannot be read as an answer; the message says why (the program is told, and a re-ask repeats
    it)."""


class _DuplicateKey(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _DuplicateKey("an object names one key twice")
    return out


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_NESTING:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level


def read_answer(text: str) -> tuple[int, Decision]:
    """`{"turn": N, "decision": {...}}` read into the turn it answers and a Decision; AnswerError says why not.
    Every value is checked for its type (pydantic, strict about unknown fields); whether it is legal is the
    engine's question."""
    try:
        data = json.loads(text, object_pairs_hook=_pairs)
    except _DuplicateKey as exc:
        raise AnswerError(f"the answer is not valid: {exc}") from None
    except (ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).split(":")[0]
        raise AnswerError(f"the answer is not JSON ({why})") from None
    if not isinstance(data, dict):
        raise AnswerError('the answer must be a JSON object: {"turn": N, "decision": {...}}')
    if _depth(data) > MAX_NESTING:
        raise AnswerError(f"the answer nests deeper than {MAX_NESTING} levels")
    unknown = sorted(set(data) - {"turn", "decision"})
    if unknown:
        raise AnswerError(f"unknown field {unknown[0][:40]!r}: an answer holds only turn and decision")
    turn = data.get("turn")
    if not isinstance(turn, int) or isinstance(turn, bool):
        raise AnswerError("the answer needs turn, the number of the turn it answers (an integer)")
    decision = data.get("decision")
    if not isinstance(decision, dict):
        raise AnswerError("the answer needs decision, an object (see the request's kind for its fields)")
    try:
        return turn, Decision.model_validate(decision)
    except ValidationError as exc:
        errors = exc.errors()
        why = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'decision'}: {e['msg']}" for e in errors[:3])
        raise AnswerError(f"the decision cannot be read: {why}") from None


class Exchange(BaseModel):
    """One turn of a remote seat as the transcript keeps it: what was sent (its digest, and the numbers that rebuild
    it from the replay), whether the program fetched it, and what came back, byte for byte.

    `outcome`: `answered` (a readable decision, which the engine then took or refused), `unreadable` (a body that is
    no answer: `error` says why), `timeout` (fetched, not answered in time: the rule's default), `undelivered` (never
    fetched by the deadline: the program is gone), `expired` (the re-ask of a timed-out decision: not sent, the time
    was up), `cancelled` (the game stopped while the turn was open). `answer` is the body as received when it was
    UTF-8 within `MAX_ANSWER_BYTES` (else None, with its size in `answer_bytes`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seat: int
    turn: int = 0  # 0: no turn was sent (expired)
    attempt: int = 1
    request_kind: str = ""
    since: int = 0  # the observation's `since` and `next_number`, in the seat's own numbering
    upto: int = 0
    problem: str | None = None
    deadline_s: float | None = None
    sent: str = ""  # sha256 of the turn's canonical JSON (`digest(turn_body(...))`)
    delivered: bool = False
    outcome: Outcome
    answer: str | None = None
    answer_bytes: int = 0
    error: str | None = None
    latency_ms: float = 0.0
