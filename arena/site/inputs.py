"""What a site is built from: run folders (a tournament's, a placement's, or any folder of transcripts), their games
published into the site, and `site.json`, the record from which `arena site --check` rebuilds every page.

A game is published (copied into `SITE/games/BOARD/RUN/`) only when it is finished and verifies (its hash chain, and
a replay of every input through the engine): an unfinished game is never shown (its god view would tell a game that
may still be resumed) and an edited one is never counted. Either is listed on its run's page with the reason. A
board is a rules preset (a tournament's games, or any games) or a field (its placements), so each board's games are
one folder and `arena report`'s own code reads them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena.safe_read import UnsafeFile, open_regular
from arena.safe_write import Folder
from arena.transcript import Transcript, TranscriptError, read_stream, verify

SITE_JSON = "site.json"
FORMAT = "mafia-arena-site"
MAX_RUN_FILE = 64 * 1024 * 1024
_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")
Progress = Callable[[str, int, int], None]


class SiteError(ValueError):
    """A site that cannot be built or checked; the message says why."""


def slug(text: str) -> str:
    """A file-name-safe form of a name (`bot:heuristic` → `bot-heuristic`), never empty, never a dot name."""
    out = _SLUG.sub("-", text).strip("-.") or "x"
    return out[:60]


@dataclass
class GameFile:
    """One transcript of a run, published or not."""

    board: str  # the rules preset's name, or the field's name for a placement
    run: str
    name: str  # its path inside the run folder, with `/`
    sha256: str
    head: str  # the hash chain's last hash
    status: str  # complete | started | aborted | tampered | unreadable
    published: bool
    why: str = ""  # not published: why
    game_id: str = ""
    rules: str = ""
    winner: str | None = None
    seats: list[str] = field(default_factory=list)  # per seat, seat 1 first: the configuration

    @property
    def path(self) -> str:
        """Where the site keeps it (relative to the site)."""
        return f"games/{self.board}/{self.run}/{self.name}"

    @property
    def page(self) -> str:
        return self.path.removesuffix(".jsonl") + ".html"


@dataclass
class Run:
    """One RUN folder given to `arena site`."""

    name: str
    kind: str  # tournament | placement | games
    source: str  # the folder as given (shown, never read again)
    manifest: dict[str, Any] = field(default_factory=dict)  # tournament.json or placement.json as read
    field_file: str = ""  # placement: the field definition's text (the site keeps a copy)


@dataclass
class SiteInputs:
    runs: list[Run]
    games: list[GameFile]
    boot: int = 200
    scoring: str = ""  # a built-in scoring system (fiim, mwc): the boards' points table; "" for none

    def published(self, board: str | None = None) -> list[GameFile]:
        return [g for g in self.games if g.published and (board is None or g.board == board)]

    def boards(self) -> list[str]:
        return sorted({g.board for g in self.games if g.published})

    def data(self) -> dict[str, Any]:
        scoring = {"scoring": self.scoring} if self.scoring else {}  # a site built without it reads as before
        return {"format": FORMAT, "version": 1, "boot": self.boot, **scoring, "runs": [asdict(r) for r in self.runs],
                "games": [asdict(g) for g in self.games]}  # fmt: skip


def sha256_file(path: Path) -> str:
    with open_regular(path) as stream:
        return hashlib.sha256(stream.read()).hexdigest()


def read_transcript(path: Path) -> tuple[bytes, Transcript]:
    with open_regular(path) as stream:
        raw = stream.read()
    import io

    return raw, read_stream(io.BytesIO(raw), str(path))


def _kind(folder: Path) -> str:
    if (folder / "placement.json").is_file():
        return "placement"
    if (folder / "tournament.json").is_file():
        return "tournament"
    return "games"


def _json(path: Path) -> dict[str, Any]:
    try:
        with open_regular(path) as stream:
            data = json.loads(stream.read(MAX_RUN_FILE + 1).decode("utf-8"))
    except (OSError, UnsafeFile, ValueError, RecursionError) as exc:
        raise SiteError(f"{path}: not readable ({exc})") from None
    if not isinstance(data, dict):
        raise SiteError(f"{path}: not a JSON object")
    return data


def _placement_field(folder: Path, manifest: dict[str, Any]) -> tuple[str, str]:
    """The field a placement was made on (the copy in its folder, checked), and that copy's text."""
    from arena.field.definition import FieldError
    from arena.field.run import field_of

    try:
        version, text = field_of(folder, manifest)
    except (OSError, FieldError) as exc:
        raise SiteError(f"{folder}: {exc}") from None
    return version.name, text


def collect(folders: list[Path], progress: Progress | None = None) -> SiteInputs:
    """Read every run folder: each transcript's hash, status and verdict (nothing is written)."""
    runs: list[Run] = []
    games: list[GameFile] = []
    taken: set[str] = set()
    for folder in folders:
        if not folder.is_dir() or folder.is_symlink():
            raise SiteError(f"{folder}: not a folder of games")
        name = slug(folder.resolve().name)
        base, n = name, 2
        while name in taken:
            name, n = f"{base}-{n}", n + 1
        taken.add(name)
        run = Run(name, _kind(folder), str(folder))
        board: str | None = None
        if run.kind == "placement":
            run.manifest = _json(folder / "placement.json")
            board, run.field_file = _placement_field(folder, run.manifest)
        elif run.kind == "tournament":  # what the pages say of it; never a path or a clock of the machine that ran it
            found = _json(folder / "tournament.json")
            run.manifest = {k: found[k] for k in ("name", "fingerprint", "rules", "games_planned", "seed", "status",
                                                  "stop_reason") if k in found}  # fmt: skip
            run.manifest["configs"] = [{"label": c.get("label"), "agent": c.get("agent")}
                                       for c in found.get("configs", []) if isinstance(c, dict)]  # fmt: skip
        runs.append(run)
        paths = sorted(p for p in folder.rglob("*.jsonl") if not any(part.startswith(".") for part in p.parts))
        for done, path in enumerate(paths):
            if progress is not None:
                progress(f"verifying games ({run.name})", done, len(paths))
            games.append(_game(path, folder, run.name, board))
    return SiteInputs(runs, games)


def _game(path: Path, folder: Path, run: str, board: str | None) -> GameFile:
    rel = path.relative_to(folder).as_posix()
    try:
        raw, t = read_transcript(path)
    except (OSError, UnsafeFile, TranscriptError) as exc:
        return GameFile(board or "unknown", run, rel, "", "", "unreadable", False, f"not readable: {exc}")
    digest = hashlib.sha256(raw).hexdigest()
    rules = str(t.header.rules.get("name", "custom"))
    seats = [e.agent.name for e in sorted(t.header.seats, key=lambda e: e.seat)]
    out = GameFile(slug(board or rules), run, rel, digest, t.last_hash, t.status, False, "", t.header.game_id, rules,
                   t.end.winner if t.end else None, seats)
    if t.chain != "ok":
        out.status, out.why = "tampered", f"hash chain {t.chain}: {t.chain_error or 'no chain'}"
        return out
    if t.status != "complete":
        out.why = f"status {t.status}: not a finished game (an unfinished game is never published)"
        return out
    verdict = verify(t)
    if not verdict.ok:
        out.status, out.why = "tampered", f"does not verify: {verdict.message}"
        return out
    out.published = True
    return out


def publish(inputs: SiteInputs, site: Folder, sources: dict[str, Path], progress: Progress | None = None) -> None:
    """Copy every published game (and each run's manifest and field file) into the site."""
    games = inputs.published()
    for done, g in enumerate(games):
        if progress is not None:
            progress("publishing transcripts", done, len(games))
        with open_regular(sources[g.run] / g.name) as stream:
            raw = stream.read()
        if hashlib.sha256(raw).hexdigest() != g.sha256:
            raise SiteError(f"{sources[g.run] / g.name} changed while the site was being built")
        target = site
        parts = g.path.split("/")
        opened: list[Folder] = []
        for part in parts[:-1]:
            target = target.folder(part)
            opened.append(target)
        target.write(parts[-1], raw)
        for f in reversed(opened):
            f.close()


def load_inputs(site: Path) -> SiteInputs:
    """`site.json` of a built site, read back (for the check)."""
    data = _json(site / SITE_JSON)
    if data.get("format") != FORMAT:
        raise SiteError(f"{site / SITE_JSON}: not a Mafia Arena site")
    try:
        runs = [Run(**r) for r in data["runs"]]
        games = [GameFile(**g) for g in data["games"]]
        scoring = data.get("scoring", "")
        if scoring not in ("", "fiim", "mwc"):
            raise ValueError(f"unknown scoring system {str(scoring)[:40]!r}")
        return SiteInputs(runs, games, int(data.get("boot", 200)), scoring)
    except (KeyError, TypeError, ValueError) as exc:
        raise SiteError(f"{site / SITE_JSON}: malformed ({exc})") from None
