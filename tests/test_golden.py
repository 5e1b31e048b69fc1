"""Golden transcripts: a fresh in-memory run of each case must equal the committed files, byte for byte: the
transcript (`.jsonl`) and its playthrough (`.txt`, the god view with every request and its answer).

When a change is intended, regenerate with `python -m arena.golden --write` and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine import PRESETS, load_rules
from arena.golden import CASES, Case, diff, path_of
from arena.render.playthrough import playthrough, rules_lines
from arena.transcript import load, verify


def test_every_preset_has_a_golden_file() -> None:
    assert {c.preset for c in CASES} == set(PRESETS)
    for case in CASES:
        assert path_of(case).is_file(), f"missing {path_of(case)}: run python -m arena.golden --write"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_file_is_reproduced(case: Case) -> None:
    lines = diff(case)
    assert not lines, "".join(lines[:60]) + "\n(intended? python -m arena.golden --write)"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_file_verifies(case: Case) -> None:
    transcript = load(path_of(case))
    assert transcript.status == "complete"
    assert verify(transcript).ok


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_each_golden_has_its_playthrough(case: Case) -> None:
    """The committed `.txt` is the playthrough of the committed `.jsonl` beside it (the pair never drifts apart)."""
    text = path_of(case, suffix=".txt").read_text(encoding="utf-8")
    assert text == playthrough(load(path_of(case)))
    # every request is followed by its answer, and the god view shows the hidden events
    lines = text.splitlines()
    asked = [i for i, line in enumerate(lines) if line.startswith("? #")]
    assert asked and all(lines[i + 1].startswith("    -> ") for i in asked)
    assert any(line.startswith("  [moderator] ") for line in lines)


def test_the_diff_shows_the_playthrough_first(tmp_path: Path) -> None:
    """A changed game shows first as the playthrough lines it changes, then as the transcript's."""
    case = CASES[0]
    for suffix in (".txt", ".jsonl"):
        committed = path_of(case, suffix=suffix).read_text(encoding="utf-8")
        lines = committed.splitlines(keepends=True)
        # the .txt: a play line past its header (the header's `#` lines hold no seat)
        at = (
            next(i for i in range(40, len(lines)) if not lines[i].startswith("#") and "#" in lines[i])
            if suffix == ".txt"
            else 40
        )
        lines[at] = lines[at].replace("#", "seat ", 1) if suffix == ".txt" else lines[at].replace('"kind"', '"kinds"')
        path_of(case, tmp_path, suffix).write_text("".join(lines), encoding="utf-8")
    lines = diff(case, tmp_path)
    heads = [line for line in lines if line.startswith("--- ")]
    assert [Path(h.split()[1]).suffix for h in heads] == [".txt", ".jsonl"]
    assert sum(1 for line in lines if line.startswith("-") and not line.startswith("---")) == 2


def test_a_rules_change_reads_as_its_own_playthrough_line() -> None:
    """A rule that changes no play (or little) still shows in the playthrough's header, as the one line it changes."""
    before = rules_lines(load_rules("fiim"))
    after = rules_lines(load_rules("fiim", overrides=["win.game_end_last_word=false"]))
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 1
    assert changed[0][0].startswith("# rules win:") and "game_end_last_word=false" in changed[0][1]
