"""`arena report DIR`: ratings, win rates, metrics and probe calibration of a folder of transcripts.

Writes, into the output folder: `report.md`; `report.html`, one self-contained page (plots embedded as base64 PNG,
no external URL); the plots as `plots/*.png`; and `games.csv`, `seats.csv`, `days.csv`, `decisions.csv`,
`ratings.csv`, `comparisons.csv` and `metrics.csv` for pandas (every column is documented in docs/metrics.md).
What is stated is computed in `summary.py`; this module only renders it. A quantity the design does not identify is
named as such and never given a number.
"""

from __future__ import annotations

import base64
import html
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

from arena.research import tables
from arena.research.corpus import TAMPERED, Progress
from arena.research.identify import COMBINED, MAFIA, TOWN, ConfigStatus, quantity_name
from arena.research.intervals import SPARSE_CLUSTERS, SPARSE_N, Interval, boundary_bounds
from arena.research.plots import plots
from arena.research.points import PointsReport, csv_rows, table_cells, table_head
from arena.research.ratings import PRIOR_SD, Comparison, Estimate, Fit
from arena.research.summary import MetricRow, Report, ReportError
from arena.research.summary import build as summarise
from arena.safe_write import Folder, UnsafePath, links_in
from arena.scoring import ScoringSystem

__all__ = [
    "Report", "ReportError", "Written", "build", "markdown", "page", "points_sections", "report", "sections", "write",
]  # fmt: skip


def build(
    folder: Path, *, boot: int = 200, progress: Progress | None = None, scoring: ScoringSystem | None = None
) -> Report:
    r = summarise(folder, boot=boot, progress=progress, scoring=scoring)
    if progress is not None:
        progress("drawing plots", 0, 1)
    r.plots = plots(r)
    return r


# ----- text ---------------------------------------------------------------------------------------------------------
_MD_ESCAPES = {
    "\\": "\\\\", "|": "\\|", "`": "\\`", "[": "\\[", "]": "\\]", "&": "&amp;", "<": "&lt;", ">": "&gt;",
}  # fmt: skip
_AUTOLINK = re.compile(r"(?i)(?<=https)(:)|(?<=http)(:)|(?<=ftp)(:)|(?<=\bwww)(\.)|(@)")


def md_text(value: object) -> str:
    """Text from a transcript (agent names, rules names, paths) made inert in Markdown: a `|` cannot split a table
    cell, `<`/`>` cannot open HTML, a backtick cannot open code, `[`/`]` cannot make a link or an image, a URL or
    an address is not linked (`https\\://`, `www\\.`, `\\@`), a line break cannot end the row, and a bidi control or
    another character not shown as itself is written out (`\\u202e`: `tables.visible`)."""
    text = "".join(" " if ch in "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029" else ch for ch in str(value))
    text = tables.visible(text)
    text = "".join(_MD_ESCAPES.get(ch, ch) for ch in text)
    return _AUTOLINK.sub(lambda m: "\\" + m.group(0), text)


def _table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    out = ["| " + " | ".join(md_text(h) for h in head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(md_text(c) for c in row) + " |" for row in rows]
    return out


def _iv(iv: Interval, digits: int = 3, signed: bool = False, percent: bool = False) -> str:
    """`value [low, high]`, or – for no value."""
    if iv.value is None or math.isnan(iv.value):
        return "–"
    if percent:
        return f"{iv.value:.1%} [{iv.low:.1%}, {iv.high:.1%}]"
    fmt = f"{'+' if signed else ''}.{digits}f"
    return f"{iv.value:{fmt}} [{iv.low:{fmt}}, {iv.high:{fmt}}]"


def _flag(iv: Interval) -> str:
    return "sparse" if iv.sparse else ""


SPARSE_NOTE = (f"`sparse`: fewer than {SPARSE_CLUSTERS} games (or deals) or fewer than {SPARSE_N} trials behind the "
               "figure; read its interval, not its value.")  # fmt: skip


def _cell(status: ConfigStatus, kind: str, r: Report) -> str:
    assert r.rating is not None
    e = r.rating.estimate(status.config, kind)
    if e is not None:
        text = f"{e.interval.value:+.2f} sparse: no interval" if e.sparse else _iv(e.interval, 2, signed=True)
        if kind == COMBINED and len(_combined_weights(r.rating)) > 1:
            text += f" ({e.quantity.name.removeprefix('combined (')}"
        return text
    played = {TOWN: status.played_town, MAFIA: status.played_mafia}
    if kind in played and not played[kind]:
        return "not played"
    if kind == COMBINED and not (status.played_town and status.played_mafia):
        return "–"
    return "not identified"


def _effective(r: Report, config: str, kind: str) -> str:
    assert r.rating is not None
    e = r.rating.estimate(config, kind)
    return "–" if e is None else f"{e.support.effective_games:.0f}"


def _design_lines(r: Report) -> list[str]:
    assert r.rating is not None
    f = r.rating
    ident = f.identification
    lines = [f"Design rank {ident.rank} of {ident.columns} columns (a side term per rule set, a town and a mafia "
             f"skill per configuration) over {len(ident.design.y)} two-sided games."]  # fmt: skip
    lines += ["", *(f"- {md_text(s.config)}: {s.describe()}" for s in ident.configs)]
    for rules, q in ident.side.items():
        lines.append(f"- side term h[{md_text(rules)}]: " + ("identified" if q is not None else "not identified"))
    weights = ident.combination_weights()
    if weights:
        w = weights[0]
        lines += ["", (
            f"**Town and mafia skills are not separable in these games.** Each configuration held one seat per game "
            "(tournament seating), so the only contrast the games offer is a configuration trading a red seat for a "
            f"black one, which moves the town's logit by (town − filler's)/7 + (mafia − filler's)/3. Only the "
            f"combination {w:.2f}·town + {1 - w:.2f}·mafia is identified (the weights come from this design); it "
            "is reported below, and no separate town or mafia skill is. To rate both, play a `schedule = \"sides\"` "
            "tournament (docs/ratings.md)."
        )]  # fmt: skip
    if any(q is None for q in ident.side.values()):
        lines += ["", "The side term (the town's logit among average configurations) is not identified either: it is "
                      "confounded with the configurations' mean skills. The town's win rate over these games is in "
                      "**Games**."]  # fmt: skip
    kinds = [k for k in (TOWN, MAFIA, COMBINED) if any(f.estimate(s.config, k) for s in ident.configs)]
    rows = [[s.config, f.counts[(s.config, TOWN)][1], f.counts[(s.config, MAFIA)][1],
             *(_effective(r, s.config, k) for k in kinds)] for s in ident.configs]  # fmt: skip
    weak = [f"{md_text(e.quantity.config)} ({e.quantity.name})" for e in f.estimates.values() if e.sparse]
    lines += ["", (f"**How much the games tell about each quantity.** Rank says only whether the games pin a "
                   "quantity down; how firmly is its *effective games*: Kish's effective number of the games its "
                   "estimate rests on ((Σ v)² / Σ v², v each game's share of its variance; a quantity that three "
                   "games of two hundred decide has about three). The information's condition number over the "
                   f"identified directions is {f.condition:.3g}. A quantity with fewer than {SPARSE_N} effective games "
                   f"or {SPARSE_CLUSTERS} effective deals, or whose configuration has fewer than {SPARSE_CLUSTERS} "
                   "games or deals on a side it involves, is `sparse`: no interval, never compared."
                   + (f" Sparse here: {', '.join(weak)}." if weak else ""))]  # fmt: skip
    head = ["configuration", "town deals", "mafia deals", *(f"effective games: {_kind_label(f, k)}" for k in kinds)]
    return [*lines, "", *_table(head, rows)]


def _combined_weights(f: Fit) -> list[float]:
    return sorted({round(e.quantity.weight, 3) for (_, kind), e in f.estimates.items() if kind == COMBINED})


def _kind_label(f: Fit, kind: str) -> str:
    """The column's quantity, its weights named (the identified combination's, when that is what is rated)."""
    if kind != COMBINED:
        return f"{kind} skill"
    weights = _combined_weights(f)
    if len(weights) > 1:
        return "combined (weights in each cell)"
    return quantity_name(COMBINED, weights[0] if weights else 0.5)


def _ratings_lines(r: Report) -> list[str]:
    assert r.rating is not None
    f = r.rating
    ident = f.identification
    rows = [[s.config, f.counts[(s.config, TOWN)][0], f.counts[(s.config, MAFIA)][0],
             *(_cell(s, kind, r) for kind in (TOWN, MAFIA, COMBINED))]
            for s in sorted(ident.configs, key=lambda s: f.ranked().index(s.config))]  # fmt: skip
    head = ["configuration", "town games", "mafia games", "town skill", "mafia skill", _kind_label(f, COMBINED)]
    lines = [*_table(head, rows), ""]
    for rules, side in f.side.items():
        lines.append(f"Side term h[{md_text(rules)}] = " + _side_text(side))
    lines += ["", (f"Side-aware Bradley–Terry (docs/ratings.md): only what the design identifies, fitted with "
                   "Firth's penalty (Jeffreys' prior) and a weak Gaussian (σ = "
                   f"{PRIOR_SD:g}); 95 % intervals: the estimate ± t on {f.clusters - 1} degrees of freedom times "
                   "its leave-one-deal-out jackknife standard error, leverage bias removed "
                   f"({f.clusters} deals; the games of a deal leave together; `ratings.csv` gives the block "
                   "bootstrap's standard deviation beside it, "
                   f"{r.boot} resamples). Skills are centred over the configurations that played the "
                   "side. A configuration's games on a side are those in which it held a seat of that side. "
                   "`sparse`: too few games behind the estimate (see **What these games identify**); its value is "
                   "shown, with no interval.")]  # fmt: skip
    return lines


def _side_text(side: Estimate | None) -> str:
    if side is None:
        return "not identified"
    if math.isnan(side.interval.low):
        return (f"{side.interval.value:+.2f}, no interval: the side term rests on every configuration's skills, "
                "and some of them are sparse (the town's win rate over the games is in **Games**)")  # fmt: skip
    return _iv(side.interval, 2, signed=True) + f" (n = {int(side.interval.n)} games)"


def _comparison_lines(r: Report) -> list[str]:
    assert r.rating is not None
    f = r.rating
    if not f.comparisons:
        return ["No pairwise difference is identified (or the games fall in fewer than two deals)."]
    rows = [[quantity_name(c.kind, c.weight), f"{c.a} − {c.b}",
             _iv(c.interval, 2, signed=True) if not c.sparse else f"{c.interval.value:+.2f}", _verdict(c),
             c.support.games, f"{c.support.effective_games:.0f}"] for c in f.comparisons]  # fmt: skip
    marked = [c for c in f.comparisons if c.better]
    judged = [c for c in f.comparisons if not c.sparse]
    lines = [(f"{len(judged)} pairwise differences, each with a **simultaneous** 95 % interval (max-|t| over "
              "all of them on the deal-level jackknife's standard errors, leverage bias removed, critical value "
              f"{f.critical:.2f} instead of 1.96): the chance that any interval "
              "misses its true difference, and so of any false \"better\", is at most 5 %.")]  # fmt: skip
    if len(judged) < len(f.comparisons):
        lines[0] += (f" {len(f.comparisons) - len(judged)} more rest on too few games (fewer than "
                     f"{SPARSE_CLUSTERS} games or deals for a configuration on a side the quantity involves, or fewer "
                     f"than {SPARSE_N} effective games or {SPARSE_CLUSTERS} effective deals): shown without an "
                     "interval, not judged, "
                     "and left out of that family, because with so few games no large-sample interval of them "
                     "holds.")  # fmt: skip
    if marked:
        lines += ["", "Better than, at that level: " + "; ".join(
            f"{md_text(c.better)} over {md_text(c.b if c.better == c.a else c.a)} ({quantity_name(c.kind, c.weight)})"
            for c in marked) + "."]  # fmt: skip
    else:
        lines += ["", "No configuration is better than another at that level."]
    head = ["quantity", "difference", "simultaneous 95 %", "verdict", "games (fewest, either side)", "effective games"]
    return [*lines, "", *_table(head, rows)]


def _verdict(c: Comparison) -> str:
    if c.better:
        return f"{c.better} better"
    if c.sparse:
        return "sparse: not compared"
    return "no difference established"


def _outcome_lines(r: Report) -> list[str]:
    rows = [[s.config, s.side, s.games, s.wins, s.draws, _iv(s.rate, percent=True), _flag(s.rate)] for s in r.sides]
    lines = _table(["configuration", "side", "games", "won", "drawn", "win rate (95 %, per game)", ""], rows)
    lines += ["", "A configuration's games on a side are the games in which it held at least one seat of that side: "
                  "one trial per game, however many seats it held; intervals are clustered by deal. Draws and "
                  "maniac wins are not wins, counted apart.", SPARSE_NOTE]  # fmt: skip
    return lines


def _score_lines(r: Report) -> list[str]:
    rows = [[s.group, s.seat_games, _iv(s.score, 3, signed=True), _flag(s.score)] for s in r.scores]
    lines = ["Mean over a configuration's seat-games of (won − the win rate of the role it held, over every seat in "
             "that role under those rules): 0 is the field in the same roles, so being dealt the winning side more "
             "often does not flatter it. The interval carries the baselines' own uncertainty.", ""]  # fmt: skip
    return lines + _table(["configuration", "seat-games", "outcome score (95 %)", ""], rows)


def _roles_lines(r: Report) -> list[str]:
    d = r.roles
    lines: list[str] = []
    if not d.separable:
        lines.append("Role effects cannot be told apart here: no configuration ever held a special role (sheriff, "
                     "don) in a game where it did not also hold the plain one of its side.")  # fmt: skip
    elif d.roles_differ:
        lines.append("**Skills differ by role** beyond the roles' leverage (Holm-adjusted, family-wise 5 %): "
                     + "; ".join(f"{md_text(t.config)} is {'better' if t.beyond > 0 else 'worse'} as {t.role} than its "
                                 f"skill elsewhere and the role's weight predict (δ = {t.beyond:+.2f} logits)"
                                 for t in d.roles_differ)
                     + ". Its rating averages over roles; read the role rates below.")  # fmt: skip
    else:
        testable = sum(1 for t in d.tests if math.isfinite(t.p))
        lines.append(f"No configuration's results differ by role beyond the roles' leverage (Holm-adjusted over "
                     f"{testable} tests, family-wise 5 %).")  # fmt: skip
    if d.tests:
        lines += ["", ("A special role weighs more than a plain one, so a configuration better than the field wins "
                       "more often in it and a worse one less, with no skill that differs by role. The test fits "
                       "every role its own weight (the side's strength a weighted mean of its seats' skills) and "
                       "asks, by a score test robust to deals, whether the configuration's skill in the role differs "
                       "by δ from its skill elsewhere. With one configuration better than an otherwise even field, "
                       "leverage and a role-specific skill cannot be told apart: no p.")]  # fmt: skip
        rows = [[t.config, f"{t.role} − {t.plain}", int(t.difference.n), _iv(t.difference, percent=True),
                 f"{t.beyond:+.2f}" if math.isfinite(t.beyond) else "–",
                 f"{t.p:.3g}" if math.isfinite(t.p) else "–", "differs" if t.rejected else "", _flag(t.difference)]
                for t in d.tests]  # fmt: skip
        head = ["configuration", "roles", "games", "win rate difference (95 %)", "δ beyond leverage (logits)", "p",
                "Holm", ""]  # fmt: skip
        lines += ["", *_table(head, rows)]
    role_rows = [[x.config, x.role, x.side, int(x.rate.n), _iv(x.rate, percent=True), _flag(x.rate)] for x in d.rates]
    lines += ["", *_table(["configuration", "role", "side", "games", "side won (95 %)", ""], role_rows)]
    seats = d.seats_differ
    lines += ["", ("**Seat position matters** (Holm-adjusted, family-wise 5 %): seat(s) "
                   + ", ".join(str(s) for s in seats) + ".") if seats else
              "No seat position's results differ from its side's (Holm-adjusted, family-wise 5 %)."]  # fmt: skip
    seat_rows = [[seat, int(iv.n), _iv(iv, 3, signed=True), "differs" if bad else "", _flag(iv)]
                 for (seat, iv), bad in zip(d.seats, d.seat_rejected, strict=True)]  # fmt: skip
    lines += ["", *_table(["seat", "seat-games", "won − role baseline (95 %)", "Holm", ""], seat_rows)]
    return lines


def _share(iv: Interval) -> str:
    """A share of decisions; at 0 % or 100 % with the bound independent decisions would give beside it."""
    text = _iv(iv, percent=True)
    if iv.value in (0.0, 1.0) and iv.n > 0:
        _, independent = boundary_bounds(iv.n, iv.clusters)
        bound = independent if iv.value == 0.0 else 1 - independent
        text += f" ({'≤' if iv.value == 0.0 else '≥'} {bound:.3%} if independent)"
    return text


def _discipline_lines(r: Report) -> list[str]:
    rows = [[d.config, d.decisions, *(_share(iv) for iv in (d.legal, d.reasked, d.invalid, d.transport))]
            for d in r.discipline]  # fmt: skip
    head = ["configuration", "decisions", "legal at once", "legal after a re-ask", "not answered legally (default)",
            "transport failure"]  # fmt: skip
    return [*_table(head, rows), "", "Shares of decisions with 95 % intervals clustered by deal. A transport failure "
            "(a timeout or a connection error) is not the model's doing and is counted apart. At 0 % or 100 % the "
            "decisions show no spread to measure their clustering by: the interval then counts each deal as one "
            "trial, which holds even if a deal's decisions all fail together, and the bracket gives the bound if "
            "every decision were independent; the truth lies between (docs/ratings.md)."]  # fmt: skip


def _config_metric(r: Report, config: str, metric: str) -> str:
    """A configuration's value of `metric` with its interval: a share in percent, a mean score (a Brier score,
    tokens per decision) as it is."""
    from arena.research.metrics import RATES

    row = next((m for m in r.by_config if m.group == config and m.metric == metric), None)
    if row is None:
        return "–"
    share = next(rate.proportion for rate in RATES if rate.name == metric)
    n = f" (n = {_n(row.interval.n)})"  # every cell of these tables is its own count: its n beside it (#32)
    return _iv(row.interval, percent=share) + n + (" sparse" if row.interval.sparse else "")


def _transfer_lines(r: Report) -> list[str]:
    t = r.transfer
    assert t is not None
    a, b = t.halves
    what = "rule sets" if t.by == "rules" else "languages"
    tau, shift = t.tau, t.shift
    if not math.isnan(shift.low):
        shift_text = f"{shift.value:+.2f} [{shift.low:+.2f}, {shift.high:+.2f}]"
    else:
        shift_text = "not identified" if math.isnan(shift.value) else f"{shift.value:+.2f}, no interval"
    lines = [
        f"The same configurations under two {what}, {md_text(a.name)} ({a.games} games) and {md_text(b.name)} "
        f"({b.games} games), {t.paired} deals played under both. Each half is rated on its own.",
        "",
        f"- **Rank concordance**: Kendall's τ = {tau.value:+.2f} [{tau.low:+.2f}, {tau.high:+.2f}] over "
        f"{len(t.configs)} configurations rated in both (1: the same order; 0: no relation; −1: reversed).",
        f"- **Side-term shift** h[{md_text(a.name)}] − h[{md_text(b.name)}] = {shift_text} (the town's logit among "
        "average configurations).",
        "",
        "95 % intervals from one block bootstrap of paired deals; τ's from the signs of the pairwise differences "
        "(docs/metrics.md, \"Does a skill transfer?\").",
        "",
    ]  # fmt: skip
    rows = [[c, f"{a.skills[c]:+.2f}", f"{b.skills[c]:+.2f}"] for c in t.configs]
    return lines + _table(["configuration", f"skill under {a.name}", f"skill under {b.name}"], rows)


def _headline_lines(r: Report) -> list[str]:
    """Per configuration, the metrics shown to tell apart agents that truly differ (`HEADLINE`), and no other."""
    from arena.research.metrics import HEADLINE

    configs = r.corpus.configs
    shown = [m for m in HEADLINE if any(row.metric == m for row in r.by_config)]
    if not shown or not configs:
        return []
    rows = [[m, *(_config_metric(r, c, m) for c in configs)] for m in shown]
    return [
        "The metrics that discriminate: each put scripted agents that differ by construction in the right order and "
        "told the strongest difference from none within 400 games (`bench/discrimination.py`; the table and the "
        "metrics left out, with the reason, are in docs/metrics.md, \"Which metrics discriminate\"). Values with "
        "95 % intervals per game, clustered by deal; every metric is in **Metrics per configuration**.",
        "", *_table(["metric", *configs], rows),
    ]  # fmt: skip


def _speech_lines(r: Report) -> list[str]:
    from arena.research.speech_reader import KINDS

    kinds = [k for k in KINDS if k in ("role", "check", "vote", "dead", "alive")]
    per: dict[str, dict[tuple[str, bool], int]] = {}
    for m in r.measured:
        for seat, kind, lie in m.contradictions:
            cell = per.setdefault(m.game.configs.get(seat, "?"), {})
            cell[(kind, lie)] = cell.get((kind, lie), 0) + 1
    rows = []
    for config in r.corpus.configs:
        counts = per.get(config, {})
        rows.append([config, _config_metric(r, config, "lie_rate"), _config_metric(r, config, "error_rate"),
                     _config_metric(r, config, "false_statement_share"),
                     *(f"{counts.get((k, True), 0)} / {counts.get((k, False), 0)}" for k in kinds)])  # fmt: skip
    head = ["configuration", "speeches with a lie (95 %)", "speeches with an error (95 %)",
            "checkable statements false (95 %)", *(f"{k}: lies / errors" for k in kinds)]  # fmt: skip
    return [
        "Every speech's statements (its structured claim and what its words say: a role, a check, a stated vote, a "
        "seat called dead or addressed as alive) checked against the engine's record and the speaker's own acts. "
        "A **lie** is deliberate (a black speaker's; a red seat's false role claim or invented check); an **error** "
        "is a red seat contradicting what it knows, or a seat called dead or alive wrongly. Intervals per game, "
        "clustered by deal; docs/metrics.md, \"Speech against action\", says how the words are read and how well.",
        "", *_table(head, rows),
    ]  # fmt: skip


def _leak_lines(r: Report) -> list[str]:
    per: dict[str, dict[str, int]] = {}
    for m in r.measured:
        for seat, kind in m.leaks:
            cell = per.setdefault(m.game.configs.get(seat, "?"), {})
            cell[kind] = cell.get(kind, 0) + 1
    rows = [[config, _config_metric(r, config, "leak_rate"),
             *(per.get(config, {}).get(k, 0) for k in ("teammate", "self", "target"))]
            for config in r.corpus.configs]  # fmt: skip
    return [
        "Black speeches that give away what only the black side holds: a teammate named as a teammate, the speaker's "
        "own black card, or the seat the blacks shoot the next night, named before the morning.",
        "", *_table(["configuration", "black speeches that leak (95 %)", "teammate", "own card", "night target"], rows),
    ]  # fmt: skip


def _metric_table(rows: Sequence[MetricRow], group: str) -> list[str]:
    body = [[m.group, m.metric, _iv(m.interval), _n(m.interval.n), m.interval.clusters, _flag(m.interval)]
            for m in rows]  # fmt: skip
    return _table([group, "metric", "value (95 %)", "n", "games", ""], body)


def _n(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def _games_lines(r: Report) -> list[str]:
    c = r.corpus
    winners: dict[str, int] = {}
    for g in c.games:
        winners[g.winner or "?"] = winners.get(g.winner or "?", 0) + 1
    lines = [
        f"{len(c.games)} finished games on {r.deals} deals ({len(c.skipped)} files skipped); configurations: "
        f"{', '.join(md_text(x) for x in c.configs)}; winners: "
        + ", ".join(f"{md_text(k)} {v}" for k, v in sorted(winners.items()))
    ]
    for rules, iv in r.town.items():
        lines.append(f"Town win rate ({md_text(rules)}): {_iv(iv, percent=True)}, n = {int(iv.n)} games.")
    return lines


def sections(r: Report) -> list[tuple[str, list[str]]]:
    """The report's sections as Markdown lines (the HTML page draws the same tables)."""
    out: list[tuple[str, list[str]]] = [("Games", _games_lines(r))]
    headline = _headline_lines(r)
    if headline:
        out.append(("Headline", headline))
    c = r.corpus
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
        out.append(("What these games identify", _design_lines(r)))
        out.append(("Ratings", _ratings_lines(r)))
        out.append(("Comparisons", _comparison_lines(r)))
    if r.points is not None:
        out += points_sections(r.points)
    if r.transfer is not None:
        out.append(("Does a skill transfer?", _transfer_lines(r)))
    out.append(("Win rates per side", _outcome_lines(r)))
    out.append(("Outcome score (role baseline subtracted)", _score_lines(r)))
    out.append(("Roles and seats", _roles_lines(r)))
    out.append(("Invalid actions (beside the skill, never in it)", _discipline_lines(r)))
    out.append(("Speech against action", _speech_lines(r)))
    out.append(("Reasoning leaks", _leak_lines(r)))
    out.append(("Metrics per configuration", [*_metric_table(r.by_config, "configuration"), "", SPARSE_NOTE]))
    out.append(("Metrics per role", _metric_table(r.by_role, "role")))
    alive = [[d, int(iv.n), _iv(iv)] for d, iv in sorted(r.blacks_alive.items())]
    out.append(("Metrics by day", [*_metric_table(r.by_day, "day"), "",
                                   *_table(["day", "blacks dealt", "share of blacks alive at nightfall (95 %)"],
                                           alive)]))  # fmt: skip
    total = _totals(r)
    out.append(("Totals", [*total, "", *_metric_table(r.totals, "")]))
    return out


def points_sections(p: PointsReport) -> list[tuple[str, list[str]]]:
    """The points table per configuration and per configuration and role (`arena report --scoring`); the same
    lines are printed by the command."""
    s = p.system
    rank = "total points" if s.rank == "total" else "points per game"
    ties = "; then ".join(" + ".join(keys) for keys in s.tie_breaks) or "none"
    lines = [
        f"Scoring system **{md_text(s.name)}**: {md_text(s.title)}. Ranked by {rank}, ties broken by: {md_text(ties)}. "
        f"{p.games} games on {p.deals} deals. A configuration is scored as a club scores a player: every seat it held "
        "is one of its games (seat-games); points per game is total / seat-games, with a 95 % interval counted per "
        "game and clustered by deal (docs/metrics.md defines every column).",
        "",
        *_table(table_head(s), table_cells(p)),
        "",
        SPARSE_NOTE,
    ]
    per_role = [*_table(table_head(s, by_role=True), table_cells(p, by_role=True))]
    return [(f"Points ({s.name})", lines), (f"Points per role ({s.name})", per_role)]


def _totals(r: Report) -> list[str]:
    from arena.research.metrics import Counts

    total = Counts()
    for m in r.measured:
        total.add(m.total)
    return [
        f"Sheriff checks: {total.sheriff_checks} ({total.sheriff_checks_black} found a black; "
        f"{total.checks_announced} announced; {total.checked_black_voted_out} black finds voted out).",
        f"Votes: {total.red_votes} chosen red votes on others, {total.red_default_votes} red votes cast by the rules' "
        f"default, {total.red_self_votes + total.black_self_votes} self-votes; {total.black_votes} chosen black "
        f"votes, {total.black_default_votes} black default votes.",
        f"Claims: {total.claims}; sheriff claims true {total.sheriff_claims_true}, false {total.sheriff_claims_false}, "
        f"counter-claims {total.counter_claims}; in the next vote round {total.claim_votes_red} red votes, "
        f"{total.claim_votes_red_on_claimant} on the claimant, {total.claim_votes_red_on_accused} on a seat he called "
        f"black; claimants later voted out: {total.claimants_voted_out}.",
        f"Probes: {total.probe_pairs} probabilities. Tokens: {total.prompt_tokens} prompt + "
        f"{total.completion_tokens} completion over {total.calls} calls; cost ${total.cost_usd:.4f}.",
    ]


def markdown(r: Report) -> str:
    lines = ["# Mafia Arena report", ""]
    for title, body in sections(r):
        lines += [f"## {title}", "", *body, ""]
    lines += ["## Plots", ""] + [f"![{p.title}](plots/{p.name}.png)" for p in r.plots]
    lines += ["", "Columns of the CSV files: docs/metrics.md.", ""]
    return "\n".join(lines)


def _renderer() -> MarkdownIt:
    """CommonMark with tables, and no raw HTML: text from a transcript is escaped by `md_text` already, and a
    planted `<script>` would be shown as text even if it were not. No linkify, no typographer."""
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def page(r: Report) -> str:
    """One self-contained HTML page: inline style, plots as data: URIs, nothing fetched from anywhere. Each
    section's Markdown (the same lines as report.md) is rendered by markdown-it-py, so bold, code, lists and tables
    show as such."""
    md = _renderer()
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Mafia Arena report</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 6px;"
        "font-size:13px}img{max-width:100%}code{background:#f4f4f4;padding:0 2px}</style></head><body>"
        "<h1>Mafia Arena report</h1>",
    ]
    for title, body in sections(r):
        parts.append(f"<h2>{html.escape(title)}</h2>")
        parts.append(md.render("\n".join(body)))
    for p in r.plots:
        data = base64.b64encode(p.png).decode("ascii")
        parts.append(
            f"<h2>{html.escape(p.title)}</h2><img alt='{html.escape(p.title)}' src='data:image/png;base64,{data}'>"
        )
    parts.append("</body></html>")
    return "\n".join(parts)


RATING_COLUMNS = ["config", "quantity", "town_weight", "status", "value", "low", "high", "se", "bootstrap_se", "games",
                  "deals", "effective_games", "effective_deals", "sparse"]  # fmt: skip
COMPARISON_COLUMNS = ["quantity", "town_weight", "a", "b", "difference", "low", "high", "se", "better", "sparse",
                      "games", "deals", "effective_games", "effective_deals"]  # fmt: skip
METRIC_COLUMNS = ["grouping", "group", "metric", "value", "low", "high", "n", "games", "sparse"]


def _interval_cells(iv: Interval) -> dict[str, object]:
    return {"value": iv.value, "low": iv.low, "high": iv.high}


def rating_rows(r: Report) -> list[tables.Row]:
    """Per configuration and quantity (town, mafia, combined, and the side term per rule set): the estimate, or
    the reason there is none (`not identified`, `not played`); every row with its games and deals (a quantity's
    configuration on the sides it involves, the fewest of either side for a combined one)."""
    if r.rating is None:
        return []
    f = r.rating
    out: list[tables.Row] = []
    for s in f.identification.configs:
        for kind in (TOWN, MAFIA, COMBINED):
            e = f.estimate(s.config, kind)
            held = [f.counts[(s.config, side)] for side in {TOWN: (TOWN,), MAFIA: (MAFIA,)}.get(kind, (TOWN, MAFIA))]
            row: tables.Row = {"config": s.config, "quantity": kind, "games": min(g for g, _ in held),
                               "deals": min(d for _, d in held)}  # fmt: skip
            if e is None:
                row["status"] = _cell(s, kind, r)
            else:
                row |= {"town_weight": e.quantity.weight, "status": "identified", **_interval_cells(e.interval),
                        "se": e.se, "bootstrap_se": e.bootstrap_se, "effective_games": e.support.effective_games,
                        "effective_deals": e.support.effective_deals, "sparse": int(e.sparse)}  # fmt: skip
            out.append(row)
    for rules, side in f.side.items():
        row = {"config": rules, "quantity": "side", "games": len(f.design.y), "deals": f.clusters}
        if side is None:
            row["status"] = "not identified"
        else:
            row |= {"status": "identified", **_interval_cells(side.interval), "se": side.se,
                    "bootstrap_se": side.bootstrap_se,
                    "effective_games": side.support.effective_games, "effective_deals": side.support.effective_deals,
                    "sparse": int(math.isnan(side.interval.low))}  # fmt: skip
        out.append(row)
    return out


def comparison_rows(r: Report) -> list[tables.Row]:
    if r.rating is None:
        return []
    return [{"quantity": c.kind, "town_weight": c.weight, "a": c.a, "b": c.b, "difference": c.interval.value,
             "low": c.interval.low, "high": c.interval.high, "se": c.se, "better": c.better or "",
             "sparse": int(c.sparse), "games": c.support.games, "deals": c.support.deals,
             "effective_games": c.support.effective_games, "effective_deals": c.support.effective_deals}
            for c in r.rating.comparisons]  # fmt: skip


def metric_csv_rows(r: Report) -> list[tables.Row]:
    out: list[tables.Row] = []
    for grouping, rows in (("config", r.by_config), ("role", r.by_role), ("day", r.by_day), ("all", r.totals)):
        for m in rows:
            iv = m.interval
            out.append({"grouping": grouping, "group": m.group, "metric": m.metric, **_interval_cells(iv), "n": iv.n,
                        "games": iv.clusters, "sparse": int(iv.sparse)})  # fmt: skip
    return out


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
            with folder.folder("plots") as plots_folder:
                files += [plots_folder.write(f"{p.name}.png", p.png) for p in r.plots]
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
                ("decisions.csv", tables.DECISION_COLUMNS, r.decisions),
                ("ratings.csv", RATING_COLUMNS, rating_rows(r)),
                ("comparisons.csv", COMPARISON_COLUMNS, comparison_rows(r)),
                ("metrics.csv", METRIC_COLUMNS, metric_csv_rows(r)),
            )
            for name, columns, rows in csvs:
                with folder.replace_text(name) as handle:
                    tables.write_rows(handle, columns, rows)
                files.append(out / name)
            if r.points is not None:  # `--scoring`
                columns, points = csv_rows(r.points)
                with folder.replace_text("points.csv") as handle:
                    tables.write_rows(handle, columns, points)
                files.append(out / "points.csv")
            files += [folder.write("report.md", markdown(r)), folder.write("report.html", page(r))]
    except UnsafePath as exc:
        raise ReportError(f"{exc}; choose another --out") from None
    return Written(out, files, len(r.measured))


def report(
    folder: Path, out: Path, *, boot: int = 200, progress: Progress | None = None, scoring: ScoringSystem | None = None
) -> Written:
    """Build the report of `folder` and write it into `out`; `progress` hears what is being done; `scoring` adds
    the points table."""
    r = build(folder, boot=boot, progress=progress, scoring=scoring)
    if progress is not None:
        progress("writing the report", 0, 1)
    return write(r, out)
