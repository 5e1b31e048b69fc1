"""Side-aware Bradley–Terry ratings for a 7-against-3 game: only what the design identifies, with block-bootstrap
intervals and simultaneous pairwise comparisons (see docs/ratings.md).

    P(town wins) = σ(h[rules] + mean town skill of the town seats − mean mafia skill of the black seats)

Each configuration (a seat's agent name) has a town skill and a mafia skill; each rule set has a side term `h`.
Before anything is reported, `identify` finds which linear quantities the games pin down (under tournament seating
only a weighted combination of a configuration's two skills is); only those get numbers, and only those the games
support firmly (`Support`: games on every side a quantity involves, and Kish's effective games behind it) get an
interval. The fit maximises the likelihood with Firth's penalty (Jeffreys' prior: finite on one-sided records, the
maximum likelihood estimate's first-order bias removed) and a weak Gaussian (σ = 10) by Newton's method, run for the
point estimate and all bootstrap resamples at once; issue 18's N(0, 3²) decided a large part of a bots-sized gap
under tournament seating. Standard errors come from the leave-one-deal-out jackknife (CR3): the games of a deal (or
a game, when no deal repeats) leave together; each quantity's variance is scaled by its model variance over the
jackknife's first-order expectation (`leverage_factors`), which removes CR3's overstatement of about 1/(1 −
leverage) per deal (the thin designs' simultaneous intervals held 98–99 % without it). Every interval is the
estimate ± t(deals − 1)·se; issue 18's block-bootstrap percentile intervals covered 86 % at bots-sized gaps under
whole sides with Firth's fit, where these cover 95 % (the bootstrap's standard deviation is still printed beside,
with `boot` resamples). "Better than" is marked only when a simultaneous 95 % interval excludes zero, which keeps
the chance of any false mark at 5 % however many configurations there are: d ± q·se, q the max-|t| quantile of the
family of supported differences on deals − 1 degrees of freedom. The bootstrap's own max-|t| was tried first and
measured 99–100 % joint coverage with few games a pairing (its resamples' one-sided records give it heavy tails) and
91 % under tournament seating; docs/ratings.md has both.

The fitting pieces take a design matrix, weights and an offset, so a fit with some configurations' ratings held
fixed (a reference field) is `penalised_fit` on the free columns with the fixed ones' contribution as the offset.

`held_out` compares the model with the sum-of-ratings baseline (openskill/TrueSkill's team model: one rating per
configuration, team strength the sum, no side term) and with every step between them, so the gain can be attributed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy import stats
from scipy.special import expit
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from arena.research.identify import COMBINED, MAFIA, TOWN, Design, Identification, Quantity, design, identify
from arena.research.intervals import (
    SPARSE_CLUSTERS,
    SPARSE_N,
    Interval,
    cluster_ids,
    cluster_weights,
    simultaneous_critical,
    t_quantile,
)
from arena.research.records import Match, deal_keys

Array = NDArray[np.float64]
PRIOR_SD = 10.0  # weak: it only keeps a configuration seen in a deal or two finite; Firth's term does the rest
SIDE_PRIOR_SD = 10.0
LEVEL = 0.95


# ----- the fit ------------------------------------------------------------------------------------------------------
def collapse(x: Array, y: Array, weights: Array) -> tuple[Array, Array, Array]:
    """Games with the same design row pooled: (distinct rows, trials per row, town wins per row), for every row of
    `weights` (B × games). A schedule repeats few distinct seatings, so this shrinks the fit's work many times."""
    rows, inverse = np.unique(x, axis=0, return_inverse=True)
    group = np.zeros((x.shape[0], rows.shape[0]))
    group[np.arange(x.shape[0]), inverse.ravel()] = 1.0
    return np.asarray(rows, dtype=np.float64), weights @ group, (weights * y) @ group


def penalised_fit(
    x: Array, y: Array, w: Array, prior_sd: Array, start: Array | None = None, *, firth: bool = False,
    offset: Array | None = None,
) -> Array:
    """argmin over θ of Σ w·(logistic loss of Xθ + offset) + θ²/(2σ²) [− ½ log det(XᵀWX + 1/σ²) with `firth`], for
    every row of weights `w` (B × games) at once. `offset` (per game, default 0) carries what is not fitted: the
    contribution of ratings held fixed (a reference field's), with their columns left out of `x`.

    Firth's term is Jeffreys' prior: it keeps a one-sided record finite and takes the maximum likelihood estimate's
    first-order bias away, with no scale of its own to choose (the Gaussian's σ then only has to be large; the
    issue-18 version's σ = 3 shrank a bots-sized gap by a quarter). The objective is smooth, so Newton's method with
    step halving converges in a few steps; batching the bootstrap's resamples turns 200 refits into a handful of
    stacked linear solves."""
    fixed = np.zeros(len(y)) if offset is None else np.asarray(offset, dtype=np.float64)
    with threadpool_limits(limits=1, user_api="blas"):  # small matrices: threads only add contention
        return _newton(x, y, w, prior_sd, start, firth, fixed)


def _objective(
    rows: Array, shift: Array, trials: Array, wins: Array, inv_var: Array, theta: Array, outer: Array, firth: bool
) -> tuple[Array, Array, Array, Array]:
    """Per resample: the penalised loss, P(town) per row, the penalised information and its inverse."""
    b, p = theta.shape
    z = theta @ rows.T + shift
    mu = expit(z)
    loss = np.sum(trials * np.logaddexp(0.0, z) - wins * z, axis=1) + 0.5 * np.sum(theta**2 * inv_var, axis=1)
    info = ((trials * mu * (1 - mu)) @ outer).reshape(b, p, p) + np.diag(inv_var)[None]
    if firth:
        loss = loss - 0.5 * np.linalg.slogdet(info)[1]
    return np.asarray(loss), mu, info, np.asarray(np.linalg.inv(info), dtype=np.float64)


def _newton(
    x: Array, y: Array, w: Array, prior_sd: Array, start: Array | None, firth: bool, offset: Array
) -> Array:
    keyed, trials, wins = collapse(np.column_stack([x, offset]), y, w)  # games alike in design and offset pooled
    rows, shift = keyed[:, :-1], keyed[:, -1]
    inv_var = 1.0 / prior_sd**2
    b, p = w.shape[0], x.shape[1]
    outer = (rows[:, :, None] * rows[:, None, :]).reshape(rows.shape[0], p * p)
    theta = np.zeros((b, p)) if start is None else np.tile(start, (b, 1))
    current, mu, _, inv = _objective(rows, shift, trials, wins, inv_var, theta, outer, firth)
    for _ in range(100):
        residual = wins - trials * mu
        if firth:  # Jeffreys' term: each row's leverage (summed over its games) pulls its chance towards ½
            leverage = trials * mu * (1 - mu) * np.einsum("rk,bkl,rl->br", rows, inv, rows)
            residual = residual + leverage * (0.5 - mu)
        grad = -(residual @ rows) + theta * inv_var
        step = np.einsum("bkl,bl->bk", inv, grad)  # Fisher scoring: the information is the loss's Hessian here
        scale = np.ones(b)
        for _ in range(30):  # halve the step of the resamples whose loss went up
            trial = theta - scale[:, None] * step
            new, new_mu, _, new_inv = _objective(rows, shift, trials, wins, inv_var, trial, outer, firth)
            worse = new > current + 1e-12 * np.abs(current)
            if not worse.any():
                break
            scale[worse] /= 2
        theta, current, mu, inv = trial, new, new_mu, new_inv
        if float(np.max(np.abs(scale[:, None] * step))) < 1e-9:
            break
    return theta


def _priors(d: Design) -> Array:
    return np.concatenate([np.full(d.n_rules, SIDE_PRIOR_SD), np.full(2 * d.n_configs, PRIOR_SD)])


def fit_theta(d: Design, weights: Array | None = None, start: Array | None = None, *, firth: bool = True,
              prior_sd: Array | None = None) -> Array:  # fmt: skip
    """The report's estimate for one data set (`weights`: a count per game, default all 1): Firth's penalty and a
    weak Gaussian; `firth=False` and another `prior_sd` give the estimates the prior's sensitivity is shown with."""
    w = np.ones((1, len(d.y))) if weights is None else weights[None, :]
    priors = _priors(d) if prior_sd is None else prior_sd
    return np.asarray(penalised_fit(d.x, d.y, w, priors, start, firth=firth)[0], dtype=np.float64)


def _information(d: Design, theta: Array) -> tuple[Array, Array, Array]:
    """(P(town) per game, p(1 − p) per game, the penalised information XᵀWX + 1/σ²) at θ."""
    mu = expit(d.x @ theta)
    w = mu * (1 - mu)
    return mu, w, (d.x * w[:, None]).T @ d.x + np.diag(1 / _priors(d) ** 2)


def _score(d: Design, theta: Array) -> Array:
    """The gradient of the penalised log-likelihood with Firth's term (its zero is the report's estimate)."""
    mu, w, info = _information(d, theta)
    lever = w * np.einsum("gk,kl,gl->g", d.x, np.linalg.inv(info), d.x)
    return np.asarray(d.x.T @ (d.y - mu + lever * (0.5 - mu)) - theta / _priors(d) ** 2, dtype=np.float64)


def _hessian(d: Design, theta: Array, step: float = 1e-5) -> Array:
    """−∂score/∂θ by central differences: the information plus the curvature of Firth's term, which is of the order
    of (parameters / games) of it, enough to make one-step deletions 5-8 % too wide at 100 games if left out."""
    columns = [(_score(d, theta - step * e) - _score(d, theta + step * e)) / (2 * step) for e in np.eye(len(theta))]
    hessian = np.asarray(columns).T
    return np.asarray((hessian + hessian.T) / 2, dtype=np.float64)


def jackknife_covariance(d: Design, theta: Array, clusters: NDArray[np.int64], *, firth: bool = True) -> Array:
    """θ's leave-one-cluster-out jackknife covariance (CR3 in MacKinnon, Nielsen and Webb's guide to cluster-robust
    inference), each deletion refitted by one Newton step from the full fit:
    θ₍₋g₎ − θ = −H⁻¹X_gᵀ(I − W_g X_g H⁻¹X_gᵀ)⁻¹ e_g (Woodbury), with W the games' p(1 − p), e their residuals and H
    the Hessian of what was maximised: with Firth's term (the report's fit), e = y − p + h(½ − p) (h a game's
    leverage, so the residuals sum to the full fit's zero score) and H the information plus the curvature of
    Firth's term (`_hessian`); `firth=False`, the plain likelihood's. Then (G − 1)/G · Σ (δ_g − δ̄)(δ_g − δ̄)ᵀ over
    the G clusters. Within 2 % of exact refits of Firth's fit (`tests/test_ratings.py`); with the plain information
    in place of H it ran 6-8 % over them at 120 games, Firth's term shrinking every deletion a little."""
    mu, w, info = _information(d, theta)
    e = d.y - mu
    if firth:
        e = e + w * np.einsum("gk,kl,gl->g", d.x, np.linalg.inv(info), d.x) * (0.5 - mu)
    h_inv = np.linalg.inv(_hessian(d, theta) if firth else info)
    g = int(clusters.max()) + 1
    deltas = np.empty((g, d.columns))
    members = np.argsort(clusters, kind="stable")
    bounds = np.searchsorted(clusters[members], np.arange(g + 1))
    sizes = np.diff(bounds)
    for m in np.unique(sizes):  # clusters of one size at once: a stacked solve
        ids = np.flatnonzero(sizes == m)
        rows = members[bounds[ids][:, None] + np.arange(m)[None, :]]  # ids × m game indices
        xg = d.x[rows]  # ids × m × columns
        b = np.einsum("pc,imc->ipm", h_inv, xg)
        a = np.eye(m)[None] - w[rows][:, :, None] * np.einsum("imc,icn->imn", xg, b)
        deltas[ids] = np.einsum("ipm,im->ip", b, np.linalg.solve(a, e[rows][:, :, None])[:, :, 0])
    centred = deltas - deltas.mean(axis=0)
    return np.asarray(centred.T @ centred * (g - 1) / g, dtype=np.float64)


@dataclass(frozen=True)
class Support:
    """What an estimate rests on. `games` and `deals`: the fewest of either, over the configurations and sides it
    involves (a town skill: its configuration's town games; a combined skill or a difference: every configuration's
    games on every side it involves). `effective_games` and `effective_deals`: Kish's effective number of the
    estimate's influence, (Σ v)² / Σ v², v being each game's (or deal's) share of its variance; a quantity that rests
    on three games among two hundred has about three, whatever its rank."""

    games: int
    deals: int
    effective_games: float
    effective_deals: float

    @property
    def sparse(self) -> bool:
        """Fewer than 10 games or deals on a side it involves, or fewer than 20 effective games or 10 effective
        deals (the report's rule for every figure: 10 clusters and 20 trials)."""
        return (min(self.games, self.deals) < SPARSE_CLUSTERS or self.effective_deals < SPARSE_CLUSTERS
                or self.effective_games < SPARSE_N)  # fmt: skip


def influence_shares(d: Design, theta: Array, coefs: Array) -> Array:
    """games × quantities: each game's share of each quantity's (model) variance, (cᵀH⁻¹x_g)² p_g(1 − p_g)."""
    _, w, info = _information(d, theta)
    a = d.x @ np.linalg.solve(info, coefs)
    return np.asarray(a**2 * w[:, None], dtype=np.float64)


def kish(shares: Array, clusters: NDArray[np.int64]) -> tuple[Array, Array]:
    """Per column of `shares` (games × quantities): Kish's effective number of games and of deals."""

    def effective(v: Array) -> Array:
        total = v.sum(axis=0)
        square = (v**2).sum(axis=0)
        return np.asarray(np.divide(total**2, square, out=np.zeros_like(total), where=square > 0))

    per_deal = np.zeros((int(clusters.max()) + 1, shares.shape[1]))
    np.add.at(per_deal, clusters, shares)
    return effective(shares), effective(per_deal)


def side_counts(d: Design, clusters: NDArray[np.int64]) -> dict[tuple[str, str], tuple[int, int]]:
    """(games, deals) of each configuration on each side: the games in which it held a seat of that side."""
    out = {}
    for j, config in enumerate(d.configs):
        for kind, col in ((TOWN, d.town_column(j)), (MAFIA, d.mafia_column(j))):
            held = d.x[:, col] != 0
            out[(config, kind)] = (int(held.sum()), len(np.unique(clusters[held])))
    return out


def _deal_terms(d: Design, theta: Array, clusters: NDArray[np.int64]) -> tuple[Array, int, list[tuple[Array, ...]]]:
    """What both expectations below are made of: θ's model covariance H⁻¹XᵀWXH⁻¹, the number of deals G, and for
    each deal size the deals' (W_g, B_g = H⁻¹X_gᵀ, (I − W_gX_gH⁻¹X_gᵀ)⁻¹), stacked."""
    _, w, _ = _information(d, theta)
    h_inv = np.linalg.inv(_hessian(d, theta))  # Firth's curvature does not depend on the results
    model = h_inv @ ((d.x * w[:, None]).T @ d.x) @ h_inv
    g = int(clusters.max()) + 1
    members = np.argsort(clusters, kind="stable")
    bounds = np.searchsorted(clusters[members], np.arange(g + 1))
    sizes = np.diff(bounds)
    blocks: list[tuple[Array, ...]] = []
    for m in np.unique(sizes):
        ids = np.flatnonzero(sizes == m)
        rows = members[bounds[ids][:, None] + np.arange(m)[None, :]]
        xg, wg = d.x[rows], w[rows]
        b = np.einsum("pc,imc->ipm", h_inv, xg)  # H⁻¹X_gᵀ
        a = np.eye(m)[None] - wg[:, :, None] * np.einsum("imc,icn->imn", xg, b)
        blocks.append((wg, b, np.linalg.inv(a)))
    return np.asarray(model, dtype=np.float64), g, blocks


def expected_covariances(d: Design, theta: Array, clusters: NDArray[np.int64]) -> tuple[Array, Array]:
    """Before any result: θ's sampling covariance under the model at `theta` (H⁻¹ XᵀWX H⁻¹, H as in
    `jackknife_covariance`) and the expected value of the report's jackknife covariance given the design,
    ((G − 1)/G)² Σ_g A_g W_g A_gᵀ with A_g = H⁻¹X_gᵀ(I − W_g X_g H⁻¹X_gᵀ)⁻¹, the games of a deal taken as
    independent. The dry run's power figure uses both, so it is about the standard errors the report will print."""
    model, g, blocks = _deal_terms(d, theta, clusters)
    expected = np.zeros((d.columns, d.columns))
    for wg, b, inv_a in blocks:
        big = np.einsum("ipm,imn->ipn", b, inv_a)  # A_g
        expected += np.einsum("ipm,im,iqm->pq", big, wg, big)
    return model, np.asarray(expected * ((g - 1) / g) ** 2, dtype=np.float64)


def leverage_bias(d: Design, theta: Array, clusters: NDArray[np.int64]) -> tuple[Array, Array]:
    """(M, E): θ's model covariance H⁻¹XᵀWXH⁻¹ and the jackknife's expectation to first order when a deal's residuals
    have the variance W_g − W_gX_gH⁻¹X_gᵀW_g that a fit leaves them,
    E = (G − 1)/G Σ_g H⁻¹X_gᵀW_g(I − W_gX_gH⁻¹X_gᵀ)⁻ᵀX_gH⁻¹. A deletion refit (CR3) divides a deal's residuals by
    I − (its leverage) where the variance they lost is only that much: each deal's contribution is overstated by about
    1/(1 − h_g). (`expected_covariances` takes the residuals' variance as W_g, the dry run's older, larger figure.)"""
    model, g, blocks = _deal_terms(d, theta, clusters)
    expected = np.zeros((d.columns, d.columns))
    for wg, b, inv_a in blocks:
        left = np.einsum("ipm,im,inm->ipn", b, wg, inv_a)  # H⁻¹X_gᵀW_g(I − W_gX_gH⁻¹X_gᵀ)⁻ᵀ
        expected += np.einsum("ipn,iqn->pq", left, b)
    return model, np.asarray(expected * (g - 1) / g, dtype=np.float64)


def leverage_factors(bias: tuple[Array, Array], coefs: Array) -> Array:
    """Per column c of `coefs`: cᵀMc / cᵀEc (`leverage_bias`), the contrast's variance-weighted mean of 1 − h_g over
    deals, by which its jackknife variance is scaled to remove CR3's leverage bias; at most 1 (the correction only
    removes an overstatement)."""
    model, expected = bias
    top = np.einsum("pj,pq,qj->j", coefs, model, coefs)
    bottom = np.einsum("pj,pq,qj->j", coefs, expected, coefs)
    ratio = np.divide(top, bottom, out=np.ones_like(top), where=bottom > 1e-12)
    return np.asarray(np.clip(ratio, 0.0, 1.0), dtype=np.float64)


def predict(d: Design, theta: Array) -> Array:
    """P(town wins) for each row of the design."""
    return np.asarray(expit(d.x @ theta), dtype=np.float64)


# ----- reported quantities -------------------------------------------------------------------------------------------
@dataclass
class Estimate:
    quantity: Quantity
    interval: Interval  # estimate ± t(deals − 1)·se; no interval (NaN bounds) when sparse
    se: float  # the jackknife standard error, its leverage bias removed (`leverage_factors`)
    support: Support
    bootstrap_se: float = math.nan  # the block bootstrap's standard deviation, beside it (NaN without resamples)

    @property
    def sparse(self) -> bool:
        return self.support.sparse


@dataclass
class Comparison:
    """config `a` minus config `b` on one quantity, with its simultaneous 95 % interval."""

    kind: str
    a: str
    b: str
    interval: Interval
    se: float  # the jackknife standard error, its leverage bias removed (`leverage_factors`)
    support: Support  # the fewest games and deals of either configuration on either side the quantity involves
    weight: float = 0.5  # the town skill's weight (combined: 0.5, or the identified combination's)

    @property
    def sparse(self) -> bool:
        """Either side of the difference rests on too few games: no interval, never judged, out of the family."""
        return self.support.sparse

    @property
    def better(self) -> str | None:
        """The configuration marked better under the simultaneous control, or None (always when sparse)."""
        if self.sparse:
            return None
        if self.interval.low > 0:
            return self.a
        if self.interval.high < 0:
            return self.b
        return None


@dataclass
class Fit:
    """A fitted side-aware model: the identified quantities with jackknife intervals."""

    identification: Identification
    theta: Array
    samples: Array  # bootstrap draws of θ (rows)
    clusters: int  # resampled units (deals, or games)
    covariance: Array = field(default_factory=lambda: np.empty((0, 0)))  # θ's jackknife (CR3) covariance
    estimates: dict[tuple[str, str], Estimate] = field(default_factory=dict)  # (config, kind) -> estimate
    side: dict[str, Estimate | None] = field(default_factory=dict)  # per rule set; None: not identified
    comparisons: list[Comparison] = field(default_factory=list)
    critical: float = math.nan  # the simultaneous critical value (max-|t| quantile)
    counts: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)  # (config, side) -> (games, deals)
    condition: float = math.nan  # the information's condition number over the identified directions
    bias: tuple[Array, Array] = field(default_factory=lambda: (np.empty((0, 0)), np.empty((0, 0))))  # leverage_bias

    def variances(self, coefs: Array) -> Array:
        """Each column's jackknife variance with CR3's leverage bias removed (`leverage_factors`)."""
        raw = np.einsum("pj,pq,qj->j", coefs, self.covariance, coefs)
        return np.asarray(np.clip(raw, 0, None) * leverage_factors(self.bias, coefs), dtype=np.float64)

    @property
    def design(self) -> Design:
        return self.identification.design

    def estimate(self, config: str, kind: str) -> Estimate | None:
        return self.estimates.get((config, kind))

    def ranked(self) -> list[str]:
        """Configurations by their combined (or identified-combination) estimate, best first."""

        def key(c: str) -> float:
            e = self.estimate(c, COMBINED)
            return -e.interval.value if e is not None else math.inf

        return sorted(self.design.configs, key=key)


def _interval(coef: Array, f: Fit, n: float) -> tuple[Interval, float]:
    """The estimate ± t₍C−1₎ · its standard error (the jackknife's, leverage bias removed), for C deals (and that
    standard error)."""
    value = float(coef @ f.theta)
    se = math.sqrt(float(f.variances(coef[:, None])[0]))
    clusters = f.clusters
    half = t_quantile(clusters, LEVEL) * se if clusters > 1 else math.nan
    return Interval(value, value - half, value + half, n, clusters), se


def stretch(clusters: int) -> float:
    """The small-sample correction of a cluster bootstrap's percentile interval (its variance runs (C − 1)/C low, and
    with few clusters a t quantile on C − 1 degrees of freedom is due instead of the normal one). The ratings now use
    the jackknife-t; `transfer.py`'s bootstrap intervals still stretch by this."""
    if clusters < 2:
        return 1.0
    z = float(stats.norm.ppf(0.5 + LEVEL / 2))
    return math.sqrt(clusters / (clusters - 1)) * t_quantile(clusters, LEVEL) / z


def _sides(kind: str) -> tuple[str, ...]:
    return {TOWN: (TOWN,), MAFIA: (MAFIA,)}.get(kind, (TOWN, MAFIA))


def _games_behind(d: Design, q: Quantity) -> float:
    """Games in which the quantity's configuration sat on the side (or either side) the quantity is about."""
    j = d.configs.index(q.config)
    cols = {TOWN: [d.town_column(j)], MAFIA: [d.mafia_column(j)]}.get(q.kind, [d.town_column(j), d.mafia_column(j)])
    return float(np.sum(np.any(d.x[:, cols] != 0, axis=1)))


def support_of(
    d: Design, theta: Array, clusters: NDArray[np.int64], counts: dict[tuple[str, str], tuple[int, int]],
    items: Sequence[tuple[Sequence[str], str, Array]],
) -> list[Support]:  # fmt: skip
    """The support of each (configurations, kind, coefficients) item."""
    if not items:
        return []
    games, deals = kish(influence_shares(d, theta, np.stack([c for _, _, c in items], axis=1)), clusters)
    out = []
    for j, (configs, kind, _) in enumerate(items):
        held = [counts[(c, side)] for c in configs for side in _sides(kind)]
        out.append(Support(min(g for g, _ in held), min(n for _, n in held), float(games[j]), float(deals[j])))
    return out


def condition_number(d: Design, theta: Array, null: Array) -> float:
    """The Fisher information's condition number over the directions the design identifies (its largest eigenvalue
    over its smallest): how nearly flat the likelihood is in its worst-measured identified direction."""
    _, w, _ = _information(d, theta)
    info = (d.x * w[:, None]).T @ d.x
    if null.shape[1]:
        keep = np.eye(d.columns) - null @ null.T  # the projector onto the identified directions
        info = keep @ info @ keep
    values = np.linalg.eigvalsh(info)[null.shape[1]:]
    return float(values[-1] / values[0]) if len(values) and values[0] > 0 else math.inf


def _firm_combinations(
    d: Design, theta: Array, clusters: NDArray[np.int64], counts: dict[tuple[str, str], tuple[int, int]],
    quantities: list[Quantity], held: list[Support],
) -> tuple[list[Quantity], list[Support]]:
    """Where a configuration's town and mafia skills are both identified but both rest on too few games (tournament
    seating with a few whole-side games: only those games tell the skills apart), its combined skill (½ + ½) is as
    thin; the combination the other games do pin down is reported instead, w·town + (1 − w)·mafia with the w of
    least variance (one w for all such configurations, the median of theirs, so they compare like with like)."""
    support = {(q.config, q.kind): h for q, h in zip(quantities, held, strict=True)}
    thin = [q.config for q in quantities if q.kind == COMBINED and support[(q.config, COMBINED)].sparse
            and (q.config, TOWN) in support and (q.config, MAFIA) in support
            and support[(q.config, TOWN)].sparse and support[(q.config, MAFIA)].sparse]  # fmt: skip
    if not thin:
        return quantities, held
    _, _, info = _information(d, theta)
    cov = np.linalg.inv(info)
    coefs = {(q.config, q.kind): q.coef for q in quantities}
    weights = []
    for config in thin:
        a, b = coefs[(config, TOWN)], coefs[(config, MAFIA)]
        vaa, vbb, vab = float(a @ cov @ a), float(b @ cov @ b), float(a @ cov @ b)
        if vaa + vbb - 2 * vab > 1e-12:  # else the two are one quantity (a lone configuration): nothing to weigh
            weights.append(min(1.0, max(0.0, (vbb - vab) / (vaa + vbb - 2 * vab))))
    if not weights:
        return quantities, held
    w = float(np.median(weights))
    replaced = [Quantity(c, COMBINED, w * coefs[(c, TOWN)] + (1 - w) * coefs[(c, MAFIA)], w) for c in thin]
    firm = support_of(d, theta, clusters, counts, [((q.config,), COMBINED, q.coef) for q in replaced])
    swap = {q.config: (q, h) for q, h in zip(replaced, firm, strict=True) if not h.sparse}
    out_q, out_h = [], []
    for q, h in zip(quantities, held, strict=True):
        q, h = swap.get(q.config, (q, h)) if q.kind == COMBINED else (q, h)
        out_q.append(q)
        out_h.append(h)
    return out_q, out_h


def fit(games: Sequence[Match], *, boot: int = 200, seed: int = 0) -> Fit:
    """Identify, fit, take the jackknife covariance, give each supported quantity its interval, and compare; `boot`
    resamples of whole deals give the bootstrap's standard deviation beside the jackknife's (0: none)."""
    if not games:
        raise ValueError("no two-sided finished games to rate")
    d = design(games)
    ident = identify(d)
    theta = fit_theta(d)
    clusters = cluster_ids(deal_keys(games))
    n_clusters = int(clusters.max()) + 1
    rng = np.random.default_rng(seed)
    if boot > 0:
        weights = cluster_weights(clusters, boot, rng)
        draws = np.empty((boot, len(theta)))
        for start in range(0, boot, 50):  # bounded memory: 50 resamples at a time
            chunk = weights[start : start + 50]
            draws[start : start + 50] = penalised_fit(d.x, d.y, chunk, _priors(d), theta, firth=True)
    else:
        draws = np.empty((0, len(theta)))
    counts = side_counts(d, clusters)
    out = Fit(ident, theta, draws, n_clusters, jackknife_covariance(d, theta, clusters), counts=counts,
              condition=condition_number(d, theta, ident.null), bias=leverage_bias(d, theta, clusters))  # fmt: skip
    quantities = ident.quantities()
    held = support_of(d, theta, clusters, counts, [((q.config,), q.kind, q.coef) for q in quantities])
    quantities, held = _firm_combinations(d, theta, clusters, counts, quantities, held)

    def spread(coef: Array) -> float:
        return float(np.std(draws @ coef, ddof=1)) if len(draws) > 1 else math.nan

    for q, support in zip(quantities, held, strict=True):
        iv, se = _interval(q.coef, out, _games_behind(d, q))
        if support.sparse:  # too few games behind it for any large-sample interval to hold: none is printed
            iv = Interval(iv.value, math.nan, math.nan, iv.n, iv.clusters)
        out.estimates[(q.config, q.kind)] = Estimate(q, iv, se, support, spread(q.coef))
    thin = any(e.sparse for e in out.estimates.values())
    for rules, side in ident.side.items():
        if side is None:
            out.side[rules] = None
            continue
        iv, se = _interval(side.coef, out, float(len(d.y)))
        (games_eff,), (deals_eff,) = kish(influence_shares(d, theta, side.coef[:, None]), clusters)
        support = Support(len(d.y), n_clusters, float(games_eff), float(deals_eff))
        if thin:  # the side term rests on every skill: with one of them sparse, no interval of it holds
            iv = Interval(iv.value, math.nan, math.nan, iv.n, iv.clusters)
        out.side[rules] = Estimate(side, iv, se, support, spread(side.coef))
    out.comparisons, out.critical = compare(out, clusters)
    return out


def compare(f: Fit, clusters: NDArray[np.int64], level: float = LEVEL) -> tuple[list[Comparison], float]:
    """Every pairwise difference of a reported quantity (town, mafia, combined with the same weights) with
    simultaneous intervals: d ± q·se, se from θ's jackknife covariance and q the `level` quantile of max over the
    family of |T|, T multivariate t with the family's correlation on deals − 1 degrees of freedom
    (`simultaneous_critical`).

    A difference enters the family only when it is supported: each configuration has enough games and deals on
    every side the quantity involves, and the difference's own effective games and deals are enough. Otherwise it is
    printed without an interval and never judged: with a handful of games no large-sample interval of it holds (a
    one-sided record looks certain), and it would only stretch everyone else's critical value."""
    pairs: list[tuple[str, str, str, Array, float]] = []
    configs = f.design.configs
    for kind in (TOWN, MAFIA, COMBINED):
        for i, a in enumerate(configs):
            for b in configs[i + 1 :]:
                ea, eb = f.estimate(a, kind), f.estimate(b, kind)
                if ea is not None and eb is not None and abs(ea.quantity.weight - eb.quantity.weight) < 1e-6:
                    pairs.append((kind, a, b, ea.quantity.coef - eb.quantity.coef, ea.quantity.weight))
    if not pairs or f.clusters < 2:  # the jackknife needs two deals; the bootstrap's draws are not used here
        return [], math.nan
    held = support_of(f.design, f.theta, clusters, f.counts, [((a, b), kind, c) for kind, a, b, c, _ in pairs])
    coefs = np.stack([p[3] for p in pairs], axis=1)
    diffs = f.theta @ coefs
    cov = coefs.T @ f.covariance @ coefs
    raw = np.sqrt(np.clip(np.diag(cov), 0, None))
    se = np.sqrt(f.variances(coefs))  # the correlation is the jackknife's: the correction scales each difference
    ok = (se > 1e-12) & np.asarray([not s.sparse for s in held])
    corr = cov[np.ix_(ok, ok)] / np.outer(raw[ok], raw[ok])
    q = simultaneous_critical(corr, f.clusters - 1, level=level)
    out = []
    for j, ((kind, a, b, _, weight), support) in enumerate(zip(pairs, held, strict=True)):
        n = float(support.games)
        if support.sparse:
            iv = Interval(float(diffs[j]), math.nan, math.nan, n, support.deals)
        else:
            half = q * float(se[j]) if ok[j] else 0.0
            iv = Interval(float(diffs[j]), float(diffs[j]) - half, float(diffs[j]) + half, n, support.deals)
        out.append(Comparison(kind, a, b, iv, float(se[j]), support, weight))
    return out, q


# ----- baselines: where the gain over a sum-of-ratings rater comes from -------------------------------------------
@dataclass(frozen=True)
class Variant:
    """A rating model between the sum-of-ratings baseline and the side-aware model."""

    name: str
    two_skills: bool  # a town and a mafia skill, or one rating used on both sides
    mean: bool  # team strength the mean of its seats' skills, or the sum
    side: bool  # a side term per rule set


VARIANTS = (
    Variant("sum of ratings (openskill/TrueSkill team model)", False, False, False),
    Variant("+ side term", False, False, True),
    Variant("+ side term, mean instead of sum", False, True, True),
    Variant("+ side term, two skills (sum)", True, False, True),
    Variant("side-aware: two skills, mean, side term", True, True, True),
    Variant("two skills, mean, no side term", True, True, False),
)


def variant_design(v: Variant, games: Sequence[Match], configs: Sequence[str], rules: Sequence[str]) -> Array:
    index = {c: i for i, c in enumerate(configs)}
    r_index = {r: i for i, r in enumerate(rules)}
    k = len(rules) if v.side else 0
    c = len(configs)
    x = np.zeros((len(games), k + (2 * c if v.two_skills else c)))
    for row, m in enumerate(games):
        if v.side:
            x[row, r_index[m.rules]] = 1.0
        for name in m.town:
            x[row, k + index[name]] += 1.0 / len(m.town) if v.mean else 1.0
        for name in m.mafia:
            col = k + (c if v.two_skills else 0) + index[name]
            x[row, col] -= 1.0 / len(m.mafia) if v.mean else 1.0
    return x


def fit_sum(games: Sequence[Match], configs: Sequence[str]) -> Array:
    """The plain sum-of-ratings baseline: one rating per configuration, team strength the sum, no side term."""
    x = variant_design(VARIANTS[0], games, configs, [])
    y = np.asarray([1.0 if m.town_won else 0.0 for m in games])
    return np.asarray(penalised_fit(x, y, np.ones((1, len(y))), np.full(x.shape[1], PRIOR_SD))[0], dtype=np.float64)


def log_loss(y: Array, p: Array) -> float:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


@dataclass
class HeldOut:
    """Held-out log-loss (k-fold over deals) of each variant, and of a constant base rate."""

    folds: int
    games: int
    losses: dict[str, float]
    base_rate: float

    @property
    def side_aware(self) -> float:
        return self.losses[VARIANTS[4].name]

    @property
    def sum_of_ratings(self) -> float:
        return self.losses[VARIANTS[0].name]


def held_out(games: Sequence[Match], folds: int = 5, seed: int = 0) -> HeldOut:
    """k-fold cross-validation over deals (the games of one deal stay in one fold)."""
    configs = sorted({c for m in games for c in (*m.town, *m.mafia)})
    rules = sorted({m.rules for m in games})
    clusters = cluster_ids(deal_keys(games))
    order = np.random.default_rng(seed).permutation(int(clusters.max()) + 1)
    fold_of = np.empty_like(order)
    fold_of[order] = np.arange(len(order)) % folds
    y = np.asarray([1.0 if m.town_won else 0.0 for m in games])
    sums: dict[str, float] = {v.name: 0.0 for v in VARIANTS}
    base = 0.0
    counted = 0
    xs = {v.name: variant_design(v, games, configs, rules) for v in VARIANTS}
    for f in range(folds):
        test = fold_of[clusters] == f
        train = ~test
        if not test.any() or not train.any():
            continue
        for v in VARIANTS:
            x = xs[v.name]
            priors = np.full(x.shape[1], PRIOR_SD)
            if v.side:
                priors[: len(rules)] = SIDE_PRIOR_SD
            theta = penalised_fit(x[train], y[train], np.ones((1, int(train.sum()))), priors)[0]
            sums[v.name] += log_loss(y[test], expit(x[test] @ theta)) * int(test.sum())
        base += log_loss(y[test], np.full(int(test.sum()), float(y[train].mean()))) * int(test.sum())
        counted += int(test.sum())
    return HeldOut(folds, len(games), {k: v / counted for k, v in sums.items()}, base / counted)
