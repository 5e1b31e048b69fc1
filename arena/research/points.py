"""The points table of a tournament (`arena report --scoring fiim`): per configuration, and per configuration and
role, the seat-games, total points, points per game with a 95 % interval counted per game and clustered by deal,
points by group, and the scoring system's tie-breaks, ranked as the system ranks players.

A configuration is scored as a club scores a player: every seat it held is one of its games (a seat-game). Its
first-night compensation counts over all its seat-games, as mafiaratings counts a player's over an event. The
interval is the ratio of sums of `intervals.ratio`, with each game's points and seats summed into its deal, so the
seats of one game and the replays of one deal are never independent trials; `simulate_coverage` checks it on a
process it does not assume. docs/metrics.md defines every column.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from arena.research.corpus import GameData
from arena.research.intervals import Interval, ratio
from arena.scoring import ScoringSystem, SeatFacts, score_facts, seat_facts
from arena.scoring.facts import SPECIAL_ROLES
from arena.scoring.points import Counter, SeatScore

ROLE_ORDER = ("civilian", "sheriff", "doctor", "lover", "maniac", "mafia", "don")


@dataclass(frozen=True)
class SeatGame:
    """One seat of one game, as the table counts it: the game (its index), its deal (the cluster), the configuration
    that held the seat, and what the seat did."""

    game: int
    deal: str
    config: str
    facts: SeatFacts


@dataclass(frozen=True)
class PointsRow:
    config: str
    role: str  # "" for all roles
    games: int  # the games the configuration held a seat in (in this role)
    seats: int  # its seat-games: one per seat held (the table's "games" in club terms)
    total: float
    per_game: Interval  # total / seats, 95 % interval counted per game, clustered by deal
    groups: dict[str, float]
    wins: int
    special_role_wins: int  # wins as the sheriff or the don
    killed_first_night: int  # shot on Night 1 as a red player
    tie_breaks: tuple[float, ...]  # the system's tie-break keys, in order
    rank: int = 0


@dataclass
class PointsReport:
    system: ScoringSystem
    configs: list[PointsRow]
    roles: list[PointsRow]
    deals: int
    games: int
    scores: dict[tuple[int, int], SeatScore] = field(default_factory=dict)  # (game index, seat) -> points

    def ranked(self) -> list[str]:
        return [row.config for row in self.configs]


def seat_games(games: Sequence[GameData]) -> list[SeatGame]:
    """Every seat of every finished game, with its facts read from the game's events."""
    out = []
    for index, g in enumerate(games):
        deal = f"{g.rules}|{g.seed}|{','.join(g.roles[s] for s in sorted(g.roles))}"
        for facts in seat_facts(g.events, g.transcript.rules):
            out.append(SeatGame(index, deal, g.configs.get(facts.seat, "?"), facts))
    return out


def counters(items: Sequence[SeatGame]) -> dict[str, Counter]:
    """Per configuration, what the first-night compensation counts over the tournament: its seat-games and its red
    first-night kills (mafiaratings' counters 0 and 1 of scoring 19)."""
    out: dict[str, list[int]] = {}
    for item in items:
        c = out.setdefault(item.config, [0, 0])
        c[0] += 1
        c[1] += int("killed_first_night" in item.facts.flags and item.facts.team == "red")
    return {k: Counter(g, b) for k, (g, b) in out.items()}


def _tie_values(system: ScoringSystem, groups: dict[str, float], counts: dict[str, int]) -> tuple[float, ...]:
    return tuple(sum(groups.get(k, 0.0) if k in groups else counts.get(k, 0) for k in keys)
                 for keys in system.tie_breaks)  # fmt: skip


def _row(
    system: ScoringSystem,
    config: str,
    role: str,
    chosen: Sequence[tuple[SeatGame, SeatScore]],
    clusters: dict[str, int],
) -> PointsRow:
    by_game: dict[int, list[float]] = {}
    for item, score in chosen:
        cell = by_game.setdefault(item.game, [0.0, 0.0, float(clusters[item.deal])])
        cell[0] += score.total
        cell[1] += 1.0
    cells = np.asarray(list(by_game.values()), dtype=np.float64).reshape(-1, 3)
    per_game = ratio(cells[:, 0], cells[:, 1], cells[:, 2].astype(np.int64))
    groups = dict.fromkeys(system.groups, 0.0)
    for _, score in chosen:
        for g, v in score.groups.items():
            groups[g] = round(groups[g] + v, 9)
    won = [item for item, _ in chosen if "win" in item.facts.flags]
    shot = [item for item, _ in chosen if "killed_first_night" in item.facts.flags and item.facts.team == "red"]
    counts = {
        "wins": len(won),
        "special_role_wins": sum(1 for item in won if item.facts.role in SPECIAL_ROLES),
        "killed_first_night": len(shot),
    }
    return PointsRow(
        config=config,
        role=role,
        games=len({item.game for item, _ in chosen}),
        seats=len(chosen),
        total=round(sum(score.total for _, score in chosen), 9),
        per_game=per_game,
        groups=groups,
        wins=counts["wins"],
        special_role_wins=counts["special_role_wins"],
        killed_first_night=counts["killed_first_night"],
        tie_breaks=_tie_values(system, groups, counts),
    )


def rank_key(system: ScoringSystem, row: PointsRow) -> tuple[float, ...]:
    """Higher first: the total (or points per game) then each tie-break (mafiaratings' compare_scores, 1e-5
    tolerance as there: figures are rounded to it before comparing)."""
    head = row.total if system.rank == "total" else (row.per_game.value if row.seats else -math.inf)
    return tuple(-round(x, 5) for x in (head, *row.tie_breaks))


def points_table(items: Sequence[SeatGame], system: ScoringSystem) -> PointsReport:
    """The points table of `items` (every seat-game of a tournament) under `system`."""
    comp = counters(items)
    scored = [(item, score_facts(system, item.facts, comp[item.config])) for item in items]
    clusters = {deal: i for i, deal in enumerate(sorted({item.deal for item in items}))}
    configs = sorted({item.config for item in items})
    rows = [_row(system, c, "", [x for x in scored if x[0].config == c], clusters) for c in configs]
    rows.sort(key=lambda r: (rank_key(system, r), r.config))
    rows = [_ranked(r, i + 1) for i, r in enumerate(rows)]
    order = {row.config: i for i, row in enumerate(rows)}
    roles = []
    for c in configs:
        for role in sorted({i.facts.role for i in items if i.config == c}, key=_role_order):
            chosen = [x for x in scored if x[0].config == c and x[0].facts.role == role]
            roles.append(_row(system, c, role, chosen, clusters))
    roles.sort(key=lambda r: (order[r.config], _role_order(r.role)))
    return PointsReport(
        system=system,
        configs=rows,
        roles=roles,
        deals=len(clusters),
        games=len({i.game for i in items}),
        scores={(item.game, item.facts.seat): score for item, score in scored},
    )


def _ranked(row: PointsRow, rank: int) -> PointsRow:
    return PointsRow(**{**row.__dict__, "rank": rank})


def _role_order(role: str) -> int:
    return ROLE_ORDER.index(role) if role in ROLE_ORDER else len(ROLE_ORDER)


# ----- validation: a process the interval does not assume -----------------------------------------------------------
RED = ("civilian",) * 6 + ("sheriff",)
BLACK = ("mafia", "mafia", "don")


@dataclass(frozen=True)
class World:
    """Games of 10 seats (7 red, 3 black) with skewed, correlated points: each deal draws a random effect on the
    town's chance, shared by every replay; teammates win together; a red first-night victim, a best move with two or
    three hits, a removal and a taken-away auto-bonus happen at rates that depend on the configuration; a
    configuration holds 1 to 3 seats of a game, unevenly. Nothing here is normal or independent within a game."""

    skill: dict[str, float]  # each configuration's effect on its side's logit
    deal_sd: float = 0.8
    replays: int = 4  # games per deal (the seats reshuffled among configurations each time)
    p_fouls: float = 0.03
    p_no_bonus: float = 0.05


def _facts(seat: int, role: str, won: bool | None, rng: random.Random, world: World, first_night: bool,
           config: str) -> SeatFacts:  # fmt: skip
    team = "red" if role in RED else "black"
    flags = {"played"}
    if won is None:
        flags.add("draw")
    else:
        flags.add("win" if won else "loss")
    if first_night:
        flags |= {"killed_first_night", "killed_night"}
        guess = rng.random()
        if guess < 0.25:
            flags.add("legacy_2")
        elif guess < 0.32:
            flags.add("legacy_3")
    if rng.random() < world.p_fouls * (2.0 if config.endswith("b") else 1.0):
        flags.add("removed_by_fouls")
    extra = 0.0
    if rng.random() < world.p_no_bonus:
        flags |= {"no_auto_bonus", "bonus"}
    elif rng.random() < 0.1:
        extra = rng.choice((0.1, 0.2, 0.4, -0.3))
        flags.add("bonus")
    return SeatFacts(seat, role, team, frozenset(flags), extra_points=extra)


def simulate_tournament(world: World, configs: Sequence[str], deals: int, rng: random.Random) -> list[SeatGame]:
    """One tournament: `deals` deals, each replayed `world.replays` times with the configurations reseated."""
    items: list[SeatGame] = []
    game = 0
    for d in range(deals):
        roles = list(RED + BLACK)
        rng.shuffle(roles)
        effect = rng.gauss(0.0, world.deal_sd)
        for _ in range(world.replays):
            # unbalanced: the first configuration holds 1 to 3 seats, the others share the rest at random
            first = rng.randint(1, 3)
            holders = [configs[0]] * first + [rng.choice(configs[1:]) for _ in range(10 - first)]
            rng.shuffle(holders)
            eta = effect + sum(world.skill[c] * (1 if roles[i] in RED else -1) for i, c in enumerate(holders)) / 5
            draw = rng.random() < 0.02
            town = rng.random() < 1 / (1 + math.exp(-eta))
            victim = rng.choice([i for i, r in enumerate(roles) if r in RED]) if rng.random() < 0.8 else -1
            for i, (role, config) in enumerate(zip(roles, holders, strict=True)):
                won = None if draw else (town if role in RED else not town)
                facts = _facts(i + 1, role, won, rng, world, i == victim, config)
                items.append(SeatGame(game, f"d{d}", config, facts))
            game += 1
    return items


def simulate_coverage(
    system: ScoringSystem, *, tournaments: int = 200, deals: int = 25, truth_tournaments: int = 2000, seed: int = 1
) -> dict[str, tuple[float, float]]:
    """Per configuration: (the share of tournaments whose points-per-game interval holds the truth, the truth). The
    truth is the expected points per seat-game, estimated as total points over seat-games pooled across
    `truth_tournaments` other tournaments of the same world and design."""
    world = World({"a": 0.4, "b": -0.2, "c": 0.0})
    configs = list(world.skill)
    rng = random.Random(seed)
    totals: dict[str, list[float]] = {c: [0.0, 0.0] for c in configs}
    for _ in range(truth_tournaments):
        for row in points_table(simulate_tournament(world, configs, deals, rng), system).configs:
            totals[row.config][0] += row.total
            totals[row.config][1] += row.seats
    truth = {c: total / seats for c, (total, seats) in totals.items()}
    held = dict.fromkeys(configs, 0)
    for _ in range(tournaments):
        for row in points_table(simulate_tournament(world, configs, deals, rng), system).configs:
            held[row.config] += int(row.per_game.covers(truth[row.config]))
    return {c: (held[c] / tournaments, truth[c]) for c in configs}


# ----- the table as cells: report.md, report.html, points.csv and the command line draw the same ---------------------
def _fmt(x: float) -> str:
    return f"{x:.2f}".replace("-", "−")


def _iv(iv: Interval) -> str:
    if math.isnan(iv.value):
        return "–"
    if not math.isfinite(iv.low):
        return f"{iv.value:.3f}"
    return f"{iv.value:.3f} [{iv.low:.3f}, {iv.high:.3f}]"


def tie_columns(system: ScoringSystem) -> list[str]:
    """The tie-breaks that are not a column already: a sum of groups, named by its groups (`extra+penalty+legacy`)."""
    return ["+".join(keys) for keys in system.tie_breaks if len(keys) > 1]


def table_head(system: ScoringSystem, by_role: bool = False) -> list[str]:
    head = ["rank", "configuration"] if not by_role else ["configuration", "role"]
    head += ["games", "seat-games", "total", "points per game (95 %, per game)", *system.groups]
    if not by_role:
        head += tie_columns(system)
    return [*head, "wins", "sheriff/don wins", "red, shot on Night 1"]


def table_cells(report: PointsReport, by_role: bool = False) -> list[list[str]]:
    """The rows of the configurations' table (ranked) or of the per-role table, as text."""
    system = report.system
    sums = [i for i, keys in enumerate(system.tie_breaks) if len(keys) > 1]
    out = []
    for row in report.roles if by_role else report.configs:
        cells = [row.config, row.role] if by_role else [str(row.rank), row.config]
        cells += [str(row.games), str(row.seats), _fmt(row.total), _iv(row.per_game) + (" sparse" if
                  row.per_game.sparse else "")]  # fmt: skip
        cells += [_fmt(row.groups[g]) for g in system.groups]
        if not by_role:
            cells += [_fmt(row.tie_breaks[i]) for i in sums]
        cells += [str(row.wins), str(row.special_role_wins), str(row.killed_first_night)]
        out.append(cells)
    return out


CSV_COLUMNS = ["grouping", "rank", "config", "role", "games", "seats", "total", "per_game", "low", "high", "deals",
               "sparse"]  # fmt: skip


def csv_rows(report: PointsReport) -> tuple[list[str], list[dict[str, object]]]:
    """points.csv: one row per configuration (`grouping` config) and per configuration and role (`role`)."""
    system = report.system
    columns = [*CSV_COLUMNS, *system.groups, *tie_columns(system), "wins", "special_role_wins", "killed_first_night"]
    sums = [(i, "+".join(keys)) for i, keys in enumerate(system.tie_breaks) if len(keys) > 1]
    rows: list[dict[str, object]] = []
    for grouping, chosen in (("config", report.configs), ("role", report.roles)):
        for row in chosen:
            iv = row.per_game
            cells: dict[str, object] = {
                "grouping": grouping, "rank": row.rank if grouping == "config" else "", "config": row.config,
                "role": row.role, "games": row.games, "seats": row.seats, "total": row.total, "per_game": iv.value,
                "low": iv.low, "high": iv.high, "deals": iv.clusters, "sparse": int(iv.sparse),
                "wins": row.wins, "special_role_wins": row.special_role_wins,
                "killed_first_night": row.killed_first_night,
            }  # fmt: skip
            cells |= {g: row.groups[g] for g in system.groups}
            cells |= {name: row.tie_breaks[i] for i, name in sums}
            rows.append(cells)
    return columns, rows
