"""`tournament.json`: what a tournament folder holds, written at the start (status `running`) and at the end.

It names the tournament (and its fingerprint, so a folder holding another tournament is refused before any game
starts), the configurations, the schedule's games with their files and results, the spend, why the run stopped,
and the final standings. The transcripts beside it are the record; the manifest is their index and summary.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.safe_read import UnsafeFile, open_regular, read_text
from arena.safe_write import links_in, write_file
from arena.tournament.model import MANIFEST, MAX_MANIFEST_BYTES, TournamentError

FORMAT = "mafia-arena-tournament"
NAME = MANIFEST


def game_file(index: int) -> str:
    return f"game-{index + 1:04d}.jsonl"


def check_folder(out: Path, fingerprint: str, name: str) -> None:
    """Refuse a folder that holds another tournament (or other transcripts), before any game starts."""
    if not out.exists():
        return
    if not out.is_dir() or out.is_symlink():
        raise TournamentError(f"out: {out} is not a folder" + (" (a symbolic link)" if out.is_symlink() else ""))
    planted = links_in(out, depth=1)
    if planted:  # a game file or the manifest as a link would make the run write through it
        raise TournamentError(
            f"out: {out} holds symbolic links ({', '.join(p.name for p in planted[:3])}); a tournament never reads "
            "or writes through a link: remove them or choose another --out"
        )
    odd = [p.name for p in sorted(out.iterdir()) if _ours(p.name) and not p.is_file()]
    if odd:  # a FIFO named like a game file would hold its reader forever (and a device could never end)
        raise TournamentError(
            f"out: {out} holds {', '.join(odd[:3])}, which {'is' if len(odd) == 1 else 'are'} not a regular file; "
            "a tournament reads only regular files: remove them or choose another --out"
        )
    manifest = out / NAME
    if manifest.exists():
        try:  # a hostile manifest (not UTF-8, huge, nested thousands deep) is one clear message
            data = json.loads(read_text(manifest, limit=MAX_MANIFEST_BYTES))
        except (UnsafeFile, ValueError) as exc:
            raise TournamentError(f"out: {manifest} is not a readable tournament manifest ({exc})") from None
        except RecursionError:
            raise TournamentError(
                f"out: {manifest} is not a readable tournament manifest (nested too deeply)"
            ) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise TournamentError(f"out: {manifest} is not a tournament manifest")
        if data.get("fingerprint") != fingerprint:
            raise TournamentError(
                f"out: {out} holds another tournament ({data.get('name')!r}, fingerprint {data.get('fingerprint')}); "
                f"this one is {name!r} ({fingerprint}); choose another --out"
            )
        return
    strangers = [p.name for p in out.iterdir() if not p.name.startswith("game-")]
    if any(out.glob("*.jsonl")) or strangers:
        raise TournamentError(f"out: {out} is not empty and holds no {NAME}; choose an empty or new folder")


def _ours(name: str) -> bool:
    """A name the tournament reads: a game file or the manifest."""
    return name == NAME or (name.startswith("game-") and name.endswith(".jsonl"))


def write(out: Path, data: dict[str, Any]) -> None:
    """Replace the manifest atomically (a crash leaves the old one or the new one, never half of one), through a
    fresh temporary file and never through a symbolic link (`arena.safe_write`)."""
    write_file(out / NAME, json.dumps({"format": FORMAT, "version": 1, **data}, indent=1) + "\n")


def read(out: Path) -> dict[str, Any]:
    with open_regular(out / NAME) as handle:  # never through a link out of the folder
        data: dict[str, Any] = json.loads(handle.read(MAX_MANIFEST_BYTES + 1).decode("utf-8"))
    return data
