"""The report's plots as PNG bytes: ratings (identified quantities only), win rates per side, metrics by day, and
probe calibration. Every point carries its 95 % interval, as in the tables."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")  # files only: never a display

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from arena.research.identify import COMBINED, MAFIA, TOWN
from arena.research.intervals import Interval
from arena.research.summary import MetricRow, Plot, Report

CALIBRATION_BINS = 10


def _png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def _bars(ivs: Sequence[Interval]) -> list[list[float]]:
    # clamped: a bootstrap bound can sit a rounding error beyond the point estimate
    return [[max(0.0, iv.value - iv.low) for iv in ivs], [max(0.0, iv.high - iv.value) for iv in ivs]]


def ratings_plot(r: Report) -> Plot | None:
    if r.rating is None or not r.rating.estimates:
        return None
    names = r.rating.ranked()
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(names) + 1.8))
    for offset, kind, color, label in ((-0.2, TOWN, "tab:red", "town skill"), (0.0, MAFIA, "black", "mafia skill"),
                                       (0.2, COMBINED, "tab:blue", "combined (identified)")):  # fmt: skip
        rows = [(i, r.rating.estimate(c, kind)) for i, c in enumerate(names)]
        shown = [(i, e.interval) for i, e in rows if e is not None]
        if shown:
            ivs = [iv for _, iv in shown]
            ax.errorbar([iv.value for iv in ivs], [i + offset for i, _ in shown], xerr=_bars(ivs), fmt="o",
                        color=color, capsize=4, label=label)  # fmt: skip
    ax.set_yticks(range(len(names)), names)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("skill (logit scale, centred), 95 % block-bootstrap interval; unidentified: not drawn")
    ax.legend(loc="best", fontsize=8)
    ax.set_title("Side-aware ratings")
    return Plot("ratings", "Ratings with 95 % intervals", _png(fig))


def sides_plot(r: Report) -> Plot | None:
    if not r.sides:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.5))
    labels = [f"{s.config}\n{s.side}" for s in r.sides]
    colors = ["tab:red" if s.side == TOWN else "black" for s in r.sides]
    ax.bar(range(len(labels)), [s.rate.value for s in r.sides], yerr=_bars([s.rate for s in r.sides]), color=colors,
           capsize=4)  # fmt: skip
    ax.set_xticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of its games the side won (95 %, per game)")
    ax.set_title("Win rates per side")
    return Plot("win_rates", "Win rates per side", _png(fig))


def _series(rows: Sequence[MetricRow], metric: str, days: Sequence[int]) -> list[Interval]:
    cells = {int(row.group): row.interval for row in rows if row.metric == metric}
    return [cells.get(d, Interval(math.nan, math.nan, math.nan)) for d in days]


def days_plot(r: Report) -> Plot | None:
    days = sorted({int(row.group) for row in r.by_day} | set(r.blacks_alive))
    if not days:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.5))
    series = {
        "vote accuracy (chosen red votes on black)": _series(r.by_day, "vote_accuracy", days),
        "bussing (chosen black votes on black)": _series(r.by_day, "bussing_rate", days),
        "blacks alive at nightfall": [r.blacks_alive.get(d, Interval(math.nan, math.nan, math.nan)) for d in days],
        "probe Brier (all seats)": _series(r.by_day, "probe_brier", days),
    }
    for offset, (label, ivs) in zip((-0.09, -0.03, 0.03, 0.09), series.items(), strict=True):
        _errorline(ax, [d + offset for d in days], ivs, label)
    ax.set_xlabel("day")
    ax.set_ylim(0, 1.05)
    ax.set_xticks(days)
    ax.legend(fontsize=8)
    ax.set_title("Metrics by day (95 % intervals)")
    return Plot("by_day", "Metrics by day", _png(fig))


def _errorline(ax: Axes, xs: Sequence[float], ivs: Sequence[Interval], label: str) -> None:
    values = [iv.value for iv in ivs]
    err = [[0.0 if math.isnan(iv.low) else max(0.0, iv.value - iv.low) for iv in ivs],
           [0.0 if math.isnan(iv.high) else max(0.0, iv.high - iv.value) for iv in ivs]]  # fmt: skip
    ax.errorbar(xs, values, yerr=err, marker="o", capsize=3, label=label)


def calibration(points: Sequence[tuple[float, bool]], bins: int = CALIBRATION_BINS) -> list[tuple[float, float, int]]:
    """(mean predicted, observed frequency, count) per probability bin that holds any point."""
    sums = [[0.0, 0.0, 0] for _ in range(bins)]
    for p, y in points:
        cell = sums[min(bins - 1, int(p * bins))]
        cell[0] += p
        cell[1] += 1.0 if y else 0.0
        cell[2] += 1
    return [(s[0] / s[2], s[1] / s[2], int(s[2])) for s in sums if s[2]]


def calibration_plot(r: Report) -> Plot | None:
    red: list[tuple[float, bool]] = []
    black: list[tuple[float, bool]] = []
    for m in r.measured:
        for _, prober, p, y in m.probe_points:
            (black if m.game.black(prober) else red).append((p, y))
    if not red and not black:
        return None
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--", label="perfect calibration")
    for points, label, color in ((red, "red seats", "tab:red"), (black, "black seats", "black")):
        curve = calibration(points)
        if curve:
            ax.plot([c[0] for c in curve], [c[1] for c in curve], marker="o", color=color,
                    label=f"{label} ({len(points)})")  # fmt: skip
    ax.set_xlabel("stated P(black)")
    ax.set_ylabel("observed share black")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title("Belief probes: calibration")
    return Plot("calibration", "Probe calibration curves", _png(fig))


def plots(r: Report) -> list[Plot]:
    made = (ratings_plot(r), sides_plot(r), days_plot(r), calibration_plot(r))
    return [p for p in made if p is not None]
