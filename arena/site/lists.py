"""The games behind a number: every figure on the site links to a page listing the games it was computed from, and
each of those links to the game's replay. Lists are named by what they hold, so two figures over the same games
(a rating and its n) share one page."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from arena.site.inputs import GameFile, slug


@dataclass
class GameList:
    key: str
    title: str
    games: list[GameFile]

    @property
    def href(self) -> str:
        return f"lists/{slug(self.key)}.html"


@dataclass
class Lists:
    """Every list the pages link to, made on first use."""

    by_key: dict[str, GameList] = field(default_factory=dict)

    def add(self, key: str, title: str, games: Iterable[GameFile]) -> str:
        """The list's page (relative to the site's root), made if new."""
        found = self.by_key.get(key)
        if found is None:
            ordered = sorted({g.path: g for g in games}.values(), key=lambda g: g.path)
            found = self.by_key[key] = GameList(key, title, ordered)
        return found.href

    def all(self) -> list[GameList]:
        return sorted(self.by_key.values(), key=lambda x: x.key)
