"""What the phase machine needs of a game: a Protocol of the state and the shared actions, and the flow's types.

`flow.py`, `night.py`, `voting.py`, `speech.py`, `probes.py`, `text.py` and `validate.py` are written against
`GameState`, not against `game.py`, so the engine's imports run one way: `game` → `flow` → `night`, `voting` →
`speech` → `state`. `Game` satisfies the Protocol (mypy
checks it where `game.py` starts the flow). A new piece of state the flow reads goes here as well as on `Game`.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Protocol

from arena.engine.decisions import Decision, Request
from arena.engine.events import Event, EventType, Phase, Vis
from arena.engine.outcome import Outcome, Winner
from arena.engine.roles import Role
from arena.engine.ruleset import RuleSet

Batch = dict[int, Request]
Answers = dict[int, Decision]
Flow = Generator[Batch, Answers, None]


class GameState(Protocol):
    """The game as the phase machine sees it: the table, the day's and the night's state, and the shared actions."""

    # the table
    rules: RuleSet
    n: int
    day: int
    phase: Phase
    roles: list[Role]
    alive: list[bool]
    alive_seats: tuple[int, ...]
    forbidden_phrases: tuple[str, ...]
    ascii_phrases: tuple[str, ...]  # those of forbidden_phrases that are all ASCII
    black: tuple[int, ...]
    maniac_ally: bool
    deal_source: str  # "seed" or "fixed" (scenarios): recorded with the deal
    # day state
    opener: int
    nominees: list[int]
    nominee_tuple: tuple[int, ...]  # `nominees` as a tuple, for the views
    nominators: set[int]
    vote_settled: bool  # today's vote is over (someone left, or nobody will)
    vote_decided: int  # R9.5: the nominee the hands already cast send out (0: none yet)
    leaving_today: set[int]
    cancelled_days: set[int]
    speaking_night_last_word: int
    # long-lived state
    forfeit_pending: set[int]
    lost_vote: set[int]
    justified: set[int]
    idle_nights: int
    day1_vote_left: int
    morning_deaths: list[int]
    morning_lover_miss: bool
    night_last_words: list[int]
    pending_winner: Winner | None
    doctor_saved: set[int]
    doctor_self_heals: int
    doctor_last_heal: int
    sheriff_shots: int
    kill_order: tuple[int, ...]
    lover_last_visit: int
    # this night's intents
    night_mafia_target: int | None
    night_maniac_target: int | None
    night_sheriff_target: int | None
    night_heal: int | None

    @property
    def over(self) -> bool: ...  # the game is decided

    # queries
    def seats(self) -> range: ...
    def living(self) -> list[int]: ...
    def clockwise_from(self, start: int) -> list[int]: ...
    def seat_of(self, role: Role) -> int: ...
    def is_black(self, seat: int) -> bool: ...
    def budget(self, seconds: int) -> tuple[int, int]: ...

    # shared actions
    def emit(
        self,
        type_: EventType,
        vis: Vis = ...,
        to: tuple[int, ...] = ...,
        *,
        seat: int | None = ...,
        target: int | None = ...,
        seats: tuple[int, ...] = ...,
        counts: tuple[int, ...] = ...,
        roles: tuple[str, ...] = ...,
        count: int | None = ...,
        value: str | None = ...,
        text: str | None = ...,
        code: str | None = ...,
    ) -> Event: ...
    def set_dead(self, seat: int) -> None: ...
    def reset_night(self) -> None: ...
    def eliminate(self, seat: int, how: str) -> None: ...
    def announce_departure(self, seat: int, how: str) -> None: ...
    def check_win(self, gone: int = 0) -> Winner | None: ...
    def finish(self, outcome: Outcome) -> None: ...
    def give_foul(self, seat: int, reason: str) -> None: ...
    def remove_seat(self, seat: int, reason: str) -> None: ...
    def at_once(self, seat: int, take: Callable[[Decision], None]) -> None:
        """Have the pending batch's answer of `seat` taken the moment it is given (R8.1: the don's check)."""
        ...
