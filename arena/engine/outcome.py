"""How a game ended, as data (python-chess's `Outcome(termination, winner)`): who won, by which rule, and the one
number the rule's wording needs. The engine records it in `game_ended` (`code`, `target`, `count`); every renderer
words it from the code, in its own language, and nothing reads a sentence back."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

Winner = Literal["town", "mafia", "maniac", "draw"]  # "draw": R10.4's idle rounds, or everyone gone at once (P37)


class Termination(StrEnum):
    """The rule that ended the game: where its last win check ran (R10.3), or the draw rule."""

    DAY_VOTE = "day_vote"  # R10.3: the check after the day's elimination (R10.1, R10.2), after the last word (R7.4)
    NIGHT_KILL = "night_kill"  # R8.9, R10.3: the check at the end of the night, after the morning's last words
    REMOVAL = "removal"  # R9.6: the check a removal triggers at once (the judge's, or the fourth foul, R9.3)
    IDLE_ROUNDS = "idle_rounds"  # R10.4: a draw after so many nights, and the days between, with nobody leaving


@dataclass(frozen=True, slots=True)
class Outcome:
    """Who won and why. `seat`: the removed seat (REMOVAL); `nights`: the idle nights counted (IDLE_ROUNDS)."""

    winner: Winner
    termination: Termination
    seat: int | None = None
    nights: int | None = None
