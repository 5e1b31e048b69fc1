"""Sports scoring and the judge's score sheet: points per seat as clubs count them, and the protocol of a game.

A scoring system is a validated data file (`systems/fiim.toml`, `systems/mwc.toml`, or a user's TOML): its groups,
its matters and how a table is ranked (`system.py`). What each seat did is read from a finished game's events as
the facts mafiaratings scores (`facts.py`); `points.py` turns facts into points by group; `sheet.py` builds the
whole protocol (seats, fouls, votes, nights, result, points) as data. Everything here is pure: events and rules in,
data out; words and pages are the renderers' (`arena/render/protocol.py`). docs/scoring.md documents it.

It may import only the engine and `arena.safe_read` (a user's scoring file is read as hostile data)."""

from arena.scoring.facts import FLAGS, Departure, SeatFacts, seat_facts
from arena.scoring.points import Counter, Hit, SeatScore, score_facts, score_game
from arena.scoring.sheet import Sheet, build_sheet
from arena.scoring.system import SYSTEMS, Matter, ScoringError, ScoringSystem, load_system

__all__ = [
    "FLAGS",
    "SYSTEMS",
    "Counter",
    "Departure",
    "Hit",
    "Matter",
    "ScoringError",
    "ScoringSystem",
    "SeatFacts",
    "SeatScore",
    "Sheet",
    "build_sheet",
    "load_system",
    "score_facts",
    "score_game",
    "seat_facts",
]
