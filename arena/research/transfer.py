"""Does a skill transfer? The same configurations rated under two rule sets (or in two languages).

When a folder holds the same configurations on paired deals (the same seed and cards) under two presets, for
example `fiim` and `club`, or in two languages, each half is rated on its own (the side-aware model of
`ratings.py`, on what each half identifies), and the report states:

- **rank concordance**: Kendall's τ between the two halves' skills of the configurations rated in both (the
  combined skill, or the combination the design identifies), with a 95 % interval;
- **side-term shift**: the side term (the town's logit among average configurations) of the first half minus that
  of the second, with its 95 % interval.

Both rest on one block bootstrap that resamples whole paired deals, so a deal and its twin under the other preset
move together. τ is a function of the signs of the pairwise skill differences alone, and a percentile interval of a
bootstrapped τ does not hold (the sign of a close pair flips in the resamples: 65 % coverage for one swapped pair in
simulation). So its interval is built from the signs: every pairwise difference of both halves gets a simultaneous
95 % interval (the bootstrap's max-|t| over all of them, stretched for few clusters as the ratings' are); a pair
whose interval excludes 0 has its sign, any other may have either (or none), and τ's interval is the least and the
most τ those signs allow. When every interval holds, and that is 95 % of the time or more, so does τ's. The shift's
interval is the bootstrap percentile interval, stretched the same way. `bench/transfer.py` measures both in
simulation (docs/metrics.md, "Does a skill transfer?").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from arena.research.identify import Quantity, design, identify
from arena.research.intervals import Array, Interval, cluster_ids, cluster_weights
from arena.research.ratings import _priors, fit_theta, penalised_fit, stretch
from arena.research.records import Record, match

LEVEL = 0.95
MIN_CONFIGS = 3  # τ over fewer than three configurations says next to nothing: not reported


@dataclass
class Half:
    name: str
    games: int
    skills: dict[str, float]  # config -> the identified combined skill
    side: float


@dataclass
class Transfer:
    by: str  # "rules" or "language"
    halves: tuple[Half, Half]
    configs: list[str]  # rated in both halves
    tau: Interval
    shift: Interval  # the first half's side term minus the second's
    paired: int  # deals played under both


def pair_key(r: Record) -> str:
    """What paired deals share: the seed (under two presets the cards may differ: `club` deals a doctor and a
    maniac where `fiim` deals two more civilians)."""
    parts = r.deal.split("|")
    return parts[1] if len(parts) > 2 else r.deal


def _kendall(a: Sequence[float], b: Sequence[float]) -> float:
    if len(a) < 2:
        return math.nan
    tau = stats.kendalltau(a, b).statistic
    return float(tau) if tau is not None and np.isfinite(tau) else 0.0


@dataclass
class Rated:
    """One half's design and the quantities it identifies."""

    name: str
    records: list[Record]
    index: list[int]  # positions of its games in the whole list
    combined: dict[str, Quantity]
    side: Quantity | None
    x: Array
    y: Array
    priors: Array
    theta: Array


def rate_half(name: str, records: list[Record], index: list[int]) -> Rated | None:
    games = [match(r) for r in records]
    d = design(games)
    ident = identify(d)
    combined = {s.config: s.combined for s in ident.configs if s.combined is not None}
    side = next(iter(ident.side.values()), None)
    if not combined:
        return None
    theta = fit_theta(d)
    return Rated(name, records, index, combined, side, d.x, d.y, _priors(d), theta)


def _stretched(value: float, draws: Array, n: float, clusters: int, bounds: tuple[float, float]) -> Interval:
    if len(draws) < 2 or math.isnan(value):
        return Interval(value, math.nan, math.nan, n, clusters)
    low, high = np.percentile(draws, [50 * (1 - LEVEL), 50 * (1 + LEVEL)])
    f = stretch(clusters)
    lo = max(bounds[0], value - f * (value - float(low)))
    hi = min(bounds[1], value + f * (float(high) - value))
    return Interval(value, min(lo, value), max(hi, value), n, clusters)


def sign_bounds(points: tuple[Sequence[float], Sequence[float]], draws: list[list[Array]], clusters: int,
                level: float = LEVEL) -> tuple[float, float]:  # fmt: skip
    """The least and the most Kendall's τ the signs of the pairwise differences allow, each difference of both
    halves given a simultaneous `level` interval from the bootstrap `draws` (per half, per configuration)."""
    k = len(points[0])
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    if not pairs or len(draws[0][0]) < 2:
        return -1.0, 1.0
    est = np.asarray([[points[h][i] - points[h][j] for i, j in pairs] for h in (0, 1)])  # 2 × pairs
    boot = np.stack([np.stack([draws[h][i] - draws[h][j] for i, j in pairs], axis=1) for h in (0, 1)])  # 2 × R × P
    se = boot.std(axis=1, ddof=1)  # 2 × pairs
    se = np.where(se > 0, se, np.inf)
    t = np.abs(boot - est[:, None, :]) / se[:, None, :]
    q = float(np.quantile(t.max(axis=(0, 2)), level)) * stretch(clusters)
    lo, hi = est - q * se, est + q * se
    sign = np.where(lo > 0, 1, np.where(hi < 0, -1, 0))  # 0: undetermined (either sign, or a tie)
    least = most = 0.0
    for p in range(len(pairs)):
        options = [
            x * y
            for x in ((sign[0, p],) if sign[0, p] else (-1, 0, 1))
            for y in ((sign[1, p],) if sign[1, p] else (-1, 0, 1))
        ]
        least += min(options)
        most += max(options)
    return least / len(pairs), most / len(pairs)


def transfer(records: Sequence[Record], groups: Sequence[str], *, by: str, boot: int = 200,
             seed: int = 0) -> Transfer | None:  # fmt: skip
    """The rank concordance and side-term shift between the two groups of `records` (`groups[i]`: record i's rule
    set or language). None unless exactly two groups rate at least MIN_CONFIGS configurations in common."""
    names = sorted(set(groups))
    if len(names) != 2:
        return None
    two_sided = [i for i, r in enumerate(records) if r.two_sided]
    rated = []
    for name in names:
        index = [i for i in two_sided if groups[i] == name]
        half = rate_half(name, [records[i] for i in index], index) if index else None
        if half is None:
            return None
        rated.append(half)
    a, b = rated
    configs = sorted(set(a.combined) & set(b.combined))
    if len(configs) < MIN_CONFIGS:
        return None
    keys = [pair_key(records[i]) for i in two_sided]
    clusters = cluster_ids(keys)
    position = {i: k for k, i in enumerate(two_sided)}
    rng = np.random.default_rng(seed)
    weights = cluster_weights(clusters, boot, rng) if boot > 0 else np.empty((0, len(two_sided)))
    values: list[dict[str, Array]] = []
    sides: list[Array] = []
    for half in (a, b):
        cols = [position[i] for i in half.index]
        w = weights[:, cols]
        draws = np.empty((len(w), len(half.theta)))
        for start in range(0, len(w), 50):
            draws[start : start + 50] = penalised_fit(half.x, half.y, w[start : start + 50], half.priors, half.theta)
        values.append({c: draws @ half.combined[c].coef for c in configs})
        sides.append(draws @ half.side.coef if half.side is not None else np.full(len(w), math.nan))
    point_a = [float(a.combined[c].coef @ a.theta) for c in configs]
    point_b = [float(b.combined[c].coef @ b.theta) for c in configs]
    n_clusters = int(clusters.max()) + 1 if len(clusters) else 0
    tau = _kendall(point_a, point_b)
    low, high = sign_bounds((point_a, point_b), [[values[h][c] for c in configs] for h in (0, 1)], n_clusters)
    paired = len({pair_key(records[i]) for i in a.index} & {pair_key(records[i]) for i in b.index})
    side_a = float(a.side.coef @ a.theta) if a.side is not None else math.nan
    side_b = float(b.side.coef @ b.theta) if b.side is not None else math.nan
    shift_draws = sides[0] - sides[1]
    return Transfer(
        by,
        (Half(a.name, len(a.index), dict(zip(configs, point_a, strict=True)), side_a),
         Half(b.name, len(b.index), dict(zip(configs, point_b, strict=True)), side_b)),
        configs,
        Interval(tau, min(low, tau), max(high, tau), float(len(configs)), n_clusters),
        _stretched(side_a - side_b, shift_draws[np.isfinite(shift_draws)], float(len(two_sided)), n_clusters,
                   (-math.inf, math.inf)),
        paired,
    )  # fmt: skip
