"""The Player protocol every kind of seat implements (bot, LLM, LangChain, human, scripted), and the records of
model calls that seats hand back with their decisions."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from arena.engine import Decision, Observation, Request

# How the orchestrator words a failed attempt in the `problem` of the re-ask and in the input's reason; seats and
# verify recognise the two failures by these prefixes (here, where the orchestrator and the transcript both import).
TIMEOUT_PREFIX = "no answer within"
ERROR_PREFIX = "the player failed:"
# How a model seat words an attempt that got no answer from its model (`PlayerError.reached` False): the message
# starts with one of these, after the orchestrator's `ERROR_PREFIX` and the exception's name
NOT_REACHED = ("the model could not be reached", "the server refused the request")
TRANSPORT_PREFIX = "transport: "  # a call record's `error` when the call got no answer at all (no raw text)


# the LLM seat's own wording of an unreadable answer, after the orchestrator's prefix (arena/llm/seat.py)
OWN_FAILURE = f"{ERROR_PREFIX} NoUsableAnswer: "


class Failure(StrEnum):
    """What an attempt that did not settle a decision failed on: the stable code of a recorded reason (an
    `action_rejected` or `default_applied` event's `value`, a reject or default input's `reason`). `failure` is the
    one reader of the orchestrator's wording above; a renderer words the code, never the sentence."""

    TIMEOUT = "timeout"  # no answer within the seat's time
    MALFORMED = "malformed"  # the seat's model answered, unreadably (the LLM seat's NoUsableAnswer)
    ERROR = "error"  # the seat failed otherwise: its model could not be reached, or the player crashed
    REFUSED = "refused"  # a readable answer the engine refused (its reason is the engine's own)


@dataclass(frozen=True, slots=True)
class FailedAttempt:
    """A recorded reason as data: its `Failure` code and, for a time-out, the limit in seconds."""

    code: Failure
    seconds: float | None = None


def failure(reason: str | None) -> FailedAttempt:
    """A failed attempt's recorded reason, as the orchestrator worded it, read as its code (and time limit)."""
    reason = reason or ""
    if reason.startswith(TIMEOUT_PREFIX):  # "no answer within 120 s"
        limit = reason[len(TIMEOUT_PREFIX) :].strip().removesuffix(" s").strip()
        try:
            return FailedAttempt(Failure.TIMEOUT, float(limit))
        except ValueError:
            return FailedAttempt(Failure.TIMEOUT)
    if reason.startswith(OWN_FAILURE) and not reason[len(OWN_FAILURE) :].startswith(NOT_REACHED[0]):
        return FailedAttempt(Failure.MALFORMED)
    if reason.startswith(ERROR_PREFIX):
        return FailedAttempt(Failure.ERROR)
    return FailedAttempt(Failure.REFUSED)


def transport_failure(reason: str) -> bool:
    """True if a failed attempt's recorded reason says the seat got no answer from its model: its time limit ran out
    with none, the model could not be reached, or the server refused the request. (A seat that answered badly, or
    an answer the engine refused, is the model's own doing, not a transport failure.)"""
    if reason.startswith(TIMEOUT_PREFIX):
        return True
    if not reason.startswith(ERROR_PREFIX):
        return False
    _, _, message = reason[len(ERROR_PREFIX) :].partition(": ")  # " NoUsableAnswer: the model could not be ..."
    return message.startswith(NOT_REACHED)


class ModelCall(BaseModel):
    """One request to a model, as the transcript stores it. Never holds an API key."""

    model_config = ConfigDict(extra="forbid")

    seat: int
    request_kind: str
    attempt: int = 1
    model: str = ""  # the model name the server reported
    mode: str = ""  # structured-output mode: json_schema | tools | json_object | prompt
    messages: list[dict[str, object]] = Field(default_factory=list)  # new messages only when prefix_ref is set
    prefix_ref: int | None = None  # index of the earlier call whose messages this one extends
    prefix_messages: int = 0  # how many messages are shared with that call
    raw: str = ""
    parsed: dict[str, object] | None = None
    error: str | None = None
    finish_reason: str | None = None
    latency_ms: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = 0.0
    flags: list[str] = Field(default_factory=list)  # quoted player text in this call that imitates the moderator etc.
    timings: dict[str, float] | None = None  # what the server measured (llama.cpp's `timings`: cache_n, prompt_n, ...)
    # why this call's conversation was compacted just before it was sent: "budget" (it would have passed the seat's
    # context budget) or "overflow" (the server said the prompt did not fit); None: not compacted (compaction.py)
    compaction: str | None = None
    # on a re-ask, the refusal the model was shown with the question again (the engine's reason, or the seat's own
    # failure); None on a first ask. The rebuild (`arena verify`, `arena prompt --rebuild`) needs it to say it again
    reask: str | None = None


class Answer(BaseModel):
    """What a seat returns: the decision plus the model calls it took (empty for bots and humans)."""

    model_config = ConfigDict(extra="forbid")

    decision: Decision
    calls: list[ModelCall] = Field(default_factory=list)


class PlayerError(RuntimeError):
    """A seat failed to produce a decision. It hands back the model calls it made, so the transcript keeps them.

    The failure contract: an attempt that failed is re-asked (the orchestrator's one policy), and a decision whose
    attempts all failed takes the rule's default, unless its last attempt got no answer from the seat's model at all
    (`reached` False: the server could not be reached, refused the request, or said nothing within the time limit).
    Then the game stops before anything of that batch is applied, saved and resumable, with `fix` (one line: what
    to do about it): a result is never made of transport failures. `final`: the same request would fail the same way
    (an HTTP 400), so it is not asked again."""

    def __init__(
        self,
        message: str,
        calls: list[ModelCall] | None = None,
        *,
        final: bool = False,
        reached: bool = True,
        fix: str = "",
    ) -> None:
        super().__init__(message)
        self.calls: list[ModelCall] = list(calls or [])
        self.final = final
        self.reached = reached
        self.fix = fix


class Player(ABC):
    """A seat's brain. The orchestrator calls `decide` with the seat's own observation and pending request; on a
    re-ask `problem` holds the engine's reason for refusing the previous answer."""

    seat: int
    model_seat: bool = False  # its decisions come from a model: a decision its time limit cut got no answer from it

    @abstractmethod
    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer: ...

    def time_limit(self, request: Request) -> float | None:
        """A time limit of the seat's own for `request`, binding when shorter than the table's (a person's speech
        in the browser: the rules' speech time); None: only the table's limit applies."""
        return None

    def abandoned_calls(self) -> list[ModelCall]:
        """The model calls of a decision cut short by its time limit (the orchestrator writes them); none here."""
        return []

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections; most seats hold none."""
