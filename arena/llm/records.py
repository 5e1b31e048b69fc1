"""Call records: every attempt of a seat's model call as a `ModelCall`, with its messages stored by reference.

A seat's conversation only grows, so each record stores just the messages that its previous record lacked, with
`prefix_ref = -1` (this seat's previous call record, counted in transcript order) and `prefix_messages` (how many of
that record's messages come first). `expand` rebuilds every record's full message list from a transcript. A fresh
player (e.g. after a resume) starts with a full record.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arena.players.base import ModelCall

Message = dict[str, Any]


def shared_prefix(a: list[Message], b: list[Message]) -> int:
    """How many leading messages `a` and `b` have in common."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x is not y and x != y:
            break
        n += 1
    return n


class CallLog:
    """Builds the records of one seat, remembering the previous record's messages for the references."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._previous: list[Message] | None = None

    def record(self, messages: list[Message], **fields: Any) -> ModelCall:
        if self._previous is None:
            call = ModelCall(seat=self.seat, messages=list(messages), **fields)
        else:
            shared = shared_prefix(self._previous, messages)
            call = ModelCall(
                seat=self.seat, messages=list(messages[shared:]), prefix_ref=-1, prefix_messages=shared, **fields
            )
        self._previous = list(messages)
        return call


def expand(calls: Iterable[ModelCall]) -> list[list[Message]]:
    """The full message list of every call, in order (references resolved per seat)."""
    out: list[list[Message]] = []
    by_seat: dict[int, list[int]] = {}
    for call in calls:
        history = by_seat.setdefault(call.seat, [])
        if call.prefix_ref is None:
            full = list(call.messages)
        else:
            ref = call.prefix_ref if call.prefix_ref >= 0 else len(history) + call.prefix_ref
            if not 0 <= ref < len(history):
                raise ValueError(f"seat {call.seat}: call {len(history)} refers to call {ref}, which is not recorded")
            base = out[history[ref]]
            full = base[: call.prefix_messages] + list(call.messages)
        history.append(len(out))
        out.append(full)
    return out
