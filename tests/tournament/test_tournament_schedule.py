"""The schedule is balanced: every configuration plays each side, each role and each seat as often as every other
(within one where the games do not divide), at every prefix of the tournament, for pools of 2, 3, 5 and 10
configurations at 10 (fiim) and 12 (edge) seats; and it is a pure function of its inputs."""

from __future__ import annotations

import pytest

from arena.engine import Role, load_rules
from arena.tournament.schedule import assign, balance, make_schedule, spread


@pytest.mark.parametrize("preset", ["fiim", "edge"])
@pytest.mark.parametrize("pool", [2, 3, 5, 10])
def test_every_prefix_is_balanced(preset: str, pool: int) -> None:
    rules = load_rules(preset)
    labels = [f"c{i}" for i in range(pool)]
    games = 5 * rules.players + 7  # five whole blocks and a part of one
    plans = make_schedule(labels, "filler", rules, games, 1, kind="seats")
    assert len(plans) == games
    for prefix in range(1, games + 1):
        worst = spread(balance(plans[:prefix], labels))
        bad = {key: gap for key, gap in worst.items() if gap > 1}
        assert not bad, f"after {prefix} games: {bad}"
    whole = balance(plans[: 5 * rules.players], labels)
    for label in labels:  # whole blocks: each plays each role in proportion to the rules, each seat equally often
        counts = whole[label]
        assert counts["games"] == 5 * rules.players
        for role, count in rules.roles.items():
            assert abs(counts[f"role:{role.value}"] - 5 * count) <= 1
        for seat in range(1, rules.players + 1):
            assert counts[f"seat:{seat}"] == 5


@pytest.mark.parametrize("pool", [2, 10])
def test_every_game_is_a_legal_seating(pool: int) -> None:
    rules = load_rules("edge")
    labels = [f"c{i}" for i in range(pool)]
    for plan in make_schedule(labels, "filler", rules, 30, 5, kind="seats"):
        assert sorted(plan.roles) == sorted(r for r, n in rules.roles.items() for _ in range(n))
        for label in labels:
            assert len(plan.seats_of(label)) == 1  # one seat per configuration per game
        assert plan.labels.count("filler") == rules.players - pool
        assert plan.seed == 5 + plan.index


def test_the_schedule_is_reproducible_and_depends_on_its_inputs() -> None:
    rules = load_rules("fiim")
    one = make_schedule(["a", "b", "c"], "filler", rules, 40, 3, kind="seats")
    assert one == make_schedule(["a", "b", "c"], "filler", rules, 40, 3, kind="seats")
    other = make_schedule(["a", "b", "c", "d"], "filler", rules, 40, 3, kind="seats")
    assert [p.labels for p in one] != [p.labels for p in other]


def test_more_configurations_than_seats_share_the_games() -> None:
    rules = load_rules("fiim")
    labels = [f"c{i}" for i in range(13)]
    plans = make_schedule(labels, "filler", rules, 26, 1, kind="seats")
    table = balance(plans, labels)
    games = [table[label]["games"] for label in labels]
    assert max(games) - min(games) <= 1 and sum(games) == 26 * 10
    assert all(Role.CIVILIAN in p.roles for p in plans)


def test_assignment_finds_the_cheapest_permutation() -> None:
    cost = [[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]]
    picked = assign(cost)
    assert sorted(picked) == [0, 1, 2]
    assert sum(cost[r][c] for r, c in enumerate(picked)) == 5.0  # 1 + 2 + 2


@pytest.mark.parametrize("preset", ["fiim", "edge"])
@pytest.mark.parametrize("pool", [2, 5, 10])
def test_a_short_tournament_already_mixes_the_sides(preset: str, pool: int) -> None:
    rules = load_rules(preset)
    share: dict[str, float] = {}
    for role, count in rules.roles.items():
        side = "black" if role in (Role.MAFIA, Role.DON) else ("maniac" if role is Role.MANIAC else "red")
        share[side] = share.get(side, 0.0) + count / rules.players
    labels = [f"c{i}" for i in range(pool)]
    plans = make_schedule(labels, "filler", rules, 2 * rules.players, 1, kind="seats")
    for prefix in range(1, len(plans) + 1):  # no run of red games first and black games last
        counts = balance(plans[:prefix], labels)
        for label in labels:
            for side, fair in share.items():
                assert abs(counts[label][f"side:{side}"] - prefix * fair) <= 1.5, (prefix, label, side)
