"""`arena report DIR` (issue 9): the files exist, the PNGs decode, the CSV columns are those docs/metrics.md lists,
and the HTML page fetches nothing."""

from __future__ import annotations

import asyncio
import csv
import io
import re
from pathlib import Path

import pytest
from matplotlib import image
from typer.testing import CliRunner

from arena.agents import BUILTIN
from arena.cli import app
from arena.engine import load_rules
from arena.research.selfplay import deal, play_balanced, play_one

DOCS = Path(__file__).resolve().parents[1] / "docs" / "metrics.md"
runner = CliRunner()


def doc_columns(section: str) -> list[str]:
    """The first-column names of the table under `## {section}` in docs/metrics.md."""
    text = DOCS.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", body, re.M)


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    games = tmp_path_factory.mktemp("games")
    play_balanced(games, 12, rules=load_rules("fiim", overrides=["probes.daily=true"]))
    (games / "notes.jsonl").write_text("not a transcript\n", encoding="utf-8")  # skipped, not fatal
    target = tmp_path_factory.mktemp("report")
    result = runner.invoke(app, ["report", str(games), "--out", str(target), "--boot", "30"])
    assert result.exit_code == 0, result.output
    assert "12 games" in result.output
    return target


def test_every_file_is_written(out: Path) -> None:
    for name in ("report.md", "report.html", "games.csv", "seats.csv", "days.csv", "decisions.csv"):
        assert (out / name).stat().st_size > 0, name
    assert sorted(p.name for p in (out / "plots").iterdir()) == [
        "by_day.png", "calibration.png", "ratings.png", "win_rates.png",
    ]  # fmt: skip


def test_pngs_are_non_empty_and_decode(out: Path) -> None:
    for png in (out / "plots").iterdir():
        pixels = image.imread(png)
        assert pixels.ndim == 3 and pixels.shape[0] > 100 and pixels.shape[1] > 100
        assert pixels.std() > 0.01, f"{png.name} is blank"


def test_html_is_self_contained(out: Path) -> None:
    page = (out / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", page, re.I), "an external URL"
    sources = re.findall(r"""(?:src|href)\s*=\s*['"]([^'"]*)""", page)
    assert len(sources) == 4 and all(s.startswith("data:image/png;base64,") for s in sources)
    assert "bot:heuristic" in page and "Win rates per side" in page


@pytest.mark.parametrize(
    ("name", "sections"),
    [
        ("games.csv", ["games.csv", "Count columns", "Rate columns"]),
        ("seats.csv", ["seats.csv", "Count columns", "Rate columns"]),
        ("days.csv", ["days.csv", "Count columns", "Rate columns"]),
        ("decisions.csv", ["decisions.csv"]),
    ],
)
def test_csv_columns_match_the_docs(out: Path, name: str, sections: list[str]) -> None:
    documented = [c for s in sections for c in doc_columns(s)]
    assert documented, f"docs/metrics.md documents no columns for {name}"
    with (out / name).open(encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert header == documented


def test_csvs_hold_the_games(out: Path) -> None:
    rows = list(csv.DictReader(io.StringIO((out / "games.csv").read_text(encoding="utf-8"))))
    assert len(rows) == 12
    seats = list(csv.DictReader(io.StringIO((out / "seats.csv").read_text(encoding="utf-8"))))
    assert len(seats) == 120
    decisions = list(csv.DictReader(io.StringIO((out / "decisions.csv").read_text(encoding="utf-8"))))
    assert {d["kind"] for d in decisions} >= {"speech", "shoot", "probe"}
    per_game = sum(int(r["decisions"]) for r in rows)
    assert len(decisions) == per_game  # one row per settled decision


def test_markdown_names_the_sections(out: Path) -> None:
    text = (out / "report.md").read_text(encoding="utf-8")
    for title in ("## Ratings", "## Win rates per side", "## Invalid actions", "## Metrics by day", "## Totals"):
        assert title in text
    assert "(plots/calibration.png)" in text


def test_one_game_of_one_configuration(tmp_path: Path) -> None:
    """The smallest folder: one game, one configuration everywhere (degenerate intervals, 100 % rates)."""
    rules = load_rules("fiim")
    spec = BUILTIN["bot:heuristic"]
    asyncio.run(play_one(rules, 3, deal(rules, 3), dict.fromkeys(range(1, 11), spec), tmp_path / "g", "one"))
    result = runner.invoke(app, ["report", str(tmp_path / "g"), "--boot", "10"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "g" / "report" / "plots" / "win_rates.png").stat().st_size > 0


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["report", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and missing.output.startswith("error:")
    empty = runner.invoke(app, ["report", str(tmp_path)])
    assert empty.exit_code == 2 and "no finished game" in empty.output
    assert "Traceback" not in empty.output
