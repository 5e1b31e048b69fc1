"""The site's numbers: one leaderboard per rules preset (the games of every tournament under those rules, fitted by
`arena report`'s own code) and one per field (its frozen members and every placement on it, refitted from the
placement's transcripts), each with its comparisons and a page per configuration.

Only what is identified gets a number (a quantity the design does not identify is named as such, never given one),
every number carries its interval and n, and every number names the games behind it (`lists.py`). Nothing here
reads a clock or a path outside the site, so building twice from the same transcripts gives the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from arena.research.intervals import Interval, simultaneous_critical, t_quantile
from arena.site.inputs import GameFile, Run, SiteError, SiteInputs, slug
from arena.site.lists import Lists

Progress = Callable[[str, int, int], None]
KINDS = ("combined", "town", "mafia")


@dataclass
class Cell:
    """A number as shown, and the games behind it."""

    text: str
    href: str | None = None
    title: str = ""


@dataclass
class Row:
    """One configuration's line on a leaderboard: its headline (combined) rating and, where identified apart, its
    town and mafia skills."""

    configuration: str
    status: str  # rated | placed | frozen
    page: str  # the configuration's page
    values: dict[str, dict[str, Any]]  # kind -> value, low, high, games, deals (None: not identified / not played)
    cells: dict[str, Cell]  # kind -> what is shown
    games: Cell
    note: str = ""

    @property
    def rating(self) -> float:
        v = self.values.get("combined")
        return float(v["value"]) if v else -math.inf


@dataclass
class Pair:
    kind: str
    a: str
    b: str
    difference: Cell
    interval: Cell
    verdict: str
    games: Cell


@dataclass
class ConfigPage:
    name: str
    board: str
    page: str
    lines: list[tuple[str, list[str], list[list[Cell]]]] = field(default_factory=list)  # (title, head, rows)
    notes: list[str] = field(default_factory=list)


@dataclass
class Board:
    key: str
    title: str
    kind: str  # rules | field
    rules: str
    scale: str
    rows: list[Row] = field(default_factory=list)
    pairs: list[Pair] = field(default_factory=list)
    critical: float = math.nan
    notes: list[str] = field(default_factory=list)
    facts: list[tuple[str, Cell]] = field(default_factory=list)
    configs: list[ConfigPage] = field(default_factory=list)
    plots: list[tuple[str, str, bytes]] = field(default_factory=list)  # (file name, title, PNG)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (game page, why not counted)

    @property
    def page(self) -> str:
        return f"board-{self.key}.html"


def iv_text(iv: Interval | None, *, signed: bool = True, percent: bool = False, digits: int = 2) -> str:
    if iv is None or iv.value is None or math.isnan(iv.value):
        return "–"
    if percent:
        return f"{iv.value:.1%} [{iv.low:.1%}, {iv.high:.1%}]"
    f = f"{'+' if signed else ''}.{digits}f"
    if math.isnan(iv.low):
        return f"{iv.value:{f}} (no interval)"
    return f"{iv.value:{f}} [{iv.low:{f}}, {iv.high:{f}}]"


def _num(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), 4) + 0.0


class Games:
    """The published games of a board, found by the path `arena report`'s reader gives them."""

    def __init__(self, root: Path, games: Sequence[GameFile]) -> None:
        self.by_path = {str(root / g.path): g for g in games}

    def of(self, path: str) -> GameFile:
        return self.by_path[path]


# ----- a rules preset's board: the tournaments' games -----------------------------------------------------------------
def rules_board(root: Path, board: str, inputs: SiteInputs, lists: Lists, progress: Progress | None) -> Board:
    """Every tournament (and loose) game under one rules preset, reported by `arena report`'s code."""
    from arena.research.plots import plots
    from arena.research.summary import ReportError, build

    games = [g for g in inputs.published(board)]
    _same_configuration(games, root)
    index = Games(root, games)
    rules = games[0].rules
    b = Board(board, f"{rules}: tournaments", "rules", rules, "centred: the configurations that played a side average "
              "0 on it (docs/ratings.md)")  # fmt: skip
    try:
        r = build(root / "games" / board, boot=inputs.boot, progress=progress, scoring=_scoring(inputs.scoring))
    except ReportError:  # every published game of the board was left out (each made of transport failures)
        from arena.research.corpus import load_folder

        b.skipped = [(index.of(path).page, why) for path, why in load_folder(root / "games" / board).skipped]
        b.notes.append("No game of this board is counted: the list below says why.")
        return b
    counted = [index.of(g.path) for g in r.corpus.games]
    b.skipped = [(index.of(path).page, why) for path, why in r.corpus.skipped]
    everything = lists.add(f"{board}-all", f"{rules}: every counted game", counted)
    b.facts.append(("games counted", Cell(str(len(counted)), everything)))
    for name, iv in r.town.items():
        b.facts.append((f"town win rate ({name})", Cell(iv_text(iv, percent=True), everything)))
    of_config = {c: [index.of(g.path) for g in r.corpus.games if c in g.configs.values()] for c in r.corpus.configs}
    hrefs = {c: lists.add(f"{board}-{c}", f"{c}: its games under {rules}", gs) for c, gs in of_config.items()}
    if r.rating is not None:
        f = r.rating
        b.critical = f.critical
        weights = f.identification.combination_weights()
        if weights:
            w = weights[0]
            b.notes.append(f"Town and mafia skills are not separable in these games (one seat per game): the rating "
                           f"is the identified combination {w:.2f}·town + {1 - w:.2f}·mafia.")  # fmt: skip
        for status in f.identification.configs:
            c = status.config
            values: dict[str, dict[str, Any]] = {}
            cells: dict[str, Cell] = {}
            for kind in KINDS:
                e = f.estimate(c, kind)
                if e is None:
                    played = {"town": status.played_town, "mafia": status.played_mafia}.get(kind, True)
                    cells[kind] = Cell("not played" if not played else "not identified")
                    continue
                iv = e.interval
                values[kind] = {"value": _num(iv.value), "low": _num(iv.low), "high": _num(iv.high),
                                "games": int(iv.n), "deals": iv.clusters, "sparse": iv.sparse}  # fmt: skip
                cells[kind] = Cell(iv_text(iv) + (" sparse" if iv.sparse else ""), hrefs[c],
                                   f"{int(iv.n)} games on {iv.clusters} deals")  # fmt: skip
            b.rows.append(Row(c, "rated", _config_page(board, c), values, cells,
                              Cell(str(len(of_config.get(c, []))), hrefs.get(c))))  # fmt: skip
        for cmp in f.comparisons:
            games_ab = lists.add(f"{board}-{cmp.a}-{cmp.b}", f"{cmp.a} or {cmp.b} under {rules}",
                                 of_config.get(cmp.a, []) + of_config.get(cmp.b, []))  # fmt: skip
            verdict = (f"{cmp.better} better" if cmp.better else "sparse: not compared" if cmp.sparse
                       else "no difference established")  # fmt: skip
            b.pairs.append(Pair(cmp.kind, cmp.a, cmp.b, Cell(f"{cmp.interval.value:+.2f}", games_ab),
                                Cell(iv_text(cmp.interval) if not cmp.sparse else "–", games_ab), verdict,
                                Cell(str(len({g.path for g in of_config.get(cmp.a, []) + of_config.get(cmp.b, [])})),
                                     games_ab)))  # fmt: skip
    b.rows.sort(key=lambda row: (-row.rating, row.configuration))
    r.plots = plots(r)
    b.plots = [(f"{board}-{p.name}.png", p.title, p.png) for p in r.plots]
    b.configs = [_config_from_report(board, rules, c, r, index, lists, hrefs) for c in r.corpus.configs]
    return b


def _same_configuration(games: Sequence[GameFile], root: Path) -> None:
    """Games pooled on one board must mean one thing by each configuration's name."""
    from arena.site.inputs import read_transcript

    seen: dict[str, tuple[str, str]] = {}
    for g in games:
        _, t = read_transcript(root / g.path)
        for entry in t.header.seats:
            spec = entry.agent.model_dump_json(exclude={"reported_model"})
            first = seen.setdefault(entry.agent.name, (spec, g.run))
            if first[0] != spec:
                raise SiteError(
                    f"configuration {entry.agent.name!r} is one agent in run {first[1]} and another in run {g.run} "
                    f"(both under {g.rules}); a board pools its runs by name, so give them different labels or "
                    "build them as separate sites"
                )


def _config_page(board: str, config: str) -> str:
    return f"config/{board}/{slug(config)}.html"


def _config_from_report(
    board: str, rules: str, config: str, r: Any, index: Games, lists: Lists, hrefs: dict[str, str]
) -> ConfigPage:
    """A configuration's page: its win rates by side and role, its metrics (deception and detection among them),
    what it cost, each number linked to its games."""
    from arena.research.metrics import HEADLINE, Counts

    page = ConfigPage(config, board, _config_page(board, config))
    games = hrefs.get(config)

    def side_games(side: str) -> str:
        picked = [index.of(g.path) for g in r.corpus.games
                  if any(c == config and g.side(seat) == side for seat, c in g.configs.items())]  # fmt: skip
        return lists.add(f"{board}-{config}-{side}", f"{config} on the {side} side under {rules}", picked)

    def role_games(role: str) -> str:
        picked = [index.of(g.path) for g in r.corpus.games
                  if any(c == config and g.roles.get(seat) == role for seat, c in g.configs.items())]  # fmt: skip
        return lists.add(f"{board}-{config}-{role}", f"{config} as {role} under {rules}", picked)

    sides = [[Cell(s.side), Cell(str(s.games), side_games(s.side)), Cell(str(s.wins), side_games(s.side)),
              Cell(iv_text(s.rate, percent=True), side_games(s.side))]
             for s in r.sides if s.config == config]  # fmt: skip
    page.lines.append(("Win rate by side", ["side", "games", "won", "win rate (95 %)"], sides))
    roles = [[Cell(x.role), Cell(x.side), Cell(str(int(x.rate.n)), role_games(x.role)),
              Cell(iv_text(x.rate, percent=True), role_games(x.role))]
             for x in r.roles.rates if x.config == config]  # fmt: skip
    page.lines.append(("Win rate by role", ["role", "side", "games", "side won (95 %)"], roles))
    ours = {m.metric: m for m in r.by_config if m.group == config}
    metrics = [[Cell(m.metric), Cell(iv_text(m.interval, signed=False, digits=3), games),
                Cell(_n(m.interval.n), games), Cell(str(m.interval.clusters), games)]
               for m in (ours[name] for name in HEADLINE if name in ours)]  # fmt: skip
    page.lines.append(("Play, deception and detection: the metrics that discriminate (docs/metrics.md)",
                       ["metric", "value (95 %)", "n", "games"], metrics))  # fmt: skip
    total = Counts()
    played = 0
    for m in r.measured:
        seats = [s for s, c in m.game.configs.items() if c == config]
        played += bool(seats)
        for seat in seats:
            if seat in m.seats:
                total.add(m.seats[seat])
    cost = [[Cell("games"), Cell(str(played), games)], [Cell("model calls"), Cell(str(total.calls), games)],
            [Cell("prompt tokens"), Cell(str(total.prompt_tokens), games)],
            [Cell("completion tokens"), Cell(str(total.completion_tokens), games)],
            [Cell("cost (USD)"), Cell(f"{total.cost_usd:.4f}", games)],
            [Cell("cost per game (USD)"), Cell(f"{total.cost_usd / played:.4f}" if played else "–", games)],
            ]  # fmt: skip
    page.lines.append(("Cost and tokens", ["", "total"], cost))
    for d in r.discipline:
        if d.config == config:
            page.lines.append(("Decisions", ["decisions", "legal at once", "after a re-ask", "default", "transport"],
                               [[Cell(str(d.decisions), games), *(Cell(iv_text(iv, percent=True), games) for iv in
                                 (d.legal, d.reasked, d.invalid, d.transport))]]))  # fmt: skip
    points = getattr(r, "points", None)
    if points is not None:
        page.lines += _points_lines(points, config, games)
    return page


def _scoring(name: str) -> Any:
    """The scoring system a site was built with (`arena site --scoring`), or None."""
    if not name:
        return None
    from arena.scoring import load_system

    return load_system(name)


def _points_lines(points: Any, config: str, games: str | None) -> list[tuple[str, list[str], list[list[Cell]]]]:
    """The points table's rows of this configuration (`arena report --scoring`'s table), when scoring is on."""
    import importlib

    try:  # the points table (`arena report --scoring`), where this install has it
        table = importlib.import_module(".".join(("arena", "research", "points")))
    except ImportError:
        return []
    out = []
    for by_role, title in ((False, "Points"), (True, "Points by role")):
        head = [str(h) for h in table.table_head(points.system, by_role)]
        at = head.index("configuration")  # the ranked table leads with its rank, the per-role one with the config
        rows = [[Cell(str(c), games) for c in row] for row in table.table_cells(points, by_role)
                if len(row) > at and str(row[at]) == config]  # fmt: skip
        if rows:
            out.append((f"{title} ({points.system.name}, docs/metrics.md)", head, rows))
    return out


def _n(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


# ----- a field's board: its members and the placements on it ---------------------------------------------------------
def field_board(root: Path, board: str, inputs: SiteInputs, lists: Lists, progress: Progress | None) -> Board:
    """A frozen field's members and every placement on it, each refitted from its own transcripts."""
    from arena.field.definition import FieldError
    from arena.research.summary import build

    runs = [r for r in inputs.runs if r.kind == "placement" and slug(r.manifest["field"]["name"]) == board]
    field_version = _field(root, runs[0])
    games = inputs.published(board)
    index = Games(root, games)
    b = Board(board, f"{field_version.name}: placements on a frozen field", "field", field_version.rules.name,
              f"frozen: {field_version.name}'s members as calibrated (their skills centred at 0); an entrant "
              "placed never moves them or another entrant (docs/reference.md)")  # fmt: skip
    b.notes.append(runs[0].manifest.get("identifies", ""))
    field_href = f"field-{board}.html"
    for m in field_version.members:
        values = {kind: {"value": _num(x), "low": None, "high": None, "games": None, "deals": None}
                  for kind, x in (("combined", m.combined), ("town", m.town), ("mafia", m.mafia))}  # fmt: skip
        cells = {k: Cell(f"{v['value']:+.2f} (frozen)", field_href, "the field's frozen rating")
                 for k, v in values.items()}  # fmt: skip
        b.rows.append(Row(m.label, "frozen", field_href, values, cells,
                          Cell(str(field_version.file.calibration.get("games", "–")), field_href)))  # fmt: skip
    placed: list[tuple[str, Any, str]] = []
    labels = [str(r.manifest["entrant"]["label"]) for r in runs]
    for done, run in enumerate(runs):
        if progress is not None:
            progress("refitting placements", done, len(runs))
        try:
            entrant, result, counted = _refit(root, run, field_version)
        except FieldError as exc:
            raise SiteError(f"placement {run.name}: {exc}") from None
        label = f"{entrant} ({run.name})" if labels.count(entrant) > 1 else entrant  # placed twice: a row each
        href = lists.add(f"{board}-{run.name}", f"{label}'s placement games on {field_version.name}",
                         [index.of(str(root / f"games/{board}/{run.name}/{name}")) for name in counted])  # fmt: skip
        values, cells = {}, {}
        for kind in KINDS:
            e = result.estimates.get(kind)
            if e is None:
                cells[kind] = Cell("not played")
                continue
            values[kind] = {"value": _num(e.value), "low": _num(e.low), "high": _num(e.high), "games": e.games,
                            "deals": e.deals}  # fmt: skip
            cells[kind] = Cell(f"{e.value:+.2f} [{e.low:+.2f}, {e.high:+.2f}]", href,
                               f"{e.games} games on {e.deals} deals; {result.rule}")  # fmt: skip
        b.rows.append(Row(label, "placed", _config_page(board, entrant), values, cells, Cell(str(len(counted)), href),
                          "; ".join(result.notes)))  # fmt: skip
        placed.append((label, result, href))
    b.rows.sort(key=lambda row: (-row.rating, row.configuration))
    b.pairs, b.critical = _field_pairs(field_version, placed)
    r = build(root / "games" / board, boot=0, progress=progress)
    rules = field_version.rules.name
    of_config = {c: [index.of(g.path) for g in r.corpus.games if c in g.configs.values()] for c in r.corpus.configs}
    hrefs = {c: lists.add(f"{board}-{c}", f"{c}: its games on {field_version.name}", gs)
             for c, gs in of_config.items()}  # fmt: skip
    entrants = set(labels)
    b.configs = [_config_from_report(board, rules, c, r, index, lists, hrefs) for c in sorted(entrants)]
    b.skipped = [(index.of(path).page, why) for path, why in r.corpus.skipped]
    return b


def _field(root: Path, run: Run) -> Any:
    """The field a placement was made on, from the site's own copy of its definition (checked against the
    fingerprint the placement recorded)."""
    import tomllib

    from arena.field.definition import FieldError, FieldFile, check_version

    name = run.manifest["field"]["name"]
    try:
        version = check_version(FieldFile.model_validate(tomllib.loads(run.field_file)), f"the site's copy of {name}")
    except (FieldError, ValueError) as exc:
        raise SiteError(f"placement {run.name}: {exc}") from None
    if version.fingerprint != run.manifest["field"]["fingerprint"]:
        raise SiteError(f"placement {run.name}: the site's copy of {name} is not the field it was placed on")
    return version


def _refit(root: Path, run: Run, field_version: Any) -> tuple[str, Any, list[str]]:
    from arena.field.run import Design, fit_folder

    data = run.manifest
    label = str(data["entrant"]["label"])
    d = data["design"]
    design = Design(str(d["kind"]), int(d["deals"]), int(d["cap"]), int(d.get("pilot", 0)), d.get("width"))
    folder = root / "games" / slug(field_version.name) / run.name
    played, result = fit_folder(folder, field_version, label, design)
    return label, result, [name for name, _ in played.outcomes]


def _field_pairs(field_version: Any, placed: list[tuple[str, Any, str]]) -> tuple[list[Pair], float]:
    """Each entrant against each member (a frozen number: the difference's error is the entrant's) and against each
    other entrant (separate placements: their errors add), with one simultaneous critical value over the family,
    on the fewest deals' degrees of freedom."""
    family: list[tuple[str, str, float, float, str, list[int]]] = []  # a, b, difference, se, games href, who
    for i, (label, result, href) in enumerate(placed):
        c = result.combined
        for m in field_version.members:
            family.append((label, m.label, c.value - m.combined, c.se, href, [i]))
        for j in range(i + 1, len(placed)):
            other, res2, _href2 = placed[j]
            family.append((label, other, c.value - res2.combined.value, math.hypot(c.se, res2.combined.se), href,
                           [i, j]))  # fmt: skip
    if not family:
        return [], math.nan
    var = np.asarray([p[3] ** 2 for p in family])
    cov = np.zeros((len(family), len(family)))
    for x, one in enumerate(family):
        for y, two in enumerate(family):
            for i in set(one[5]) & set(two[5]):  # an entrant's own error enters every difference it is in, signed
                sign = (1 if one[5][0] == i else -1) * (1 if two[5][0] == i else -1)
                cov[x, y] += sign * placed[i][1].combined.se ** 2
    se = np.sqrt(var)
    corr = cov / np.outer(se, se)
    df = min(res.deals for _, res, _ in placed) - 1
    q = simultaneous_critical(corr, df) if len(family) > 1 else t_quantile(df + 1)
    pairs = []
    for a, b, d, s, href, _ in family:
        iv = Interval(d, d - q * s, d + q * s)
        verdict = f"{a} better" if iv.low > 0 else f"{b} better" if iv.high < 0 else "no difference established"
        pairs.append(Pair("combined", a, b, Cell(f"{d:+.2f}", href), Cell(iv_text(iv), href), verdict, Cell("", href)))
    return pairs, q


def build_boards(root: Path, inputs: SiteInputs, lists: Lists, progress: Progress | None = None) -> list[Board]:
    fields = {slug(r.manifest["field"]["name"]) for r in inputs.runs if r.kind == "placement"}
    out = []
    for board in inputs.boards():
        if board in fields:
            out.append(field_board(root, board, inputs, lists, progress))
        else:
            out.append(rules_board(root, board, inputs, lists, progress))
    return out
