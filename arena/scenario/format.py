"""The scenario file format (docs/scenarios.md): the pydantic models of a file, its scripts and its expectations.

A scenario is a YAML file that fixes the rules, the seating and the decisions that matter, and states what the rules
say must happen. This module only parses and validates, so that a malformed file fails before any game is played,
with a message that names the file and the field. The notation of phases, moments and seatings is `notation.py`;
`driver` plays a scenario; `check` compares.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from arena.engine import EventType
from arena.scenario.notation import (
    SEAT_MOMENTS,
    Moment,
    PhaseRef,
    is_phase_key,
    parse_moment,
    parse_phase,
    parse_seating,
)

Seat = Annotated[int, Field(ge=1, le=20)]
How = Literal["voted", "lifted", "single_nominee", "killed", "removed"]
Winner = Literal["town", "mafia", "maniac", "draw", "continues"]

# ----- small shared models -----------------------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_DEPARTURE_RE = re.compile(
    r"^#?(\d+)\s+(voted|lifted|single_nominee|killed|removed)(?:\s+(?:on\s+|in\s+)?((?:day|night)\s*\d+))?$"
)


class Departure(_Model):
    """Who leaves, how and (in the top-level `expect`) when. Written `"3 voted day 1"` or as a mapping."""

    seat: Seat
    how: How
    when: str | None = None  # "day 1" / "night 2"; a kill belongs to the night it happened in

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any) -> Any:
        if isinstance(data, str):
            m = _DEPARTURE_RE.match(" ".join(data.strip().lower().split()))
            if m is None:
                raise ValueError(
                    f"{data!r} is not a departure; write e.g. '3 voted', '10 killed night 1', '5 removed day 2' "
                    "(how: voted, lifted, single_nominee, killed, removed)"
                )
            return {"seat": int(m.group(1)), "how": m.group(2), "when": m.group(3)}
        return data

    @field_validator("when")
    @classmethod
    def _phase(cls, v: str | None) -> str | None:
        return None if v is None else str(parse_phase(v))

    def __str__(self) -> str:
        return f"{self.seat} {self.how}" + (f" {self.when}" if self.when else "")


class Refusal(_Model):
    """A scripted decision the engine refused (IllegalDecision): the runner records it and applies the default."""

    seat: Seat
    code: str | None = None


class EventMatch(_Model):
    """Matches engine events on the fields given (docs/transcripts.md lists the fields each type uses)."""

    type: EventType
    seat: int | None = None
    target: int | None = None
    seats: list[int] | None = None
    counts: list[int] | None = None
    roles: list[str] | None = None
    count: int | None = None
    value: str | None = None
    text: str | None = None  # a substring of the event's text
    code: str | None = None  # game_ended: the termination (day_vote, night_kill, removal, idle_rounds)
    vis: Literal["public", "black", "seats", "moderator"] | None = None
    to: list[int] | None = None

    def matches(self, event: Any) -> bool:
        for name in self.model_fields_set - {"type"}:
            want = getattr(self, name)
            got = getattr(event, name)
            if name == "text":
                if want is not None and (got is None or want.lower() not in got.lower()):
                    return False
            elif name in ("seats", "counts", "roles", "to"):
                if want is None or list(got) != want:
                    return False
            elif name == "vis":
                if str(got) != want:
                    return False
            elif got != want:
                return False
        return bool(event.type == self.type)

    def __str__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in sorted(self.model_fields_set - {"type"}))
        return f"{self.type.value}({fields})"


class JudgeAction(_Model):
    """The judge gives a foul (or warning) or removes a seat at a moment of the phase (default: its start)."""

    foul: Seat | None = None
    remove: Seat | None = None
    at: str = "start"
    times: int = Field(1, ge=1, le=6)  # several fouls at once
    reason: str = ""

    @field_validator("at", mode="before")
    @classmethod
    def _moment(cls, v: Any) -> str:
        return str(parse_moment(v))

    @model_validator(mode="after")
    def _one(self) -> JudgeAction:
        if (self.foul is None) == (self.remove is None):
            raise ValueError("give exactly one of foul: SEAT or remove: SEAT")
        if self.remove is not None and self.times != 1:
            raise ValueError("times: only for fouls")
        return self

    @property
    def moment(self) -> Moment:
        return parse_moment(self.at)

    @property
    def seat(self) -> int:
        return self.foul if self.foul is not None else self.remove or 0

    def __str__(self) -> str:
        what = (
            f"foul {self.foul}" + (f" x{self.times}" if self.times > 1 else "")
            if self.foul
            else f"remove {self.remove}"
        )
        return f"{what} at {self.at}"


# ----- expectations ------------------------------------------------------------------------------------------------

TallyRound = dict[Seat, int | list[Seat]]  # nominee → number of votes, or the exact voters
VoteRound = dict[Seat, list[Seat] | Annotated[int, Field(ge=0, le=20)]]  # the voters, or how many (seat order)


class PhaseExpect(_Model):
    leaves: list[Departure] | None = None  # exactly these leave in this phase, in this order
    alive: list[Seat] | None = None  # living seats at the end of the phase (night kills included)
    fouls: dict[Seat, int] | None = None  # foul counts of these seats at the end of the phase
    refused: list[Refusal] | None = None  # scripted decisions the engine refuses (any other refusal fails)
    events: list[EventMatch] = []  # must occur in this phase, in this order
    no_events: list[EventMatch] = []  # must not occur in this phase


class Morning(_Model):
    deaths: list[Seat] | None = None
    announce: Literal["killed", "missed", "everyone_woke", "nobody_killed"] | None = None
    mafia_missed: bool | None = None  # the morning's "the mafia missed" (edge lover)
    cards: dict[Seat, str] | None = None  # open cards shown in the morning


class DayExpect(PhaseExpect):
    opener: Seat | None = None
    speakers: list[Seat] | None = None  # regular-round turns in order (forfeited turns included)
    speech_kinds: dict[Seat, Literal["regular", "short", "nominate_only", "intro"]] | None = None
    forfeited: list[Seat] | None = None
    extras: list[Seat] | None = None  # club's extra word, in order
    morning: Morning | None = None
    last_words: list[Seat] | None = None  # every last word of the day in order (morning and vote)
    nominees: list[Seat] | None = None  # accepted, in order
    not_accepted: list[dict[str, Any]] | None = None  # {seat, target, reason?} in order
    candidates: list[Seat] | None = None  # the main vote's list
    voters: list[Seat] | None = None  # seats that cast a vote (or abstained) in the main vote
    tally: list[TallyRound] | None = None  # main vote, then re-votes
    ties: list[list[Seat]] | None = None
    tie_speeches: list[Seat] | None = None
    no_vote: str | Literal[False] | None = None  # the NO_VOTE reason, or false for none
    vote_cancelled: bool | None = None
    lift: str | None = None  # passed | failed | not_held | not_held:REASON | none
    lift_yes: int | None = None
    acquitted: list[Seat] | None = None
    vote_lost: list[Seat] | None = None


Answer = str | bool  # check answers: sheriff / not_sheriff / black / red / yes / no


class NightExpect(PhaseExpect):
    side: Literal["independent", "mafia_ally"] | None = None
    kill_order: list[Seat] | None = None
    visit: Seat | Literal["none"] | None = None
    blocked: list[Seat] | None = None
    mafia: Seat | Literal["miss"] | None = None  # the mafia's resolved target
    mafia_result: Literal["agreed", "disagreed", "lover"] | None = None
    miss_announced: bool | None = None  # club: «мафия не договорилась» at once
    don_check: dict[Seat, Answer] | Literal["none"] | None = None
    sheriff_check: dict[Seat, Answer] | Literal["none"] | None = None
    sheriff_shot: Seat | Literal["none"] | None = None
    maniac_kill: Seat | Literal["none"] | None = None
    stretchers: list[Seat] | None = None
    heal: Seat | Literal["none"] | None = None  # the doctor's pick
    saved: Seat | Literal["none"] | None = None  # the seat the doctor actually saved from an attack
    best_move: list[Seat] | Literal["none", False] | None = None  # "none": not offered
    deaths: list[Seat] | None = None  # killed this night (announced next morning)


class Expect(_Model):
    """Whole-run expectations, over the tested part (after any `start` prelude)."""

    winner: Winner | None = None
    ends: str | None = None  # the phase in which the game ends
    leaves: list[Departure] | None = None  # every departure, in order, each with `when`
    alive: list[Seat] | None = None  # at the stop
    fouls: dict[Seat, int] | None = None  # at the stop
    events: list[EventMatch] = []
    no_events: list[EventMatch] = []

    @field_validator("ends")
    @classmethod
    def _phase(cls, v: str | None) -> str | None:
        return None if v is None else str(parse_phase(v))

    @field_validator("leaves")
    @classmethod
    def _when(cls, v: list[Departure] | None) -> list[Departure] | None:
        for d in v or []:
            if d.when is None:
                raise ValueError(f"'{d}': say when, e.g. '{d} day 1'")
        return v


# ----- scripts -----------------------------------------------------------------------------------------------------


class DayScript(_Model):
    """One day's decisions. Anything unlisted takes the documented default."""

    nominate: dict[Seat, Seat | list[Seat]] = {}  # nominator → target (or attempts in the order spoken)
    say: dict[str, str] = {}  # moment (or a bare seat: his regular speech) → text
    extra: list[Seat] = []  # raise a hand for the extra word (club)
    votes: list[VoteRound] = []  # main vote, then re-votes: nominee → seats voting for him (or how many)
    lift: list[Seat] = []  # yes in the lift vote
    acquittal: list[Seat] = []  # yes (he leaves) in the club re-vote on a sole leader
    threshold: list[Seat] = []  # yes in a lone nominee's threshold vote (aurora)
    judge: list[JudgeAction] = []
    expect: DayExpect = DayExpect()

    @field_validator("say", mode="before")
    @classmethod
    def _say_keys(cls, v: Any) -> Any:
        if not isinstance(v, dict):
            return v
        out = {}
        for key, text in v.items():
            moment = parse_moment(key)
            if moment.kind not in SEAT_MOMENTS:
                raise ValueError(f"{key!r}: say takes a speech moment (N, last word N, tie speech N, …)")
            out[str(moment)] = text
        return out

    @field_validator("votes", mode="before")
    @classmethod
    def _rounds(cls, v: Any) -> Any:
        return [v] if isinstance(v, dict) else v

    @field_validator("votes")
    @classmethod
    def _once_per_round(cls, v: list[VoteRound]) -> list[VoteRound]:
        for i, rnd in enumerate(v):
            seen: dict[int, int] = {}
            for nominee, voters in rnd.items():
                for s in voters if isinstance(voters, list) else []:
                    if s in seen:
                        raise ValueError(f"round {i + 1}: seat {s} votes for both #{seen[s]} and #{nominee}")
                    seen[s] = nominee
        return v


class NightScript(_Model):
    """One night's decisions. Unlisted: no shot, no check, no kill, no heal, no visit, an empty best move."""

    maniac_side: Literal["independent", "mafia_ally"] | None = None  # Night 0, club
    meeting: dict[Seat, str] = {}  # black messages (Night 0, or every night when the preset has the channel)
    kill_order: list[Seat] = []  # the don's договорка on Night 0
    visit: Seat | None = None  # lover
    shoot: Seat | dict[Seat, Seat | None] | None = None  # every shooter at one seat, or shooter → target
    don_check: Seat | None = None
    sheriff_check: Seat | None = None
    sheriff_shoot: Seat | None = None
    maniac_kill: Seat | None = None
    heal: Seat | None = None  # blind heal, or the pick from the stretchers
    best_move: list[Seat] | None = None
    judge: list[JudgeAction] = []
    expect: NightExpect = NightExpect()

    @model_validator(mode="after")
    def _one_sheriff_action(self) -> NightScript:
        if self.sheriff_check is not None and self.sheriff_shoot is not None:
            raise ValueError("the sheriff either checks or shoots: give one of sheriff_check, sheriff_shoot")
        return self


class RulesSpec(_Model):
    preset: str = "fiim"
    overrides: dict[str, Any] = {}  # dotted keys ("ties.repeat") or nested mappings, merged over the preset

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        return {"preset": data} if isinstance(data, str) else data


class Start(_Model):
    """A mid-game start: the judge removes seats (blacks first) at the first moment of the day before the tested
    phase, so the removals cancel only that day's vote (R9.5); fouls are given at the start of the game."""

    day: int | None = Field(None, ge=1)
    night: int | None = Field(None, ge=1)
    alive: list[Seat] | None = None
    removed: list[Seat] | None = None
    fouls: dict[Seat, int] = {}

    @model_validator(mode="after")
    def _consistent(self) -> Start:
        if self.day is not None and self.night is not None:
            raise ValueError("give day or night, not both")
        if (self.alive is not None or self.removed is not None) and not (self.night or (self.day or 0) >= 2):
            raise ValueError("seats can only be out from Night 1 or Day 2 on: set night: N (N ≥ 1) or day: N (N ≥ 2)")
        return self

    @property
    def phase(self) -> PhaseRef:
        if self.day is not None:
            return PhaseRef.day(self.day)
        if self.night is not None:
            return PhaseRef.night(self.night)
        return PhaseRef(0)

    @property
    def removal_phase(self) -> PhaseRef:
        """The day whose first moment carries the removals: Day N-1 before Day N, Day N before Night N."""
        return PhaseRef.day(self.day - 1) if self.day is not None else PhaseRef.day(self.night or 1)


class Scenario(_Model):
    """One scenario (one case of a file), fully validated."""

    name: str = ""
    description: str = ""
    source: str = ""
    rules: RulesSpec = RulesSpec()
    seating: str | list[str] | None = None
    seed: int = 0
    start: Start = Start()
    until: str | None = None  # "day 3", "night 2" or "end"
    expect: Expect = Expect()
    days: dict[int, DayScript] = {}
    nights: dict[int, NightScript] = {}

    @model_validator(mode="before")
    @classmethod
    def _phase_keys(cls, data: Any) -> Any:
        """Top-level `day N` / `night N` keys become the `days` / `nights` scripts."""
        if not isinstance(data, dict):
            return data
        out: dict[str, Any] = {"days": {}, "nights": {}}
        for key, value in data.items():
            if is_phase_key(key):
                ref = parse_phase(key)
                out["nights" if ref.is_night else "days"][ref.number] = value if value is not None else {}
            elif key in ("days", "nights"):
                raise ValueError(f"{key}: write each phase as its own top-level key, e.g. 'day 1:' or 'night 0:'")
            else:
                out[key] = value
        return out

    @field_validator("until")
    @classmethod
    def _until(cls, v: str | None) -> str | None:
        return v if v is None or v.strip().lower() == "end" else str(parse_phase(v))

    @field_validator("seating")
    @classmethod
    def _seating(cls, v: str | list[str] | None) -> str | list[str] | None:
        if v is not None:
            parse_seating(v)
        return v

    def phases(self) -> list[PhaseRef]:
        refs = [PhaseRef.day(k) for k in self.days] + [PhaseRef.night(k) for k in self.nights]
        return sorted(refs)
