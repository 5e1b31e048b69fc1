"""Golden transcripts: one heuristic-bot game per preset, committed under `tests/golden/`, so that any change in the
engine, the bots, their lines or the transcript format shows up as a diff.

    python -m arena.golden --write    # regenerate every golden file after an intended change
    python -m arena.golden            # check: regenerate in memory and diff against the committed files

The varying header fields (game id, start time, package version) and the wall times in the end record are fixed,
so a golden file depends only on the code.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import io
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arena.agents import BUILTIN
from arena.engine import PRESETS, Game, load_rules
from arena.orchestrator import run_game
from arena.players.base import Player
from arena.players.factory import build_player
from arena.safe_write import write_file
from arena.transcript import TranscriptWriter, make_header

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "tests" / "golden"
FIXED_TIME = "2000-01-01T00:00:00Z"


@dataclass(frozen=True)
class Case:
    name: str
    preset: str
    seed: int
    lang: Literal["en", "ru"] = "en"
    agent: str = "bot:heuristic"


CASES = (
    *(Case(preset, preset, 1) for preset in PRESETS),
    Case("fiim-ru", "fiim", 2, lang="ru"),
    Case("fiim-random", "fiim", 3, agent="bot:random"),
)


def render(case: Case) -> str:
    """Play `case` in memory and return its transcript text."""
    rules = load_rules(case.preset)
    spec = BUILTIN[case.agent]
    seats = dict.fromkeys(range(1, rules.players + 1), spec)
    header = make_header(
        rules,
        case.seed,
        seats,
        lang=case.lang,
        game_id=f"golden-{case.name}",
        started_at=FIXED_TIME,
        version="golden",
    )
    stream = io.StringIO()
    writer = TranscriptWriter.to_stream(stream, header, clock=lambda: FIXED_TIME)
    players: dict[int, Player] = {s: build_player(spec, s, seed=case.seed, rules=rules, lang=case.lang) for s in seats}
    asyncio.run(run_game(Game(rules, case.seed), players, writer, timing=False))
    return stream.getvalue()


def path_of(case: Case, folder: Path = GOLDEN_DIR) -> Path:
    return folder / f"{case.name}.jsonl"


def diff(case: Case, folder: Path = GOLDEN_DIR, context: int = 2) -> list[str]:
    """The unified diff between the committed golden file and a fresh run (empty when they agree)."""
    path = path_of(case, folder)
    old = path.read_text(encoding="utf-8").splitlines(keepends=True) if path.exists() else []
    new = render(case).splitlines(keepends=True)
    return list(difflib.unified_diff(old, new, str(path), f"{path} (regenerated)", n=context))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.golden", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="regenerate the golden files")
    parser.add_argument("--dir", type=Path, default=GOLDEN_DIR, help="folder of the golden files")
    args = parser.parse_args(argv)
    failed = 0
    for case in CASES:
        if args.write:
            args.dir.mkdir(parents=True, exist_ok=True)
            write_file(path_of(case, args.dir), render(case))
            print(f"wrote {path_of(case, args.dir)}")
            continue
        lines = diff(case, args.dir)
        if lines:
            failed += 1
            sys.stdout.writelines(lines[:80])
            changed = [line for line in lines if line[:1] in "+-" and not line.startswith(("+++", "---"))]
            body = sum(1 for line in changed if not line[1:].startswith('{"format"'))
            what = f"{body} changed record lines" if body else "the header only (rules or seat specs)"
            print(f"\n{case.name}: differs from the golden file: {what}")
        else:
            print(f"{case.name}: ok")
    if failed:
        print(f"{failed} golden file(s) differ; if the change is intended: python -m arena.golden --write")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
