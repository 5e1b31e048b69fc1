"""Requests (what the engine needs from a seat, with the legal options) and Decisions (what a seat answers)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from arena.engine.record import PlainRecord


class Kind(StrEnum):
    SPEECH = "speech"  # text; nominate (if may_nominate); extra (if may_request_extra)
    VOTE = "vote"  # yes/no on `candidate` (per-nominee round, lift vote, acquittal re-vote)
    BALLOT = "ballot"  # target: one of `options` (None only if `allow_none`)
    SHOOT = "shoot"  # mafia: target or None
    DON_CHECK = "don_check"
    SHERIFF = "sheriff"  # action=check|shoot, target
    MANIAC_KILL = "maniac_kill"
    HEAL = "heal"
    VISIT = "visit"
    BEST_MOVE = "best_move"  # targets: up to max_targets seats
    BLACK_MESSAGE = "black_message"  # text; targets=kill order when may_set_order
    CHOOSE_SIDE = "choose_side"  # action: one of `choices`
    PROBE = "probe"  # beliefs: P(black) for each of `options` (rules.probes.daily; private, never acts)


class SpeechKind(StrEnum):
    REGULAR = "regular"
    SHORT = "short"  # R9.2: 3 fouls with 3–4 alive
    NOMINATE_ONLY = "nominate_only"  # R4.6: a forfeited speech keeps a turn to nominate
    INTRO = "intro"
    EXTRA = "extra"
    TIE = "tie"  # popil / justification
    LAST_WORD = "last_word"


class Claim(BaseModel):
    """A structured role claim made in a speech: the role claimed and, for a sheriff claim, the checks announced.
    It is public (it rides on the speech event) so research metrics never have to guess claims from free text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str
    black: tuple[int, ...] = ()
    red: tuple[int, ...] = ()


class Decision(BaseModel):
    """A seat's answer. Fields a request does not use are ignored; `reasoning` never reaches the engine's events."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = ""
    target: int | None = None
    targets: tuple[int, ...] = ()
    nominate: tuple[int, ...] = ()  # nomination attempts in the order spoken
    vote: bool | None = None
    action: str | None = None
    extra: bool = False
    reasoning: str = ""
    claim: Claim | None = None  # speech: an optional structured role claim (public)
    beliefs: tuple[float, ...] = ()  # probe: P(black) per seat of the request's options, in order


NO_DECISION = Decision()  # the default default: silence, no target, no vote


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Request(PlainRecord):
    """One pending decision of one seat, with everything needed to answer it legally.

    A slotted dataclass, built at every decision; read-only by convention (`model_copy(update=...)` makes a changed
    copy). `Decision`, which comes from outside the engine, stays a validating pydantic model.
    """

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    seat: int
    kind: Kind
    options: tuple[int, ...] = ()  # legal targets
    allow_none: bool = False  # may target nobody / abstain
    max_words: int = 0  # speech budget
    max_chars: int = 0  # the same budget in characters (speech.chars_per_word per word): read a human's line with it
    speech: SpeechKind | None = None
    may_nominate: bool = False
    nominate_options: tuple[int, ...] = ()
    may_request_extra: bool = False
    candidate: int | None = None  # the subject of a yes/no vote
    subject: str | None = None  # nominee | lift | acquittal
    candidates: tuple[int, ...] = ()  # the whole list being voted on (lift: the tied players)
    max_targets: int = 0  # best move / kill order
    may_set_order: bool = False
    actions: tuple[str, ...] = ()  # sheriff: check / shoot
    choices: tuple[str, ...] = ()  # maniac side
    default: Decision = NO_DECISION  # the rule's answer when the seat fails to give a legal one


class IllegalDecision(ValueError):
    """A decision the rules do not allow. The state is unchanged; `code` is stable, the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.reason = message

    def failed(self) -> Failed:
        """This refusal as a failed attempt's data (`Game.reject`, `Game.apply_default`)."""
        return Failed(Failure.REFUSED, rule=self.code)


class Failure(StrEnum):
    """Why a seat's attempt did not settle its decision: it is asked again, and past the last attempt the rule's
    default applies (R9.7). The stable code a reject or default input carries, and its `action_rejected` or
    `default_applied` event; renderers word the code, never the reason's sentence."""

    TIMEOUT = "timeout"  # no answer within the seat's time (`Failed.limit_ms`)
    MALFORMED = "malformed"  # the seat's model answered, unreadably
    ERROR = "error"  # the seat failed otherwise: its model was not reached (`Failed.reached`), or the player crashed
    REFUSED = "refused"  # a readable answer the engine refused (`Failed.rule`: the IllegalDecision's code)


@dataclass(frozen=True, slots=True)
class Failed:
    """A failed attempt as data, beside the reason's words: its code; a time-out's limit in milliseconds;
    `reached` False when a model seat's attempt got no answer from its model (a transport failure: unreachable,
    refused by the server, or silent past the limit); a refusal's IllegalDecision code. The engine only records it:
    what failed, and how, is the caller's (the orchestrator's) to say."""

    code: Failure
    limit_ms: int | None = None
    reached: bool = True
    rule: str | None = None


def request_record(
    seat: int,
    kind: Kind,
    options: tuple[int, ...] = (),
    allow_none: bool = False,
    max_words: int = 0,
    max_chars: int = 0,
    speech: SpeechKind | None = None,
    may_nominate: bool = False,
    nominate_options: tuple[int, ...] = (),
    may_request_extra: bool = False,
    candidate: int | None = None,
    subject: str | None = None,
    candidates: tuple[int, ...] = (),
    max_targets: int = 0,
    may_set_order: bool = False,
    actions: tuple[str, ...] = (),
    choices: tuple[str, ...] = (),
    default: Decision = NO_DECISION,
) -> Request:
    """`Request(...)`, with the same fields and defaults, by its slots: the engine builds one at every decision, and
    the dataclass called with keywords costs five times this (14 % of the engine bench, bench/README.md)."""
    r: Request = object.__new__(Request)
    r.seat = seat
    r.kind = kind
    r.options = options
    r.allow_none = allow_none
    r.max_words = max_words
    r.max_chars = max_chars
    r.speech = speech
    r.may_nominate = may_nominate
    r.nominate_options = nominate_options
    r.may_request_extra = may_request_extra
    r.candidate = candidate
    r.subject = subject
    r.candidates = candidates
    r.max_targets = max_targets
    r.may_set_order = may_set_order
    r.actions = actions
    r.choices = choices
    r.default = default
    return r
