"""Side-aware Bradley–Terry ratings for a 7-against-3 game, with bootstrap intervals (see docs/ratings.md).

    P(town wins) = σ(h[rules] + mean town skill of the town seats − mean mafia skill of the black seats)

Each configuration (a seat's agent name) has a town skill and a mafia skill; each rule set has a side-advantage term
`h`. Means, not sums: a team of seven is not seven times as strong as a team of three. Skills are reported centred
(the mean configuration is 0 on each side; the shift goes into `h`, which is what makes them identifiable). The fit
is a penalised maximum likelihood (scipy L-BFGS) with a weak Gaussian prior, so small samples and one-sided records
stay finite; 95 % intervals come from a bootstrap over games. Win rates per side carry Wilson intervals, and the
invalid-action rates (re-asks, defaults, timeouts per decision) are reported beside the skill, never mixed in.

`fit_sum` is the plain sum-of-ratings baseline (one rating per configuration, team strength = the sum, no side
term), the model behind openskill/TrueSkill team ratings, kept for the held-out comparison.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import expit

from arena.research.corpus import MAFIA, TOWN, Corpus, GameData

Array = NDArray[np.float64]
PRIOR_SD = 3.0  # weak: a skill of ±3 on the logit scale is already a near-certain win
SIDE_PRIOR_SD = 5.0
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Match:
    """One two-sided game as the model sees it: the configuration of each town and each black seat."""

    rules: str
    town: tuple[str, ...]
    mafia: tuple[str, ...]
    town_won: bool


def matches(corpus: Corpus) -> list[Match]:
    """The games with a town or mafia winner (maniac wins and draws carry no two-sided result)."""
    out: list[Match] = []
    for g in corpus.games:
        if g.winner not in (TOWN, MAFIA):
            continue
        town = tuple(g.configs[s] for s in sorted(g.roles) if g.side(s) == TOWN)
        mafia = tuple(g.configs[s] for s in sorted(g.roles) if g.side(s) == MAFIA)
        out.append(Match(g.rules, town, mafia, g.winner == TOWN))
    return out


@dataclass
class Design:
    """The model's design matrix: columns are h per rule set, then town skills, then mafia skills."""

    rules: list[str]
    configs: list[str]
    x: Array
    y: Array

    @property
    def n_rules(self) -> int:
        return len(self.rules)

    @property
    def n_configs(self) -> int:
        return len(self.configs)


def design(games: Sequence[Match], configs: Sequence[str] | None = None, rules: Sequence[str] | None = None) -> Design:
    rule_names = list(rules) if rules is not None else sorted({m.rules for m in games})
    names = list(configs) if configs is not None else sorted({c for m in games for c in (*m.town, *m.mafia)})
    r_index = {r: i for i, r in enumerate(rule_names)}
    c_index = {c: i for i, c in enumerate(names)}
    k, c = len(rule_names), len(names)
    x = np.zeros((len(games), k + 2 * c))
    y = np.zeros(len(games))
    for row, m in enumerate(games):
        x[row, r_index[m.rules]] = 1.0
        for name in m.town:
            x[row, k + c_index[name]] += 1.0 / len(m.town)
        for name in m.mafia:
            x[row, k + c + c_index[name]] -= 1.0 / len(m.mafia)
        y[row] = 1.0 if m.town_won else 0.0
    return Design(rule_names, names, x, y)


def _penalised_fit(x: Array, y: Array, prior_sd: Array, start: Array | None = None) -> Array:
    """argmin of the logistic loss plus θ²/(2σ²). The loss is convex and the parameters few, so scipy's exact
    trust-region Newton method (gradient and Hessian given) converges in a handful of steps."""
    inv_var = 1.0 / prior_sd**2

    def loss(theta: Array) -> tuple[float, Array]:
        z = x @ theta
        # log(1 + e^z) − y z, computed stably
        nll = float(np.sum(np.logaddexp(0.0, z) - y * z))
        grad = x.T @ (expit(z) - y) + theta * inv_var
        return nll + 0.5 * float(np.sum(theta**2 * inv_var)), grad

    def hessian(theta: Array) -> Array:
        p = expit(x @ theta)
        return np.asarray((x.T * (p * (1 - p))) @ x + np.diag(inv_var), dtype=np.float64)

    theta0 = start if start is not None else np.zeros(x.shape[1])
    result = minimize(loss, theta0, jac=True, hess=hessian, method="trust-exact")
    return np.asarray(result.x, dtype=np.float64)


def _priors(d: Design) -> Array:
    return np.concatenate([np.full(d.n_rules, SIDE_PRIOR_SD), np.full(2 * d.n_configs, PRIOR_SD)])


def centred(d: Design, theta: Array) -> Array:
    """Skills centred per side (mean configuration = 0), the shift folded into every rule set's h."""
    k, c = d.n_rules, d.n_configs
    out = theta.copy()
    town_mean = float(theta[k : k + c].mean())
    mafia_mean = float(theta[k + c :].mean())
    out[:k] += town_mean - mafia_mean
    out[k : k + c] -= town_mean
    out[k + c :] -= mafia_mean
    return out


def fit_theta(d: Design, start: Array | None = None) -> Array:
    return centred(d, _penalised_fit(d.x, d.y, _priors(d), start))


def predict(d: Design, theta: Array) -> Array:
    """P(town wins) for each row of the design."""
    return np.asarray(expit(d.x @ theta), dtype=np.float64)


@dataclass
class Interval:
    value: float
    low: float
    high: float

    def overlaps(self, other: Interval) -> bool:
        return self.low <= other.high and other.low <= self.high


@dataclass
class Rating:
    config: str
    town: Interval
    mafia: Interval
    combined: Interval  # (town + mafia) / 2


@dataclass
class Fit:
    """A fitted side-aware model with bootstrap intervals."""

    design: Design
    theta: Array
    samples: Array  # bootstrap draws of theta (rows)
    side: dict[str, Interval] = field(default_factory=dict)  # h per rule set
    ratings: list[Rating] = field(default_factory=list)

    def rating(self, config: str) -> Rating:
        return next(r for r in self.ratings if r.config == config)


def _interval(value: float, draws: Array) -> Interval:
    low, high = np.percentile(draws, [2.5, 97.5]) if len(draws) else (value, value)
    return Interval(value, float(low), float(high))


def fit(games: Sequence[Match], *, boot: int = 200, seed: int = 0) -> Fit:
    """Fit the side-aware model and bootstrap it over games (`boot` resamples; 0 gives point estimates only)."""
    if not games:
        raise ValueError("no two-sided finished games to rate")
    d = design(games)
    theta = fit_theta(d)
    rng = np.random.default_rng(seed)
    draws = np.empty((boot, len(theta)))
    n = len(games)
    for b in range(boot):
        pick = rng.integers(0, n, n)
        sub = Design(d.rules, d.configs, d.x[pick], d.y[pick])
        draws[b] = fit_theta(sub, start=theta)
    k, c = d.n_rules, d.n_configs
    out = Fit(d, theta, draws)
    out.side = {r: _interval(float(theta[i]), draws[:, i]) for i, r in enumerate(d.rules)}
    for j, name in enumerate(d.configs):
        t, m = k + j, k + c + j
        both = (draws[:, t] + draws[:, m]) / 2
        out.ratings.append(
            Rating(
                name,
                _interval(float(theta[t]), draws[:, t]),
                _interval(float(theta[m]), draws[:, m]),
                _interval(float(theta[t] + theta[m]) / 2, both),
            )
        )
    out.ratings.sort(key=lambda r: -r.combined.value)
    return out


# ----- the sum-of-ratings baseline ----------------------------------------------------------------------------------
def sum_design(games: Sequence[Match], configs: Sequence[str]) -> tuple[Array, Array]:
    """One rating per configuration; a team's strength is the sum of its seats' ratings (no side term)."""
    index = {c: i for i, c in enumerate(configs)}
    x = np.zeros((len(games), len(configs)))
    y = np.zeros(len(games))
    for row, m in enumerate(games):
        for name in m.town:
            x[row, index[name]] += 1.0
        for name in m.mafia:
            x[row, index[name]] -= 1.0
        y[row] = 1.0 if m.town_won else 0.0
    return x, y


def fit_sum(games: Sequence[Match], configs: Sequence[str]) -> Array:
    x, y = sum_design(games, configs)
    return _penalised_fit(x, y, np.full(len(configs), PRIOR_SD))


def log_loss(y: Array, p: Array) -> float:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


@dataclass
class HeldOut:
    """Held-out log-loss (k-fold over games) of the side-aware model and the sum-of-ratings baseline."""

    folds: int
    games: int
    side_aware: float
    sum_of_ratings: float
    base_rate: float  # a constant P(town) from the training folds: the floor any model should beat


def held_out(games: Sequence[Match], folds: int = 5, seed: int = 0) -> HeldOut:
    configs = sorted({c for m in games for c in (*m.town, *m.mafia)})
    rules = sorted({m.rules for m in games})
    order = np.random.default_rng(seed).permutation(len(games))
    losses: dict[str, list[float]] = {"side": [], "sum": [], "base": []}
    weights: list[int] = []
    for f in range(folds):
        test_idx = order[f::folds]
        train = [games[i] for i in order if i not in set(test_idx)]
        test = [games[i] for i in test_idx]
        if not test or not train:
            continue
        d_train = design(train, configs, rules)
        theta = fit_theta(d_train)
        d_test = design(test, configs, rules)
        losses["side"].append(log_loss(d_test.y, predict(d_test, theta)))
        r = fit_sum(train, configs)
        x_test, y_test = sum_design(test, configs)
        losses["sum"].append(log_loss(y_test, expit(x_test @ r)))
        base = float(d_train.y.mean())
        losses["base"].append(log_loss(d_test.y, np.full(len(test), base)))
        weights.append(len(test))
    w = np.asarray(weights, dtype=np.float64)

    def mean(key: str) -> float:
        return float(np.average(losses[key], weights=w))

    return HeldOut(folds, len(games), mean("side"), mean("sum"), mean("base"))


# ----- win rates and discipline, beside the skill --------------------------------------------------------------------
def wilson(wins: int, n: int, z: float = Z95) -> Interval:
    """The Wilson score interval for a proportion (sound at 0 %, 100 % and small n)."""
    if n == 0:
        return Interval(math.nan, 0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class SideRecord:
    config: str
    side: str
    seats: int  # seat-games: a configuration on one seat of one game
    wins: int
    rate: Interval


def win_rates(games: Sequence[GameData]) -> list[SideRecord]:
    """Per configuration and side: wins over seat-games (draws and maniac wins count as not won)."""
    tally: dict[tuple[str, str], list[int]] = {}
    for g in games:
        for seat, config in g.configs.items():
            side = g.side(seat)
            if side is None:
                continue
            cell = tally.setdefault((config, side), [0, 0])
            cell[0] += 1
            cell[1] += 1 if g.won(seat) else 0
    return [SideRecord(c, s, n, w, wilson(w, n)) for (c, s), (n, w) in sorted(tally.items())]


@dataclass
class Discipline:
    """Invalid actions per decision, from the end record's per-seat counters: reported beside the skill."""

    config: str
    decisions: int
    reasks: int  # answers the engine refused
    defaults: int  # requests settled by the rule's default
    timeouts: int
    errors: int

    def rate(self, count: int) -> float:
        return count / self.decisions if self.decisions else 0.0

    @property
    def invalid_rate(self) -> float:
        """Re-asks, timeouts and errors per decision: every failed attempt."""
        return self.rate(self.reasks + self.timeouts + self.errors)


def discipline(games: Sequence[GameData]) -> list[Discipline]:
    out: dict[str, Discipline] = {}
    for g in games:
        for seat, counters in g.counters.items():
            config = g.configs.get(int(seat))
            if config is None:
                continue
            d = out.setdefault(config, Discipline(config, 0, 0, 0, 0, 0))
            d.decisions += counters.decisions
            d.reasks += counters.invalid
            d.defaults += counters.defaults
            d.timeouts += counters.timeouts
            d.errors += counters.errors
    return [out[c] for c in sorted(out)]


# ----- simulation (validation) ----------------------------------------------------------------------------------------
@dataclass
class Truth:
    """Known side-aware skills to draw games from (already centred)."""

    h: float
    town: dict[str, float]
    mafia: dict[str, float]

    def p_town(self, m: Match) -> float:
        t = sum(self.town[c] for c in m.town) / len(m.town)
        k = sum(self.mafia[c] for c in m.mafia) / len(m.mafia)
        return float(expit(self.h + t - k))


def simulate(
    truth: Truth, games: int, rng: np.random.Generator, town: int = 7, mafia: int = 3, mixed: bool = False
) -> list[Match]:
    """Games drawn from `truth`. Seatings as a tournament plays them: one configuration per side, drawn at random
    (`mixed`: every seat drawn on its own, which carries far less information per game about each skill)."""
    names = sorted(truth.town)
    out: list[Match] = []
    for _ in range(games):
        if mixed:
            t = tuple(names[i] for i in rng.integers(0, len(names), town))
            k = tuple(names[i] for i in rng.integers(0, len(names), mafia))
        else:
            t = (names[int(rng.integers(0, len(names)))],) * town
            k = (names[int(rng.integers(0, len(names)))],) * mafia
        m = Match("sim", t, k, False)
        out.append(Match("sim", t, k, bool(rng.random() < truth.p_town(m))))
    return out


@dataclass
class Coverage:
    simulations: int
    covered: int
    total: int  # parameters checked (h and every centred skill, over all simulations)
    order_recovered: int  # simulations whose combined-skill ranking equals the true one

    @property
    def rate(self) -> float:
        return self.covered / self.total if self.total else 0.0


def coverage(truth: Truth, simulations: int, games: int, boot: int, seed: int = 0, mixed: bool = False) -> Coverage:
    """Draw `simulations` data sets from `truth`, fit each with bootstrap intervals, count how often the 95 %
    intervals hold the true values, and how often the ranking by combined skill is the true one."""
    rng = np.random.default_rng(seed)
    true_order = sorted(truth.town, key=lambda c: -(truth.town[c] + truth.mafia[c]))
    covered = total = recovered = 0
    for i in range(simulations):
        f = fit(simulate(truth, games, rng, mixed=mixed), boot=boot, seed=seed * 7919 + i)
        checks = [(f.side["sim"], truth.h)]
        for r in f.ratings:
            checks += [(r.town, truth.town[r.config]), (r.mafia, truth.mafia[r.config])]
        covered += sum(1 for iv, true in checks if iv.low <= true <= iv.high)
        total += len(checks)
        recovered += [r.config for r in f.ratings] == true_order
    return Coverage(simulations, covered, total, recovered)
