"""The Player protocol every kind of seat implements (bot, LLM, LangChain, human, scripted), and the records of
model calls that seats hand back with their decisions."""

from __future__ import annotations

from abc import ABC, abstractmethod

from pydantic import BaseModel, ConfigDict, Field

from arena.engine import Decision, Observation, Request

# How the orchestrator words a failed attempt in the `problem` of the re-ask and in the input's reason; seats and
# verify recognise the two failures by these prefixes (here, where the orchestrator and the transcript both import).
TIMEOUT_PREFIX = "no answer within"
ERROR_PREFIX = "the player failed:"


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
    """A seat failed to produce a decision. It hands back the model calls it made, so the transcript keeps them."""

    def __init__(self, message: str, calls: list[ModelCall] | None = None, *, final: bool = False) -> None:
        super().__init__(message)
        self.calls: list[ModelCall] = list(calls or [])
        self.final = final  # the same request would fail the same way (e.g. an HTTP 400): no re-ask, the default


class Player(ABC):
    """A seat's brain. The orchestrator calls `decide` with the seat's own observation and pending request; on a
    re-ask `problem` holds the engine's reason for refusing the previous answer."""

    seat: int

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
