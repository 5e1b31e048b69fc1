"""The deal's shuffle draws exactly what `random.Random(seed).shuffle` draws: golden transcripts and every seeded game
depend on the same seed dealing the same roles."""

from __future__ import annotations

import random

from arena.engine import PRESETS, Game, Role, load_rules
from arena.engine.game import shuffle


def test_shuffle_is_randoms_shuffle() -> None:
    for size in (1, 2, 3, 7, 10, 12, 16, 20):
        pool = [Role.CIVILIAN] * (size - size // 2) + [Role.MAFIA] * (size // 2)
        items = list(range(size))
        for seed in range(400):
            ours, theirs = list(items), list(items)
            shuffle(ours, seed)  # type: ignore[arg-type]  # any list: the draws do not look at the items
            random.Random(seed).shuffle(theirs)
            assert ours == theirs
        ours_roles, theirs_roles = list(pool), list(pool)
        shuffle(ours_roles, size)
        random.Random(size).shuffle(theirs_roles)
        assert ours_roles == theirs_roles


def test_a_seeded_deal_is_the_shuffled_pool() -> None:
    for preset in PRESETS:
        rules = load_rules(preset)
        order = list(Role)
        for seed in range(50):
            pool = sorted((r for r, c in rules.roles.items() for _ in range(c)), key=order.index)
            random.Random(seed).shuffle(pool)
            assert Game(rules, seed).roles[1:] == pool
