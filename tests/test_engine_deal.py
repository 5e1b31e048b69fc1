"""A seeded deal is `random.Random(seed).shuffle` of the cards in the roles' declaration order: golden transcripts and
every seeded game depend on the same seed dealing the same roles, whatever the order of the rules' role table."""

from __future__ import annotations

import random

from arena.engine import PRESETS, Game, Role, load_rules


def test_a_seeded_deal_is_the_shuffled_pool() -> None:
    for preset in PRESETS:
        rules = load_rules(preset)
        order = list(Role)
        for seed in range(50):
            pool = sorted((r for r, c in rules.roles.items() for _ in range(c)), key=order.index)
            random.Random(seed).shuffle(pool)
            assert Game(rules, seed).roles[1:] == pool
