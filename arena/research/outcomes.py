"""Outcomes beside the ratings: win rates per side, a role-baseline outcome score, and the roles-and-seats diagnostic.

Everything is counted per game and clustered by deal (see `intervals.py`): a configuration that fills seven red
seats of one game has one town game there, not seven trials.

- **Win rate per side**: of the games in which a configuration held a seat of that side, the share the side won
  (draws and maniac wins are games not won, and are counted apart).
- **Outcome score**: the mean over a configuration's seat-games of (won − the baseline of the role it held), the
  baseline being every seat's win rate in that role under that rule set. It is the public Mafia reports' score: 0 is
  the field's average in the same roles, so a configuration dealt mafia more often is not flattered by it.
- **Roles**: per configuration, the side's win rate in each role; and a test, per configuration and side, of
  whether the special role (sheriff, don) wins more or less often than the plain one (civilian, mafia), over the
  games in which it held one and not the other. Under the ratings model a configuration's skill weighs the same in
  every seat of its side, so a difference says its skill differs by role. Holm's method controls the family.
- **Seats**: per seat position, the mean of (won − the role's baseline), Holm-controlled.

The records are turned into arrays once (`Table`), so a 1,000-game folder is a handful of array operations.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from arena.research.corpus import MAFIA, TOWN
from arena.research.intervals import Array, Interval, cluster_ids, holm, proportion, proportion_difference, t_quantile
from arena.research.leverage import Seated, score_tests
from arena.research.records import Record, deal_keys

PLAIN_ROLE = {TOWN: "civilian", MAFIA: "mafia"}
SIDES = (TOWN, MAFIA, "maniac")
Ints = NDArray[np.int64]


@dataclass
class Table:
    """A list of records as arrays: games × seats (−1 where a game has fewer seats than the widest)."""

    configs: list[str]
    roles: list[str]
    rules: list[str]
    config: Ints  # games × seats: index into `configs`
    role: Ints  # index into `roles`
    side: Ints  # 0 town, 1 mafia, 2 maniac, −1 no seat
    rules_of: Ints  # per game
    won: Array  # games × 3: the town, the mafia, the maniac won
    clusters: Ints  # per game: the deal

    @property
    def games(self) -> int:
        return len(self.rules_of)

    def seat_won(self) -> Array:
        """games × seats: 1 where that seat's side won."""
        side = np.where(self.side >= 0, self.side, 0)
        out = np.take_along_axis(self.won, side, axis=1)
        return np.asarray(np.where(self.side >= 0, out, 0.0), dtype=np.float64)


def table(records: Sequence[Record] | Table) -> Table:
    if isinstance(records, Table):
        return records
    configs = sorted({c for r in records for c in r.configs})
    roles = sorted({x for r in records for x in r.roles})
    rules = sorted({r.rules for r in records})
    width = max((len(r.roles) for r in records), default=0)
    n = len(records)
    c_index = {c: i for i, c in enumerate(configs)}
    r_index = {x: i for i, x in enumerate(roles)}
    config = np.full((n, width), -1, dtype=np.int64)
    role = np.full((n, width), -1, dtype=np.int64)
    side = np.full((n, width), -1, dtype=np.int64)
    won = np.zeros((n, 3))
    side_index = {TOWN: 0, MAFIA: 1, None: 2}
    for g, r in enumerate(records):
        for i, (c, x) in enumerate(zip(r.configs, r.roles, strict=True)):
            config[g, i] = c_index[c]
            role[g, i] = r_index[x]
            side[g, i] = side_index[r.side(i)]
        for j, name in enumerate(SIDES):
            won[g, j] = float(r.winner == name)
    rules_of = np.asarray([rules.index(r.rules) for r in records], dtype=np.int64)
    return Table(configs, roles, rules, config, role, side, rules_of, won, cluster_ids(deal_keys(records)))


def clusters_of(records: Sequence[Record]) -> Ints:
    return cluster_ids(deal_keys(records))


@dataclass
class SideRate:
    config: str
    side: str
    games: int  # games in which the configuration held a seat of the side
    wins: int
    draws: int  # draws and maniac wins: not won, not lost to the other side
    rate: Interval


def win_rates(records: Sequence[Record] | Table) -> list[SideRate]:
    """Per configuration and side: the share of its games on that side that the side won (one trial per game)."""
    t = table(records)
    decided = t.won[:, 0] + t.won[:, 1]
    out = []
    for j, config in enumerate(t.configs):
        for s, side in enumerate((TOWN, MAFIA)):
            held = np.any((t.config == j) & (t.side == s), axis=1)
            if not held.any():
                continue
            wins = t.won[held, s]
            iv = proportion(wins, np.ones(int(held.sum())), t.clusters[held])
            out.append(SideRate(config, side, int(held.sum()), int(wins.sum()), int(np.sum(decided[held] == 0)), iv))
    return sorted(out, key=lambda x: (x.config, x.side))


def town_rates(records: Sequence[Record] | Table) -> dict[str, Interval]:
    """Per rule set: the share of its games the town won (draws and maniac wins not won), counted per game."""
    t = table(records)
    out = {}
    for i, rules in enumerate(t.rules):
        pick = t.rules_of == i
        out[rules] = proportion(t.won[pick, 0], np.ones(int(pick.sum())), t.clusters[pick])
    return out


def _baseline_keys(t: Table) -> tuple[Ints, Array]:
    """Per seat, its (rules, role) key (−1: no seat); per key, every such seat's win rate (the role's baseline)."""
    n_roles = len(t.roles)
    key = np.where(t.role >= 0, t.rules_of[:, None] * n_roles + t.role, -1)
    won = t.seat_won()
    size = len(t.rules) * n_roles
    seats = np.bincount(key[key >= 0], minlength=size).astype(np.float64)
    wins = np.bincount(key[key >= 0], weights=won[key >= 0], minlength=size)
    return key, np.divide(wins, seats, out=np.zeros(size), where=seats > 0)


@dataclass
class Score:
    group: str  # a configuration, or a seat position
    seat_games: int
    score: Interval  # mean of (won − role baseline)
    p: float = math.nan  # two-sided p-value of a zero score


def scores_by(records: Sequence[Record] | Table, groups: Ints, names: Sequence[str]) -> list[Score]:
    """Per group (`groups`: games × seats, an index into `names`, −1 to leave a seat out): the mean over its
    seat-games of (won − the baseline of the role held), with a cluster-robust interval that carries the baselines'
    own uncertainty (linearised: the baselines are estimated from the same games)."""
    t = table(records)
    if t.games == 0:
        return []
    key, base = _baseline_keys(t)
    won = t.seat_won()
    seat = key >= 0
    residual = np.where(seat, won - base[np.where(seat, key, 0)], 0.0)
    n_clusters = int(t.clusters.max()) + 1
    size = len(base)
    cluster_seat = np.broadcast_to(t.clusters[:, None], key.shape)
    flat = cluster_seat[seat] * size + key[seat]
    role_n = np.bincount(flat, minlength=n_clusters * size).reshape(n_clusters, size).astype(np.float64)
    role_s = np.bincount(flat, weights=won[seat], minlength=n_clusters * size).reshape(n_clusters, size)
    role_dev = role_s - role_n * base  # per cluster and key: Σ (won − baseline)
    total_n = role_n.sum(axis=0)
    q = t_quantile(n_clusters)
    out = []
    for j, name in enumerate(names):
        mine = seat & (groups == j)
        if not mine.any():
            continue
        n_c = np.bincount(cluster_seat[mine], minlength=n_clusters).astype(np.float64)
        res_c = np.bincount(cluster_seat[mine], weights=residual[mine], minlength=n_clusters)
        per_key = np.bincount(key[mine], minlength=size).astype(np.float64)
        n_x = float(n_c.sum())
        score = float(res_c.sum()) / n_x
        share = np.divide(per_key, total_n, out=np.zeros(size), where=total_n > 0)
        u = (res_c - score * n_c - role_dev @ share) / n_x
        se = math.sqrt(n_clusters / (n_clusters - 1) * float(np.sum(u * u))) if n_clusters > 1 else math.inf
        p = float(2 * stats.t.sf(abs(score) / se, n_clusters - 1)) if 0 < se < math.inf else math.nan
        iv = Interval(score, score - q * se, score + q * se, n_x, int(np.sum(n_c > 0)))
        out.append(Score(name, int(n_x), iv, p))
    return out


def outcome_scores(records: Sequence[Record] | Table) -> list[Score]:
    """Each configuration's outcome score, best first."""
    t = table(records)
    return sorted(scores_by(t, t.config, t.configs), key=lambda s: -s.score.value)


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
    p: float  # of no skill difference beyond the role's leverage (`leverage_tests`); NaN: not testable here
    rejected: bool = False  # Holm-adjusted, family-wise 5 %
    beyond: float = math.nan  # the skill difference in the role beyond its leverage, δ (logits; one-step estimate)
    p_raw: float = math.nan  # of no difference at all (Newcombe): leverage alone makes it small for a skilled one


@dataclass
class RolesAndSeats:
    rates: list[RoleRate]
    tests: list[RoleTest]
    seats: list[tuple[int, Interval]]  # seat position -> mean of (won − the role's baseline)
    seat_rejected: list[bool]
    separable: bool  # False when no configuration ever held a special role apart from the plain one

    @property
    def roles_differ(self) -> list[RoleTest]:
        return [t for t in self.tests if t.rejected]

    @property
    def seats_differ(self) -> list[int]:
        return [seat for (seat, _), bad in zip(self.seats, self.seat_rejected, strict=True) if bad]


def _role_sides(t: Table) -> dict[int, int]:
    out: dict[int, int] = {}
    for r in range(len(t.roles)):
        sides = t.side[t.role == r]
        if len(sides) and sides[0] in (0, 1):
            out[r] = int(sides[0])
    return out


def leverage_tests(t: Table, tests: Sequence[RoleTest]) -> None:
    """Fill each test's `p` and `beyond` from `leverage.score_tests`: is the configuration's skill in the special role
    different from its skill elsewhere, once every role's own leverage is in the model? (Testing the raw
    difference instead, `p_raw`, flags a skilled configuration on leverage alone.)"""
    two = (t.won[:, 0] + t.won[:, 1]) > 0
    if not tests or not two.any():
        return
    seated = Seated(t.rules_of[two], t.config[two], t.role[two], t.side[two], t.won[two, 0], t.clusters[two],
                    tuple(i for i, r in enumerate(t.roles) if r in PLAIN_ROLE.values()), len(t.rules),
                    len(t.configs), len(t.roles))  # fmt: skip
    _, seated_clusters = np.unique(seated.clusters, return_inverse=True)
    seated = Seated(seated.rules, seated.config, seated.role, seated.side, seated.town_won,
                    seated_clusters.astype(np.int64), seated.plain, seated.n_rules, seated.n_configs,
                    seated.n_roles)  # fmt: skip
    pairs = [(t.configs.index(x.config), t.roles.index(x.role)) for x in tests]
    for x, result in zip(tests, score_tests(seated, pairs), strict=True):
        x.p, x.beyond = result.p, result.delta


def roles_and_seats(records: Sequence[Record] | Table) -> RolesAndSeats:
    t = table(records)
    role_side = _role_sides(t)
    held = {(j, r): np.any((t.config == j) & (t.role == r), axis=1)
            for j in range(len(t.configs)) for r in role_side}  # fmt: skip
    rates = []
    for (j, r), games in held.items():
        if games.any():
            s = role_side[r]
            iv = proportion(t.won[games, s], np.ones(int(games.sum())), t.clusters[games])
            rates.append(RoleRate(t.configs[j], t.roles[r], (TOWN, MAFIA)[s], iv))
    rates.sort(key=lambda x: (x.config, x.role))
    tests = []
    separable = False
    for (j, r), games in sorted(held.items(), key=lambda kv: (t.configs[kv[0][0]], t.roles[kv[0][1]])):
        s = role_side[r]
        plain = PLAIN_ROLE[(TOWN, MAFIA)[s]]
        if t.roles[r] == plain or plain not in t.roles:
            continue
        plain_games = held[(j, t.roles.index(plain))]
        only_special = games & ~plain_games
        only_plain = plain_games & ~games
        if not only_special.any() or not only_plain.any():
            continue  # the configuration holds both roles in every game (it fills the side): nothing to compare
        separable = True
        won = t.won[:, s]
        diff, p = proportion_difference(won * only_special, only_special.astype(float), won * only_plain,
                                        only_plain.astype(float), t.clusters)  # fmt: skip
        tests.append(RoleTest(t.configs[j], (TOWN, MAFIA)[s], t.roles[r], plain, diff, math.nan, p_raw=p))
    leverage_tests(t, tests)
    for test, bad in zip(tests, holm([x.p for x in tests]), strict=True):
        test.rejected = bad
    positions = np.where(t.side >= 0, np.arange(t.side.shape[1])[None, :], -1)
    positions = np.where(t.side == 2, -1, positions)  # the maniac's seat has no side baseline to beat
    scores = scores_by(t, positions, [str(i + 1) for i in range(t.side.shape[1])])
    seats = [(int(x.group), x.score) for x in scores]
    return RolesAndSeats(rates, tests, seats, holm([x.p for x in scores]), separable)
