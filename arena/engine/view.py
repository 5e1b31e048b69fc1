"""view(game, seat): the only way information leaves the engine for a seat.

Everything a seat, a renderer or a prompt may know is computed here from the events' own visibility. Pass
`since` to get only the events after a point (an append-only conversation needs just the new ones).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.engine.decisions import Request
from arena.engine.events import Event, Phase
from arena.engine.game import Game
from arena.engine.roles import Role, Team

MODERATOR = 0  # pass as `seat` for the god view (every event, every role)
PUBLIC = -1  # pass as `seat` for a spectator's view: public events only, no role, no request
_DAY = Phase.DAY  # bound once: `Phase.DAY` goes through EnumType.__getattr__ on Python 3.11 (see game.py)


@dataclass(slots=True)
class Observation:
    """What one seat knows now: a snapshot, to be read only. A plain slotted dataclass, because it is built at every
    decision and a frozen one costs three times as much to build."""

    seat: int
    role: Role | None
    team: Team | None
    teammates: tuple[int, ...]
    players: int
    alive: tuple[int, ...]
    day: int
    phase: Phase
    fouls: tuple[int, ...]
    nominees: tuple[int, ...]
    events: tuple[Event, ...]
    since: int
    next_seq: int
    request: Request | None
    winner: str | None


_new_observation = object.__new__


def visible_events(game: Game, seat: int, since: int = 0) -> list[Event]:
    """The events `seat` may see with seq >= since: `Event.visible_to`, read from each event's audience bitmask."""
    events = game.events
    if seat == MODERATOR:
        return events[since:]
    if seat == PUBLIC:
        return [e for e in events[since:] if e.visible_to(PUBLIC)]
    bit = 1 << seat
    return [e for e in (events[since:] if since else events) if e.mask & bit]


def view(game: Game, seat: int, since: int = 0) -> Observation:
    """The observation of `seat` (1..N), of the moderator (0), or of a spectator (PUBLIC)."""
    events = game.events
    if seat > 0:
        role: Role | None
        team: Team | None
        role, team, mates = game.seat_roles[seat]
        last = game.last_hidden
        if since > last:  # every event since is public: nothing to filter
            seen = tuple(events[since:])
        else:  # filter up to the last hidden event; the public ones after it are copied whole
            bit = 1 << seat
            seen = (*[e for e in events[since : last + 1] if e.mask & bit], *events[last + 1 :])
        request = None if seat in game._answers else game._batch.get(seat)  # `game.request_for(seat)`, inline
    else:
        role, team, mates = None, None, ()
        seen = tuple(visible_events(game, seat, since))
        request = None
    phase = game.phase
    # the constructor's work, written out: this runs at every decision, and a class call costs half as much again
    obs: Observation = _new_observation(Observation)
    obs.seat = seat
    obs.role = role
    obs.team = team
    obs.teammates = mates
    obs.players = game.n
    obs.alive = game.alive_seats
    obs.day = game.day
    obs.phase = phase
    obs.fouls = game.foul_counts
    obs.nominees = game.nominee_tuple if phase is _DAY else ()
    obs.events = seen
    obs.since = since
    obs.next_seq = len(events)
    obs.request = request
    obs.winner = game.winner
    return obs
