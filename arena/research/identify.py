"""What a design identifies, computed before anything is fitted (see docs/ratings.md, "What a schedule identifies").

The ratings model is a logistic regression on a design matrix X (one row per game; columns: the side term of each
rule set, a town skill and a mafia skill per configuration). A linear quantity c·θ (a centred town skill, a
difference of two skills, the side term) is estimable exactly when c lies in the row space of X, i.e. is orthogonal
to X's null space: only then do the data pin it down; otherwise a prior, not the games, would choose its value.

The typical case is tournament seating, where each configuration holds one seat per game and a filler the rest.
There a configuration moving from a red seat to a black one shifts the town's logit by (t − t_filler)/7 +
(m − m_filler)/3, and nothing else in the data moves t and m apart: only the combination w·town + (1 − w)·mafia with
w = 3/10 is identified (7·(1/3) : 3·(1/7) after scaling). `identify` derives that weight from the design itself, so
other table sizes, seat counts or schedules get their own.

Skills are centred over the configurations that played that side; a side a configuration never played is "not
played", never a number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from arena.research.records import Match

Array = NDArray[np.float64]
TOWN, MAFIA, COMBINED = "town", "mafia", "combined"
_TOL = 1e-9


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

    @property
    def columns(self) -> int:
        return self.n_rules + 2 * self.n_configs

    def town_column(self, j: int) -> int:
        return self.n_rules + j

    def mafia_column(self, j: int) -> int:
        return self.n_rules + self.n_configs + j


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


@dataclass(frozen=True)
class Quantity:
    """A reported linear quantity c·θ: a configuration's centred skill on a side, or its identified combination."""

    config: str  # or the rule set, for the side term
    kind: str  # town | mafia | combined | side
    coef: Array
    weight: float = 0.5  # combined: the town skill's weight (the mafia skill's is 1 − weight)

    @property
    def name(self) -> str:
        """What the quantity is, its weights named: `town`, `mafia`, `combined (0.50·town + 0.50·mafia)`."""
        return quantity_name(self.kind, self.weight)


def quantity_name(kind: str, weight: float) -> str:
    if kind == COMBINED:
        return f"combined ({weight:.2f}·town + {1 - weight:.2f}·mafia)"
    return kind


@dataclass
class ConfigStatus:
    """What the design says about one configuration."""

    config: str
    played_town: bool
    played_mafia: bool
    town: Quantity | None = None  # None: not identified (or not played)
    mafia: Quantity | None = None
    combined: Quantity | None = None  # both sides identified: their mean; else the identified combination, if any

    @property
    def separable(self) -> bool:
        return self.town is not None and self.mafia is not None

    def describe(self) -> str:
        if self.separable:
            return "town and mafia skills"
        parts = []
        if self.combined is not None:
            w = self.combined.weight
            parts.append(f"only {w:.2f}·town + {1 - w:.2f}·mafia")
        elif self.town is not None:
            parts.append("town skill")
        elif self.mafia is not None:
            parts.append("mafia skill")
        if not self.played_town:
            parts.append("town: not played")
        if not self.played_mafia:
            parts.append("mafia: not played")
        if not parts:
            parts.append("nothing: not identified")
        return "; ".join(parts)


@dataclass
class Identification:
    """The design's rank, its null space and the quantities it identifies."""

    design: Design
    rank: int
    null: Array  # columns span the null space of X
    configs: list[ConfigStatus] = field(default_factory=list)
    side: dict[str, Quantity | None] = field(default_factory=dict)  # per rule set; None: not identified

    @property
    def columns(self) -> int:
        return self.design.columns

    def estimable(self, coef: Array) -> bool:
        return estimable(self.null, coef)

    def status(self, config: str) -> ConfigStatus:
        return next(s for s in self.configs if s.config == config)

    def quantities(self) -> list[Quantity]:
        """Every per-configuration quantity the design identifies, in a stable order."""
        out: list[Quantity] = []
        for s in self.configs:
            out += [q for q in (s.town, s.mafia, s.combined) if q is not None]
        return out

    @property
    def separable(self) -> bool:
        """True when every configuration's town and mafia skills are identified apart."""
        return all(s.separable for s in self.configs)

    def combination_weights(self) -> list[float]:
        return sorted({round(s.combined.weight, 3) for s in self.configs if s.combined is not None and not s.separable})


def null_space(x: Array) -> Array:
    """An orthonormal basis of {v : X v = 0}, from the eigenvectors of XᵀX (small: one row and column per
    parameter, however many games)."""
    if x.shape[0] == 0:
        return np.eye(x.shape[1])
    values, vectors = np.linalg.eigh(x.T @ x)
    tol = max(float(values[-1]), 1.0) * 1e-10 * x.shape[1]
    return np.asarray(vectors[:, values <= tol], dtype=np.float64)


def estimable(null: Array, coef: Array) -> bool:
    if null.shape[1] == 0:
        return True
    scale = max(float(np.linalg.norm(coef)), 1.0)
    return float(np.linalg.norm(null.T @ coef)) <= _TOL * 1e3 * scale


def _combination(null: Array, a: Array, b: Array) -> float | None:
    """The weight w with w·a + (1 − w)·b estimable, if there is one (a: the town contrast, b: the mafia one)."""
    na, nb = null.T @ a, null.T @ b
    d = na - nb
    dd = float(d @ d)
    if dd <= _TOL:
        return None
    w = -float(d @ nb) / dd
    if float(np.linalg.norm(w * na + (1 - w) * nb)) > 1e-6 * max(1.0, float(np.linalg.norm(a))):
        return None
    return w


def identify(d: Design) -> Identification:
    """The rank of the design, and for each configuration which of its quantities the games pin down."""
    null = null_space(d.x)
    c = d.n_configs
    played_town = [bool(np.any(d.x[:, d.town_column(j)] != 0)) for j in range(c)]
    played_mafia = [bool(np.any(d.x[:, d.mafia_column(j)] != 0)) for j in range(c)]
    town_mean = np.zeros(d.columns)
    mafia_mean = np.zeros(d.columns)
    for j in range(c):
        if played_town[j]:
            town_mean[d.town_column(j)] = 1.0 / sum(played_town)
        if played_mafia[j]:
            mafia_mean[d.mafia_column(j)] = 1.0 / sum(played_mafia)
    out = Identification(d, d.columns - null.shape[1], null)
    for j, name in enumerate(d.configs):
        status = ConfigStatus(name, played_town[j], played_mafia[j])
        a = -town_mean.copy()
        a[d.town_column(j)] += 1.0
        b = -mafia_mean.copy()
        b[d.mafia_column(j)] += 1.0
        if played_town[j] and estimable(null, a):
            status.town = Quantity(name, TOWN, a, 1.0)
        if played_mafia[j] and estimable(null, b):
            status.mafia = Quantity(name, MAFIA, b, 0.0)
        if status.town is not None and status.mafia is not None:
            status.combined = Quantity(name, COMBINED, (a + b) / 2, 0.5)
        elif played_town[j] and played_mafia[j] and status.town is None and status.mafia is None:
            w = _combination(null, a, b)
            if w is not None:
                status.combined = Quantity(name, COMBINED, w * a + (1 - w) * b, w)
        out.configs.append(status)
    for i, rules in enumerate(d.rules):
        coef = town_mean - mafia_mean
        coef[i] += 1.0
        out.side[rules] = Quantity(rules, "side", coef) if estimable(null, coef) else None
    return out


def statements(ident: Identification) -> list[str]:
    """What is identified, one line per configuration and per rule set's side term."""
    lines = [f"{s.config}: {s.describe()}" for s in ident.configs]
    lines += [f"side term h[{rules}]: {'identified' if q is not None else 'not identified'}"
              for rules, q in ident.side.items()]  # fmt: skip
    return lines


def summary(ident: Identification) -> list[str]:
    """Plain sentences: the rank, and what is identified for each configuration."""
    return [f"design rank {ident.rank} of {ident.columns} columns ({len(ident.design.y)} two-sided games).",
            *statements(ident)]  # fmt: skip
