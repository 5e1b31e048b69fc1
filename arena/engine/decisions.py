"""Requests (what the engine needs from a seat, with the legal options) and Decisions (what a seat answers)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


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


class SpeechKind(StrEnum):
    REGULAR = "regular"
    SHORT = "short"  # R9.2: 3 fouls with 3–4 alive
    NOMINATE_ONLY = "nominate_only"  # R4.6: a forfeited speech keeps a turn to nominate
    INTRO = "intro"
    EXTRA = "extra"
    TIE = "tie"  # popil / justification
    LAST_WORD = "last_word"


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


NO_DECISION = Decision()  # the default default: silence, no target, no vote


class Request(BaseModel):
    """One pending decision of one seat, with everything needed to answer it legally."""

    model_config = ConfigDict(frozen=True, extra="forbid")

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
