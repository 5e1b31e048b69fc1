"""reference-v1 itself (#33 item 1, marked slow: 600 bot games): `arena tournament --field reference-v1 --entrant
bot:heuristic` twice gives byte-identical placements, a second entrant leaves the first's number and the field's
unchanged, and the heuristic bot lands where the field's own heuristic member stands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.field.definition import field_path, load_field

runner = CliRunner()
pytestmark = pytest.mark.slow


def _place(entrant: str, out: Path) -> dict[str, object]:
    result = runner.invoke(app, ["tournament", "--field", "reference-v1", "--entrant", entrant, "--out", str(out),
                                 "--no-progress", "--jobs", "2"])  # fmt: skip
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads((out / "placement.json").read_text(encoding="utf-8"))
    return data


def test_reference_v1_places_a_bot_reproducibly_and_moves_nothing(tmp_path: Path) -> None:
    field_bytes = field_path("reference-v1").read_bytes()
    first = _place("bot:heuristic", tmp_path / "A")
    _place("bot:heuristic", tmp_path / "B")
    assert (tmp_path / "A" / "placement.json").read_bytes() == (tmp_path / "B" / "placement.json").read_bytes()
    placed = first["estimates"]["combined"]  # type: ignore[index]
    assert placed["games"] == 200 and placed["deals"] == 100
    heuristic = next(m for m in load_field("reference-v1").members if m.label == "heuristic")
    assert placed["low"] <= heuristic.combined <= placed["high"]  # the same bot as the field's strongest member
    before = (tmp_path / "A" / "placement.json").read_bytes()
    _place("bot:random", tmp_path / "C")
    assert (tmp_path / "A" / "placement.json").read_bytes() == before
    assert field_path("reference-v1").read_bytes() == field_bytes
