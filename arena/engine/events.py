"""Events: every state change the engine makes, each tagged at the source with who may see it.

One wide, frozen event type keeps filtering, rendering and serialising uniform; `docs/transcripts.md` lists the
fields each `type` uses. `visible_to` is the single visibility predicate; `view.py` is its only caller inside the
engine, and every renderer and prompt goes through `view`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar

from arena.engine.record import PlainRecord

_new = object.__new__


class Vis(StrEnum):
    PUBLIC = "public"  # every seat
    BLACK = "black"  # the black team (seats listed in `to`, fixed at the deal)
    SEATS = "seats"  # the seats listed in `to`
    MODERATOR = "moderator"  # no seat; the judge and the god view only


class Phase(StrEnum):
    SETUP = "setup"
    NIGHT = "night"
    DAY = "day"
    END = "end"


class EventType(StrEnum):
    GAME_STARTED = "game_started"  # public: value=rules name, count=players
    ROLES_DEALT = "roles_dealt"  # moderator: roles=all roles by seat, value="seed" or "fixed" (the chance event)
    ROLE_ASSIGNED = "role_assigned"  # seats{seat}: seat, value=role
    BLACK_TEAM = "black_team"  # black: seats=black seats, target=don
    WOKE_TO_BE_SEEN = "woke_to_be_seen"  # moderator: seat, value=role (R2.3 no-op)
    SIDE_CHOSEN = "side_chosen"  # seats{maniac}: seat, value=independent|mafia_ally
    BLACK_MESSAGE = "black_message"  # black: seat, text
    KILL_ORDER = "kill_order"  # black: seat=don, seats=order
    PHASE_STARTED = "phase_started"  # public: phase, day
    SPEECH = "speech"  # public: seat, text, value=speech kind; claim: roles=(role,), seats=checks, counts=1 black/0 red
    SPEECH_TRUNCATED = "speech_truncated"  # public (black: a black message): seat, count=words, value=word limit,
    # counts=(characters given, character limit)
    NOMINATED = "nominated"  # public: seat=by, target
    NOMINATION_REJECTED = "nomination_rejected"  # public: seat, target, value=reason
    NOMINATION_IGNORED = "nomination_ignored"  # public: seat, target, value=reason
    EXTRA_REQUESTED = "extra_requested"  # public: seat raised a hand for the extra word
    VOTING_STARTED = "voting_started"  # public: seats=candidates, value=round kind
    VOTE_CAST = "vote_cast"  # public: seat, target (None=abstain / lift no), value=yes|no|default|abstain
    VOTES_COUNTED = "votes_counted"  # public: seats=candidates, counts
    NO_VOTE = "no_vote"  # public: value=reason
    TIE = "tie"  # public: seats=tied
    LIFT_RESULT = "lift_result"  # public: seats=tied, count=yes votes, value=passed|failed|not_held_*
    ACQUITTED = "acquitted"  # public: seat
    ELIMINATED = "eliminated"  # public: seat, value=voted|lifted|single_nominee|justification|killed|removed
    CARD_REVEALED = "card_revealed"  # public: seat, value=role
    SHOT = "shot"  # seats{shooter} (blind) or black (eyes open): seat, target (None: no shot)
    MAFIA_RESULT = "mafia_result"  # moderator: target (None: miss), value=reason
    MAFIA_MISS_ANNOUNCED = "mafia_miss_announced"  # public (club, at once)
    DON_CHECK = "don_check"  # seats{don}: seat, target, value=sheriff|not_sheriff
    SHERIFF_CHECK = "sheriff_check"  # seats{sheriff}: seat, target, value=black|red|yes|no
    SHERIFF_SHOT = "sheriff_shot"  # seats{sheriff}: seat, target
    MANIAC_KILL = "maniac_kill"  # seats{maniac}: seat, target (None: nobody)
    STRETCHERS = "stretchers"  # seats{doctor}: seats=victims shown to the doctor
    HEAL = "heal"  # seats{doctor}: seat, target (the pick); value=saved|arms_crossed|none
    SAVE_RESULT = "save_result"  # moderator: target=actually saved
    VISIT = "visit"  # seats{lover}: seat, target
    BLOCKED = "blocked"  # seats{blocked seat}: crossed arms
    MORNING = "morning"  # public: seats=deaths, value=announcement
    BEST_MOVE = "best_move"  # public: seat, seats
    FOUL = "foul"  # public: seat, count=fouls now, value=reason
    VOTE_LOST = "vote_lost"  # public: seat lost the right to vote (aurora warnings)
    SPEECH_FORFEITED = "speech_forfeited"  # public: seat
    REMOVED = "removed"  # public: seat, value=reason
    VOTE_CANCELLED = "vote_cancelled"  # public: day (the day whose vote is not held)
    ACTION_REJECTED = "action_rejected"  # seats{seat}: value=reason (a re-ask)
    DEFAULT_APPLIED = "default_applied"  # seats{seat}: value=reason
    PROBE = "probe"  # seats{seat}: seat, seats=the others, counts=P(black) in thousandths (belief probe)
    PROBES_TAKEN = "probes_taken"  # public: count=probe events just emitted (so bots can key on the rest of the stream)
    GAME_ENDED = "game_ended"  # public: value=winner (town|mafia|maniac|draw), code=termination (outcome.py),
    # target=the removed seat (removal), count=the idle nights (idle_rounds)
    JUDGE = "judge"  # public: value=pause|resume|extra_time, seat and count=seconds (extra time), text=reason
    AWARD = "award"  # moderator while the game runs, public after it: seat, value=kind, count=points in hundredths,
    # text=the judge's reason (Game.award; scoring only)


EVERY_SEAT = -1  # the audience mask of a public event: every bit set


_FIXED_MASKS = {Vis.PUBLIC: EVERY_SEAT, Vis.MODERATOR: 0}  # the audiences that do not depend on the seats listed


def audience_mask(vis: Vis, to: tuple[int, ...]) -> int:
    """The audience bitmask of an event (bit s: seat s sees it) from its visibility and its listed seats."""
    mask = _FIXED_MASKS.get(vis)
    if mask is None:
        mask = 0
        for seat in to:
            mask |= 1 << seat
    return mask


class _Audience(PlainRecord):
    """Holds an event's audience bitmask in a slot of its own, so it is no field: never dumped, compared or
    validated."""

    __slots__ = ("mask",)
    mask: int


@dataclass(slots=True, kw_only=True)
class Event(_Audience):
    """One thing that happened. `seq` is its index in the game's event list.

    A slotted dataclass (not a pydantic model): the engine builds one per state change, and validation belongs at
    the edges (`Event.model_validate` for a transcript's line). Read-only by convention: nothing changes an event
    after it is emitted. `mask` is the audience as a bitmask (bit s: seat s sees it), computed from `vis` and `to`;
    it is not a field of the record and is never written.
    """

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    seq: int
    day: int
    phase: Phase
    type: EventType
    vis: Vis
    to: tuple[int, ...] = ()
    seat: int | None = None
    target: int | None = None
    seats: tuple[int, ...] = ()
    counts: tuple[int, ...] = ()
    roles: tuple[str, ...] = ()
    count: int | None = None
    value: str | None = None
    text: str | None = None
    code: str | None = None  # a stable code that renderers word (game_ended: its `Termination`), never a sentence

    def __post_init__(self) -> None:
        self.mask = audience_mask(self.vis, self.to)  # type: ignore[misc]  # the slot is _Audience's

    def __hash__(self) -> int:
        return hash((self.seq, self.type, self.vis, self.to, self.seat, self.target, self.value, self.text, self.code))

    def with_number(self, seq: int) -> Event:
        """A copy whose `seq` is `seq` (a viewer's own number for it, `view.Observation.renumbered`): every field and
        the audience as `dataclasses.replace(self, seq=seq)` gives them, set one by one instead of through
        `replace`'s walk over the fields and `__init__` (a view copies every event it shows: about nine copies per
        model call). A field added to Event is added here too (an equivalence test compares the two)."""
        if type(self) is not Event:  # a subclass: its own fields too
            return replace(self, seq=seq)
        copy = _new(Event)
        copy.seq = seq
        copy.day, copy.phase, copy.type, copy.vis, copy.to = self.day, self.phase, self.type, self.vis, self.to
        copy.seat, copy.target, copy.seats, copy.counts = self.seat, self.target, self.seats, self.counts
        copy.roles, copy.count, copy.value, copy.text = self.roles, self.count, self.value, self.text
        copy.code = self.code
        copy.mask = self.mask  # type: ignore[misc]  # the slot is _Audience's
        return copy

    def visible_to(self, seat: int) -> bool:
        """The one visibility rule: public to all, moderator to none, otherwise the listed seats."""
        if seat < 0:
            return self.vis is Vis.PUBLIC
        return bool(self.mask >> seat & 1)

    def audience(self, players: int) -> tuple[int, ...] | range:
        """Every seat for which `visible_to` holds: the same rule, enumerated."""
        if self.vis is Vis.PUBLIC:
            return range(1, players + 1)
        if self.vis is Vis.MODERATOR:
            return ()
        return self.to
