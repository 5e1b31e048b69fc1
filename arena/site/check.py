"""`arena site --check SITE`: every number on a site re-derived from the transcripts it links.

First each published game: present, the bytes the site published (its sha256), and verifying (hash chain, then a
replay of every input through the engine). A game that fails is named with what is wrong: **missing**, **edited**
(its chain is broken, or it no longer verifies), or **re-chained** (its chain and replay check out, but it is not the
file the site published: edited and re-hashed). Then the whole site is rendered again from its own transcripts and
`site.json` (the same code that built it: every fit refitted, every placement re-placed) and compared with what is on
disk, byte for byte; a difference names the page, and on the leaderboard the configuration and the number.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from arena.site.inputs import SiteError, load_inputs, read_transcript
from arena.transcript import TranscriptError, verify

Progress = Callable[[str, int, int], None]


@dataclass
class Checked:
    games: int
    pages: int
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_games(site: Path, progress: Progress | None = None) -> tuple[int, list[str]]:
    inputs = load_inputs(site)
    problems: list[str] = []
    games = inputs.published()
    for done, g in enumerate(games):
        if progress is not None:
            progress("verifying games", done, len(games))
        path = site / g.path
        name = f"game {g.game_id} ({g.path})"
        if not path.is_file() or path.is_symlink():
            problems.append(f"{name}: missing: the site links it, and it is not there")
            continue
        try:
            raw, t = read_transcript(path)
        except (OSError, ValueError, TranscriptError) as exc:
            problems.append(f"{name}: edited: not a readable transcript any more ({exc})")
            continue
        found = hashlib.sha256(raw).hexdigest()
        if t.chain != "ok":
            problems.append(f"{name}: edited: its hash chain is broken ({t.chain_error})")
            continue
        verdict = verify(t)
        if not verdict.ok:
            problems.append(f"{name}: edited: its chain checks out but it does not verify ({verdict.message})")
        elif found != g.sha256:
            problems.append(f"{name}: re-chained: its hash chain and replay check out, but its sha256 {found[:16]}… is "
                            f"not the {g.sha256[:16]}… the site published (edited, then hashed again)")  # fmt: skip
    return len(games), problems


def _first_difference(a: bytes, b: bytes) -> str:
    x, y = a.decode(errors="replace").splitlines(), b.decode(errors="replace").splitlines()
    for i, (p, q) in enumerate(zip(x, y, strict=False)):
        if p != q:
            return f"line {i + 1}: the site has {p.strip()[:120]!r}, the transcripts give {q.strip()[:120]!r}"
    return f"{len(x)} lines on the site, {len(y)} from the transcripts"


def _leaderboard_difference(on_disk: bytes, derived: bytes) -> list[str]:
    try:
        a, b = json.loads(on_disk), json.loads(derived)
    except ValueError:
        return ["leaderboard.json is not JSON"]
    key = ("board", "configuration", "quantity")
    old = {tuple(r.get(k) for k in key): r for r in a if isinstance(r, dict)}
    new = {tuple(r.get(k) for k in key): r for r in b}
    out = []
    for k in sorted(old.keys() | new.keys(), key=str):
        if k not in new:
            out.append(f"leaderboard.json: {k[1]} ({k[2]}, {k[0]}) is on the site but the transcripts do not give it")
        elif k not in old:
            out.append(f"leaderboard.json: the transcripts give {k[1]} ({k[2]}, {k[0]}), missing on the site")
        elif old[k] != new[k]:
            fields = [f for f in new[k] if old[k].get(f) != new[k][f]]
            out += [f"leaderboard.json: {k[1]} ({k[2]}, {k[0]}) {f}: the site says {old[k].get(f)}, the transcripts "
                    f"give {new[k][f]}" for f in fields]  # fmt: skip
    return out


def check_site(site: Path, progress: Progress | None = None) -> Checked:
    """Check a built site; `problems` says what differs (empty: every number re-derived)."""
    from arena.site.build import render

    if not (site / "site.json").is_file():
        raise SiteError(f"{site}: no site.json: not a site built by `arena site`")
    games, problems = check_games(site, progress)
    if problems:
        return Checked(games, 0, problems)
    rendered = render(site, load_inputs(site), progress).files
    for done, (path, derived) in enumerate(sorted(rendered.items())):
        if progress is not None and done % 50 == 0:
            progress("comparing pages", done, len(rendered))
        target = site / path
        if not target.is_file() or target.is_symlink():
            problems.append(f"{path}: missing from the site")
            continue
        on_disk = target.read_bytes()
        if on_disk == derived:
            continue
        if path == "leaderboard.json":
            problems += _leaderboard_difference(on_disk, derived) or [f"{path}: differs"]
        else:
            problems.append(f"{path}: differs from what its games give: {_first_difference(on_disk, derived)}")
    made = set(rendered) | {g.path for g in load_inputs(site).published()}
    extra = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()
                   and p.relative_to(site).as_posix() not in made)  # fmt: skip
    problems += [f"{path}: on the site but not derived from its games" for path in extra]
    return Checked(games, len(rendered), problems)
