"""Validation that is not circular: games drawn from a process the ratings model does not assume, then reported on
by the report's own code, and every interval it prints checked against the truth.

The process (`World`) departs from the fitted model in every way a methods review found to matter:

- **role weights**: a seat's skill weighs by its role inside its team's mean (by default the sheriff ×3 and the
  don ×2), where the model weighs every seat alike;
- **seat positions**: each seat position adds its own effect to whoever sits there (speaking first is not speaking
  last);
- **noise**: every deal draws a random effect on the town's logit, shared by every replay of the deal, and every
  game one of its own; so games replayed on one deal are correlated, and the model's logistic link is only an
  approximation of the marginal win probability;
- **draws**;
- **schedules**: tournament seating (`arena/tournament/schedule.py`, one seat each, a filler on the rest), whole
  sides (`sides`), seats drawn at random (`mixed`), unequal shares of games (`unbalanced`) and deals replayed four
  times (`repeated`), as the self-play folders are.

The truth of a rating is what the model estimates under this process (`pseudo_true`: the fit to every game's true
marginal win chance in place of its result); coverage of the world's own skills is counted beside it, with how much
the misspecification shrinks them. For every rate the truth is its expected value over the same games (each game's
true marginal win chance in place of its result), so a win rate's target is what the configuration would win on
average in the games it was scheduled to play.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from arena.engine import RuleSet, load_rules
from arena.research.corpus import MAFIA, TOWN, side_of
from arena.research.identify import COMBINED
from arena.research.intervals import Interval, proportion
from arena.research.outcomes import PLAIN_ROLE, Table, roles_and_seats, scores_by, table, town_rates, win_rates
from arena.research.ratings import Fit, fit, penalised_fit
from arena.research.records import Record, matches

Array = NDArray[np.float64]
FILLER = "filler"
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(24)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


@dataclass(frozen=True)
class World:
    """The process games are drawn from."""

    h: float
    town: dict[str, float]
    mafia: dict[str, float]
    role_weight: dict[str, float] = field(default_factory=lambda: {"sheriff": 3.0, "don": 2.0})
    seat_effect: tuple[float, ...] = (0.25, 0.15, 0.1, 0.05, 0.0, 0.0, -0.05, -0.1, -0.15, -0.25)
    deal_sd: float = 0.5
    game_sd: float = 0.3
    draw: float = 0.01
    role_skill: dict[tuple[str, str], float] = field(default_factory=dict)  # (config, role) -> added to its skill

    def eta(self, configs: Sequence[str], roles: Sequence[str]) -> float:
        """The town's logit before noise: the role-weighted means of each side's skills plus seat effects."""
        sums = {TOWN: 0.0, MAFIA: 0.0}
        weights = {TOWN: 0.0, MAFIA: 0.0}
        for seat, (config, role) in enumerate(zip(configs, roles, strict=True)):
            side = side_of(role)
            if side is None:
                continue
            w = self.role_weight.get(role, 1.0)
            skill = self.town[config] if side == TOWN else self.mafia[config]
            skill += self.role_skill.get((config, role), 0.0)
            effect = self.seat_effect[seat] if seat < len(self.seat_effect) else 0.0
            sums[side] += w * (skill + effect)
            weights[side] += w
        return self.h + sums[TOWN] / weights[TOWN] - sums[MAFIA] / weights[MAFIA]

    def p_town(self, eta: float) -> float:
        """The marginal P(town wins) over both noises (Gauss–Hermite), draws taken out."""
        sd = math.hypot(self.deal_sd, self.game_sd)
        return float((1 - self.draw) * np.sum(_WEIGHTS / (1 + np.exp(-(eta + sd * _NODES)))))

    def theta(self, configs: Sequence[str], rules: Sequence[str]) -> Array:
        """The true parameter vector in the design's column order (h per rule set, town skills, mafia skills)."""
        return np.concatenate([np.full(len(rules), self.h), [self.town[c] for c in configs],
                               [self.mafia[c] for c in configs]])  # fmt: skip


@dataclass(frozen=True)
class Seating:
    configs: tuple[str, ...]
    roles: tuple[str, ...]
    deal: int  # games sharing a deal share its cards and its random effect


Schedule = Callable[[Sequence[str], int, np.random.Generator], list[Seating]]
RULES: RuleSet = load_rules("fiim")


def _slots(rules: RuleSet) -> list[str]:
    return [role.value for role, count in rules.roles.items() for _ in range(count)]


def _whole_sides(town: str, mafia: str, roles: Sequence[str]) -> tuple[str, ...]:
    return tuple(town if side_of(r) == TOWN else mafia if side_of(r) == MAFIA else FILLER for r in roles)


def tournament(labels: Sequence[str], games: int, rng: np.random.Generator) -> list[Seating]:
    """The project's tournament seating (`seats`): one seat per configuration per game, the filler on the rest."""
    from arena.tournament.schedule import make_schedule

    plans = make_schedule(labels, FILLER, RULES, games, int(rng.integers(1 << 30)), kind="seats")
    return [Seating(p.labels, tuple(r.value for r in p.roles), i) for i, p in enumerate(plans)]


def sides(labels: Sequence[str], games: int, rng: np.random.Generator) -> list[Seating]:
    """The `sides` schedule: one configuration holds the whole town, one the whole mafia."""
    from arena.tournament.schedule import make_schedule

    plans = make_schedule(labels, FILLER, RULES, games, int(rng.integers(1 << 30)), kind="sides")
    return [Seating(p.labels, tuple(r.value for r in p.roles), i) for i, p in enumerate(plans)]


def mixed(labels: Sequence[str], games: int, rng: np.random.Generator) -> list[Seating]:
    """Every seat drawn on its own from the pool, the roles dealt at random."""
    slots = _slots(RULES)
    out = []
    for g in range(games):
        roles = tuple(slots[i] for i in rng.permutation(len(slots)))
        out.append(Seating(tuple(labels[i] for i in rng.integers(0, len(labels), len(slots))), roles, g))
    return out


def unbalanced(labels: Sequence[str], games: int, rng: np.random.Generator) -> list[Seating]:
    """Whole sides, but configuration i is drawn with weight 1 + 3i/(k − 1) on each side: the last plays four
    times as often as the first, and pairs are drawn, not cycled."""
    k = len(labels)
    weights = np.asarray([1 + 3 * i / max(k - 1, 1) for i in range(k)])
    weights /= weights.sum()
    slots = _slots(RULES)
    out = []
    for g in range(games):
        roles = tuple(slots[i] for i in rng.permutation(len(slots)))
        town, mafia = (labels[int(i)] for i in rng.choice(k, 2, p=weights))
        out.append(Seating(_whole_sides(town, mafia, roles), roles, g))
    return out


def repeated(labels: Sequence[str], games: int, rng: np.random.Generator, replays: int = 4) -> list[Seating]:
    """Whole sides, each deal replayed `replays` times with the pairs of the `sides` rotation (two configurations:
    A/A, A/B, B/A, B/B on the same cards, as the self-play folders do)."""
    from arena.tournament.schedule import side_pairs

    pairs = side_pairs(len(labels))
    offset = int(rng.integers(len(pairs)))
    slots = _slots(RULES)
    out = []
    roles: tuple[str, ...] = ()
    for g in range(games):
        if g % replays == 0:
            roles = tuple(slots[i] for i in rng.permutation(len(slots)))
        town, mafia = pairs[(g + offset) % len(pairs)]
        out.append(Seating(_whole_sides(labels[town], labels[mafia], roles), roles, g // replays))
    return out


def lopsided(labels: Sequence[str], games: int, rng: np.random.Generator) -> list[Seating]:
    """Whole sides drawn with weights that run opposite ways on the two sides: configuration i holds the town with
    weight (1 + 3i/(k − 1))² and the mafia with the reverse, so the one that plays the town most plays the mafia
    least (with 8 configurations and 300 games the rarest has about 6 games on one side and 80 on the other)."""
    k = len(labels)
    town = np.asarray([(1 + 3 * i / max(k - 1, 1)) ** 2 for i in range(k)])
    mafia = town[::-1].copy()
    slots = _slots(RULES)
    out = []
    for g in range(games):
        roles = tuple(slots[i] for i in rng.permutation(len(slots)))
        a, b = labels[int(rng.choice(k, p=town / town.sum()))], labels[int(rng.choice(k, p=mafia / mafia.sum()))]
        out.append(Seating(_whole_sides(a, b, roles), roles, g))
    return out


def tournament_and_sides(labels: Sequence[str], games: int, rng: np.random.Generator, share: float = 0.04) -> list[
        Seating]:  # fmt: skip
    """Tournament seating with a few whole-side games mixed in (4 %, at least 3): every skill is identified by rank,
    but the town skill and the mafia skill are told apart only by those few games (weakly identified)."""
    few = max(3, round(share * games))
    seated = tournament(labels, games - few, rng)
    pairs = [(a, b) for a in labels for b in labels]
    slots = _slots(RULES)
    extra = []
    for _ in range(few):
        roles = tuple(slots[i] for i in rng.permutation(len(slots)))
        a, b = pairs[int(rng.integers(len(pairs)))]
        extra.append(Seating(_whole_sides(a, b, roles), roles, 0))
    out = seated + extra
    order = rng.permutation(len(out))
    return [Seating(out[i].configs, out[i].roles, g) for g, i in enumerate(order)]


SCHEDULES: dict[str, Schedule] = {
    "one-per-side": sides,
    "mixed": mixed,
    "unbalanced": unbalanced,
    "lopsided": lopsided,
    "tournament": tournament,
    "tournament+sides": tournament_and_sides,
    "repeated-deal": repeated,
}


@dataclass
class Drawn:
    records: list[Record]
    p_town: Array  # each game's true marginal P(town wins)
    p_mafia: Array


def draw(world: World, seatings: Sequence[Seating], rng: np.random.Generator) -> Drawn:
    deal_effect: dict[int, float] = {}
    records = []
    p_town = np.empty(len(seatings))
    p_mafia = np.empty(len(seatings))
    for g, s in enumerate(seatings):
        eta = world.eta(s.configs, s.roles)
        effect = deal_effect.setdefault(s.deal, float(rng.normal(0, world.deal_sd)))
        logit = eta + effect + float(rng.normal(0, world.game_sd))
        u = rng.random()
        winner = "draw" if u < world.draw else TOWN if rng.random() < 1 / (1 + math.exp(-logit)) else MAFIA
        p_town[g] = world.p_town(eta)
        p_mafia[g] = 1 - world.draw - p_town[g]
        records.append(Record("sim", f"d{s.deal}", s.configs, s.roles, winner))
    return Drawn(records, p_town, p_mafia)


# ----- truths of every printed quantity -------------------------------------------------------------------------
def _p_sides(t: Table, drawn: Drawn) -> Array:
    """games × 3: the true marginal chance that the town, the mafia, the maniac wins."""
    return np.stack([drawn.p_town, drawn.p_mafia, np.zeros(len(drawn.p_town))], axis=1)


def _p_seat(t: Table, p: Array) -> Array:
    side = np.where(t.side >= 0, t.side, 0)
    return np.asarray(np.where(t.side >= 0, np.take_along_axis(p, side, axis=1), 0.0), dtype=np.float64)


def true_win_rates(t: Table, drawn: Drawn) -> dict[tuple[str, str], float]:
    p = _p_sides(t, drawn)
    out = {}
    for j, config in enumerate(t.configs):
        for s, side in enumerate((TOWN, MAFIA)):
            held = np.any((t.config == j) & (t.side == s), axis=1)
            if held.any():
                out[(config, side)] = float(p[held, s].mean())
    return out


def true_scores(t: Table, drawn: Drawn, groups: NDArray[np.int64], names: Sequence[str]) -> dict[str, float]:
    """The outcome score with every result replaced by its probability (the estimator's plug-in target)."""
    p = _p_seat(t, _p_sides(t, drawn))
    key = np.where(t.role >= 0, t.rules_of[:, None] * len(t.roles) + t.role, -1)
    seat = key >= 0
    size = len(t.rules) * len(t.roles)
    base = np.bincount(key[seat], weights=p[seat], minlength=size) / np.maximum(
        np.bincount(key[seat], minlength=size), 1
    )
    out = {}
    for j, name in enumerate(names):
        mine = seat & (groups == j)
        if mine.any():
            out[name] = float(np.mean(p[mine] - base[key[mine]]))
    return out


def true_roles(t: Table, drawn: Drawn) -> tuple[dict[tuple[str, str], float], dict[tuple[str, str], float]]:
    """Per (config, role): the side's mean chance in the games it held the role; and per (config, special role):
    that over the games it held the special role and not the plain one, minus the reverse."""
    p = _p_sides(t, drawn)
    rates: dict[tuple[str, str], float] = {}
    diffs: dict[tuple[str, str], float] = {}
    sides = {r: int(t.side[t.role == r][0]) for r in range(len(t.roles)) if np.any(t.role == r)}
    for j, config in enumerate(t.configs):
        held = {r: np.any((t.config == j) & (t.role == r), axis=1) for r in sides if sides[r] in (0, 1)}
        for r, games in held.items():
            if games.any():
                rates[(config, t.roles[r])] = float(p[games, sides[r]].mean())
        for r, games in held.items():
            plain = PLAIN_ROLE[(TOWN, MAFIA)[sides[r]]]
            if t.roles[r] == plain or plain not in t.roles or t.roles.index(plain) not in held:
                continue
            other = held[t.roles.index(plain)]
            a, b = games & ~other, other & ~games
            if a.any() and b.any():
                diffs[(config, t.roles[r])] = float(p[a, sides[r]].mean() - p[b, sides[r]].mean())
    return rates, diffs


# ----- one simulated tournament, checked ------------------------------------------------------------------------
@dataclass
class Tally:
    """Covered / checked per kind of quantity (and the worst single quantity of each kind)."""

    covered: dict[str, int] = field(default_factory=dict)
    checked: dict[str, int] = field(default_factory=dict)
    per_item: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # (kind, item) -> [covered, checked]
    marked: int = 0  # simulations with any "better than" mark
    role_marked: int = 0  # simulations saying results differ by role
    seat_marked: int = 0
    runs: int = 0
    unidentified_printed: int = 0  # must stay 0: a number printed for a quantity the design does not identify
    shrink: list[float] = field(default_factory=list)  # pseudo-true over world skill, for |world skill| > 0.2
    false_marked: int = 0  # simulations marking a difference between two configurations the world makes equal
    equal_pairs: int = 0  # simulations with such a pair judged
    differences: dict[str, list[float]] = field(default_factory=dict)  # "kind:a-b" (a < b) -> each estimate

    def add(self, kind: str, item: str, interval: Interval, truth: float) -> None:
        if not math.isfinite(interval.low) or not math.isfinite(interval.high):
            return
        hit = int(interval.low <= truth <= interval.high)
        self.covered[kind] = self.covered.get(kind, 0) + hit
        self.checked[kind] = self.checked.get(kind, 0) + 1
        cell = self.per_item.setdefault((kind, item), [0, 0])
        cell[0] += hit
        cell[1] += 1

    def rate(self, kind: str) -> float:
        return self.covered.get(kind, 0) / self.checked[kind] if self.checked.get(kind) else math.nan

    def rate_of(self, kind: str, suffix: str) -> float:
        """The pooled coverage of the quantities of `kind` whose item ends with `suffix` (`:combined`)."""
        cells = [(c, n) for (k, item), (c, n) in self.per_item.items() if k == kind and item.endswith(suffix)]
        checked = sum(n for _, n in cells)
        return sum(c for c, _ in cells) / checked if checked else math.nan

    def worst(self, kind: str, minimum: int = 20) -> float:
        rates = [c / n for (k, _), (c, n) in self.per_item.items() if k == kind and n >= minimum]
        return min(rates) if rates else math.nan

    def merge(self, other: Tally) -> None:
        for k, v in other.covered.items():
            self.covered[k] = self.covered.get(k, 0) + v
        for k, v in other.checked.items():
            self.checked[k] = self.checked.get(k, 0) + v
        for item, (c, n) in other.per_item.items():
            cell = self.per_item.setdefault(item, [0, 0])
            cell[0] += c
            cell[1] += n
        self.marked += other.marked
        self.role_marked += other.role_marked
        self.seat_marked += other.seat_marked
        self.runs += other.runs
        self.unidentified_printed += other.unidentified_printed
        self.shrink += other.shrink
        self.false_marked += other.false_marked
        self.equal_pairs += other.equal_pairs
        for key, values in other.differences.items():
            self.differences.setdefault(key, []).extend(values)


KINDS = ("skill", "side", "pairs (joint)", "town rate", "win rate", "score", "role rate", "role diff", "seat",
         "skill vs world")


def pseudo_true(f: Fit, drawn: Drawn, draw: float) -> Array:
    """What the ratings model estimates under this process and this design (White's pseudo-true parameter): the
    fit to each game's true marginal chance in place of its result, with no prior. Role weights, seat effects
    and noise make it differ from the world's own skills (noise shrinks every logit coefficient by about
    1/√(1 + 0.35σ²)); `check` counts coverage of both."""
    p = np.asarray([drawn.p_town[g] / (1 - draw) for g, r in enumerate(drawn.records) if r.two_sided])
    d = f.design
    flat = np.full(d.columns, 1e4)
    return np.asarray(penalised_fit(d.x, p, np.ones((1, len(p))), flat, f.theta)[0], dtype=np.float64)


def check(world: World, drawn: Drawn, f: Fit | None, tally: Tally) -> None:
    """Check every interval the report would print for this simulated folder against the truth."""
    tally.runs += 1
    if f is not None:
        d = f.design
        world_theta = world.theta(d.configs, d.rules)
        theta = pseudo_true(f, drawn, world.draw)
        for (config, kind), e in f.estimates.items():
            target = float(e.quantity.coef @ theta)
            tally.add("skill", f"{config}:{kind}", e.interval, target)
            generating = float(e.quantity.coef @ world_theta)
            tally.add("skill vs world", f"{config}:{kind}", e.interval, generating)
            if abs(generating) > 0.2:
                tally.shrink.append(target / generating)
        for ident in f.identification.configs:  # nothing unidentified may carry a number
            for kind, q in (("town", ident.town), ("mafia", ident.mafia), (COMBINED, ident.combined)):
                if q is None and f.estimate(ident.config, kind) is not None:
                    tally.unidentified_printed += 1
        for rules, side in f.side.items():
            if side is not None:
                tally.add("side", rules, side.interval, float(side.quantity.coef @ theta))
        judged = [c for c in f.comparisons if not c.sparse]  # a sparse difference is printed without an interval
        if judged:
            joint = all(
                c.interval.low <= float((f.estimate(c.a, c.kind).quantity.coef  # type: ignore[union-attr]
                                         - f.estimate(c.b, c.kind).quantity.coef) @ theta)  # type: ignore[union-attr]
                <= c.interval.high
                for c in judged
            )  # fmt: skip
            tally.add("pairs (joint)", "all", Interval(1.0, 0.5, 1.5), 1.0 if joint else 0.0)
            tally.marked += any(c.better is not None for c in f.comparisons)
            equal = [c for c in judged if _world_equal(world, c.a, c.b, c.kind)]
            tally.equal_pairs += bool(equal)
            tally.false_marked += any(c.better is not None for c in equal)
        for c in f.comparisons:  # every printed difference, named the same way whatever the pool's order
            a, b, sign = (c.a, c.b, 1.0) if c.a < c.b else (c.b, c.a, -1.0)
            tally.differences.setdefault(f"{c.kind}:{a}-{b}", []).append(sign * c.interval.value)
    t = table(drawn.records)
    for rules, iv in town_rates(t).items():
        tally.add("town rate", rules, iv, float(np.mean(drawn.p_town)))
    truth = true_win_rates(t, drawn)
    for w in win_rates(t):
        tally.add("win rate", f"{w.config}:{w.side}", w.rate, truth[(w.config, w.side)])
    scores = true_scores(t, drawn, t.config, t.configs)
    for sc in scores_by(t, t.config, t.configs):
        tally.add("score", sc.group, sc.score, scores[sc.group])
    diag = roles_and_seats(t)
    role_truth, diff_truth = true_roles(t, drawn)
    for rr in diag.rates:
        tally.add("role rate", f"{rr.config}:{rr.role}", rr.rate, role_truth[(rr.config, rr.role)])
    for test in diag.tests:
        if (test.config, test.role) in diff_truth:
            tally.add("role diff", f"{test.config}:{test.role}", test.difference, diff_truth[(test.config, test.role)])
    positions = np.where((t.side >= 0) & (t.side != 2), np.arange(t.side.shape[1])[None, :], -1)
    seat_truth = true_scores(t, drawn, positions, [str(i + 1) for i in range(t.side.shape[1])])
    for seat, iv in diag.seats:
        tally.add("seat", str(seat), iv, seat_truth[str(seat)])
    tally.role_marked += bool(diag.roles_differ)
    tally.seat_marked += bool(diag.seats_differ)


def _world_equal(world: World, a: str, b: str, kind: str) -> bool:
    """Whether the world gives a and b the same skill on every side `kind` involves."""
    town, mafia = world.town[a] == world.town[b], world.mafia[a] == world.mafia[b]
    return {"town": town, "mafia": mafia}.get(kind, town and mafia)


STRONG = (1.2, 0.9)  # `world_for(gap=STRONG)`: c0's town and mafia skills beside three identical configurations
BOTS = (3.7, 2.6)  # about what the bots show on whole sides (reported gaps 3.5 and 2.4), in the world's units
BOTS_ISSUE_18 = (8.0, 8.0)  # the seats gap of issue 18's bots folder (+6.9 reported with σ = 3, +9.5 unpenalised)


def world_for(
    k: int, *, equal: bool = False, gap: tuple[float, float] | None = None, filler: float = 0.0,
    **misspecified: object,
) -> World:
    """k configurations with spread, crossed town and mafia skills (centred), a filler at the field's level (or at
    `filler`, both skills). `equal`: every skill 0; `gap`: c0's town and mafia skills, every other configuration
    and the filler alike at 0 (three identical configurations beside a strong one, or heuristic against random
    bots: `STRONG`, `BOTS`, `BOTS_ISSUE_18`)."""
    labels = [f"c{i}" for i in range(k)]
    if equal or gap is not None:
        town = dict.fromkeys(labels, 0.0)
        mafia = dict.fromkeys(labels, 0.0)
        if gap is not None:
            town["c0"], mafia["c0"] = gap
    else:
        grid = np.linspace(-1, 1, k) if k > 1 else np.zeros(1)
        town = {c: float(0.8 * grid[i]) for i, c in enumerate(labels)}
        mafia = {c: float(0.6 * grid[(i * 3 + 1) % k]) for i, c in enumerate(labels)}
    town[FILLER] = filler
    mafia[FILLER] = filler
    return World(h=-0.4, town=town, mafia=mafia, **misspecified)  # type: ignore[arg-type]


def run(
    world: World, schedule: str, k: int, games: int, sims: int, *, boot: int = 200, seed: int = 0,
    reverse: bool = False,
) -> Tally:
    """`sims` simulated tournaments of `games` games under `schedule`, each reported on and checked (`reverse`: the
    pool listed the other way round, which must change nothing beyond the Monte Carlo error)."""
    rng = np.random.default_rng(seed)
    labels = [f"c{i}" for i in range(k)][:: -1 if reverse else 1]  # the pool's order, as a tournament file lists it
    tally = Tally()
    for i in range(sims):
        seatings = SCHEDULES[schedule](labels, games, rng)
        drawn = draw(world, seatings, rng)
        two = matches(drawn.records)
        f = fit(two, boot=boot, seed=seed * 100_003 + i) if two else None
        check(world, drawn, f, tally)
    return tally


def town_rate_coverage(world: World, schedule: str, k: int, games: int, schedules: int, *, seed: int = 0) -> float:
    """The town rate interval's exact coverage given the games seated, averaged over `schedules` draws of the
    schedule, without a Monte Carlo draw of results: with every game its own deal the town's wins are independent
    Bernoulli trials, each with its game's true marginal chance, so their count is Poisson-binomial, and the report's
    interval (`town_rates`) depends only on that count. It tells whether a town rate cell of the coverage table is
    off by its design or by its draw."""
    rng = np.random.default_rng(seed)
    labels = [f"c{i}" for i in range(k)]
    order = np.arange(games)
    intervals = [proportion((order < wins).astype(np.float64), np.ones(games), order) for wins in range(games + 1)]
    total = 0.0
    for _ in range(schedules):
        seatings = SCHEDULES[schedule](labels, games, rng)
        if len({s.deal for s in seatings}) < games:
            raise ValueError("replayed deals are not independent trials; the coverage table's Monte Carlo covers them")
        p = np.asarray([world.p_town(world.eta(s.configs, s.roles)) for s in seatings])
        pmf = np.ones(1)
        for q in p:  # the Poisson-binomial count, one game at a time
            pmf = np.convolve(pmf, [1 - q, q])
        target = float(p.mean())
        total += sum(float(pmf[wins]) for wins, iv in enumerate(intervals) if iv.low <= target <= iv.high)
    return total / schedules


# ----- power: is a difference of the dry run's size marked 80 % of the time? --------------------------------------
def _world_with(k: int, kind: str, difference: float) -> World:
    """All configurations equal but c0, better than the rest by `difference` (world skills) on `kind`."""
    base = world_for(k, equal=True)
    town, mafia = dict(base.town), dict(base.mafia)
    if kind in ("town", COMBINED):
        town["c0"] = difference
    if kind in ("mafia", COMBINED):
        mafia["c0"] = difference
    return World(base.h, town, mafia)


def reported_difference(world: World, schedule: str, k: int, games: int, kind: str, seed: int = 0) -> float:
    """c0 − c1 on `kind` as the report estimates it in this world (the pseudo-true value, on the report's
    population-averaged scale), over one schedule of at least 2,000 games."""
    rng = np.random.default_rng(seed)
    labels = [f"c{i}" for i in range(k)]
    drawn = draw(world, SCHEDULES[schedule](labels, max(games, 2000), rng), rng)
    f = fit(matches(drawn.records), boot=0)
    a, b = f.estimate("c0", kind), f.estimate("c1", kind)
    if a is None or b is None:
        raise ValueError(f"{kind} is not identified under {schedule}")
    return float((a.quantity.coef - b.quantity.coef) @ pseudo_true(f, drawn, world.draw))


def world_difference(schedule: str, k: int, games: int, kind: str, difference: float, seed: int = 0) -> float:
    """The world-skill difference whose reported difference is `difference` (two secant steps: the world's noise
    and role weights shrink a difference by a near-constant factor)."""
    x = difference
    for _ in range(2):
        x *= difference / reported_difference(_world_with(k, kind, x), schedule, k, games, kind, seed)
    return x


def power_run(
    schedule: str, k: int, games: int, sims: int, kind: str, difference: float, *, boot: int = 0, seed: int = 0,
    scale: str = "report", seatings: Sequence[Seating] | None = None,
) -> tuple[int, int]:
    """Simulated tournaments where configuration c0 is better than every other by `difference` on `kind` (town,
    mafia, or both for combined), all else equal; returns (tournaments marking c0 better than c1, tournaments).

    `seatings`: the one schedule every tournament plays (a dry run's figure is about the schedule it was given;
    a schedule drawn afresh each time, as `mixed` and `unbalanced` are, measures the game counts one draw happened
    to give); default a new draw of `schedule` each time. `scale = "report"`: the difference is the one the report
    estimates (what a dry run's figure is about: a difference of the report's logits); `"world"`: the world's own
    skills differ by it (smaller in the report). `boot` only costs time: "better than" rests on the jackknife."""
    x = world_difference(schedule, k, games, kind, difference, seed) if scale == "report" else difference
    world = _world_with(k, kind, x)
    rng = np.random.default_rng(seed)
    labels = [f"c{i}" for i in range(k)]
    hits = 0
    for i in range(sims):
        played = SCHEDULES[schedule](labels, games, rng) if seatings is None else seatings
        f = fit(matches(draw(world, played, rng).records), boot=boot, seed=seed * 100_003 + i)
        hits += any(c.kind == kind and {c.a, c.b} == {"c0", "c1"} and c.better == "c0" for c in f.comparisons)
    return hits, sims


# ----- the report's rate intervals on clustered counts ---------------------------------------------------------
def metric_run(games: int, sims: int, *, replays: int = 1, kind: str = "proportion", seed: int = 0) -> tuple[int, int]:
    """Coverage of the interval of a ratio of per-game sums (a vote accuracy: votes on black over votes; a mean
    Brier score: its sum over the probabilities given), with game-level and deal-level heterogeneity and deals
    replayed `replays` times; returns (covered, simulations)."""
    from arena.research.intervals import proportion, ratio

    rng = np.random.default_rng(seed)
    centre, deal_sd, game_sd = (-0.6, 0.6, 0.4) if kind == "proportion" else (-1.4, 0.5, 0.3)
    sd = math.hypot(deal_sd, game_sd)
    truth = float(np.sum(_WEIGHTS / (1 + np.exp(-(centre + sd * _NODES)))))
    covered = 0
    for _ in range(sims):
        deals = np.arange(games) // replays
        deal_effect = rng.normal(0, deal_sd, int(deals.max()) + 1)[deals]
        p = 1 / (1 + np.exp(-(centre + deal_effect + rng.normal(0, game_sd, games))))
        trials = 1 + rng.poisson(8 if kind == "proportion" else 20, games)
        if kind == "proportion":
            num = rng.binomial(trials, p).astype(np.float64)
            iv = proportion(num, trials.astype(np.float64), deals)
        else:  # each probability's score is 2p·U: mean p, spread like a squared error
            num = np.asarray([float(np.sum(2 * pi * rng.random(t))) for pi, t in zip(p, trials, strict=True)])
            iv = ratio(num, trials.astype(np.float64), deals)
        covered += iv.low <= truth <= iv.high
    return covered, sims


__all__ = ["KINDS", "SCHEDULES", "Tally", "World", "check", "draw", "metric_run", "power_run", "reported_difference",
           "run", "town_rate_coverage", "world_difference", "world_for"]
