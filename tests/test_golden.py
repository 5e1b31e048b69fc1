"""Golden transcripts: a fresh in-memory run of each case must equal the committed file, byte for byte.

When a change is intended, regenerate with `python -m arena.golden --write` and review the diff.
"""

from __future__ import annotations

import pytest

from arena.engine import PRESETS
from arena.golden import CASES, Case, diff, path_of
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
