"""`arena report DIR`: ratings, win rates, metrics and probe calibration of a folder of transcripts.

Writes, into the output folder: `report.md`; `report.html`, one self-contained page (plots embedded as base64 PNG,
no external URL); the plots as `plots/*.png`; and `games.csv`, `seats.csv`, `days.csv`, `decisions.csv` for pandas
(every column is documented in docs/metrics.md).
"""

from __future__ import annotations

import base64
import html
import io
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: never a display

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from arena.research import tables
from arena.research.corpus import TAMPERED, Corpus, load_folder
from arena.research.metrics import Counts, GameMetrics, measure, rates
from arena.research.ratings import Discipline, Fit, SideRecord, discipline, fit, matches, win_rates
from arena.safe_write import Folder, UnsafePath, links_in

CALIBRATION_BINS = 10


class ReportError(ValueError):
    """A folder that cannot be reported on (no finished games); the message says why."""


@dataclass
class Plot:
    name: str
    title: str
    png: bytes


@dataclass
class Report:
    corpus: Corpus
    measured: list[GameMetrics]
    rating: Fit | None
    sides: list[SideRecord]
    discipline: list[Discipline]
    by_config: dict[str, Counts] = field(default_factory=dict)
    by_role: dict[str, Counts] = field(default_factory=dict)
    by_day: dict[int, Counts] = field(default_factory=dict)
    blacks_alive: dict[int, tuple[int, int]] = field(default_factory=dict)  # day -> (blacks alive, blacks dealt)
    plots: list[Plot] = field(default_factory=list)


def build(folder: Path, *, boot: int = 200) -> Report:
    corpus = load_folder(folder)
    if not corpus.games:
        why = f"; {len(corpus.skipped)} file(s) skipped, e.g. {corpus.skipped[0][1]}" if corpus.skipped else ""
        raise ReportError(f"{folder}: no finished game transcripts{why}")
    measured = [measure(g) for g in corpus.games]
    two_sided = matches(corpus)
    rating = fit(two_sided, boot=boot) if two_sided else None
    r = Report(corpus, measured, rating, win_rates(corpus.games), discipline(corpus.games))
    for m in measured:
        g = m.game
        for seat, counts in m.seats.items():
            r.by_config.setdefault(g.configs.get(seat, "?"), Counts()).add(counts)
            r.by_role.setdefault(g.roles[seat], Counts()).add(counts)
        for day, counts in m.days.items():
            if day >= 1:
                r.by_day.setdefault(day, Counts()).add(counts)
        dealt = sum(1 for s in g.roles if g.black(s))
        for day, alive in m.blacks_alive.items():
            a, d = r.blacks_alive.get(day, (0, 0))
            r.blacks_alive[day] = (a + alive, d + dealt)
    r.plots = [p for p in (_ratings_plot(r), _sides_plot(r), _days_plot(r), _calibration_plot(r)) if p is not None]
    return r


# ----- plots --------------------------------------------------------------------------------------------------------
def _png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def _ratings_plot(r: Report) -> Plot | None:
    if r.rating is None:
        return None
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(r.rating.ratings) + 1.8))
    names = [x.config for x in r.rating.ratings]
    for offset, side, color in ((-0.15, "town", "tab:red"), (0.15, "mafia", "black")):
        ivs = [getattr(x, side) for x in r.rating.ratings]
        ys = [i + offset for i in range(len(names))]
        xs = [iv.value for iv in ivs]
        err = [[max(0.0, iv.value - iv.low) for iv in ivs], [max(0.0, iv.high - iv.value) for iv in ivs]]
        ax.errorbar(xs, ys, xerr=err, fmt="o", color=color, capsize=4, label=f"{side} skill")
    ax.set_yticks(range(len(names)), names)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("skill (logit scale, centred), 95 % bootstrap interval")
    ax.legend(loc="best")
    ax.set_title("Side-aware ratings")
    return Plot("ratings", "Ratings with 95 % intervals", _png(fig))


def _sides_plot(r: Report) -> Plot | None:
    if not r.sides:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.5))
    labels = [f"{s.config}\n{s.side}" for s in r.sides]
    values = [s.rate.value for s in r.sides]
    # clamped: a bootstrap or Wilson bound can sit a rounding error beyond the point estimate
    err = [
        [max(0.0, s.rate.value - s.rate.low) for s in r.sides],
        [max(0.0, s.rate.high - s.rate.value) for s in r.sides],
    ]
    colors = ["tab:red" if s.side == "town" else "black" for s in r.sides]
    ax.bar(range(len(labels)), values, yerr=err, color=colors, capsize=4)
    ax.set_xticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (seat-games), Wilson 95 %")
    ax.set_title("Win rates per side")
    return Plot("win_rates", "Win rates per side", _png(fig))


def _days_plot(r: Report) -> Plot | None:
    days = sorted(set(r.by_day) | set(r.blacks_alive))
    if not days:
        return None
    fig, ax = plt.subplots(figsize=(7, 3.5))
    series = {
        "vote accuracy (red votes on black)": [rates(r.by_day.get(d, Counts()))["vote_accuracy"] for d in days],
        "bussing (black votes on black)": [rates(r.by_day.get(d, Counts()))["bussing_rate"] for d in days],
        "blacks alive at nightfall": [
            r.blacks_alive[d][0] / r.blacks_alive[d][1] if d in r.blacks_alive and r.blacks_alive[d][1] else math.nan
            for d in days
        ],
        "probe Brier (all seats)": [rates(r.by_day.get(d, Counts()))["probe_brier"] for d in days],
    }
    for label, ys in series.items():
        ax.plot(days, ys, marker="o", label=label)
    ax.set_xlabel("day")
    ax.set_ylim(0, 1.05)
    ax.set_xticks(days)
    ax.legend(fontsize=8)
    ax.set_title("Metrics by day")
    return Plot("by_day", "Metrics by day", _png(fig))


def calibration(points: Sequence[tuple[float, bool]], bins: int = CALIBRATION_BINS) -> list[tuple[float, float, int]]:
    """(mean predicted, observed frequency, count) per probability bin that holds any point."""
    sums = [[0.0, 0.0, 0] for _ in range(bins)]
    for p, y in points:
        cell = sums[min(bins - 1, int(p * bins))]
        cell[0] += p
        cell[1] += 1.0 if y else 0.0
        cell[2] += 1
    return [(s[0] / s[2], s[1] / s[2], int(s[2])) for s in sums if s[2]]


def _calibration_plot(r: Report) -> Plot | None:
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
            ax.plot(
                [c[0] for c in curve], [c[1] for c in curve], marker="o", color=color, label=f"{label} ({len(points)})"
            )
    ax.set_xlabel("stated P(black)")
    ax.set_ylabel("observed share black")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title("Belief probes: calibration")
    return Plot("calibration", "Probe calibration curves", _png(fig))


# ----- text ---------------------------------------------------------------------------------------------------------
def _f(value: float, digits: int = 3) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


_MD_ESCAPES = {
    "\\": "\\\\", "|": "\\|", "`": "\\`", "[": "\\[", "]": "\\]", "&": "&amp;", "<": "&lt;", ">": "&gt;",
}  # fmt: skip
_MD_UNESCAPES = {v: k for k, v in _MD_ESCAPES.items()} | {"\\:": ":", "\\.": ".", "\\@": "@"}
_AUTOLINK = re.compile(r"(?i)(?<=https)(:)|(?<=http)(:)|(?<=ftp)(:)|(?<=\bwww)(\.)|(@)")


def md_text(value: object) -> str:
    """Text from a transcript (agent names, rules names, paths) made inert in Markdown: a `|` cannot split a table
    cell, `<`/`>` cannot open HTML, a backtick cannot open code, `[`/`]` cannot make a link or an image, a URL or
    an address is not linked (`https\\://`, `www\\.`, `\\@`), a line break cannot end the row."""
    text = "".join(" " if ch in "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029" else ch for ch in str(value))
    text = "".join(_MD_ESCAPES.get(ch, ch) for ch in text)
    return _AUTOLINK.sub(lambda m: "\\" + m.group(0), text)


def _md_plain(text: str) -> str:
    """The text `md_text` escaped (the HTML page escapes it its own way)."""
    return re.sub(r"\\[\\|`\[\]:.@]|&amp;|&lt;|&gt;", lambda m: _MD_UNESCAPES[m.group(0)], text)


def _split_row(line: str) -> list[str]:
    """The cells of a Markdown table row, split at the `|` that `md_text` did not escape."""
    cells = re.split(r"(?<!\\)((?:\\\\)*)\|", line.strip())
    # re.split keeps the captured even runs of backslashes: glue each back onto the cell before it
    parts = [cells[i] + (cells[i + 1] if i + 1 < len(cells) else "") for i in range(0, len(cells), 2)]
    return [_md_plain(c.strip()) for c in parts[1:-1]]


def _table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    out = ["| " + " | ".join(md_text(h) for h in head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(md_text(c) for c in row) + " |" for row in rows]
    return out


METRIC_KEYS = (
    "vote_accuracy",
    "bussing_rate",
    "red_nominations_on_black_share",
    "best_move_hit_rate",
    "probe_brier",
    "detection_brier",
    "deception",
    "tokens_per_decision",
    "cost_per_decision",
)


def sections(r: Report) -> list[tuple[str, list[str]]]:
    """The report's sections as Markdown lines (the HTML page draws the same tables)."""
    out: list[tuple[str, list[str]]] = []
    c = r.corpus
    winners: dict[str, int] = {}
    for g in c.games:
        winners[g.winner or "?"] = winners.get(g.winner or "?", 0) + 1
    lines = [
        f"{len(c.games)} finished games ({len(c.skipped)} files skipped); configurations: "
        f"{', '.join(md_text(x) for x in c.configs)}; winners: "
        + ", ".join(f"{md_text(k)} {v}" for k, v in sorted(winners.items()))
    ]
    out.append(("Games", lines))
    if c.skipped:
        tampered = sum(1 for _, why in c.skipped if why.startswith(TAMPERED))
        lines = [
            f"{len(c.skipped)} file(s) not counted"
            + (f", {tampered} of them tampered (hash chain broken: edited after it was written)" if tampered else "")
            + ":",
            "",
        ]
        lines += [f"- {md_text(path)}: {md_text(why)}" for path, why in c.skipped]
        out.append(("Skipped files", lines))
    if r.rating is not None:
        rows: list[list[object]] = [
            [x.config, *(f"{iv.value:+.2f} [{iv.low:+.2f}, {iv.high:+.2f}]" for iv in (x.town, x.mafia, x.combined))]
            for x in r.rating.ratings
        ]
        lines = _table(["configuration", "town skill", "mafia skill", "combined"], rows)
        lines += [""] + [
            f"Side term h[{md_text(k)}] = {v.value:+.2f} [{v.low:+.2f}, {v.high:+.2f}]"
            for k, v in r.rating.side.items()
        ]
        lines += ["", "Side-aware Bradley–Terry, 95 % bootstrap intervals over games (docs/ratings.md)."]
        out.append(("Ratings", lines))
    rows = [
        [s.config, s.side, f"{s.wins}/{s.seats}", f"{s.rate.value:.1%} [{s.rate.low:.1%}, {s.rate.high:.1%}]"]
        for s in r.sides
    ]
    out.append(
        ("Win rates per side", _table(["configuration", "side", "won / seat-games", "rate (Wilson 95 %)"], rows))
    )
    rows = [
        [
            d.config,
            d.decisions,
            _f(d.rate(d.reasks)),
            _f(d.rate(d.defaults)),
            _f(d.rate(d.timeouts)),
            _f(d.invalid_rate),
        ]
        for d in r.discipline
    ]
    head = [
        "configuration",
        "decisions",
        "re-asks / decision",
        "defaults / decision",
        "timeouts / decision",
        "invalid / decision",
    ]
    out.append(("Invalid actions (beside the skill, never in it)", _table(head, rows)))
    for title, groups in (("Metrics per configuration", r.by_config), ("Metrics per role", r.by_role)):
        rows = [[k, *(_f(rates(v)[m]) for m in METRIC_KEYS)] for k, v in sorted(groups.items())]
        out.append((title, _table(["", *METRIC_KEYS], rows)))
    rows = []
    for d in sorted(set(r.by_day) | set(r.blacks_alive)):
        v = rates(r.by_day.get(d, Counts()))
        alive, dealt = r.blacks_alive.get(d, (0, 0))
        rows.append(
            [
                d,
                _f(v["vote_accuracy"]),
                _f(v["bussing_rate"]),
                _f(alive / dealt if dealt else math.nan),
                _f(v["probe_brier"]),
                _f(v["detection_brier"]),
                _f(v["deception"]),
            ]
        )
    head = ["day", "vote_accuracy", "bussing_rate", "blacks_alive_share", "probe_brier", "detection_brier", "deception"]
    out.append(("Metrics by day", _table(head, rows)))
    total = Counts()
    for m in r.measured:
        total.add(m.total)
    t = rates(total)
    lines = [
        f"Sheriff checks: {total.sheriff_checks} ({total.sheriff_checks_black} found a black; "
        f"{total.checks_announced} announced; {total.checked_black_voted_out} black finds voted out).",
        f"Claims: {total.claims}; sheriff claims true {total.sheriff_claims_true}, false {total.sheriff_claims_false}, "
        f"counter-claims {total.counter_claims}; in the next vote round {total.claim_votes_red} red votes, "
        f"{total.claim_votes_red_on_claimant} on the claimant, {total.claim_votes_red_on_accused} on a seat he called "
        f"black; claimants later voted out: {total.claimants_voted_out}.",
        f"Probes: {total.probe_pairs} probabilities; Brier {_f(t['probe_brier'])} (flat 0.3: "
        f"{_f(t['probe_uniform_brier'])}), log-loss {_f(t['probe_logloss'])}; detection (red Brier) "
        f"{_f(t['detection_brier'])}; deception (P(black) red gave black) {_f(t['deception'])}.",
        f"Tokens: {total.prompt_tokens} prompt + {total.completion_tokens} completion over {total.calls} calls; "
        f"cost ${total.cost_usd:.4f} ({_f(total.cost_usd / len(r.measured), 6)} per game).",
    ]
    out.append(("Totals", lines))
    return out


def markdown(r: Report) -> str:
    lines = ["# Mafia Arena report", ""]
    for title, body in sections(r):
        lines += [f"## {title}", "", *body, ""]
    lines += ["## Plots", ""] + [f"![{p.title}](plots/{p.name}.png)" for p in r.plots]
    lines += ["", "Columns of games.csv, seats.csv, days.csv and decisions.csv: docs/metrics.md.", ""]
    return "\n".join(lines)


def page(r: Report) -> str:
    """One self-contained HTML page: inline style, plots as data: URIs, nothing fetched from anywhere."""
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Mafia Arena report</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 6px;"
        "font-size:13px}img{max-width:100%}</style></head><body><h1>Mafia Arena report</h1>",
    ]
    for title, body in sections(r):
        parts.append(f"<h2>{html.escape(title)}</h2>")
        table: list[list[str]] = []
        for line in [*body, ""]:
            if line.startswith("|"):
                if not line.startswith("|---"):
                    table.append(_split_row(line))
                continue
            if table:
                head, *rows = table
                parts.append("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>")
                parts += ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows]
                parts.append("</table>")
                table = []
            if line:
                parts.append(f"<p>{html.escape(_md_plain(line))}</p>")
    for p in r.plots:
        data = base64.b64encode(p.png).decode("ascii")
        parts.append(
            f"<h2>{html.escape(p.title)}</h2><img alt='{html.escape(p.title)}' src='data:image/png;base64,{data}'>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)


@dataclass
class Written:
    folder: Path
    files: list[Path]
    games: int


def write(r: Report, out: Path) -> Written:
    """Write every file into `out` (created if missing) through `arena.safe_write`: never through a symbolic link.
    A folder that already holds links (a planted `games.csv -> ~/.bashrc`) is refused before anything is written."""
    planted = links_in(out)
    if planted:
        shown = ", ".join(f"{p} -> {os.readlink(p)}" if p.is_symlink() else str(p) for p in planted[:3])
        raise ReportError(
            f"{out}: the output folder holds symbolic links ({shown}); nothing was written. A report never writes "
            "through a link: remove them, or choose another --out"
        )
    files: list[Path] = []
    try:
        with Folder(out) as folder:
            with folder.folder("plots") as plots:
                files += [plots.write(f"{p.name}.png", p.png) for p in r.plots]
            csvs = (
                (
                    "games.csv",
                    tables.GAME_COLUMNS + tables.COUNT_COLUMNS + tables.RATE_COLUMNS,
                    [tables.game_row(m) for m in r.measured],
                ),
                (
                    "seats.csv",
                    tables.SEAT_COLUMNS + tables.COUNT_COLUMNS + tables.RATE_COLUMNS,
                    [row for m in r.measured for row in tables.seat_rows(m)],
                ),
                (
                    "days.csv",
                    tables.DAY_COLUMNS + tables.COUNT_COLUMNS + tables.RATE_COLUMNS,
                    [row for m in r.measured for row in tables.day_rows(m)],
                ),
                (
                    "decisions.csv",
                    tables.DECISION_COLUMNS,
                    [row for g in r.corpus.games for row in tables.decision_rows(g)],
                ),
            )
            for name, columns, rows in csvs:
                with folder.replace_text(name) as handle:
                    tables.write_rows(handle, columns, rows)
                files.append(out / name)
            files += [folder.write("report.md", markdown(r)), folder.write("report.html", page(r))]
    except UnsafePath as exc:
        raise ReportError(f"{exc}; choose another --out") from None
    return Written(out, files, len(r.measured))


def report(folder: Path, out: Path, *, boot: int = 200) -> Written:
    return write(build(folder, boot=boot), out)
