"""Side-aware ratings (issue 9): validated in simulation, and on real 7-against-3 bot games."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from arena.research.corpus import Corpus, load_folder
from arena.research.ratings import (
    Match,
    Truth,
    coverage,
    discipline,
    fit,
    fit_sum,
    held_out,
    matches,
    sum_design,
    wilson,
)
from arena.research.selfplay import play_balanced
from arena.transcript import SeatCounters

HEURISTIC, RANDOM = "bot:heuristic", "bot:random"


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """A 200-game tournament of heuristic against random bots, in balanced fixed seatings."""
    folder = tmp_path_factory.mktemp("tournament")
    play_balanced(folder, 200)
    corpus = load_folder(folder)
    assert len(corpus.games) == 200 and not corpus.skipped
    return corpus


def test_intervals_cover_the_true_skills_in_simulation() -> None:
    town = {"a": 1.2, "b": 0.4, "c": -0.4, "d": -1.2}
    truth = Truth(h=-0.4, town=town, mafia={"a": 1.0, "b": 0.4, "c": -0.3, "d": -1.1})
    result = coverage(truth, simulations=30, games=1000, boot=100, seed=3)
    assert result.total == 30 * 9
    assert 0.90 <= result.rate <= 0.98, f"95 % intervals covered the truth {result.rate:.1%} of the time"
    assert result.order_recovered == 30, f"clear gaps, yet the true ranking came out {result.order_recovered} / 30"


def test_a_one_sided_record_stays_finite() -> None:
    games = [Match("r", ("a",) * 7, ("b",) * 3, True)] * 20
    f = fit(games, boot=20)
    for r in f.ratings:
        assert all(math.isfinite(v) for v in (r.town.value, r.mafia.value, r.town.low, r.town.high))


def test_the_sum_of_ratings_model_predicts_a_sure_town_win_for_equal_players() -> None:
    """Seven against three of equal rating r: the sum model says σ(4r), far from any real base rate for r ≠ 0,
    and its one rating cannot hold both a town and a mafia skill."""
    games = [Match("r", ("a",) * 7, ("a",) * 3, i % 3 != 0) for i in range(30)]
    x, _ = sum_design(games, ["a"])
    assert x[0, 0] == 4.0  # seven ratings minus three
    r = fit_sum(games, ["a"])
    assert 1 / (1 + math.exp(-4 * r[0])) == pytest.approx(2 / 3, abs=0.05)


def test_heuristic_rates_above_random_on_both_sides(tournament: Corpus) -> None:
    f = fit(matches(tournament), boot=200, seed=1)
    h, r = f.rating(HEURISTIC), f.rating(RANDOM)
    assert h.town.value > r.town.value and h.mafia.value > r.mafia.value
    assert not h.town.overlaps(r.town), (h.town, r.town)
    assert not h.mafia.overlaps(r.mafia), (h.mafia, r.mafia)


def test_sum_of_ratings_is_worse_calibrated_on_held_out_games(tournament: Corpus) -> None:
    result = held_out(matches(tournament), folds=5)
    assert result.side_aware < result.sum_of_ratings, result
    assert result.side_aware < result.base_rate


def test_wilson_interval_by_hand() -> None:
    half = wilson(5, 10)
    assert (half.value, round(half.low, 4), round(half.high, 4)) == (0.5, 0.2366, 0.7634)
    none = wilson(0, 10)
    assert none.low == 0.0 and round(none.high, 4) == 0.2775
    assert math.isnan(wilson(0, 0).value)


def test_discipline_is_read_from_the_end_counters(tmp_path: Path) -> None:
    from arena.research.corpus import GameData

    game = GameData(
        path="", game_id="g", rules="fiim", seed=0, configs={1: "x", 2: "x", 3: "y"},
        roles={1: "civilian", 2: "mafia", 3: "sheriff"}, winner="town", days=1, events=[],
        counters={1: SeatCounters(decisions=10, invalid=2, defaults=1), 2: SeatCounters(decisions=5, timeouts=1),
                  3: SeatCounters(decisions=4)},
        calls=[], transcript=None,  # type: ignore[arg-type]
    )  # fmt: skip
    d = {x.config: x for x in discipline([game])}
    assert (d["x"].decisions, d["x"].reasks, d["x"].defaults, d["x"].timeouts) == (15, 2, 1, 1)
    assert d["x"].invalid_rate == pytest.approx(3 / 15)
    assert d["y"].invalid_rate == 0.0


def test_bootstrap_is_reproducible() -> None:
    rng = np.random.default_rng(0)
    games = [Match("r", ("a",) * 7, ("b",) * 3, bool(rng.random() < 0.6)) for _ in range(50)]
    one, two = fit(games, boot=30, seed=4), fit(games, boot=30, seed=4)
    assert one.rating("a").town == two.rating("a").town
