"""The kinds of statement the reader finds, and `Statement`, one thing a speech says."""

from __future__ import annotations

from dataclasses import dataclass

ROLE, CHECK, VOTE, DEAD, ALIVE, ACCUSE, TEAMMATE, TARGET = (
    "role", "check", "vote", "dead", "alive", "accuse", "teammate", "target",
)  # fmt: skip
KINDS = (ROLE, CHECK, VOTE, DEAD, ALIVE, ACCUSE, TEAMMATE, TARGET)
MAX_SEAT = 12


@dataclass(frozen=True, slots=True, order=True)
class Statement:
    """One thing a speech says: `kind`, the seat it is about (0 for a role claim, which is about the speaker) and a
    value (the role claimed; `black` or `red` for a check)."""

    kind: str
    seat: int = 0
    value: str = ""

    def __str__(self) -> str:
        return " ".join(str(p) for p in (self.kind, self.seat or "", self.value) if p != "")
