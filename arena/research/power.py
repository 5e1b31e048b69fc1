"""Before a tournament is played: what its schedule identifies, and how small a difference it can detect.

From the schedule's seatings alone (no results), the ratings' design matrix tells which quantities are identified
(`identify`), and its Fisher information at equal configurations, I = Xᵀ W X with W = p(1 − p) at the side term
`H0`, gives each pairwise difference's standard error. A difference is marked "better than" only when its
simultaneous 95 % interval excludes zero (the report's max-|t| control over every pairwise comparison it prints), so
the smallest difference detected with 80 % power is (q + z₀.₈) · SE, with q the simultaneous critical value of that
family, computed as the report computes it (`simultaneous_critical`: the family's correlation, t on deals − 1
degrees of freedom). A difference is in the report's logits, which are population-averaged: game-level noise the
model does not see shrinks every one of them alike (about 7 % in the bench's world), so a world whose "true" skills
differ by D shows a little less than D. Standard errors shrink as 1/√games, which gives the games a wanted
difference needs. The bench (`python bench/ratings.py`) checks the 80 % against simulated tournaments
played under a process the model does not assume.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from arena.engine import RuleSet
from arena.research.identify import COMBINED, MAFIA, TOWN, Identification, design, identify, statements
from arena.research.intervals import simultaneous_critical
from arena.research.ratings import PRIOR_SD, SIDE_PRIOR_SD
from arena.research.records import Match

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


def power(games: Sequence[Match], pool: Sequence[str] | None = None, *, seed: int = 0) -> Power:
    """The identification and detectable differences of a schedule (`pool`: the configurations whose pairs count
    for the figures; default all)."""
    d = design(games)
    ident = identify(d)
    p = 1 / (1 + math.exp(-H0))
    priors = np.concatenate([np.full(d.n_rules, SIDE_PRIOR_SD), np.full(2 * d.n_configs, PRIOR_SD)])
    info = d.x.T @ d.x * p * (1 - p) + np.diag(1 / priors**2)
    cov = np.linalg.inv(info)
    names = set(pool) if pool is not None else set(d.configs)
    family: list[tuple[str, bool, np.ndarray]] = []
    for kind in KINDS:
        for i, a in enumerate(d.configs):
            for b in d.configs[i + 1 :]:
                qa, qb = _quantity(ident, a, kind), _quantity(ident, b, kind)
                if qa is not None and qb is not None:
                    family.append((kind, a in names and b in names, qa - qb))
    if not family:
        return Power(ident, len(games), math.nan, 0, [])
    c = np.stack([f[2] for f in family], axis=1)
    v = c.T @ cov @ c
    se = np.sqrt(np.clip(np.diag(v), 0, None))
    deals = len({g.deal or i for i, g in enumerate(games)})
    q = simultaneous_critical(v / np.outer(se, se), deals - 1, level=LEVEL, seed=seed)
    z = float(stats.norm.ppf(POWER))
    out = []
    for kind in KINDS:
        ses = [float(se[j]) for j, f in enumerate(family) if f[0] == kind and f[1]]
        if not ses:
            continue
        weight = next((s.combined.weight for s in ident.configs if s.combined is not None and kind == COMBINED), 1.0)
        middle = float(np.median(ses))
        factor = q + z
        out.append(Detectable(kind, weight, len(ses), middle, factor * middle, factor * max(ses)))
    return Power(ident, len(games), q, len(family), out)


def _quantity(ident: Identification, config: str, kind: str) -> np.ndarray | None:
    s = ident.status(config)
    q = {TOWN: s.town, MAFIA: s.mafia, COMBINED: s.combined}[kind]
    return None if q is None else q.coef


def describe(p: Power, detect: float | None = None, plans_for: Callable[[int], Power] | None = None) -> list[str]:
    """Plain lines for `arena tournament --dry-run` (and `--detect D`: the games needed, checked once against the
    schedule of that length when `plans_for` can build it)."""
    ident = p.identification
    lines = [f"What this schedule identifies ({p.games} games; design rank {ident.rank} of {ident.columns}):"]
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
