"""Everything `arena report` states about a folder of games, computed once: what the design identifies and the
ratings of those quantities, comparisons, outcomes, roles and seats, invalid actions and every metric, each with
its 95 % interval and its n (rendering is `report.py`'s job).

Every rate is a ratio of sums over games; its interval is counted per game and clustered by deal
(`intervals.py`), so the seats of one game and the replays of one deal are never treated as independent trials.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from arena.research import tables
from arena.research.corpus import Corpus, GameData, Progress, load_folder
from arena.research.intervals import Interval, proportion, ratio
from arena.research.metrics import RATES, Counts, GameMetrics, Rate, measure
from arena.research.outcomes import (
    RolesAndSeats,
    Score,
    SideRate,
    clusters_of,
    outcome_scores,
    roles_and_seats,
    town_rates,
    win_rates,
)
from arena.research.points import PointsReport, points_table, seat_games
from arena.research.ratings import Fit, fit
from arena.research.records import Record, from_games, matches
from arena.research.transfer import Transfer, transfer
from arena.scoring import ScoringSystem


class ReportError(ValueError):
    """A folder that cannot be reported on (no finished games); the message says why."""


@dataclass
class Plot:
    """A drawn figure (`plots.py` draws them): its file name, its title and the PNG bytes."""

    name: str
    title: str
    png: bytes


@dataclass
class MetricRow:
    group: str
    metric: str
    interval: Interval


@dataclass
class Discipline:
    """How a configuration's decisions were settled, each a share of its decisions with an interval."""

    config: str
    decisions: int
    legal: Interval  # the first answer was legal
    reasked: Interval  # legal after a refused answer
    invalid: Interval  # never answered legally: the rule's default was applied
    transport: Interval  # an attempt was lost to a timeout or a connection error (not the model's doing)


@dataclass
class Report:
    corpus: Corpus
    measured: list[GameMetrics]
    records: list[Record]
    rating: Fit | None
    boot: int
    town: dict[str, Interval]  # per rule set: the town's win rate over these games
    sides: list[SideRate]
    scores: list[Score]
    roles: RolesAndSeats
    discipline: list[Discipline]
    decisions: list[tables.Row]
    by_config: list[MetricRow] = field(default_factory=list)
    by_role: list[MetricRow] = field(default_factory=list)
    by_day: list[MetricRow] = field(default_factory=list)
    totals: list[MetricRow] = field(default_factory=list)
    blacks_alive: dict[int, Interval] = field(default_factory=dict)  # day -> share of blacks alive at nightfall
    points: PointsReport | None = None  # `--scoring`: the points table (research/points.py)
    plots: list[Plot] = field(default_factory=list)
    transfer: Transfer | None = None  # two rule sets (or languages) on paired deals: does a skill transfer?

    @property
    def deals(self) -> int:
        return len({r.deal for r in self.records})


def _clip(iv: Interval, rate: Rate) -> Interval:
    low, high = rate.bounds
    return Interval(iv.value, max(low, iv.low), min(high, iv.high), iv.n, iv.clusters)


def rate_interval(rate: Rate, counts: Sequence[Counts], clusters: np.ndarray) -> Interval:
    """The interval of one rate from per-game Counts (one per game, clustered by deal)."""
    num = np.asarray([rate.num(c) for c in counts], dtype=np.float64)
    den = np.asarray([rate.den(c) for c in counts], dtype=np.float64)
    return rate_interval_of(rate, num, den, clusters)


def rate_interval_of(rate: Rate, num: np.ndarray, den: np.ndarray, clusters: np.ndarray) -> Interval:
    """The interval of one rate from per-game numerators and denominators (the report's interval, as above)."""
    keep = den > 0
    if not keep.any():
        return Interval(math.nan, math.nan, math.nan, 0.0, 0)
    iv = proportion(num[keep], den[keep], clusters[keep]) if rate.proportion else ratio(num[keep], den[keep],
                                                                                        clusters[keep])  # fmt: skip
    return _clip(iv, rate)


def metric_rows(groups: dict[str, list[Counts]], clusters: np.ndarray) -> list[MetricRow]:
    """Every rate of every group that has a denominator, with its interval (`groups`: per group, per game)."""
    out = []
    for group, counts in sorted(groups.items(), key=lambda kv: _sort_key(kv[0])):
        for rate in RATES:
            iv = rate_interval(rate, counts, clusters)
            if iv.n > 0:
                out.append(MetricRow(group, rate.name, iv))
    return out


def _sort_key(group: str) -> tuple[int, str]:
    return (int(group), "") if group.isdigit() else (1 << 30, group)


def _per_game(
    measured: Sequence[GameMetrics], key: Callable[[GameMetrics, int], str | None]
) -> dict[str, list[Counts]]:
    """Per group, one Counts per game: the sum of the game's seats that `key` puts in the group."""
    groups: dict[str, list[Counts]] = {}
    for g, m in enumerate(measured):
        for seat, counts in m.seats.items():
            name = key(m, seat)
            if name is None:
                continue
            cells = groups.setdefault(name, [Counts() for _ in measured])
            cells[g].add(counts)
    return groups


def discipline(records: Sequence[Record], decisions: Sequence[tables.Row], game_ids: Sequence[str]) -> list[Discipline]:
    clusters = clusters_of(records)
    cluster_of = dict(zip(game_ids, clusters, strict=True))
    by_config: dict[str, list[tuple[int, str]]] = {}
    for row in decisions:
        by_config.setdefault(str(row["config"]), []).append((int(cluster_of[str(row["game_id"])]),
                                                             tables.decision_outcome(row)))  # fmt: skip
    out = []
    for config, rows in sorted(by_config.items()):
        ids = np.asarray([c for c, _ in rows])
        kinds = [o for _, o in rows]
        shares = [proportion(np.asarray([float(o == kind) for o in kinds]), np.ones(len(rows)), ids)
                  for kind in (tables.LEGAL, tables.REASKED, tables.INVALID, tables.TRANSPORT)]  # fmt: skip
        out.append(Discipline(config, len(rows), *shares))
    return out


def build(
    folder: Path, *, boot: int = 200, progress: Progress | None = None, scoring: ScoringSystem | None = None
) -> Report:
    """Everything the report states, from the finished games under `folder`; `progress` hears what is being done;
    `scoring` adds the points table (`research/points.py`)."""
    corpus = load_folder(folder, progress)
    if not corpus.games:
        why = f"; {len(corpus.skipped)} file(s) skipped, e.g. {corpus.skipped[0][1]}" if corpus.skipped else ""
        raise ReportError(f"{folder}: no finished game transcripts{why}")
    measured = []
    for done, game in enumerate(corpus.games):
        if progress is not None:
            progress("measuring games", done, len(corpus.games))
        measured.append(measure(game))
    records = from_games(corpus.games)
    two_sided = matches(records)
    if progress is not None:
        progress(f"fitting ratings ({boot} bootstrap resamples)", 0, 1)
    rating = fit(two_sided, boot=boot) if two_sided else None
    decisions = [row for g in corpus.games for row in tables.decision_rows(g)]
    r = Report(
        corpus, measured, records, rating, boot, town_rates(records), win_rates(records), outcome_scores(records),
        roles_and_seats(records), discipline(records, decisions, [g.game_id for g in corpus.games]), decisions,
    )  # fmt: skip
    clusters = clusters_of(records)
    r.by_config = metric_rows(_per_game(measured, lambda m, s: m.game.configs.get(s, "?")), clusters)
    r.by_role = metric_rows(_per_game(measured, lambda m, s: m.game.roles[s]), clusters)
    r.totals = metric_rows({"all games": [m.total for m in measured]}, clusters)
    days: dict[str, list[Counts]] = {}
    for g, m in enumerate(measured):
        for day, counts in m.days.items():
            if day >= 1:
                days.setdefault(str(day), [Counts() for _ in measured])[g].add(counts)
    r.by_day = metric_rows(days, clusters)
    alive_days = sorted({d for m in measured for d in m.blacks_alive})
    for day in alive_days:
        alive = np.asarray([float(m.blacks_alive.get(day, 0)) for m in measured])
        dealt = np.asarray([float(sum(1 for s in m.game.roles if m.game.black(s))) if day in m.blacks_alive else 0.0
                            for m in measured])  # fmt: skip
        keep = dealt > 0
        r.blacks_alive[day] = proportion(alive[keep], dealt[keep], clusters[keep])
    r.transfer = _transfer(corpus.games, records, boot)
    if scoring is not None:
        r.points = points_table(seat_games(corpus.games), scoring)
    return r


def _transfer(games: Sequence[GameData], records: Sequence[Record], boot: int) -> Transfer | None:
    """Skill transfer between two rule sets, or else two languages, when the folder holds exactly two."""
    rules = [r.rules for r in records]
    if len(set(rules)) == 2:
        return transfer(records, rules, by="rules", boot=boot)
    langs = [g.transcript.header.lang if g.transcript is not None else "en" for g in games]
    if len(set(rules)) == 1 and len(set(langs)) == 2:
        return transfer(records, langs, by="language", boot=boot)
    return None
