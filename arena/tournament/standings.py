"""Standings: each configuration's win rate overall and per side, with 95 % Wilson score intervals.

A configuration wins a game when the winning team (town: red, mafia: black, maniac) is the side of the role it played
(`base_team`; a maniac allied with the mafia counts on its own side); a draw is a game played and not won. The filler
is not ranked.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from arena.tournament.schedule import GamePlan, side_of

Z95 = 1.959963984540054
WINNING_SIDE = {"town": "red", "mafia": "black", "maniac": "maniac"}  # the engine's winner -> the side that won


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (0, 1 for no games)."""
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Record:
    games: int = 0
    wins: int = 0

    def row(self) -> dict[str, float | int]:
        low, high = wilson(self.wins, self.games)
        rate = self.wins / self.games if self.games else 0.0
        return {"games": self.games, "wins": self.wins, "rate": round(rate, 4), "low": round(low, 4),
                "high": round(high, 4)}  # fmt: skip


@dataclass
class Standing:
    label: str
    overall: Record = field(default_factory=Record)
    sides: dict[str, Record] = field(default_factory=dict)


def standings(
    plans: Sequence[GamePlan], winners: Mapping[int, str | None], labels: Iterable[str]
) -> list[Standing]:
    """Standings over the games that finished (`winners`: game index -> winning team, or None for no result)."""
    table = {label: Standing(label) for label in labels}
    for plan in plans:
        if plan.index not in winners:
            continue
        winner = winners[plan.index]
        # one trial per configuration and side per game: seven red seats of one game are one town game, not seven
        held = {(label, side_of(role)) for label, role in zip(plan.labels, plan.roles, strict=True)}
        for label, side in sorted(held):
            standing = table.get(label)
            if standing is None:
                continue
            won = int(WINNING_SIDE.get(winner or "") == side)
            for record in (standing.overall, standing.sides.setdefault(side, Record())):
                record.games += 1
                record.wins += won
    return sorted(table.values(), key=lambda s: (-(s.overall.wins / max(s.overall.games, 1)), s.label))


def as_json(rows: Sequence[Standing]) -> list[dict[str, object]]:
    return [
        {"label": s.label, **s.overall.row(), "sides": {side: r.row() for side, r in sorted(s.sides.items())}}
        for s in rows
    ]
