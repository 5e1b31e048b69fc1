"""Intervals counted per cluster: a game, or a deal when the same cards are played more than once.

Every rate in the report is a ratio of sums over games (wins over games, votes on black over votes, Brier sum over
probabilities). The seats of one game, and the games of one deal, are not independent trials, so the variance of a
ratio is taken from the spread of its clusters (the linearised, cluster-robust variance of a ratio estimator), with
Student's t on C − 1 degrees of freedom for C clusters. Proportions get a Wilson score interval on Korn and
Graubard's effective sample size, n / design effect × (t₍n−1₎ / t₍C−1₎)², which stays inside [0, 1] and is sound at
0 % and 100 %: the t ratio charges for estimating the design effect from few clusters, and is 1 when every cluster is
one trial (a win rate over games that are each their own deal), where a t quantile on C − 1 degrees of freedom would
only widen a plain binomial interval (98–99 % coverage at a dozen games in simulation). Holm's step-down method
controls the family-wise error of a set of tests.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

Array = NDArray[np.float64]
Z95 = 1.959963984540054
SPARSE_CLUSTERS = 10  # fewer games (or deals) than this behind a figure: flagged as sparse
SPARSE_N = 20  # or fewer trials than this


@dataclass(frozen=True)
class Interval:
    """A point estimate with its 95 % interval, the number of trials behind it and the clusters they fall in."""

    value: float
    low: float
    high: float
    n: float = 0.0  # trials: games, votes, probabilities (the denominator)
    clusters: int = 0  # independent units: games, or deals when deals repeat

    @property
    def sparse(self) -> bool:
        return self.clusters < SPARSE_CLUSTERS or self.n < SPARSE_N

    def covers(self, value: float) -> bool:
        return self.low <= value <= self.high

    def overlaps(self, other: Interval) -> bool:
        return self.low <= other.high and other.low <= self.high

    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


NAN_INTERVAL = Interval(math.nan, math.nan, math.nan)


def t_quantile(clusters: int, level: float = 0.95) -> float:
    """Student's t quantile for C clusters (C − 1 degrees of freedom), the normal one beyond 1000."""
    if clusters > 1000:
        return float(stats.norm.ppf(0.5 + level / 2))
    return float(stats.t.ppf(0.5 + level / 2, max(clusters - 1, 1)))


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (sound at 0 %, 100 % and small n); (0, 1) for n = 0."""
    if n <= 0:
        return 0.0, 1.0
    p = min(max(successes / n, 0.0), 1.0)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # at 0 % and 100 % the near end is exactly the bound (the formula leaves a rounding error, e.g. 5.6e-17, which
    # would exclude a true 0)
    low = 0.0 if p == 0 else max(0.0, centre - half)
    high = 1.0 if p == 1 else min(1.0, centre + half)
    return low, high


def _by_cluster(values: Sequence[float] | Array, clusters: Sequence[int] | NDArray[np.int64]) -> tuple[Array, int]:
    ids = np.asarray(clusters, dtype=np.int64)
    _, inverse = np.unique(ids, return_inverse=True)
    sums = np.asarray(np.bincount(inverse, weights=np.asarray(values, dtype=np.float64)), dtype=np.float64)
    return sums, len(sums)


def ratio_variance(num: Array, den: Array) -> tuple[float, float]:
    """(ratio, its cluster-robust linearised variance) from per-cluster sums of numerator and denominator."""
    total = float(den.sum())
    if total <= 0:
        return math.nan, math.nan
    r = float(num.sum()) / total
    c = len(num)
    if c < 2:
        return r, math.nan
    u = (num - r * den) / total
    return r, float(c / (c - 1) * np.sum(u * u))


def effective(
    successes: Sequence[float] | Array, trials: Sequence[float] | Array, clusters: Sequence[int] | NDArray[np.int64]
) -> tuple[float, float, float, int]:
    """(proportion, trials, effective trials, clusters) of a clustered proportion: the effective n is n over the
    design effect (the cluster-robust variance over the binomial one, at least 1). At 0 % or 100 % the clusters
    carry no spread to measure, and each counts as one trial (the most cautious choice)."""
    num, c = _by_cluster(successes, clusters)
    den, _ = _by_cluster(trials, clusters)
    n = float(den.sum())
    if n <= 0:
        return math.nan, 0.0, 0.0, 0
    p, var = ratio_variance(num, den)
    if 0 < p < 1 and math.isfinite(var):
        return p, n, n / max(1.0, var / (p * (1 - p) / n)), c
    return p, n, min(n, float(c)), c


def boundary_bounds(n: float, clusters: int, level: float = 0.95) -> tuple[float, float]:
    """At 0 % (the upper bounds; at 100 %, one minus them): the exact (Clopper–Pearson) bound with each cluster one
    trial, which holds however the trials of a cluster hang together (they may all fail at once), and the one with
    every trial its own, which holds only if they are independent. No event means no spread to measure the
    clustering by, so the truth about the design effect lies between; the report prints both, its interval being
    the first (`proportion`'s)."""
    tail = (1 - level) / 2
    return (1 - tail ** (1 / clusters) if clusters > 0 else 1.0), (1 - tail ** (1 / n) if n > 0 else 1.0)


def df_adjusted(n_eff: float, n: float, clusters: int) -> float:
    """Korn and Graubard's degrees-of-freedom-adjusted effective sample size: n_eff · (t₍n−1₎ / t₍C−1₎)²."""
    if clusters < 2 or n < 2:
        return n_eff
    return n_eff * (t_quantile(max(round(n), 2)) / t_quantile(clusters)) ** 2


def proportion(
    successes: Sequence[float] | Array, trials: Sequence[float] | Array, clusters: Sequence[int] | NDArray[np.int64]
) -> Interval:
    """A proportion counted per cluster: Wilson on the effective n (`effective`), adjusted for the design effect's
    degrees of freedom (`df_adjusted`); at 0 % or 100 % the exact bound with each cluster one trial
    (`boundary_bounds`).

    `successes[i]` of `trials[i]` in item i (a game's votes, a game's win), items grouped by `clusters[i]`. Only
    items with trials count as clusters."""
    keep = np.asarray(trials, dtype=np.float64) > 0
    p, n, n_eff, c = effective(np.asarray(successes)[keep], np.asarray(trials)[keep], np.asarray(clusters)[keep])
    if n <= 0:
        return Interval(math.nan, 0.0, 1.0, 0.0, 0)
    if p in (0.0, 1.0):  # no spread to measure the clustering by: the exact bound with each cluster one trial
        bound, _ = boundary_bounds(n, c)
        return Interval(p, 0.0, bound, n, c) if p == 0.0 else Interval(p, 1 - bound, 1.0, n, c)
    m = df_adjusted(n_eff, n, c)
    low, high = wilson(p * m, m, Z95)
    return Interval(p, low, high, n, c)


def _newcombe(p1: float, m1: float, p2: float, m2: float, z: float) -> tuple[float, float]:
    l1, u1 = wilson(p1 * m1, m1, z)
    l2, u2 = wilson(p2 * m2, m2, z)
    d = p1 - p2
    return d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2)


def proportion_difference(
    y1: Array, n1: Array, y2: Array, n2: Array, clusters: Sequence[int] | NDArray[np.int64]
) -> tuple[Interval, float]:
    """The difference of two clustered proportions, Newcombe's hybrid score interval built from each one's Wilson
    interval on its effective n (sound for small and lopsided groups, where a Wald interval collapses), and the
    two-sided p-value of no difference (the level at which that interval first touches zero); each effective n is
    adjusted for its design effect's degrees of freedom as in `proportion`."""
    ids = np.asarray(clusters)
    a, b = n1 > 0, n2 > 0
    p1, t1, m1, c1 = effective(y1[a], n1[a], ids[a])
    p2, t2, m2, c2 = effective(y2[b], n2[b], ids[b])
    if t1 <= 0 or t2 <= 0:
        return NAN_INTERVAL, math.nan
    m1, m2 = df_adjusted(m1, t1, c1), df_adjusted(m2, t2, c2)
    low, high = _newcombe(p1, m1, p2, m2, Z95)
    d = p1 - p2
    out = Interval(d, low, high, t1 + t2, len(np.unique(ids[a | b])))
    if d == 0:
        return out, 1.0
    lo, hi = 0.0, 50.0  # bisect for the z at which the interval's near end reaches zero
    for _ in range(60):
        mid = (lo + hi) / 2
        near = _newcombe(p1, m1, p2, m2, mid)[0 if d > 0 else 1]
        if (near > 0) == (d > 0):
            lo = mid
        else:
            hi = mid
    return out, float(2 * stats.norm.sf(lo))


def ratio(
    num: Sequence[float] | Array, den: Sequence[float] | Array, clusters: Sequence[int] | NDArray[np.int64]
) -> Interval:
    """A ratio of sums that is not a proportion (a mean Brier score, tokens per decision): ratio ± t · SE."""
    a, c = _by_cluster(num, clusters)
    b, _ = _by_cluster(den, clusters)
    r, var = ratio_variance(a, b)
    if not math.isfinite(r):
        return Interval(math.nan, math.nan, math.nan, float(b.sum()), c)
    half = t_quantile(c) * math.sqrt(var) if math.isfinite(var) else math.inf
    return Interval(r, r - half, r + half, float(b.sum()), c)


def mean_difference(
    y1: Array, n1: Array, y2: Array, n2: Array, clusters: Sequence[int] | NDArray[np.int64]
) -> tuple[Interval, float]:
    """The difference of two ratios sum(y1)/sum(n1) − sum(y2)/sum(n2) over the same clusters (they may share a
    cluster), its interval and the two-sided p-value of no difference (t on C − 1 df)."""
    a1, c = _by_cluster(y1, clusters)
    b1, _ = _by_cluster(n1, clusters)
    a2, _ = _by_cluster(y2, clusters)
    b2, _ = _by_cluster(n2, clusters)
    t1, t2 = float(b1.sum()), float(b2.sum())
    if t1 <= 0 or t2 <= 0 or c < 2:
        return NAN_INTERVAL, math.nan
    r1, r2 = float(a1.sum()) / t1, float(a2.sum()) / t2
    u = (a1 - r1 * b1) / t1 - (a2 - r2 * b2) / t2
    se = math.sqrt(c / (c - 1) * float(np.sum(u * u)))
    d = r1 - r2
    q = t_quantile(c)
    if se == 0:
        return Interval(d, d, d, t1 + t2, c), (1.0 if d == 0 else 0.0)
    p = float(2 * stats.t.sf(abs(d) / se, max(c - 1, 1)))
    return Interval(d, d - q * se, d + q * se, t1 + t2, c), p


def holm(p_values: Sequence[float], alpha: float = 0.05) -> list[bool]:
    """Holm's step-down rejections (family-wise error at most `alpha`); NaN p-values are never rejected."""
    order = sorted((p, i) for i, p in enumerate(p_values) if math.isfinite(p))
    rejected = [False] * len(p_values)
    m = len(order)
    for rank, (p, i) in enumerate(order):
        if p > alpha / (m - rank):
            break
        rejected[i] = True
    return rejected


def cluster_ids(keys: Sequence[object]) -> NDArray[np.int64]:
    """Small integer ids for hashable cluster keys (a deal), in order of first appearance."""
    index: dict[object, int] = {}
    return np.asarray([index.setdefault(k, len(index)) for k in keys], dtype=np.int64)


def cluster_weights(clusters: NDArray[np.int64], boot: int, rng: np.random.Generator) -> Array:
    """Block-bootstrap weights (boot × games): draw the clusters with replacement; a game weighs as often as its
    cluster was drawn, so the games of one deal always move together."""
    c = int(clusters.max()) + 1 if len(clusters) else 0
    if c == 0:
        return np.zeros((boot, 0))
    draws = rng.multinomial(c, np.full(c, 1.0 / c), size=boot).astype(np.float64)
    return np.asarray(draws[:, clusters], dtype=np.float64)


def simultaneous_critical(corr: Array, df: int, *, level: float = 0.95, seed: int = 0, draws: int = 20000) -> float:
    """The `level` quantile of max |T| over a family of estimates with correlation `corr`, T multivariate t on
    `df` degrees of freedom (normal when `df` is 0): d ± q·se then holds every difference of the family at once
    (Hothorn, Bretz and Westfall's single-step method). Monte Carlo with a fixed seed, so a report is reproducible;
    a singular `corr` (a combined skill is a mix of the other two) is fine."""
    if corr.shape[0] == 0:
        return math.nan
    rng = np.random.default_rng(seed)
    values, vectors = np.linalg.eigh(corr)
    root = vectors * np.sqrt(np.clip(values, 0, None))
    z = rng.standard_normal((draws, corr.shape[0])) @ root.T
    if df > 0:
        z /= np.sqrt(rng.chisquare(df, draws) / df)[:, None]
    return float(np.quantile(np.max(np.abs(z), axis=1), level))
