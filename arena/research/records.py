"""One finished game as the statistics see it: who held each seat, the roles dealt, the winner and the deal.

Real games (a transcript folder) and simulated ones (`arena/research/simulate.py`) become the same records, so every
estimate, interval and test in the report is the code the simulations validate. The deal (rules, seed and cards)
is the cluster of the intervals: games replayed on the same deal are not independent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.engine import Role
from arena.research.corpus import MAFIA, TOWN, GameData, side_of

_SIDE = {role.value: side_of(role.value) for role in Role}  # read on every seat of every game: a dict, not an enum


@dataclass(frozen=True)
class Record:
    rules: str
    deal: str  # games with the same deal (the same cards and seed) share it
    configs: tuple[str, ...]  # per seat, seat 1 first
    roles: tuple[str, ...]  # per seat
    winner: str  # town | mafia | maniac | draw

    def side(self, seat: int) -> str | None:
        """town, mafia or None (the maniac) for seat index `seat` (0-based)."""
        role = self.roles[seat]
        return _SIDE[role] if role in _SIDE else side_of(role)

    def won(self, side: str) -> bool:
        return self.winner == side

    @property
    def two_sided(self) -> bool:
        return self.winner in (TOWN, MAFIA)


def from_game(g: GameData) -> Record:
    seats = sorted(g.roles)
    roles = tuple(g.roles[s] for s in seats)
    return Record(
        rules=g.rules,
        deal=f"{g.rules}|{g.seed}|{','.join(roles)}",
        configs=tuple(g.configs.get(s, "?") for s in seats),
        roles=roles,
        winner=g.winner or "draw",
    )


def from_games(games: Iterable[GameData]) -> list[Record]:
    return [from_game(g) for g in games]


@dataclass(frozen=True)
class Match:
    """One two-sided game as the ratings model sees it: the configuration of each town and each black seat."""

    rules: str
    town: tuple[str, ...]
    mafia: tuple[str, ...]
    town_won: bool
    deal: str = ""  # the bootstrap's cluster ("" : the game is its own)


def match(r: Record) -> Match:
    town = tuple(c for i, c in enumerate(r.configs) if r.side(i) == TOWN)
    mafia = tuple(c for i, c in enumerate(r.configs) if r.side(i) == MAFIA)
    return Match(r.rules, town, mafia, r.winner == TOWN, r.deal)


def matches(records: Sequence[Record]) -> list[Match]:
    """The games with a town or mafia winner (maniac wins and draws carry no two-sided result)."""
    return [match(r) for r in records if r.two_sided]


def deal_keys(items: Sequence[Match | Record]) -> list[str]:
    """The cluster of each game: its deal, or the game itself when no deal is recorded."""
    return [item.deal or f"#{i}" for i, item in enumerate(items)]
