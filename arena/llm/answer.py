"""Reading a completion into a Decision, or saying exactly why it cannot be used.

The failures a model produces are told apart so the transcript shows which happened: a refusal, a content filter,
an empty answer, an answer cut off at the token limit, text with no JSON in it, and JSON of the wrong shape. A
cut-off answer whose JSON can be closed (typically a long speech) is used and marked as salvaged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from arena.engine import Decision, Request
from arena.engine.text import lone_surrogate
from arena.llm.extract import NoJSON, extract_object
from arena.llm.modes import MAX_ANSWER_BYTES, Completion
from arena.llm.schema import ShapeError, to_decision, to_decision_stable


class UnusableAnswer(ValueError):
    """A completion that yields no decision; the message is what the model is told on the re-ask."""


@dataclass(frozen=True, slots=True)
class Reading:
    decision: Decision
    parsed: dict[str, Any]
    note: str | None = None  # set when the answer was used but needed salvaging


def read_completion(completion: Completion, request: Request, max_tokens: int, *, stable: bool = False) -> Reading:
    """The decision in `completion`, or UnusableAnswer saying what went wrong. `stable`: the answer is in the
    stable schema's shape, `{reasoning, decision: {kind, ...}}`."""
    cut = completion.finish_reason == "length"
    if completion.oversize:
        raise UnusableAnswer(
            f"the answer was too long ({completion.oversize:,} bytes or more; the limit is {MAX_ANSWER_BYTES:,}): "
            "answer with the JSON object only"
        )
    if completion.refusal:
        raise UnusableAnswer(f"the model refused: {completion.refusal[:300]}")
    if completion.finish_reason == "content_filter":
        raise UnusableAnswer("the answer was withheld by the server's content filter")
    if not completion.raw.strip():
        if cut:
            raise UnusableAnswer(f"the answer was cut off at the token limit ({max_tokens}) before any JSON")
        raise UnusableAnswer("the answer was empty")
    try:
        found = extract_object(completion.raw, truncated=cut)
    except NoJSON as exc:
        prefix = f"the answer was cut off at the token limit ({max_tokens}) and " if cut else ""
        raise UnusableAnswer(f"{prefix}{exc}") from None
    bad = lone_surrogate(json.dumps(found.value, ensure_ascii=False))
    if bad is not None:  # `"\ud800"` in the JSON: no character, and no file or page could hold the answer
        raise UnusableAnswer(
            f"the JSON escapes {bad}, half of a surrogate pair, which is no character: write the text itself"
        )
    try:
        read = to_decision_stable if stable else to_decision
        decision = read(request, found.value, partial=found.how == "closed")
    except ShapeError as exc:
        prefix = f"the answer was cut off at the token limit ({max_tokens}); " if cut else ""
        raise UnusableAnswer(f"{prefix}the JSON does not match the schema: {exc}") from None
    note = None
    if found.how == "closed":
        note = f"cut off at the token limit ({max_tokens}); the JSON was closed and used"
    return Reading(decision, found.value, note)
