"""Outcomes beside the ratings: win rates per side, a role-baseline outcome score, and the roles-and-seats diagnostic.

Everything is counted per game and clustered by deal (see `intervals.py`): a configuration that fills seven red
seats of one game has one town game there, not seven trials.

- **Win rate per side**: of the games in which a configuration held a seat of that side, the share the side won
  (draws and maniac wins are games not won, and are counted apart).
- **Outcome score**: the mean over a configuration's seat-games of (won − the baseline of the role it held), the
  baseline being every seat's win rate in that role under that rule set. It is the public Mafia reports' score: 0 is
  the field's average in the same roles, so a configuration dealt mafia more often is not flattered by it.
- **Roles**: per configuration, the side's win rate in each role; and a test, per configuration and side, of
  whether the special role (sheriff, don) wins more or less often than the plain one (civilian, mafia). Under the
  ratings model a configuration's skill weighs the same in every seat of its side, so a difference says its skill
  differs by role. Holm's method controls the family.
- **Seats**: per seat position, the mean of (won − the side's baseline), Holm-controlled.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from arena.research.corpus import MAFIA, TOWN
from arena.research.intervals import (
    Array,
    Interval,
    cluster_ids,
    holm,
    proportion,
    proportion_difference,
    t_quantile,
)
from arena.research.records import Record, deal_keys

PLAIN_ROLE = {TOWN: "civilian", MAFIA: "mafia"}


def clusters_of(records: Sequence[Record]) -> np.ndarray:
    return cluster_ids(deal_keys(records))


@dataclass
class SideRate:
    config: str
    side: str
    games: int  # games in which the configuration held a seat of the side
    wins: int
    draws: int  # draws and maniac wins: not won, not lost to the other side
    rate: Interval


def win_rates(records: Sequence[Record]) -> list[SideRate]:
    """Per configuration and side: the share of its games on that side that the side won (one trial per game)."""
    clusters = clusters_of(records)
    cells: dict[tuple[str, str], list[tuple[int, float, bool]]] = {}
    for g, r in enumerate(records):
        held = {(c, r.side(i)) for i, c in enumerate(r.configs) if r.side(i) in (TOWN, MAFIA)}
        for config, side in held:
            assert side is not None
            cells.setdefault((config, side), []).append((g, float(r.won(side)), not r.two_sided))
    out = []
    for (config, side), rows in sorted(cells.items()):
        games = [g for g, _, _ in rows]
        wins = np.asarray([w for _, w, _ in rows])
        iv = proportion(wins, np.ones(len(rows)), clusters[games])
        out.append(SideRate(config, side, len(rows), int(wins.sum()), sum(1 for *_, d in rows if d), iv))
    return out


def town_rates(records: Sequence[Record]) -> dict[str, Interval]:
    """Per rule set: the share of its games the town won (draws and maniac wins not won), counted per game."""
    clusters = clusters_of(records)
    out = {}
    for rules in sorted({r.rules for r in records}):
        pick = np.asarray([r.rules == rules for r in records])
        won = np.asarray([float(r.won(TOWN)) for r in records])
        out[rules] = proportion(won[pick], np.ones(int(pick.sum())), clusters[pick])
    return out


def _baselines(records: Sequence[Record]) -> dict[tuple[str, str], float]:
    """Every seat's win rate per (rules, role): the role's baseline."""
    won: dict[tuple[str, str], list[float]] = {}
    for r in records:
        for i, role in enumerate(r.roles):
            side = r.side(i) or "maniac"
            cell = won.setdefault((r.rules, role), [0.0, 0.0])
            cell[0] += float(r.won(side))
            cell[1] += 1.0
    return {k: v[0] / v[1] for k, v in won.items()}


@dataclass
class Score:
    group: str  # a configuration, or a seat position
    seat_games: int
    score: Interval  # mean of (won − role baseline)
    p: float = math.nan  # two-sided p-value of a zero score


def scores_by(records: Sequence[Record], key: Callable[[Record, int], str | None]) -> list[Score]:
    """Per group (`key(record, seat index)`; None leaves the seat out): the mean over its seat-games of (won − the
    baseline of the role held), with a cluster-robust interval that carries the baselines' own uncertainty
    (linearised: the baselines are estimated from the same games)."""
    if not records:
        return []
    base = _baselines(records)
    clusters = clusters_of(records)
    n_clusters = int(clusters.max()) + 1
    keys = sorted(base)
    key_index = {k: i for i, k in enumerate(keys)}
    role_n = np.zeros((n_clusters, len(keys)))  # per cluster and role key: seats, and wins
    role_s = np.zeros((n_clusters, len(keys)))
    per: dict[str, dict[str, Array]] = {}  # per group: seats and residual sum per cluster, seats per role key
    for g, r in enumerate(records):
        c = clusters[g]
        for i, role in enumerate(r.roles):
            side = r.side(i) or "maniac"
            k = key_index[(r.rules, role)]
            won = float(r.won(side))
            role_n[c, k] += 1
            role_s[c, k] += won
            group = key(r, i)
            if group is None:
                continue
            cell = per.setdefault(group, {"n": np.zeros(n_clusters), "res": np.zeros(n_clusters),
                                          "nr": np.zeros(len(keys))})  # fmt: skip
            cell["n"][c] += 1
            cell["res"][c] += won - base[(r.rules, role)]
            cell["nr"][k] += 1
    b = np.asarray([base[k] for k in keys])
    total_n = role_n.sum(axis=0)
    q = t_quantile(n_clusters)
    out = []
    for group, cell in per.items():
        n_x = float(cell["n"].sum())
        score = float(cell["res"].sum()) / n_x
        u = (cell["res"] - score * cell["n"] - (role_s - role_n * b) @ (cell["nr"] / total_n)) / n_x
        se = math.sqrt(n_clusters / (n_clusters - 1) * float(np.sum(u * u))) if n_clusters > 1 else math.inf
        used = int(np.sum(cell["n"] > 0))
        p = float(2 * stats.t.sf(abs(score) / se, n_clusters - 1)) if 0 < se < math.inf else math.nan
        out.append(Score(group, int(n_x), Interval(score, score - q * se, score + q * se, n_x, used), p))
    return out


def outcome_scores(records: Sequence[Record]) -> list[Score]:
    """Each configuration's outcome score, best first."""
    scores = scores_by(records, lambda r, i: r.configs[i])
    return sorted(scores, key=lambda s: -s.score.value)


@dataclass
class RoleRate:
    config: str
    role: str
    side: str
    rate: Interval  # the share of its games in that role that its side won


@dataclass
class RoleTest:
    """Does the configuration's side win more (or less) often when it holds the special role than the plain one?"""

    config: str
    side: str
    role: str  # sheriff, don, ...
    plain: str  # civilian, mafia
    difference: Interval  # win rate in `role` − win rate in `plain`
    p: float
    rejected: bool = False  # Holm-adjusted, family-wise 5 %


@dataclass
class RolesAndSeats:
    rates: list[RoleRate]
    tests: list[RoleTest]
    seats: list[tuple[int, Interval]]  # seat position -> mean of (won − the side's baseline)
    seat_rejected: list[bool]
    separable: bool  # False when no configuration ever held a special role apart from the plain one

    @property
    def roles_differ(self) -> list[RoleTest]:
        return [t for t in self.tests if t.rejected]

    @property
    def seats_differ(self) -> list[int]:
        return [seat for (seat, _), bad in zip(self.seats, self.seat_rejected, strict=True) if bad]


def roles_and_seats(records: Sequence[Record]) -> RolesAndSeats:
    clusters = clusters_of(records)
    n = len(records)
    # per config and role: per game, held (0/1) and won (0/1), one trial per game
    held: dict[tuple[str, str], tuple[Array, Array]] = {}
    for g, r in enumerate(records):
        for i, (config, role) in enumerate(zip(r.configs, r.roles, strict=True)):
            side = r.side(i)
            if side not in (TOWN, MAFIA):
                continue
            h, w = held.setdefault((config, role), (np.zeros(n), np.zeros(n)))
            h[g] = 1.0
            w[g] = float(r.won(side))
    rates = []
    side_of_role: dict[str, str] = {}
    for r in records:
        for i, role in enumerate(r.roles):
            s = r.side(i)
            if s is not None:
                side_of_role[role] = s
    for (config, role), (h, w) in sorted(held.items()):
        games = h > 0
        rates.append(RoleRate(config, role, side_of_role[role], proportion(w[games], h[games], clusters[games])))
    tests = []
    separable = False
    for (config, role), (h, w) in sorted(held.items()):
        side = side_of_role[role]
        plain = PLAIN_ROLE.get(side)
        if plain is None or role == plain or (config, plain) not in held:
            continue
        hp, wp = held[(config, plain)]
        only_special = (h > 0) & (hp == 0)
        only_plain = (hp > 0) & (h == 0)
        if not only_special.any() or not only_plain.any():
            continue  # the configuration holds both roles in every game (it fills the side): nothing to compare
        separable = True
        diff, p = proportion_difference(w * only_special, only_special.astype(float), wp * only_plain,
                                        only_plain.astype(float), clusters)  # fmt: skip
        tests.append(RoleTest(config, side, role, plain, diff, p))
    for t, bad in zip(tests, holm([t.p for t in tests]), strict=True):
        t.rejected = bad
    seats, seat_p = _seat_effects(records)
    return RolesAndSeats(rates, tests, seats, holm(seat_p), separable)


def _seat_effects(records: Sequence[Record]) -> tuple[list[tuple[int, Interval]], list[float]]:
    """Per seat position: the mean over games of (its side won − the role's baseline)."""
    scores = scores_by(records, lambda r, i: str(i + 1) if r.side(i) in (TOWN, MAFIA) else None)
    ordered = sorted(scores, key=lambda s: int(s.group))
    return [(int(s.group), s.score) for s in ordered], [s.p for s in ordered]
