"""A game's points per seat, by group, as a scoring system gives them: a pure function of the game's events.

`score_facts` is the arithmetic on facts alone (what mafiaratings' `add_player_score` does with a game's flags), so a
case read from the site's source can be checked without a game; `score_game` reads the facts from the events first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.engine import Event, RuleSet
from arena.scoring.facts import SeatFacts, seat_facts, winner_of
from arena.scoring.system import Matter, ScoringError, ScoringSystem


@dataclass(frozen=True)
class Hit:
    """One matter that applied to a seat, and what it gave."""

    matter: str
    group: str
    points: float


@dataclass(frozen=True)
class SeatScore:
    """One seat's points: `groups` in the system's order (every group present, zeros included), `total` their sum,
    `hits` the matters that applied."""

    seat: int
    role: str
    groups: dict[str, float]
    hits: tuple[Hit, ...]

    @property
    def total(self) -> float:
        return _round(sum(self.groups.values()))


@dataclass(frozen=True)
class Counter:
    """What the first-night compensation counts over the event (mafiaratings' `counters`): the games the player played
    and how often he was killed on the first night as a red player. One game alone: (1, 0 or 1)."""

    games: int
    red_first_night_kills: int


def _round(x: float) -> float:
    """Points kept to 1e-9, so sums like 0.3 + 0.7 print and compare as the sheet's figures do."""
    return round(x, 9) + 0.0


def php_round(x: float) -> float:
    """PHP's round(): half away from zero (Python's rounds half to even)."""
    return math.copysign(math.floor(abs(x) + 0.5), x)


def compensation(matter: Matter, counter: Counter) -> float:
    """mafiaratings' evaluator on `max(min(B*per_kill/round(G*share), cap), 0)`; x/0 is its EV_MAX_VALUE for x > 0
    (so the cap), 0 for x = 0 (include/evaluator.php)."""
    c = matter.compensation
    assert c is not None
    num = counter.red_first_night_kills * c.per_kill
    den = php_round(counter.games * c.share)
    value = num / den if den != 0 else (math.inf if num > 0 else 0.0)
    return max(min(value, c.cap), 0.0)


def applies(matter: Matter, facts: SeatFacts) -> bool:
    if matter.roles and facts.role not in matter.roles:
        return False
    return all(f in facts.flags for f in matter.when) and not any(f in facts.flags for f in matter.unless)


def score_facts(
    system: ScoringSystem, facts: SeatFacts, counter: Counter | None = None, *, weight: float = 1.0
) -> SeatScore:
    """One seat's points from its facts: every matter that applies adds its points to its group, times `weight` (a
    stage's). `counter` feeds the first-night compensation (default: this game alone)."""
    counter = counter or Counter(1, int("killed_first_night" in facts.flags and facts.team == "red"))
    groups = dict.fromkeys(system.groups, 0.0)
    hits: list[Hit] = []
    for matter in system.matters:
        if not applies(matter, facts):
            continue
        if matter.compensation is not None:
            points = compensation(matter, counter)
        elif matter.points == "bonus":
            points = facts.extra_points
        else:
            points = float(matter.points)
        if matter.times == "yellow_cards":
            points *= facts.yellow_cards
        points = _round(points * weight)
        if points == 0:
            continue
        groups[matter.group] = _round(groups[matter.group] + points)
        hits.append(Hit(matter.id, matter.group, points))
    return SeatScore(facts.seat, facts.role, groups, tuple(hits))


def score_game(
    events: Sequence[Event],
    rules: RuleSet,
    system: ScoringSystem,
    *,
    counters: Mapping[int, Counter] | None = None,
    stage: str | None = None,
) -> list[SeatScore]:
    """Every seat's points in a finished game, in seat order. Pure: the events (the god view), the rules and the
    system in, the points out. `counters` per seat replace the one-game counts of the first-night compensation
    (a tournament's); `stage` weighs the points as the system's `stages` say. A game that has not ended has no
    points: ScoringError."""
    if winner_of(events) is None:
        raise ScoringError("the game has not ended: it has no points yet")
    weight = system.weight(stage)
    counters = counters or {}
    return [score_facts(system, f, counters.get(f.seat), weight=weight) for f in seat_facts(events, rules)]
