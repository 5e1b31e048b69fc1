"""Call records: every attempt of a seat's model call as a `ModelCall`, with its messages stored by reference.

A seat's conversation only grows, so each record stores just the messages that its previous record lacked, with
`prefix_ref = -1` (this seat's previous call record, counted in transcript order) and `prefix_messages` (how many of
that record's messages come first). `Expansion` resolves a record's full message list on demand, walking its chain
of references; a fresh player (e.g. after a resume) starts with a full record.

Expansion is bounded: a record may only extend messages its base really holds (`prefix_messages` past the base's
length is tampering: the writer never writes it), so a full list is never longer than the messages the file holds,
and nothing builds every record's full list at once (200,000 failed calls that each extend the previous one by a
message would make that quadratic: gigabytes from a 12 MB file).
"""

from __future__ import annotations

from collections.abc import Sequence
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


class Expansion:
    """The full message lists of a transcript's call records, resolved one at a time. Building it checks every
    reference (ValueError naming the record): a base that is not an earlier record of the same seat, or a
    `prefix_messages` longer than the base's full list."""

    def __init__(self, calls: Sequence[ModelCall]) -> None:
        self.calls = calls
        self.bases: list[int | None] = []
        self.lengths: list[int] = []  # each record's full length, so `prefix_messages` is checked in one pass
        by_seat: dict[int, list[int]] = {}
        for index, call in enumerate(calls):
            history = by_seat.setdefault(call.seat, [])
            base: int | None = None
            length = len(call.messages)
            if call.prefix_ref is not None:
                ref = call.prefix_ref if call.prefix_ref >= 0 else len(history) + call.prefix_ref
                if not 0 <= ref < len(history):
                    raise ValueError(
                        f"call record {index} (seat {call.seat}) refers to the seat's call {ref}, which is not recorded"
                    )
                base = history[ref]
                if not 0 <= call.prefix_messages <= self.lengths[base]:
                    raise ValueError(
                        f"call record {index} (seat {call.seat}): prefix_messages {call.prefix_messages:,} is more "
                        f"than the {self.lengths[base]:,} messages of call record {base}, which it extends"
                    )
                length += call.prefix_messages
            history.append(index)
            self.bases.append(base)
            self.lengths.append(length)

    def messages(self, index: int) -> list[Message]:
        """Record `index`'s full message list: the part each record of its chain adds, oldest first."""
        call = self.calls[index]
        parts = [list(call.messages)]
        need = call.prefix_messages if self.bases[index] is not None else 0
        base = self.bases[index]
        while need > 0 and base is not None:
            earlier = self.calls[base]
            kept = earlier.prefix_messages if self.bases[base] is not None else 0
            parts.append(list(earlier.messages[: max(0, need - kept)]))  # its messages at positions kept..need
            need = min(need, kept)
            base = self.bases[base]
        return [message for part in reversed(parts) for message in part]


def expand(calls: Sequence[ModelCall]) -> list[list[Message]]:
    """Every record's full message list, in order (tests read a whole game's prompts; commands use `Expansion`)."""
    expansion = Expansion(calls)
    return [expansion.messages(index) for index in range(len(calls))]
