"""The structured-output modes a seat can use, and what the result of one model call looks like.

Kept apart from `client.py` (which needs the openai SDK) so the LangChain seat and the prompt code can use them with
only the `langchain` extra installed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from arena.engine.text import lone_surrogate, scrubbed
from arena.llm.usage import Usage


class Mode(StrEnum):
    JSON_SCHEMA = "json_schema"
    TOOLS = "tools"
    JSON_OBJECT = "json_object"
    PROMPT = "prompt"

    @property
    def schema_in_prompt(self) -> bool:
        """The modes whose server does not receive the schema, so the prompt must carry it."""
        return self in (Mode.JSON_OBJECT, Mode.PROMPT)


MAX_ANSWER_BYTES = 256 * 1024  # one answer's text (UTF-8); a longer one is unusable, and only its head is kept
ANSWER_KEPT_BYTES = 4096  # what the call record and the conversation keep of an oversize answer


@dataclass(frozen=True, slots=True)
class Completion:
    """One model answer. `raw` is the message text, or the tool call's arguments when the answer came as a tool call."""

    raw: str
    finish_reason: str | None
    refusal: str | None
    model: str
    usage: Usage
    latency_ms: float
    oversize: int = 0  # the answer's size in bytes (at least) when over MAX_ANSWER_BYTES; `raw` is then its head
    timings: dict[str, float] | None = None  # what the server measured (llama.cpp's `timings`: cache_n, prompt_n, ...)


def capped(completion: Completion) -> Completion:
    """`completion` as it can be recorded: an answer over MAX_ANSWER_BYTES cut to its first bytes and marked
    `oversize`, and every surrogate code point in its texts (which no UTF-8 file holds) replaced by U+FFFD."""
    texts = (completion.raw, completion.refusal or "", completion.model, completion.finish_reason or "")
    if any(lone_surrogate(text) for text in texts):
        completion = replace(
            completion,
            raw=scrubbed(completion.raw),
            refusal=None if completion.refusal is None else scrubbed(completion.refusal),
            model=scrubbed(completion.model),
            finish_reason=None if completion.finish_reason is None else scrubbed(completion.finish_reason),
        )
    raw = completion.raw
    if completion.oversize or len(raw) * 4 <= MAX_ANSWER_BYTES:
        return completion
    size = len(raw.encode("utf-8"))
    if size <= MAX_ANSWER_BYTES:
        return completion
    head = raw.encode("utf-8")[:ANSWER_KEPT_BYTES].decode("utf-8", "ignore")
    return replace(completion, raw=head, oversize=size)
