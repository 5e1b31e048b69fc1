"""`arena site RUN... --out SITE`: publish the runs' games, compute every board, and write the pages.

The pages are a pure function of the site's own published transcripts and `site.json`: `render` returns every file
as bytes, `build_site` writes them, and `check.py` renders again from the site alone and compares byte for byte.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import FileSystemLoader, select_autoescape

from arena.sandbox import DataSandbox
from arena.site.boards import Board, Cell, build_boards
from arena.site.inputs import SITE_JSON, GameFile, SiteError, SiteInputs, collect, publish, read_transcript, slug
from arena.site.lists import Lists

Progress = Callable[[str, int, int], None]
LEADERBOARD_COLUMNS = ["board", "configuration", "rules", "quantity", "rating", "low", "high", "games", "deals",
                       "status", "scale", "page"]  # fmt: skip


def _env() -> DataSandbox:
    folder = Path(__file__).parent / "templates"
    env = DataSandbox(loader=FileSystemLoader(str(folder)), autoescape=select_autoescape(default=True),
                      trim_blocks=True, lstrip_blocks=True)  # fmt: skip
    return env


def _root(path: str) -> str:
    return "../" * path.count("/")


def _static() -> dict[str, bytes]:
    here = Path(__file__).parent / "static"
    page = resources.files("arena.render") / "page"
    return {
        "static/site.css": (here / "site.css").read_bytes(),
        "static/step.js": (here / "step.js").read_bytes(),
        "static/review.css": (page / "review.css").read_bytes(),
        "static/review.js": (page / "review.js").read_bytes(),
    }


def digest(inputs: SiteInputs) -> str:
    return hashlib.sha256(site_json(inputs)).hexdigest()


def site_json(inputs: SiteInputs) -> bytes:
    return (json.dumps(inputs.data(), indent=1, sort_keys=True) + "\n").encode()


@dataclass
class Rendered:
    files: dict[str, bytes]
    boards: list[Board]


def render(root: Path, inputs: SiteInputs, progress: Progress | None = None) -> Rendered:
    """Every file of the site but the transcripts, from the site's published games."""
    lists = Lists()
    boards = build_boards(root, inputs, lists, progress)
    env = _env()
    files: dict[str, bytes] = {SITE_JSON: site_json(inputs), **_static()}
    nav = [{"page": b.page, "title_short": b.title.split(":")[0]} for b in boards]
    common = {"boards": nav, "digest": digest(inputs)[:16]}

    def page(path: str, template: str, title: str, **context: Any) -> None:
        files[path] = env.get_template(template).render(title=title, root=_root(path), **common, **context).encode()

    board_list = []
    for b in boards:
        rows = [[Cell(str(i + 1)), Cell(row.configuration, row.page), row.cells.get("combined", Cell("–")),
                 row.cells.get("town", Cell("–")), row.cells.get("mafia", Cell("–")), row.games,
                 Cell(row.status + (f"; {row.note}" if row.note else ""))] for i, row in enumerate(b.rows)]  # fmt: skip
        pairs = [[Cell(p.kind), Cell(f"{p.a} − {p.b}: {p.difference.text}", p.difference.href), p.interval,
                  Cell(p.verdict)] for p in b.pairs]  # fmt: skip
        page(b.page, "board.html", b.title, board=b, rows=rows, pairs=pairs,
             plots=[(name, title) for name, title, _ in b.plots], skipped=b.skipped)  # fmt: skip
        for name, _, png in b.plots:
            files[f"plots/{name}"] = png
        by_name = {row.configuration: row for row in b.rows}
        for c in b.configs:
            row = by_name.get(c.name)
            cells = [row.cells.get(k, Cell("–")) for k in ("combined", "town", "mafia")] + [row.games] if row else None
            page(c.page, "config.html", f"{c.name} ({b.title.split(':')[0]})", board=b, page=c, row=cells)
        board_list.append({"page": b.page, "title": b.title, "scale": b.scale,
                           "top": [[*r[:3], r[5]] for r in rows[:10]]})  # fmt: skip
        if b.kind == "field":
            _field_page(b, inputs, page)
    for lst in lists.all():
        page(lst.href, "list.html", lst.title, games=lst.games)
    counted = _counted(boards, inputs)
    runs = []
    for run in inputs.runs:
        games = [g for g in inputs.games if g.run == run.name]
        runs.append({"name": run.name, "kind": run.kind, "summary": _run_summary(run.kind, run.manifest, games),
                     "games": [_game_row(g, counted) for g in games]})  # fmt: skip
    page("runs.html", "runs.html", "Runs", runs=runs)
    page("index.html", "index.html", "Leaderboards", board_list=board_list, games=len(inputs.published()),
         runs=inputs.runs)  # fmt: skip
    published = inputs.published()
    for done, g in enumerate(published):
        if progress is not None:
            progress("writing replays", done, len(published))
        why = counted.get(g.path, "")
        page(g.page, "replay.html", f"{g.run}: {g.name}", game=g, views=_views(root / g.path), counted=not why, why=why,
             download=Path(g.name).name, file=Path(g.name).name)  # fmt: skip
    files["leaderboard.json"], files["leaderboard.csv"] = leaderboard(boards)
    return Rendered(files, boards)


def _counted(boards: list[Board], inputs: SiteInputs) -> dict[str, str]:
    """Per published game: '' when it counts, else why not (a board's reader skipped it)."""
    out = {g.path: "" for g in inputs.published()}
    for b in boards:
        for page, why in b.skipped:
            out[page.removesuffix(".html") + ".jsonl"] = why
    return out


def _game_row(g: GameFile, counted: dict[str, str]) -> dict[str, Any]:
    why = g.why if not g.published else counted.get(g.path, "")
    return {"name": g.name, "page": g.page, "path": g.path, "published": g.published, "winner": g.winner,
            "sha256": g.sha256, "counted": "yes" if g.published and not why else f"no: {why}"}  # fmt: skip


def _run_summary(kind: str, manifest: dict[str, Any], games: list[GameFile]) -> str:
    published = sum(g.published for g in games)
    text = f"{len(games)} transcripts, {published} published"
    if kind == "tournament":
        text += f"; tournament {manifest.get('name', '?')!s}, rules {manifest.get('rules', '?')!s}"
    if kind == "placement":
        text += f"; {manifest['entrant']['label']} placed on {manifest['field']['name']}: {manifest.get('rule', '')}"
    return text


def _field_page(b: Board, inputs: SiteInputs, page: Callable[..., None]) -> None:
    import tomllib

    run = next(r for r in inputs.runs if r.kind == "placement" and slug(r.manifest["field"]["name"]) == b.key)
    data = tomllib.loads(run.field_file)
    intervals = data.get("calibration", {}).get("intervals", {})
    members = []
    for m in data["members"]:
        iv = intervals.get(m["label"], {})
        town, mafia = iv.get("town"), iv.get("mafia")
        members.append({"label": m["label"], "agent": m["agent"], "noise": m.get("noise", "–"),
                        "town": f"{m['town']:+.3f}", "mafia": f"{m['mafia']:+.3f}",
                        "combined": f"{(m['town'] + m['mafia']) / 2:+.3f}",
                        "interval": f"[{town[0]:+.2f}, {town[1]:+.2f}]; [{mafia[0]:+.2f}, {mafia[1]:+.2f}]"
                        if town and mafia else "–"})  # fmt: skip
    page(f"field-{b.key}.html", "field.html", f"Field {data['name']}", field=_Obj(data), members=members)


class _Obj(dict[str, Any]):
    """A mapping a template reads with dots (`field.rules.preset`)."""

    def __getattr__(self, name: str) -> Any:
        value = self[name]
        return _Obj(value) if isinstance(value, dict) else value


def _views(path: Path) -> str:
    """The review page's words in the game's language, then every view of a game (god view first, then each
    seat's), as the review page's JSON blocks."""
    from arena.engine import MODERATOR
    from arena.render import labels
    from arena.render.html import embed_json, story_json
    from arena.render.notes import input_anchors
    from arena.render.story import StoryOptions, build_story

    _, t = read_transcript(path)
    game = t.rebuild()
    names = {e.seat: e.agent.name for e in t.header.seats}
    models = {e.seat: e.agent.reported_model or e.agent.model or "" for e in t.header.seats}
    positions = t.call_positions if len(t.call_positions) == len(t.calls) else None
    anchors = input_anchors(game, t.inputs) if t.inputs else None
    lang = labels.pick(t.header.lang)  # the replay in the game's language, as `arena export` draws it
    options = StoryOptions(names=names, status=t.status, call_positions=positions, models=models, lang=lang)
    blocks = [f'<script type="application/json" id="labels">{embed_json(labels.page(lang))}</script>']
    for viewer in [MODERATOR, *range(1, game.n + 1)]:
        story = build_story(game, viewer, t.calls, t.inputs, options, anchors=anchors)
        blocks.append(f'<script type="application/json" class="view" data-viewer="{viewer}">'
                      f"{embed_json(story_json(story))}</script>")  # fmt: skip
    return "\n".join(blocks)


def leaderboard(boards: list[Board]) -> tuple[bytes, bytes]:
    """Every board's rows, one per configuration and identified quantity, as JSON records and CSV."""
    rows: list[dict[str, Any]] = []
    for b in boards:
        scale = "centred" if b.kind == "rules" else "frozen"
        for row in b.rows:
            for kind in ("combined", "town", "mafia"):
                v = row.values.get(kind)
                if v is None or v.get("value") is None:
                    continue
                rows.append({"board": b.key, "configuration": row.configuration, "rules": b.rules, "quantity": kind,
                             "rating": v["value"], "low": v["low"], "high": v["high"], "games": v["games"],
                             "deals": v["deals"], "status": row.status, "scale": scale, "page": row.page})  # fmt: skip
    text = json.dumps(rows, indent=1) + "\n"
    out = io.StringIO()
    writer = csv.DictWriter(out, LEADERBOARD_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: ("" if r[k] is None or (isinstance(r[k], float) and math.isnan(r[k])) else r[k])
                         for k in LEADERBOARD_COLUMNS})  # fmt: skip
    return text.encode(), out.getvalue().encode()


@dataclass
class Built:
    folder: Path
    games: int
    boards: list[Board]
    digest: str


def build_site(
    folders: list[Path], out: Path, *, boot: int = 200, progress: Progress | None = None, scoring: str = ""
) -> Built:
    """Build a site from run folders into `out` (a new or empty folder); `scoring` (fiim, mwc) adds the points table
    of `arena report --scoring` to each configuration's page."""
    from arena.safe_write import Folder, UnsafePath

    if out.exists() and (not out.is_dir() or out.is_symlink() or any(out.iterdir())):
        raise SiteError(f"{out}: not a new or empty folder; a site is built into one of its own")
    inputs = collect(folders, progress)
    inputs.boot = boot
    inputs.scoring = scoring
    if not inputs.published():
        raise SiteError("no finished game that verifies in " + ", ".join(str(f) for f in folders))
    sources = {run.name: Path(run.source) for run in inputs.runs}
    try:
        with Folder(out) as site:
            publish(inputs, site, sources, progress)
        rendered = render(out, inputs, progress)
        write_files(out, rendered.files, progress)
    except UnsafePath as exc:
        raise SiteError(str(exc)) from None
    return Built(out, len(inputs.published()), rendered.boards, digest(inputs))


def write_files(out: Path, files: dict[str, bytes], progress: Progress | None = None) -> None:
    from arena.safe_write import Folder

    for done, (path, data) in enumerate(sorted(files.items())):
        if progress is not None and done % 50 == 0:
            progress("writing pages", done, len(files))
        parts = path.split("/")
        opened = [Folder(out)]
        for part in parts[:-1]:
            opened.append(opened[-1].folder(part))
        opened[-1].write(parts[-1], data)
        for f in reversed(opened):
            f.close()
