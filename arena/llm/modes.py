"""The structured-output modes a seat can use, and what the result of one model call looks like.

Kept apart from `client.py` (which needs the openai SDK) so the LangChain seat and the prompt code can use them with
only the `langchain` extra installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

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


@dataclass(frozen=True, slots=True)
class Completion:
    """One model answer. `raw` is the message text, or the tool call's arguments when the answer came as a tool call."""

    raw: str
    finish_reason: str | None
    refusal: str | None
    model: str
    usage: Usage
    latency_ms: float
