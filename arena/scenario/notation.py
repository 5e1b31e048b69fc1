"""The scenario files' notation for when things happen and who sits where: phases (`day 2`, `night 1`), moments of a
phase (`speech 3`, `revote 1 on 5`, `last word 7`) and seatings (`F10`, `C Sh M Don ...`), each parsed with a message
that says what to write instead. The models of `format.py` validate their fields with these; `driver` and `check`
use `PhaseRef` and `Moment` to find their place in a game.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.engine import Phase, Role

# ----- phases ------------------------------------------------------------------------------------------------------

_PHASE_RE = re.compile(r"^\s*(day|night)\s*#?\s*(\d+)\s*$", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class PhaseRef:
    """Night k or Day k, ordered as played: night 0 < day 1 < night 1 < day 2 …"""

    ordinal: int

    @staticmethod
    def day(k: int) -> PhaseRef:
        return PhaseRef(2 * k - 1)

    @staticmethod
    def night(k: int) -> PhaseRef:
        return PhaseRef(2 * k)

    @staticmethod
    def of(day: int, phase: Phase) -> PhaseRef:
        """The phase an engine state (or event) belongs to; SETUP counts as night 0."""
        if phase is Phase.DAY:
            return PhaseRef.day(day)
        if phase is Phase.NIGHT:
            return PhaseRef.night(day)
        return PhaseRef(0)

    @property
    def is_night(self) -> bool:
        return self.ordinal % 2 == 0

    @property
    def number(self) -> int:
        return (self.ordinal + 1) // 2

    def __str__(self) -> str:
        return f"{'night' if self.is_night else 'day'} {self.number}"


def parse_phase(text: object) -> PhaseRef:
    m = _PHASE_RE.match(str(text))
    if m is None:
        raise ValueError(f"{text!r} is not a phase; write e.g. 'day 2' or 'night 1'")
    k = int(m.group(2))
    if m.group(1).lower() == "day":
        if k < 1:
            raise ValueError("days are numbered from 1")
        return PhaseRef.day(k)
    return PhaseRef.night(k)


def is_phase_key(key: object) -> bool:
    return isinstance(key, str) and _PHASE_RE.match(key) is not None


# ----- moments: when the judge acts, and which speech a text belongs to -------------------------------------------

SEAT_MOMENTS = ("speech", "intro", "extra", "tie speech", "last word")
NIGHT_MOMENTS = ("side", "meeting", "visit", "shot", "checks", "don check", "sheriff check")
PLAIN_MOMENTS = ("start", "vote", "lift", "acquittal", "threshold", *NIGHT_MOMENTS)
_ALIASES = {"popil": "tie speech", "justification": "tie speech", "defence": "tie speech", "actions": "checks"}
_SEAT_RE = re.compile(
    r"^(speech|intro|extra|tie speech|popil|justification|defence|last word)\s+(?:of\s+)?(?:seat\s+)?#?(\d+)$"
)
_SEAT_FIRST_RE = re.compile(
    r"^(?:seat\s+)?#?(\d+)\s+(speech|intro|extra|tie speech|popil|justification|defence|last word)$"
)
_VOTE_RE = re.compile(r"^(vote|revote)(?:\s+(\d+))?(?:\s+on\s+#?(\d+))?$")


@dataclass(frozen=True)
class Moment:
    """A point of a phase at which the engine waits for someone: the judge acts there, before anyone answers.

    `kind` is one of SEAT_MOMENTS (with `seat`), `vote`/`revote` (with `round`, 0 for the main vote, and optionally
    `on`, the nominee being called), one of PLAIN_MOMENTS, `doctor` or `best move`.
    """

    kind: str
    seat: int | None = None
    round: int = 0
    on: int | None = None

    def __str__(self) -> str:
        if self.kind in SEAT_MOMENTS:
            return f"{self.kind} {self.seat}"
        if self.kind == "vote":
            base = "vote" if self.round == 0 else f"revote {self.round}"
            return base if self.on is None else f"{base} on {self.on}"
        return self.kind


def parse_moment(text: object) -> Moment:
    raw = " ".join(str(text).strip().lower().replace("'s", "").split()).removeprefix("during ")
    if raw.isdigit():
        return Moment("speech", int(raw))
    m = _SEAT_RE.match(raw)
    if m:
        return Moment(_ALIASES.get(m.group(1), m.group(1)), int(m.group(2)))
    m = _SEAT_FIRST_RE.match(raw)  # "seat 7's speech", "#10's last word"
    if m:
        return Moment(_ALIASES.get(m.group(2), m.group(2)), int(m.group(1)))
    m = _VOTE_RE.match(raw)
    if m:
        rnd = 0 if m.group(1) == "vote" else int(m.group(2) or 1)
        if m.group(1) == "vote" and m.group(2):
            raise ValueError(f"{text!r}: the main vote has no number; write 'revote {m.group(2)}' for a re-vote")
        return Moment("vote", round=rnd, on=int(m.group(3)) if m.group(3) else None)
    raw = _ALIASES.get(raw, raw)
    if raw in PLAIN_MOMENTS or raw in ("doctor", "best move"):
        return Moment(raw)
    raise ValueError(
        f"{text!r} is not a moment; use start, speech N, intro N, extra N, tie speech N, last word N, vote, "
        "vote on N, revote [K] [on N], lift, acquittal, threshold, side, meeting, visit, shot, checks, don check, "
        "sheriff check, doctor or best move"
    )


# ----- seating -----------------------------------------------------------------------------------------------------

ROLE_TOKENS: dict[str, Role] = {
    "c": Role.CIVILIAN, "civ": Role.CIVILIAN, "civilian": Role.CIVILIAN,
    "sh": Role.SHERIFF, "sheriff": Role.SHERIFF, "com": Role.SHERIFF, "commissar": Role.SHERIFF,
    "m": Role.MAFIA, "mafia": Role.MAFIA, "mafioso": Role.MAFIA,
    "don": Role.DON,
    "doc": Role.DOCTOR, "doctor": Role.DOCTOR,
    "man": Role.MANIAC, "maniac": Role.MANIAC,
    "l": Role.LOVER, "lover": Role.LOVER,
}  # fmt: skip

STANDARD_SEATINGS: dict[str, str] = {  # docs/rules.md §4
    "F10": "C C M Sh C Don C M C C",
    "C10": "C Doc M C Sh Don Man C M C",
    "E12": "C L M Com C Don Man C Doc C M C",
}
PRESET_SEATING = {"fiim": "F10", "classic": "F10", "aurora": "F10", "club": "C10", "edge": "E12"}


def parse_seating(spec: str | list[str]) -> list[Role]:
    """A named seating (F10, C10, E12), a list of roles, or the same as one string; seat 1 first."""
    if isinstance(spec, str):
        spec = STANDARD_SEATINGS.get(spec.strip().upper(), spec)
        tokens = spec.replace(",", " ").split()
    else:
        tokens = [str(t) for t in spec]
    roles = []
    for i, token in enumerate(tokens, start=1):
        role = ROLE_TOKENS.get(token.strip().lower())
        if role is None:
            raise ValueError(
                f"seat {i}: unknown role {token!r}; use C, Sh/Com, M, Don, Doc, Man, L (or the full names), "
                f"or a named seating: {', '.join(STANDARD_SEATINGS)}"
            )
        roles.append(role)
    return roles
