"""Reading a completion into a Decision, or saying exactly why it cannot be used.

The failures a model produces are told apart so the transcript shows which happened: a refusal, a content filter,
an empty answer, an answer cut off at the token limit, text with no JSON in it, and JSON of the wrong shape. A
cut-off answer whose JSON can be closed (typically a long speech) is used and marked as salvaged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from arena.engine import Decision, Kind, Request
from arena.engine.text import lone_surrogate
from arena.llm.extract import NoJSON, extract_object
from arena.llm.modes import MAX_ANSWER_BYTES, Completion
from arena.llm.schema import ShapeError, claim_problem, to_decision, to_decision_stable

_UNESCAPED = json.JSONEncoder(ensure_ascii=False)  # `json.dumps(v, ensure_ascii=False)`, the encoder built once

CLAIM_DROPPED = "claim dropped: "  # a call record's note when the answer's claim was dropped (the speech stands)


class UnusableAnswer(ValueError):
    """A completion that yields no decision; the message is what the model is told on the re-ask."""


@dataclass(frozen=True, slots=True)
class Reading:
    decision: Decision
    parsed: dict[str, Any]
    note: str | None = None  # set when the answer was used but needed salvaging, or its claim was dropped
    dropped_claim: str | None = None  # why the answer's claim was dropped (`claim_problem`): the seat is told


def claim_note(note: str | None) -> str | None:
    """The dropped claim's reason in a call record's note (`Reading.note`), or None."""
    for part in (note or "").split("; "):
        if part.startswith(CLAIM_DROPPED):
            return part[len(CLAIM_DROPPED) :]
    return None


def read_completion(
    completion: Completion, request: Request, max_tokens: int, *, stable: bool = False, players: int = 0
) -> Reading:
    """The decision in `completion`, or UnusableAnswer saying what went wrong. `stable`: the answer is in the
    stable schema's shape, `{reasoning, decision: {kind, ...}}`. `players`: the table's size (a claim naming a seat
    outside it is dropped)."""
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
    bad = lone_surrogate(_UNESCAPED.encode(found.value))
    if bad is not None:  # `"\ud800"` in the JSON: no character, and no file or page could hold the answer
        raise UnusableAnswer(
            f"the JSON escapes {bad}, half of a surrogate pair, which is no character: write the text itself"
        )
    try:
        read = to_decision_stable if stable else to_decision
        decision = read(request, found.value, partial=found.how == "closed", players=players)
    except ShapeError as exc:
        prefix = f"the answer was cut off at the token limit ({max_tokens}); " if cut else ""
        raise UnusableAnswer(f"{prefix}the JSON does not match the schema: {exc}") from None
    notes = []
    if found.how == "closed":
        notes.append(f"cut off at the token limit ({max_tokens}); the JSON was closed and used")
    fields = found.value.get("decision") if stable else found.value
    dropped = claim_problem(fields.get("claim"), players) if isinstance(fields, dict) else None
    if dropped is not None and request.kind is Kind.SPEECH:
        notes.append(f"{CLAIM_DROPPED}{dropped}")
    else:
        dropped = None
    return Reading(decision, found.value, "; ".join(notes) or None, dropped)
