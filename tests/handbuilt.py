"""A hand-built game for the research tests whose figures were worked out by hand (tests/test_metrics.py,
tests/test_speech_action.py): the seating they share and a log written event by event.

    log = HandLog()
    log.ev(E.GAME_STARTED, 0, Phase.SETUP, value="fiim", count=10)
    data = log.game()   # a GameData of the fiim table below, won by the town
"""

from __future__ import annotations

from typing import Any

from arena.engine import Event, EventType, Phase, Vis
from arena.players.base import ModelCall
from arena.research.corpus import GameData
from arena.transcript import SeatCounters

# black = 3 (don), 6, 8 (mafia); sheriff = 4; the rest civilians
ROLES = {1: "civilian", 2: "civilian", 3: "don", 4: "sheriff", 5: "civilian", 6: "mafia", 7: "civilian",
         8: "mafia", 9: "civilian", 10: "civilian"}  # fmt: skip


class HandLog:
    """The game's events, numbered as they are written."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def ev(self, t: EventType, day: int, phase: Phase = Phase.DAY, vis: Vis = Vis.PUBLIC, **kw: Any) -> None:
        self.events.append(Event(seq=len(self.events), day=day, phase=phase, type=t, vis=vis, **kw))

    def game(
        self, *, counters: dict[int, SeatCounters] | None = None, calls: list[ModelCall] | None = None
    ) -> GameData:
        return GameData(
            path="hand", game_id="hand", rules="fiim", seed=0, configs=dict.fromkeys(ROLES, "x"), roles=ROLES,
            winner="town", days=2, events=self.events, counters=counters or {}, calls=calls or [],
            transcript=None,  # type: ignore[arg-type]
        )  # fmt: skip
