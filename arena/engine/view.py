"""view(game, seat): the only way information leaves the engine for a seat.

Everything a seat, a renderer or a prompt may know is computed here from the events' own visibility, numbering
included. A viewer numbers the events it may see 0, 1, 2, ... in its own sequence, with no gaps: a seat's numbers
count only what it saw, so they say nothing of how many events were hidden from it (a night's gap in the global
numbering counted the living shooters and checkers). `Event.seq` is the moderator's number (the god view's and the
transcript's) and must never be shown to a seat: `Observation.numbered()` and `renumbered()` give the seat's own.
Pass `since`, a number in the viewer's own sequence, to get only the events from there on (an append-only
conversation needs just the new ones).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from arena.engine.decisions import Request
from arena.engine.events import EVERY_SEAT, Event, Phase
from arena.engine.game import Game
from arena.engine.roles import Role, Team

MODERATOR = 0  # pass as `seat` for the god view (every event, every role)
PUBLIC = -1  # pass as `seat` for a spectator's view: public events only, no role, no request


@dataclass(slots=True)
class Observation:
    """What one viewer knows now: a snapshot, to be read only. A plain slotted dataclass, because it is built at
    every decision and a frozen one costs three times as much to build.

    `events` are the viewer's events numbered `since`, `since + 1`, ... in its own sequence; `next_number` is the
    number its next event will get (how many events it may see so far)."""

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
    next_number: int
    request: Request | None
    winner: str | None

    def numbered(self) -> Iterator[tuple[int, Event]]:
        """Each event with this viewer's number for it."""
        return enumerate(self.events, self.since)

    def renumbered(self, start: int = 0) -> list[Event]:
        """The events numbered `start` and after, as copies whose `seq` is this viewer's number: for code that prints
        or keys on `seq` (a prompt template, which may be anyone's, or a page), so the moderator's number never
        reaches a seat. The moderator's events are numbered so already."""
        skip = max(start - self.since, 0)
        if self.seat == MODERATOR:
            return list(self.events[skip:])
        return [e.with_number(n) for n, e in enumerate(self.events[skip:], self.since + skip)]

    def as_seen(self) -> Observation:
        """A copy whose events are `renumbered()`: the observation to hand to code that may be anyone's (a prompt
        template reads `obs`), so not even `obs.events[0].seq` is the moderator's number."""
        return replace(self, events=tuple(self.renumbered()))


def _filtered(game: Game, seat: int, start: int) -> tuple[Event, ...]:
    """The events from `start` on that `seat` (1..N, or PUBLIC) may see. Only the events up to the last one that is
    not public are filtered; the public ones after it are copied whole."""
    events = game.events
    last = game.last_hidden
    if start > last:
        return tuple(events[start:])
    if seat == PUBLIC:
        return (*[e for e in events[start : last + 1] if e.mask == EVERY_SEAT], *events[last + 1 :])
    bit = 1 << seat
    return (*[e for e in events[start : last + 1] if e.mask & bit], *events[last + 1 :])


def seat_log(game: Game, seat: int) -> list[Event]:
    """Every event `seat` (1..N, PUBLIC, or MODERATOR) may see so far: the index is the viewer's number for it."""
    if seat == MODERATOR:
        return list(game.events)
    return list(_filtered(game, seat, 0))


def visible_events(game: Game, seat: int, since: int = 0) -> list[Event]:
    """The events `seat` may see, from its own number `since` on (for the moderator, `since` is `Event.seq`)."""
    if seat == MODERATOR:
        return game.events[since:]
    return seat_log(game, seat)[since:]


def view(game: Game, seat: int, since: int = 0) -> Observation:
    """The observation of `seat` (1..N), of the moderator (0), or of a spectator (PUBLIC), from the viewer's own
    number `since` on."""
    events = game.events
    if seat != MODERATOR:
        # The game remembers, per viewer, the end of its last view: how many events it was numbered up to
        # (`view_counts`) and how many of the game's events that covers (`view_upto`). A view that starts there
        # (the orchestrator's, at every decision) filters only the events added since; any other counts from 0.
        counts = game.view_counts
        count = counts[seat]
        start = game.view_upto[seat] if since == count else 0
        seen = _filtered(game, seat, start)
        if start:
            count += len(seen)
        else:
            count = len(seen)
            if since:
                seen = seen[since:]
        counts[seat] = count
        game.view_upto[seat] = len(events)
    else:
        seen = tuple(events[since:])
        count = len(events)
    if seat > 0:
        role: Role | None
        team: Team | None
        role, team, mates = game.seat_roles[seat]
        request = game.request_for(seat)
    else:
        role, team, mates = None, None, ()
        request = None
    return Observation(
        seat=seat,
        role=role,
        team=team,
        teammates=mates,
        players=game.n,
        alive=game.alive_seats,
        day=game.day,
        phase=game.phase,
        fouls=game.foul_counts,
        nominees=game.nominee_tuple if game.phase is Phase.DAY else (),
        events=seen,
        since=since,
        next_number=count,
        request=request,
        winner=game.winner,
    )
