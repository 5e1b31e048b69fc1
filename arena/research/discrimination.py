"""Does a report metric tell apart agents that truly differ? Measured on planted seats (`planted.py`).

For a family of planted seats at strengths L0 < L1 < ... (each a configuration in the same games), and one report
metric the family should move:

- **effect**: the metric at the strongest plant minus at the weakest, over the bench's games, with its interval
  clustered by game (a share: Newcombe's hybrid score on each side's effective n, `intervals.proportion_difference`;
  a mean score: the difference of two ratios, `intervals.mean_difference`);
- **right order**: whether the metric's values over the levels move in the planted direction at every step (ties
  allowed only at the metric's bound, e.g. an AUC of 1);
- **games needed**: the fewest games at which the report's own 95 % intervals of the two extreme configurations do
  not overlap in at least 80 % of folders of that many games, drawn with replacement from the bench's games (so
  "detected" means what a reader of the report sees: two intervals apart);
- **coverage**: the share of such drawn folders in which the report's interval of a configuration's value holds the
  value over all the bench's games, and likewise the effect's interval: the intervals checked under the games' own
  process, not a model of it.

A metric **discriminates** when it orders the plants right and separates the extremes within `MAX_GAMES` games.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena.research.corpus import GameData
from arena.research.intervals import Array, Interval, mean_difference, proportion_difference
from arena.research.metrics import RATES, Counts, Rate, measure
from arena.research.planted import FAMILIES, Family, config_name
from arena.research.summary import rate_interval_of

POWER = 0.8
MAX_GAMES = 400  # a metric that needs more games than this to separate the strongest plant from none is not kept
DRAWS = 200  # folders drawn per size in the power search
COVERAGE_GAMES = (40, 100)  # folder sizes of the coverage check (few games: where intervals are most at risk)
COVERAGE_DRAWS = 400


@dataclass
class Pool:
    """A family's games as arrays: per configuration (level) and metric, each game's numerator and denominator."""

    family: Family
    games: int
    num: dict[tuple[float, str], Array]
    den: dict[tuple[float, str], Array]


def pool(family: Family, games: Sequence[GameData]) -> Pool:
    per: dict[float, list[Counts]] = {level: [Counts() for _ in games] for level in family.levels}
    names = {config_name(family.name, level): level for level in family.levels}
    for g, game in enumerate(games):
        m = measure(game)
        for seat, seat_counts in m.seats.items():
            level = names.get(game.configs.get(seat, ""))
            if level is not None:
                per[level][g].add(seat_counts)
    num: dict[tuple[float, str], Array] = {}
    den: dict[tuple[float, str], Array] = {}
    for rate in RATES:
        for level, counts in per.items():
            num[(level, rate.name)] = np.asarray([rate.num(c) for c in counts], dtype=np.float64)
            den[(level, rate.name)] = np.asarray([rate.den(c) for c in counts], dtype=np.float64)
    return Pool(family, len(games), num, den)


@dataclass
class Result:
    metric: str
    family: str
    direction: int  # +1 the metric rises with the plant, -1 it falls, 0 no plant moves it by construction
    values: dict[float, Interval]  # per level, the report's interval over every game of the bench
    effect: Interval  # strongest minus weakest level
    right_order: bool
    games_needed: int | None  # None: more than the search went (`searched`)
    searched: int
    coverage: dict[int, float]  # folder size -> the report's per-configuration intervals' coverage, worst level
    effect_coverage: dict[int, float]  # folder size -> the effect interval's coverage

    @property
    def discriminating(self) -> bool:
        return (self.direction != 0 and self.right_order and self.games_needed is not None
                and self.games_needed <= MAX_GAMES)  # fmt: skip


def _rate(name: str) -> Rate:
    return next(r for r in RATES if r.name == name)


def _interval(p: Pool, level: float, metric: str, idx: np.ndarray | None = None) -> Interval:
    num, den = p.num[(level, metric)], p.den[(level, metric)]
    if idx is not None:
        num, den = num[idx], den[idx]
    return rate_interval_of(_rate(metric), num, den, np.arange(len(num)))


def ordered(values: Sequence[float], direction: int, bounds: tuple[float, float]) -> bool:
    """Whether `values` (by rising level) move in `direction` at every step; a tie only at a bound of the metric."""
    if direction == 0 or any(math.isnan(v) for v in values):
        return False
    for a, b in itertools.pairwise(values):
        step = (b - a) * direction
        if step < 0 or (step == 0 and a not in bounds):
            return False
    return values[-1] != values[0]


def separated(p: Pool, metric: str, n: int, rng: np.random.Generator, draws: int = DRAWS) -> float:
    """The share of folders of `n` games (drawn with replacement) whose report intervals of the weakest and the
    strongest plant do not overlap."""
    low, high = p.family.levels[0], p.family.levels[-1]
    hits = 0
    for _ in range(draws):
        idx = rng.integers(0, p.games, n)
        a, b = _interval(p, low, metric, idx), _interval(p, high, metric, idx)
        if a.n > 0 and b.n > 0 and not a.overlaps(b) and not math.isnan(a.low + b.low):
            hits += 1
    return hits / draws


def games_needed(p: Pool, metric: str, seed: int = 0, limit: int | None = None) -> tuple[int | None, int]:
    """(the fewest games with POWER separation, or None; the largest size tried): doubling from 10, then
    bisection; sizes up to 8 × the bench's games (`limit`)."""
    rng = np.random.default_rng(seed)
    limit = limit or 8 * p.games
    n, last_fail = 10, 0
    while separated(p, metric, n, rng) < POWER:
        last_fail = n
        if n >= limit:
            return None, limit
        n = min(2 * n, limit)
    lo, hi = last_fail, n
    while hi - lo > max(2, hi // 20):
        mid = (lo + hi) // 2
        if separated(p, metric, mid, rng) >= POWER:
            hi = mid
        else:
            lo = mid
    return hi, limit


def coverage(p: Pool, metric: str, games: int, seed: int = 0) -> tuple[float, float]:
    """(the worst level's coverage of the report's interval, the effect interval's coverage) on folders of `games`
    games drawn from the bench's games, the truth being the value over all of them."""
    rng = np.random.default_rng(seed + 1)
    levels = p.family.levels
    truth = {level: _ratio(p, level, metric) for level in levels}
    effect_truth = truth[levels[-1]] - truth[levels[0]]
    held = dict.fromkeys(levels, 0)
    tried = dict.fromkeys(levels, 0)
    effect_held = effect_tried = 0
    for _ in range(COVERAGE_DRAWS):
        idx = rng.integers(0, p.games, games)
        for level in levels:
            iv = _interval(p, level, metric, idx)
            if iv.n > 0 and not math.isnan(iv.low):
                tried[level] += 1
                held[level] += _holds(iv, truth[level])
        d = _difference(p, metric, idx)
        if not math.isnan(d.low):
            effect_tried += 1
            effect_held += _holds(d, effect_truth)
    shares = [held[x] / tried[x] for x in levels if tried[x] >= COVERAGE_DRAWS // 2]
    return (min(shares) if shares else math.nan), (effect_held / effect_tried if effect_tried else math.nan)


def _holds(iv: Interval, truth: float) -> bool:
    """Whether `iv` holds `truth`, up to float rounding (a constant cost per decision summed in another order)."""
    eps = 1e-9 * max(1.0, abs(truth))
    return iv.low - eps <= truth <= iv.high + eps


def _ratio(p: Pool, level: float, metric: str) -> float:
    den = float(p.den[(level, metric)].sum())
    return float(p.num[(level, metric)].sum()) / den if den else math.nan


def _difference(p: Pool, metric: str, idx: np.ndarray | None = None) -> Interval:
    low, high = p.family.levels[0], p.family.levels[-1]
    arrays = [p.num[(high, metric)], p.den[(high, metric)], p.num[(low, metric)], p.den[(low, metric)]]
    if idx is not None:
        arrays = [a[idx] for a in arrays]
    clusters = np.arange(len(arrays[0]))
    if _rate(metric).proportion:  # Newcombe's hybrid score on each side's effective n: sound with few trials
        return proportion_difference(arrays[0], arrays[1], arrays[2], arrays[3], clusters)[0]
    return mean_difference(arrays[0], arrays[1], arrays[2], arrays[3], clusters)[0]


def assess(p: Pool, metric: str, seed: int = 0) -> Result:
    direction = p.family.metrics[metric]
    values = {level: _interval(p, level, metric) for level in p.family.levels}
    order = ordered([values[x].value for x in p.family.levels], direction, _rate(metric).bounds)
    needed, searched = games_needed(p, metric, seed) if direction else (None, 0)
    checked = {n: coverage(p, metric, n, seed) for n in COVERAGE_GAMES}
    return Result(metric, p.family.name, direction, values, _difference(p, metric), order, needed, searched,
                  {n: c[0] for n, c in checked.items()}, {n: c[1] for n, c in checked.items()})  # fmt: skip


def families_for_metrics() -> dict[str, str]:
    """Every report metric and the family that plants a difference in it."""
    out: dict[str, str] = {}
    for family in FAMILIES.values():
        for metric in family.metrics:
            out.setdefault(metric, family.name)
    return out
