"""Golden transcripts: one heuristic-bot game per preset, committed under `tests/golden/`, so that any change in the
engine, the bots, their lines or the transcript format shows up as a diff.

    python -m arena.golden --write    # regenerate every golden file after an intended change
    python -m arena.golden            # check: regenerate in memory and diff against the committed files

Each case has two files: the transcript (`NAME.jsonl`, checked byte for byte) and its playthrough (`NAME.txt`,
`arena/render/playthrough.py`: the god view, every request and its answer, one line each and no hash chain), so a
change shows first as the few playthrough lines it changes, then as the transcript's changed lines.

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
from arena.render.playthrough import playthrough
from arena.safe_write import write_file
from arena.transcript import TranscriptWriter, make_header, parse

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


def path_of(case: Case, folder: Path = GOLDEN_DIR, suffix: str = ".jsonl") -> Path:
    """The case's transcript (`.jsonl`) or playthrough (`.txt`)."""
    return folder / f"{case.name}{suffix}"


def files(case: Case) -> dict[str, str]:
    """Play `case` in memory: its playthrough and its transcript, by suffix (the playthrough first)."""
    transcript = render(case)
    return {".txt": playthrough(parse(transcript, f"golden {case.name}")), ".jsonl": transcript}


def diff(case: Case, folder: Path = GOLDEN_DIR, context: int = 2) -> list[str]:
    """The unified diffs between the committed golden files and a fresh run, the playthrough's first (empty when
    they agree)."""
    lines: list[str] = []
    for suffix, new in files(case).items():
        path = path_of(case, folder, suffix)
        old = path.read_text(encoding="utf-8").splitlines(keepends=True) if path.exists() else []
        lines += difflib.unified_diff(old, new.splitlines(keepends=True), str(path), f"{path} (regenerated)", n=context)
    return lines


def _report(case: Case, lines: list[str]) -> None:
    """The playthrough's diff in full (up to 400 lines), then what changed in the transcript."""
    split = next(
        (i for i, line in enumerate(lines) if line.startswith("--- ") and line.rstrip().endswith(".jsonl")), len(lines)
    )
    readable, records = lines[:split], lines[split:]
    sys.stdout.writelines(readable[:400])
    if len(readable) > 400:
        print(f"... ({len(readable) - 400} more lines of the playthrough's diff)")
    changed = [line for line in records if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    body = sum(1 for line in changed if not line[1:].startswith('{"format"'))
    what = f"{body} changed record lines" if body else "the header only (rules or seat specs)"
    if not changed:
        what = "unchanged"
    print(f"\n{case.name}: differs from the golden files; transcript: {what}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.golden", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="regenerate the golden files")
    parser.add_argument("--dir", type=Path, default=GOLDEN_DIR, help="folder of the golden files")
    args = parser.parse_args(argv)
    failed = 0
    for case in CASES:
        if args.write:
            args.dir.mkdir(parents=True, exist_ok=True)
            for suffix, text in files(case).items():
                write_file(path_of(case, args.dir, suffix), text)
                print(f"wrote {path_of(case, args.dir, suffix)}")
            continue
        lines = diff(case, args.dir)
        if lines:
            failed += 1
            _report(case, lines)
        else:
            print(f"{case.name}: ok")
    if failed:
        print(f"{failed} golden case(s) differ; if the change is intended: python -m arena.golden --write")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
