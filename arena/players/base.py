"""The Player protocol every kind of seat implements (bot, LLM, LangChain, human, scripted), and the records of
model calls that seats hand back with their decisions."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from arena.engine import Decision, Failure, Input, Observation, Request

# How the orchestrator words a failed attempt in the `problem` of the re-ask and in the input's reason (words for
# the seat and for people: what failed, as data, is the input's `code` and the rest of `Failed`, arena/engine)
TIMEOUT_PREFIX = "no answer within"
ERROR_PREFIX = "the player failed:"
# How a model seat words an attempt that got no answer from its model (`PlayerError.reached` False): the message
# starts with one of these, after the orchestrator's `ERROR_PREFIX` and the exception's name
NOT_REACHED = ("the model could not be reached", "the server refused the request")
TRANSPORT_PREFIX = "transport: "  # a call record's `error` when the call got no answer at all (no raw text)


# the LLM seat's own wording of an unreadable answer, after the orchestrator's prefix (arena/llm/seat.py)
OWN_FAILURE = f"{ERROR_PREFIX} NoUsableAnswer: "


def transport_failure(item: Input) -> bool:
    """True if a reject or default input's failed attempt got no answer from the seat's model: its time limit ran
    out with none, the model could not be reached, or the server refused the request (`Failed.reached`). A seat
    that answered badly, or an answer the engine refused, is the model's own doing, not a transport failure."""
    failed = item.failed
    return failed is not None and not failed.reached


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
    (an HTTP 400), so it is not asked again. `code`: how a failed attempt it ends is recorded when its model was
    reached (a model's unreadable answer is `malformed`); one that was not is an `error`."""

    code: ClassVar[Failure] = Failure.ERROR

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
