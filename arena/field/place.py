"""Where an entrant stands on a frozen field's scale: its town and mafia skills fitted with every field rating held
fixed, their mean, and an interval for each that allows for the games of one deal being correlated.

The field's ratings (the side term `h`, each member's town skill `t_j` and mafia skill `m_j`, from the side-aware
model of docs/ratings.md, fitted once when the field was frozen) are constants here. Every placement game seats the
entrant on a whole side against one member on the other, so each game has one free parameter:

    entrant holds the town against member j:   P(town wins)  = σ(h + t_E − m_j)
    entrant holds the mafia against member j:  P(mafia wins) = σ(m_E − h − t_j)

`t_E` and `m_E` are each a one-parameter logistic regression with known offsets, identified by any game of that side
(no rank question arises: the field fixes every other column). The combined placement is (t_E + m_E) / 2, the
members' own combined skills being (t_j + m_j) / 2 on the same scale. What a placement identifies, in words: the
town skill, the mafia skill and their mean at which the frozen model predicts the entrant's results against these
opponents, under these rules and on these deals (its pseudo-true value when the model is not the truth).

- **The fit**: Firth's bias-reduced estimate (the modified score Σ(y − μ) + ½ Σ w(1 − 2μ) / Σ w = 0, w = μ(1 − μ),
  solved by bisection): finite when an entrant wins or loses every game of a side, and nearly unbiased at few games.
- **The interval**: estimate ± t₍G−1₎ · se over G deals, se from the leave-one-deal-out jackknife (a deal's two
  games, one per side, leave together, so the combined skill's interval carries their correlation), each side's
  variance never below the model's own at the estimate (a record with no spread, every game won, has a jackknife of
  zero).
- **Stopping at a width** (`--until-width W`): Stein's two-stage procedure. A pilot of `pilot` deals gives the
  per-deal spread s and its t quantile q on pilot − 1 degrees of freedom; the placement then plays
  N = max(pilot, ⌈(2·q·s / W)²⌉) deals (capped) and prints estimate ± q·s/√N, which is at most W wide. N depends on
  the pilot only, so the interval keeps its coverage; stopping when an interval recomputed after every deal is first
  narrow enough does not (it stops on a lucky small spread), and `bench/reference.py` shows both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy import stats

Array = NDArray[np.float64]
TOWN, MAFIA, COMBINED = "town", "mafia", "combined"
LEVEL = 0.95
_BRACKET = 30.0  # logits: far beyond any skill a field measures
_STEPS = 64  # bisection halvings of the bracket: 60 / 2^64 is below a double's resolution at these magnitudes


@dataclass(frozen=True)
class Frozen:
    """A field's frozen ratings: the side term and each member's town and mafia skill (logits)."""

    h: float
    town: dict[str, float]
    mafia: dict[str, float]

    def combined(self, member: str) -> float:
        return (self.town[member] + self.mafia[member]) / 2

    def offset(self, member: str, side: str) -> float:
        """The entrant's win logit minus its own skill on `side`, against `member`."""
        return self.h - self.mafia[member] if side == TOWN else -(self.h + self.town[member])


@dataclass(frozen=True)
class Outcome:
    """One two-sided placement game as the fit sees it."""

    deal: int  # the deal's index: the games of a deal share its cards, so they are one cluster
    member: str  # the field member across the table
    side: str  # the entrant's side: town | mafia
    won: bool  # the entrant's side won


@dataclass(frozen=True)
class Estimate:
    """One placed quantity with its interval, the games behind it and the deals they fall in."""

    kind: str  # town | mafia | combined
    value: float
    low: float
    high: float
    se: float
    games: int
    deals: int

    @property
    def width(self) -> float:
        return self.high - self.low

    def covers(self, value: float) -> bool:
        return self.low <= value <= self.high


@dataclass
class Placement:
    """An entrant placed on a field: town, mafia and combined, each with its interval."""

    estimates: dict[str, Estimate]
    deals: int
    games: int
    critical: float  # the t quantile the intervals use
    spread: float = math.nan  # the combined skill's per-deal standard deviation (se · √deals)
    rule: str = "fixed games"
    notes: list[str] = field(default_factory=list)

    @property
    def combined(self) -> Estimate:
        return self.estimates[COMBINED]


def t_quantile(deals: int, level: float = LEVEL) -> float:
    return float(stats.t.ppf(0.5 + level / 2, max(deals - 1, 1)))


def firth(offsets: Array, won: Array, weights: Array) -> Array:
    """Firth's estimate of β in P(won) = σ(offset + β), once per row of `weights` (rows × games: 1 counts a game,
    0 leaves it out). Bisection on the modified score, which falls from +½ + Σy to −½ − Σ(1 − y) over the bracket,
    so it always has a root and needs no starting point."""
    low = np.full(weights.shape[0], -_BRACKET)
    high = np.full(weights.shape[0], _BRACKET)
    for _ in range(_STEPS):
        mid = (low + high) / 2
        mu = 1 / (1 + np.exp(-(offsets[None, :] + mid[:, None])))
        w = mu * (1 - mu) * weights
        info = np.maximum(w.sum(axis=1), 1e-300)
        score = (weights * (won[None, :] - mu)).sum(axis=1) + 0.5 * (w * (1 - 2 * mu)).sum(axis=1) / info
        up = score > 0
        low = np.where(up, mid, low)
        high = np.where(up, high, mid)
    return np.asarray((low + high) / 2, dtype=np.float64)


def information(offsets: Array, beta: float) -> float:
    mu = 1 / (1 + np.exp(-(offsets + beta)))
    return float(np.sum(mu * (1 - mu)))


@dataclass
class _Side:
    value: float
    deleted: Array  # per deal: the estimate without that deal's games
    games: int
    info: float


def _side(outcomes: Sequence[Outcome], frozen: Frozen, side: str, deals: int) -> _Side | None:
    mine = [o for o in outcomes if o.side == side]
    if not mine:
        return None
    offsets = np.asarray([frozen.offset(o.member, side) for o in mine])
    won = np.asarray([1.0 if o.won else 0.0 for o in mine])
    of_deal = np.asarray([o.deal for o in mine])
    rows = np.ones((deals + 1, len(mine)))
    rows[:deals][np.arange(deals)[:, None] == of_deal[None, :]] = 0.0  # row d leaves deal d out; the last keeps all
    fitted = firth(offsets, won, rows)
    return _Side(float(fitted[-1]), fitted[:-1], len(mine), information(offsets, float(fitted[-1])))


def _jackknife(a: Array, b: Array) -> float:
    deals = len(a)
    return float((deals - 1) / deals * np.sum((a - a.mean()) * (b - b.mean()))) if deals > 1 else math.inf


def _estimate(kind: str, value: float, var: float, games: int, deals: int, q: float) -> Estimate:
    se = math.sqrt(var)
    return Estimate(kind, value, value - q * se, value + q * se, se, games, deals)


def place(outcomes: Sequence[Outcome], frozen: Frozen, level: float = LEVEL, *, floor: bool = True) -> Placement:
    """The placement from two-sided games (draws and maniac wins are left out before this), deals numbered from 0.

    Each side's variance is its leave-one-deal-out jackknife, never below the model's own 1 / information at the
    estimate (a side won or lost in every game has a jackknife of zero; with a handful of decisive games it swings
    widely); the combined skill adds the two sides' jackknife covariance (a deal's luck pushes the town skill one
    way and the mafia skill the other, so pairing the sides on a deal narrows the mean), kept within what the two
    variances allow. Deals are renumbered densely; a deal with games on one side only is still a cluster.
    `floor=False` drops the model's floor (the plain jackknife: `bench/reference.py` shows what that costs)."""
    if not outcomes:
        raise ValueError("no two-sided placement games to fit")
    index = {d: i for i, d in enumerate(sorted({o.deal for o in outcomes}))}
    games = [Outcome(index[o.deal], o.member, o.side, o.won) for o in outcomes]
    deals = len(index)
    q = t_quantile(deals, level)
    sides = {kind: _side(games, frozen, kind, deals) for kind in (TOWN, MAFIA)}
    var: dict[str, float] = {}
    out: dict[str, Estimate] = {}
    for kind, s in sides.items():
        if s is not None:
            jack = _jackknife(s.deleted, s.deleted)
            var[kind] = max(jack, 1 / max(s.info, 1e-12)) if floor else jack
            out[kind] = _estimate(kind, s.value, var[kind], s.games, deals, q)
    town, mafia = sides[TOWN], sides[MAFIA]
    if town is not None and mafia is not None:
        bound = math.sqrt(var[TOWN] * var[MAFIA])
        cov = min(bound, max(-bound, _jackknife(town.deleted, mafia.deleted)))
        out[COMBINED] = _estimate(COMBINED, (town.value + mafia.value) / 2, (var[TOWN] + var[MAFIA] + 2 * cov) / 4,
                                  town.games + mafia.games, deals, q)  # fmt: skip
    placement = Placement(out, deals, len(games), q)
    if COMBINED in out:
        placement.spread = out[COMBINED].se * math.sqrt(deals)
    return placement


# ----- stopping at a width ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """Stein's second stage, computed from the pilot alone: how many deals in all, and the interval's half-width
    factor (q·s, divided by √N at the end)."""

    pilot: int
    deals: int
    spread: float  # s: the pilot's per-deal standard deviation of the combined skill
    critical: float  # q: t quantile on pilot − 1 degrees of freedom
    capped: bool  # the cap stopped it before the width was reached

    def half_width(self, deals: int) -> float:
        return self.critical * self.spread / math.sqrt(deals)


def stein_plan(pilot: Placement, width: float, cap_deals: int, level: float = LEVEL) -> Plan:
    """The deals Stein's procedure plays in all for an interval at most `width` wide, from the pilot's placement."""
    q = t_quantile(pilot.deals, level)
    s = pilot.spread
    needed = max(pilot.deals, math.ceil((2 * q * s / width) ** 2)) if width > 0 else cap_deals
    return Plan(pilot.deals, min(needed, cap_deals), s, q, needed > cap_deals)


def stein_interval(final: Placement, plan: Plan) -> Placement:
    """The placement of all N deals with Stein's interval on the combined skill: estimate ± q·s/√N, q and s the
    pilot's (the town and mafia skills keep their own fixed-games intervals, as side information)."""
    c = final.combined
    half = plan.half_width(final.deals)
    stein = Estimate(COMBINED, c.value, c.value - half, c.value + half, plan.spread / math.sqrt(final.deals), c.games,
                     c.deals)  # fmt: skip
    rule = (f"Stein's two-stage procedure: a pilot of {plan.pilot} deals, then {plan.deals} deals in all "
            f"(s = {plan.spread:.3f}, q = {plan.critical:.3f} on {plan.pilot - 1} degrees of freedom)")  # fmt: skip
    out = Placement({**final.estimates, COMBINED: stein}, final.deals, final.games, plan.critical, plan.spread, rule,
                    list(final.notes))  # fmt: skip
    if plan.capped:
        out.notes.append("the games cap was reached before the width: the interval is wider than asked")
    return out
