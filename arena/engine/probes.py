"""Daily belief probes (`rules.probes.daily`): a research instrument, not a club rule.

At the end of every day each living seat privately rates every other living seat: its probability of being black.
The answers are private events (`probe`, visible only to the prober) and never act: nothing in the game reads them.
A public `probes_taken` event counts them, so a bot that keys its random draws on the event count can discount the
probes and play exactly as it would with the probes off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.engine.decisions import Kind, Request
from arena.engine.events import EventType, Vis

if TYPE_CHECKING:
    from arena.engine.state import Flow, GameState

SCALE = 1000  # probabilities are recorded as integer thousandths (events carry integers only)


def probe_request(g: GameState, seat: int) -> Request:
    return Request(seat=seat, kind=Kind.PROBE, options=tuple(s for s in g.alive_seats if s != seat))


def daily_probes(g: GameState) -> Flow:
    """One probe batch at the end of the day, if the rules ask for it and the game is still on."""
    if not g.rules.probes.daily or g.over or len(g.alive_seats) < 2:
        return
    batch = {seat: probe_request(g, seat) for seat in g.alive_seats}
    answers = yield batch
    emitted = 0
    for seat in sorted(answers):
        beliefs = answers[seat].beliefs
        request = batch[seat]
        if len(beliefs) != len(request.options):  # a default: the seat gave no usable answer
            continue
        counts = tuple(round(p * SCALE) for p in beliefs)
        g.emit(EventType.PROBE, Vis.SEATS, (seat,), seat=seat, seats=request.options, counts=counts)
        emitted += 1
    g.emit(EventType.PROBES_TAKEN, count=emitted)
