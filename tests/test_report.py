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


def test_tampered_and_non_regular_files_are_skipped_and_listed(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    games = tmp_path / "games"
    paths = play_balanced(games, 4)
    tampered = paths[1]
    lines = tampered.read_text(encoding="utf-8").splitlines(keepends=True)
    end = json.loads(lines[-1])
    end["winner"] = "mafia" if end["winner"] == "town" else "town"  # a flipped winner breaks the chain
    lines[-1] = json.dumps(end, separators=(",", ":")) + "\n"
    tampered.write_text("".join(lines), encoding="utf-8")
    if hasattr(os, "mkfifo"):
        os.mkfifo(games / "x.jsonl")  # reading it would block forever
    result = subprocess.run(
        [sys.executable, "-m", "arena.cli", "report", str(games), "--boot", "10"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    report = (games / "report" / "report.md").read_text(encoding="utf-8")
    assert "3 finished games" in report and "## Skipped files" in report
    assert "1 of them tampered" in report
    listed = next(line for line in report.splitlines() if tampered.name in line)
    assert "hash chain broken" in listed
    if hasattr(os, "mkfifo"):
        assert any("x.jsonl" in line and "not a regular file" in line for line in report.splitlines())
    rows = list(csv.DictReader(io.StringIO((games / "report" / "games.csv").read_text(encoding="utf-8"))))
    assert len(rows) == 3


HOSTILE = '=HYPERLINK("http://x")|<b>`x`\nrow'


def test_header_text_is_inert_in_tables_and_csvs(tmp_path: Path) -> None:
    games = tmp_path / "games"
    play_balanced(games, 4, a=BUILTIN["bot:heuristic"].model_copy(update={"name": HOSTILE}))
    result = runner.invoke(app, ["report", str(games), "--boot", "10"])
    assert result.exit_code == 0, result.output
    report = (games / "report" / "report.md").read_text(encoding="utf-8")
    assert "<b>" not in report and "`x`" not in report and HOSTILE not in report
    for table in re.findall(r"(?:^\|.*\n)+", report, re.M):  # every row of a table has its header's cell count
        rows = table.splitlines()
        counts = {len(re.findall(r"(?<!\\)\|", row)) for row in rows}
        assert len(counts) == 1, table
    escaped = '=HYPERLINK("http\\://x")\\|&lt;b&gt;\\`x\\` row'  # the URL is not linked either
    assert f"| {escaped} |" in report
    page = (games / "report" / "report.html").read_text(encoding="utf-8")
    assert "<b>" not in page and "=HYPERLINK(&quot;http://x&quot;)|&lt;b&gt;`x` row" in page
    seats = list(csv.reader(io.StringIO((games / "report" / "seats.csv").read_text(encoding="utf-8"))))
    cells = [cell for row in seats[1:] for cell in row]
    assert "'" + HOSTILE in cells and HOSTILE not in cells
    assert not any(cell.startswith(("=", "+", "@")) for cell in cells)


def test_the_page_in_a_browser_shows_no_raw_markdown(out: Path) -> None:
    """report.html in chromium: bold, code and tables rendered (markdown-it-py), never a raw `**` or backtick.
    The page was drawn by a hand-written converter once, which showed `**…**` and backticks as typed."""
    from test_web_e2e import ARGS, CHROMIUM, _need_browser

    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page()
            page.goto((out / "report.html").as_uri())
            text = page.inner_text("body")
            count = "() => ['strong', 'code', 'table', 'li'].map(t => document.querySelectorAll(t).length)"
            shown = page.evaluate(count)
        finally:
            browser.close()
    assert "Win rates per side" in text and "bot:heuristic" in text
    assert "**" not in text and "`" not in text
    strong, code, tables, items = shown
    assert strong > 0 and code > 0 and tables >= 5, shown  # the report's bold, its `sparse` and its tables
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert markdown.count("**") >= 2 * strong  # every bold of the Markdown is drawn bold
    assert items == sum(1 for line in markdown.splitlines() if line.startswith("- "))  # every bullet is a list item


def test_report_tells_its_progress(tmp_path: Path) -> None:
    """`arena report` once worked 35 s in silence on 200 games: it now says what it is doing, file by file and game
    by game (a rich bar on a terminal's stderr; nothing on a pipe)."""
    from arena.research.report import report

    games = tmp_path / "games"
    play_balanced(games, 4)
    (games / "junk.jsonl").write_text("not a transcript\n", encoding="utf-8")
    heard: list[tuple[str, int, int]] = []
    written = report(games, tmp_path / "out", boot=5, progress=lambda *step: heard.append(step))
    assert written.games == 4
    stages = list(dict.fromkeys(stage for stage, _, _ in heard))
    assert stages == ["reading transcripts", "measuring games", "fitting ratings (5 bootstrap resamples)",
                      "drawing plots", "writing the report"]  # fmt: skip
    assert [d for s, d, t in heard if s == "reading transcripts"] == [0, 1, 2, 3, 4]  # every file, junk included
    assert {t for s, _, t in heard if s == "reading transcripts"} == {5}
    assert [d for s, d, _ in heard if s == "measuring games"] == [0, 1, 2, 3]
    result = runner.invoke(app, ["report", str(games), "--out", str(tmp_path / "again"), "--boot", "5"])
    assert result.exit_code == 0 and result.output.startswith("4 games -> ")  # a pipe gets no bar


COUNT = re.compile(r"\b(n|games|seat-games|decisions|deals|dealt|trials)\b")


def test_every_table_row_has_its_n(out: Path) -> None:
    """Issue 32: every table of report.md carries the n behind each row, as a column named for a count or beside
    every interval of the row (`(n = …)`); the headline, lies and leaks tables had none. CSVs: the ratings' and
    comparisons' rows carry games and deals, the metrics' n and games."""
    report = (out / "report.md").read_text(encoding="utf-8")
    tables = re.findall(r"(?:^\|.*\n)+", report, re.M)
    assert len(tables) >= 8
    for table in tables:
        header, _, *rows = table.splitlines()
        if COUNT.search(header):
            continue
        for row in rows:
            cells = [c for c in re.split(r"(?<!\\)\|", row) if "\\[" in c]
            assert cells and all("(n = " in c for c in cells), (header, row)
    for name, columns in (("ratings.csv", {"games", "deals"}), ("comparisons.csv", {"games", "deals"}),
                          ("metrics.csv", {"n", "games"})):  # fmt: skip
        rows = list(csv.DictReader(io.StringIO((out / name).read_text(encoding="utf-8"))))
        assert rows and all(row[c] != "" for row in rows for c in columns), name
