"""Before a tournament is played: what its schedule identifies, and how small a difference it can detect.

From the schedule's seatings alone (no results), the ratings' design matrix tells which quantities are identified
(`identify`). A difference is marked "better than" only when its simultaneous 95 % interval excludes zero, d ± q·se
(the report's max-|t| control over every supported pairwise comparison, se from the deal-level jackknife), so the
smallest difference detected with 80 % power is D = q·E[se] + z₀.₈·sd: E[se] the jackknife standard error the
report will print, expected given the design (`ratings.expected_covariances`, scaled as the report scales it by
`ratings.leverage_factors`), sd the estimate's sampling standard
deviation, and q the family's critical value computed as the report computes it (the expected jackknife
correlation, t on deals − 1 degrees of freedom), over the family the report will judge (the differences whose
configurations have enough games on each side, `ratings.Support`). Both are taken at a world where one
configuration of the pool is better than the others by D (a large D moves the chances away from ½, where a game
tells less), by a few fixed-point steps. The issue-18 version took the information at equal configurations and the
model's standard error: with 4 and 8 configurations its figure was marked in 73 % of simulated tournaments, not 80.

A difference is in the report's logits, which are population-averaged: game-level noise the model does not see
shrinks every one of them alike (about 7 % in the bench's world), so a world whose "true" skills differ by D shows a
little less than D. Standard errors shrink as 1/√games, which gives the games a wanted difference needs. The bench
(`python bench/ratings.py`) checks the 80 % against simulated tournaments played under a process the model does
not assume.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from arena.engine import RuleSet
from arena.research.identify import (
    COMBINED,
    MAFIA,
    TOWN,
    Design,
    Identification,
    Quantity,
    design,
    identify,
    statements,
)
from arena.research.intervals import cluster_ids, simultaneous_critical
from arena.research.ratings import expected_covariances, leverage_bias, leverage_factors, side_counts, support_of
from arena.research.records import Match, deal_keys

Array = NDArray[np.float64]
H0 = -0.4  # the town's logit among equals under fiim (about 40 %): the information is nearly flat around it
POWER = 0.8
LEVEL = 0.95
KINDS = (TOWN, MAFIA, COMBINED)


@dataclass
class Detectable:
    kind: str  # town | mafia | combined
    weight: float  # combined: the town skill's weight
    pairs: int  # comparisons of this kind among the pool (the filler left out)
    se: float  # the median standard error of a pairwise difference
    difference: float  # the smallest difference detected with 80 % power (the median pair)
    worst: float = math.nan  # the same for the least-measured pair (an unbalanced schedule's rarest two)


@dataclass
class Power:
    identification: Identification
    games: int
    critical: float  # the simultaneous critical value q of the whole family
    family: int  # comparisons in the family
    detectable: list[Detectable]
    pool: list[str] = field(default_factory=list)  # the configurations whose pairs count
    weak: list[tuple[str, str]] = field(default_factory=list)  # pool pairs identified, but on too few games to judge

    def games_for(self, difference: float, *, worst: bool = False) -> dict[str, int]:
        """Games needed for `difference` (logits) at 80 % power, per kind (SE ∝ 1/√games): for the median pair, or
        the least-measured one."""
        return {d.kind: max(1, math.ceil(self.games * ((d.worst if worst else d.difference) / difference) ** 2))
                for d in self.detectable}  # fmt: skip


def seatings_to_matches(seatings: Sequence[tuple[Sequence[str], Sequence[str]]], rules: str) -> list[Match]:
    """(labels per seat, roles per seat) of each scheduled game, as the model's two-sided games (no result)."""
    from arena.research.corpus import side_of

    out = []
    for labels, roles in seatings:
        town = tuple(c for c, r in zip(labels, roles, strict=True) if side_of(r) == TOWN)
        mafia = tuple(c for c, r in zip(labels, roles, strict=True) if side_of(r) == MAFIA)
        out.append(Match(rules, town, mafia, False))
    return out


def _quantity(ident: Identification, config: str, kind: str) -> Quantity | None:
    s = ident.status(config)
    return {TOWN: s.town, MAFIA: s.mafia, COMBINED: s.combined}[kind]


def _family(ident: Identification, names: set[str]) -> list[tuple[str, str, str, Array, bool, float]]:
    """(kind, a, b, coefficients, both in the pool, weight) of every difference the report would print."""
    d = ident.design
    out = []
    for kind in KINDS:
        for i, a in enumerate(d.configs):
            for b in d.configs[i + 1 :]:
                qa, qb = _quantity(ident, a, kind), _quantity(ident, b, kind)
                if qa is not None and qb is not None and abs(qa.weight - qb.weight) < 1e-6:
                    out.append((kind, a, b, qa.coef - qb.coef, a in names and b in names, qa.weight))
    return out


def _world(d: Design, first: str | None, kind: str, difference: float) -> Array:
    """θ at the side term H0 with every skill 0 but `first`'s, better by `difference` on `kind`."""
    theta = np.zeros(d.columns)
    theta[: d.n_rules] = H0
    if first is not None and difference:
        j = d.configs.index(first)
        if kind in (TOWN, COMBINED):
            theta[d.town_column(j)] = difference
        if kind in (MAFIA, COMBINED):
            theta[d.mafia_column(j)] = difference
    return theta


def _figures(
    d: Design, theta: Array, clusters: NDArray[np.int64], coefs: Array, keep: NDArray[np.bool_], seed: int
) -> tuple[float, Array]:
    """(q, D per difference) at θ: D = q·E[se] + z₀.₈·sd, q over the differences in `keep`."""
    model, expected = expected_covariances(d, theta, clusters)
    sd = np.sqrt(np.clip(np.einsum("pj,pq,qj->j", coefs, model, coefs), 0, None))
    cov = coefs.T @ expected @ coefs
    raw = np.sqrt(np.clip(np.diag(cov), 0, None))
    se = raw * np.sqrt(leverage_factors(leverage_bias(d, theta, clusters), coefs))  # as the report scales them
    good = keep & (se > 1e-12)
    if not good.any():
        return math.nan, np.full(coefs.shape[1], math.nan)
    deals = int(clusters.max()) + 1
    q = simultaneous_critical(cov[np.ix_(good, good)] / np.outer(raw[good], raw[good]), deals - 1, level=LEVEL,
                              seed=seed)  # fmt: skip
    return q, q * se + float(stats.norm.ppf(POWER)) * sd


def power(games: Sequence[Match], pool: Sequence[str] | None = None, *, seed: int = 0) -> Power:
    """The identification and detectable differences of a schedule (`pool`: the configurations whose pairs count
    for the figures, in the pool's order; default all)."""
    d = design(games)
    ident = identify(d)
    names = list(pool) if pool is not None else list(d.configs)
    family = _family(ident, set(names))
    if not family:
        return Power(ident, len(games), math.nan, 0, [], names)
    clusters = cluster_ids(deal_keys(games))
    counts = side_counts(d, clusters)
    coefs = np.stack([f[3] for f in family], axis=1)
    null = _world(d, None, TOWN, 0.0)
    held = support_of(d, null, clusters, counts, [((a, b), kind, c) for kind, a, b, c, _, _ in family])
    keep = np.asarray([not s.sparse for s in held])
    q, at_null = _figures(d, null, clusters, coefs, keep, seed)
    pairs = {(f[1], f[2]) for f in family if f[4]}
    weak = sorted(pair for pair in pairs if not any(keep[j] for j, f in enumerate(family) if (f[1], f[2]) == pair))
    if not math.isfinite(q):
        return Power(ident, len(games), math.nan, 0, [], names, weak)
    out = []
    first = next((n for n in names if n in d.configs), None)
    for kind in KINDS:
        mine = [j for j, f in enumerate(family) if f[0] == kind and f[4] and keep[j]]
        if not mine:
            continue
        weight = family[mine[0]][5]
        middle, worst = float(np.median(at_null[mine])), float(np.max(at_null[mine]))
        scale = 1.0
        pair = next((j for j in mine if first in family[j][1:3]), mine[0])
        for _ in range(3):  # the information at a world where `first` is better by the figure itself
            _, moved = _figures(d, _world(d, first, kind, scale * middle), clusters, coefs, keep, seed)
            scale = float(moved[pair] / at_null[pair])
        raw = np.clip(np.einsum("pj,pq,qj->j", coefs[:, mine], expected_covariances(d, null, clusters)[1],
                                coefs[:, mine]), 0, None)
        se = float(np.median(np.sqrt(raw * leverage_factors(leverage_bias(d, null, clusters), coefs[:, mine]))))
        out.append(Detectable(kind, weight, len(mine), se, scale * middle, scale * worst))
    return Power(ident, len(games), q, int(keep.sum()), out, names, weak)


def warning(p: Power) -> str | None:
    """One line when the schedule cannot separate what the pool compares: skills it does not tell apart, pairs it
    cannot compare at all, or pairs it identifies on too few games for the report to judge."""
    ident = p.identification
    pool = [s for s in ident.configs if s.config in p.pool]
    if any(s.town is None and s.mafia is None and s.combined is None for s in pool):
        names = ", ".join(s.config for s in pool if s.town is None and s.mafia is None and s.combined is None)
        return f"warning: this schedule cannot compare {names} with the rest of the pool: nothing of it is identified"
    if any(not s.separable for s in pool):
        weights = ident.combination_weights()
        what = f"{weights[0]:.2f}·town + {1 - weights[0]:.2f}·mafia" if weights else "part of their skills"
        return (f"warning: this schedule cannot separate town from mafia skill: the pool is compared only on {what} "
                "(`schedule = \"sides\"` rates both)")  # fmt: skip
    if p.weak:
        shown = ", ".join(f"{a}/{b}" for a, b in p.weak[:3]) + (" ..." if len(p.weak) > 3 else "")
        return (f"warning: {len(p.weak)} pair(s) of the pool ({shown}) are identified on too few games on a side to be "
                "judged: the report will print them without an interval")  # fmt: skip
    return None


def describe(p: Power, detect: float | None = None, plans_for: Callable[[int], Power] | None = None) -> list[str]:
    """Plain lines for `arena tournament --dry-run` (and `--detect D`: the games needed, checked once against the
    schedule of that length when `plans_for` can build it)."""
    ident = p.identification
    lines = [f"What this schedule identifies ({p.games} games; design rank {ident.rank} of {ident.columns}):"]
    note = warning(p)
    if note:
        lines.insert(0, note)
    lines += [f"  {line}" for line in statements(ident)]
    if not ident.separable:
        weights = ident.combination_weights()
        if weights:
            w = weights[0]
            lines.append(
                f"  Town and mafia skills are not separable here: each configuration is rated by "
                f"{w:.2f}·town + {1 - w:.2f}·mafia. For both skills use `schedule = \"sides\"`."
            )
    if not p.detectable:
        lines.append("No pairwise difference of the pool is identified.")
        return lines
    lines.append(
        f"Smallest difference detected with 80 % power (the report's logits; simultaneous 95 % control over "
        f"{p.family} comparisons, q = {p.critical:.2f}):"
    )
    for d in p.detectable:
        over = "its one pair" if d.pairs == 1 else f"the median of its {d.pairs} pairs"
        uneven = f"; {d.worst:.2f} for the least-measured pair" if d.worst > 1.05 * d.difference else ""
        lines.append(f"  {_label(d)}: {d.difference:.2f} (standard error {d.se:.3f}, {over}{uneven}; "
                     "the filler left out)")  # fmt: skip
    if detect is not None:
        lines.append(f"Games needed to detect a difference of {detect:g} with 80 % power:")
        needed, least = p.games_for(detect), p.games_for(detect, worst=True)
        for d in p.detectable:
            n, m = needed[d.kind], least[d.kind]
            if plans_for is not None:  # one correction: the schedule of that length, not a scaled one
                again = next((x for x in plans_for(n).detectable if x.kind == d.kind), None)
                if again is not None:
                    n = max(1, math.ceil(n * (again.difference / detect) ** 2))
                    m = max(1, math.ceil(n * (again.worst / again.difference) ** 2))
            tail = f" ({m} for the least-measured pair)" if m > 1.1 * n else ""
            lines.append(f"  {_label(d)}: {n} games{tail}")
    return lines


def schedule_power(labels: Sequence[str], filler: str, rules: RuleSet, games: int, seed: int, kind: str) -> Power:
    """The power of the tournament schedule `arena/tournament/schedule.py` builds for these inputs."""
    from arena.tournament.schedule import make_schedule

    plans = make_schedule(labels, filler, rules, games, seed, kind=kind)
    seatings = [(p.labels, [r.value for r in p.roles]) for p in plans]
    return power(seatings_to_matches(seatings, rules.name), labels)


def schedule_lines(
    labels: Sequence[str], filler: str, rules: RuleSet, games: int, seed: int, kind: str, detect: float | None
) -> list[str]:
    """What `arena tournament --dry-run` (and `--detect D`) prints about the schedule's statistics."""
    p = schedule_power(labels, filler, rules, games, seed, kind)
    return describe(p, detect, lambda n: schedule_power(labels, filler, rules, n, seed, kind))


def _label(d: Detectable) -> str:
    if d.kind == COMBINED:
        if abs(d.weight - 0.5) < 1e-9:
            return "combined skill ((town + mafia) / 2)"
        return f"identified combination ({d.weight:.2f}·town + {1 - d.weight:.2f}·mafia)"
    return f"{d.kind} skill"
