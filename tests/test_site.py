"""`arena site` (#33 items 3, 4, 6): a static site from two tournament folders and one placement, every number linked
to its games, a replay of every game, leaderboard.json and CSV that pandas reads as they are, and `--check`, which
passes on a fresh site and names the game that was edited, re-chained or removed. The browser half (chromium at two
sizes, no external request, no overflow) is the last test here."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from forgery import rechain
from test_field import DRAFT
from typer.testing import CliRunner

from arena.cli import app

runner = CliRunner()
TOURNAMENT = """name = "{name}"
games = {games}
seed = {seed}
filler = "bot:random"
schedule = "{schedule}"
[rules]
preset = "fiim"
[[pool]]
label = "heuristic"
agent = "bot:heuristic"
[[pool]]
label = "random"
agent = "bot:random"
"""


def _ok(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two tournament folders (tournament seating, whole sides) and a placement on a tiny field."""
    root = tmp_path_factory.mktemp("runs")
    out = []
    for name, games, seed, schedule in (("bots-a", 24, 1, "seats"), ("bots-b", 16, 5, "sides")):
        file = root / f"{name}.toml"
        file.write_text(TOURNAMENT.format(name=name, games=games, seed=seed, schedule=schedule), encoding="utf-8")
        _ok(["tournament", str(file), "--out", str(root / name), "--processes", "0", "--no-progress"])
        out.append(root / name)
    (root / "draft.toml").write_text(DRAFT, encoding="utf-8")
    _ok(["field", "freeze", str(root / "draft.toml"), "--out", str(root / "cal"), "--processes", "0", "--no-progress",
         "--boot", "20"])  # fmt: skip
    _ok(["tournament", "--field", str(root / "cal" / "tiny-v1.toml"), "--entrant", "bot:heuristic", "--out",
         str(root / "placed"), "--processes", "0", "--no-progress"])  # fmt: skip
    out.append(root / "placed")
    return out


@pytest.fixture(scope="module")
def site(runs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site") / "site"
    output = _ok(["site", *map(str, runs), "--out", str(folder), "--boot", "20", "--no-progress"])
    assert "2 leaderboard(s)" in output and "site digest" in output
    return folder


def _copy(site: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(site, target)
    return target


def test_the_site_has_a_board_per_rules_preset_and_per_field(site: Path) -> None:
    assert (site / "index.html").is_file() and (site / "runs.html").is_file()
    board = (site / "board-fiim.html").read_text(encoding="utf-8")
    field = (site / "board-tiny-v1.html").read_text(encoding="utf-8")
    for name in ("heuristic", "random", "filler"):
        assert f">{name}</a>" in board
    from arena.research.summary import build

    fit = build(site / "games" / "fiim", boot=0).rating  # the report's own comparisons of the board's games
    assert fit is not None and fit.comparisons
    for cmp in fit.comparisons:  # each with the report's verdict (at these few games #32's support rule judges none)
        verdict = f"{cmp.better} better" if cmp.better else "sparse: not compared" if cmp.sparse else "no difference"
        assert f"{cmp.a} − {cmp.b}" in board and verdict in board, (cmp, verdict)
    judged = any(not cmp.sparse for cmp in fit.comparisons)
    assert ("critical value" in board) == judged
    assert "simultaneous" in field and "critical value" in field and "better" in field  # the placements' family
    assert "bot-heuristic" in field and "(frozen)" in field and "placed" in field
    assert "never moves the field" in field  # what a placement identifies
    assert (site / "config" / "fiim" / "heuristic.html").is_file() and (site / "field-tiny-v1.html").is_file()
    config = (site / "config" / "fiim" / "heuristic.html").read_text(encoding="utf-8")
    for section in ("Win rate by side", "Win rate by role", "deception", "detection", "Cost and tokens"):
        assert section in config, section


def test_a_configuration_page_shows_only_the_metrics_that_discriminate(site: Path) -> None:
    """#37: a metric that does not discriminate leaves the headline of the report and the site (docs/metrics.md)."""
    from arena.research.metrics import HEADLINE, RATES

    config = (site / "config" / "fiim" / "heuristic.html").read_text(encoding="utf-8")
    section = config.split("the metrics that discriminate", 1)[1].split("<h2>", 1)[0]
    shown = re.findall(r"<tr><td>(?:<span>)?([a-z_]+)(?:</span>)?</td>", section)
    assert "vote_accuracy" in shown and set(shown) <= set(HEADLINE), shown
    assert {r.name for r in RATES} - set(HEADLINE), "every metric discriminates: nothing left to leave out"
    assert not {r.name for r in RATES if r.name not in HEADLINE} & set(shown)


def test_every_number_links_to_its_games_and_every_game_has_a_replay(site: Path) -> None:
    board = (site / "board-fiim.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr><td>(?:<span>)?\d+(?:</span>)?</td>(.*?)</tr>", board, re.S)
    assert rows, "no leaderboard rows"
    for row in rows:  # each rating, skill and n is a link to a list of games
        numbers = re.findall(r"<td>(.*?)</td>", row, re.S)
        for cell in numbers[1:5]:
            if re.search(r"[+-]?\d", re.sub(r"<[^>]+>", "", cell)):
                assert 'href="lists/' in cell, cell
    data = json.loads((site / "site.json").read_text(encoding="utf-8"))
    published = [g for g in data["games"] if g["published"]]
    assert len(published) == 24 + 16 + 12
    for g in published:
        path = site / "games" / g["board"] / g["run"] / g["name"]
        replay = path.with_suffix(".html").read_text(encoding="utf-8")
        assert g["sha256"] in replay and 'class="view" data-viewer="0"' in replay and 'data-viewer="10"' in replay
        assert path.is_file()
    lists = list((site / "lists").glob("*.html"))
    assert lists and all("games/" in p.read_text(encoding="utf-8") for p in lists)


def test_the_site_fetches_nothing_from_anywhere(site: Path) -> None:
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        for attr in re.findall(r'(?:src|href)="([^"]*)"', text):
            assert not re.match(r"^[a-z]+:|^//", attr), (page, attr)  # relative links only: file:// or any host


def test_leaderboard_json_and_csv_load_in_pandas_as_they_are(site: Path) -> None:
    frame = pd.read_json(site / "leaderboard.json")
    table = pd.read_csv(site / "leaderboard.csv")
    for df in (frame, table):
        assert {"configuration", "rules", "rating", "low", "high", "games"} <= set(df.columns)
        assert len(df) > 0
    placed = frame[(frame.configuration == "bot-heuristic") & (frame.quantity == "combined")].iloc[0]
    assert placed.low < placed.rating < placed.high and placed.games == 12 and placed.rules == "fiim"
    assert list(table.configuration) == list(frame.configuration)
    rated = table[(table.board == "fiim") & (table.quantity == "combined")]
    assert set(rated.configuration) == {"heuristic", "random", "filler"}
    # an interval, or none where the estimate rests on too few games (#32's sparse rule: no interval is printed)
    assert ((rated.low < rated.high) | (rated.low.isna() & rated.high.isna())).all()


def test_check_passes_on_a_fresh_site(site: Path) -> None:
    output = _ok(["site", "--check", str(site), "--no-progress"])
    assert "all identical" in output and "52 games verified" in output


def test_check_names_a_removed_game(site: Path, tmp_path: Path) -> None:
    copy = _copy(site, tmp_path)
    gone = copy / "games" / "fiim" / "bots-a" / "game-0003.jsonl"
    gone.unlink()
    result = runner.invoke(app, ["site", "--check", str(copy), "--no-progress"])
    assert result.exit_code == 1
    assert re.search(r"game \S+ \(games/fiim/bots-a/game-0003\.jsonl\): missing", result.output), result.output


def test_check_names_an_edited_game(site: Path, tmp_path: Path) -> None:
    copy = _copy(site, tmp_path)
    path = copy / "games" / "fiim" / "bots-b" / "game-0002.jsonl"
    text = path.read_text(encoding="utf-8")
    winner = "town" if '"winner":"mafia"' in text.replace(" ", "") else "mafia"
    path.write_text(re.sub(r'"winner": ?"(town|mafia)"', f'"winner": "{winner}"', text), encoding="utf-8")
    result = runner.invoke(app, ["site", "--check", str(copy), "--no-progress"])
    assert result.exit_code == 1
    assert "games/fiim/bots-b/game-0002.jsonl): edited: its hash chain is broken" in result.output, result.output


def test_check_names_a_re_chained_game(site: Path, tmp_path: Path) -> None:
    """Edited where no replay can see it (the header's clock), then every hash recomputed: the chain and the replay
    check out, but it is not the file the site published."""
    copy = _copy(site, tmp_path)
    path = copy / "games" / "tiny-v1" / "placed" / "game-0001.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["started_at"] = "1999-12-31T23:59:59Z"
    lines[0] = json.dumps(header) + "\n"
    path.write_text("".join(rechain(lines)), encoding="utf-8")
    result = runner.invoke(app, ["site", "--check", str(copy), "--no-progress"])
    assert result.exit_code == 1
    assert "games/tiny-v1/placed/game-0001.jsonl): re-chained" in result.output, result.output


def test_check_names_a_number_changed_on_a_page(site: Path, tmp_path: Path) -> None:
    copy = _copy(site, tmp_path)
    board = json.loads((copy / "leaderboard.json").read_text(encoding="utf-8"))
    board[0]["rating"] = round(board[0]["rating"] + 0.5, 4)
    (copy / "leaderboard.json").write_text(json.dumps(board, indent=1) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["site", "--check", str(copy), "--no-progress"])
    assert result.exit_code == 1
    assert f"leaderboard.json: {board[0]['configuration']} ({board[0]['quantity']}" in result.output, result.output
    assert "rating: the site says" in result.output


def test_a_site_never_counts_an_unfinished_game(runs: list[Path], tmp_path: Path) -> None:
    """A game that stopped before its end is neither published nor counted; its run's page says why."""
    run = tmp_path / "cut"
    shutil.copytree(runs[0], run)
    game = run / "game-0004.jsonl"
    lines = game.read_text(encoding="utf-8").splitlines(keepends=True)
    game.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")  # a game stopped half way
    out = tmp_path / "site"
    _ok(["site", str(run), "--out", str(out), "--boot", "0", "--no-progress"])
    data = json.loads((out / "site.json").read_text(encoding="utf-8"))
    cut = next(g for g in data["games"] if g["name"] == "game-0004.jsonl")
    assert not cut["published"] and "not a finished game" in cut["why"]
    assert not (out / "games" / "fiim" / "cut" / "game-0004.jsonl").exists()
    assert "games counted: <a" in (board := (out / "board-fiim.html").read_text(encoding="utf-8"))
    assert re.search(r"games counted: <a [^>]*>23</a>", board)  # 23 of the 24
    assert "not a finished game" in (out / "runs.html").read_text(encoding="utf-8")


def test_site_input_errors_are_one_line(tmp_path: Path, site: Path) -> None:
    for args, message in ((["site", str(tmp_path / "none"), "--out", str(tmp_path / "s")], "not a folder"),
                          (["site", "--out", str(tmp_path / "s")], "RUN folders"),
                          (["site", str(tmp_path), "--out", str(site)], "new or empty folder"),
                          (["site", "--check", str(tmp_path)], "no site.json")):  # fmt: skip
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and message in result.output, (args, result.output)


# ----- in a real browser ---------------------------------------------------------------------------------------------
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = os.environ.get("ARENA_SCREENSHOTS")  # a folder to keep the screenshots in (docs/img holds the committed ones)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]  # fmt: skip


@pytest.mark.parametrize(("case", "size"), [("desktop", (1280, 800)), ("phone", (390, 844))])
def test_the_site_in_chromium(site: Path, tmp_path: Path, case: str, size: tuple[int, int]) -> None:
    """From file://, at both sizes: a leaderboard, a configuration page and a game replayed from a seat, stepped by
    day and night. No request leaves the site's folder, no page is wider than its viewport, no script error."""
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and the browser test cannot run: {CHROMIUM} is missing")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    width, height = size
    folder = Path(SHOTS) if SHOTS else tmp_path / "shots"
    folder.mkdir(parents=True, exist_ok=True)
    requests: list[str] = []
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.on("request", lambda r: requests.append(r.url))
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)

        def shot(name: str) -> None:
            wide = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
            assert wide <= width, f"{case} {name}: the page is {wide} px wide in a {width} px viewport"
            page.screenshot(path=str(folder / f"site-{case}-{name}.png"))

        page.goto((site / "board-fiim.html").as_uri())
        assert page.locator("table tbody tr").count() >= 3
        shot("leaderboard")
        page.locator("a", has_text="heuristic").first.click()  # a configuration's page, from the board
        page.wait_for_load_state()
        assert page.url.endswith("config/fiim/heuristic.html")
        assert page.locator("h2", has_text="Win rate by role").count() == 1
        shot("configuration")
        page.locator("td a").first.click()  # its rating's games
        page.wait_for_load_state()
        assert "/lists/" in page.url
        page.locator("tbody a").first.click()  # a game of that list
        page.wait_for_load_state()
        replay = page.url.split("#")[0]
        page.goto(replay + "#view=3")
        page.reload()  # the view is read from the address when the page opens
        page.wait_for_selector("section.chapter")
        assert page.locator("#viewer").input_value() == "3"
        assert "Seat view of seat #3" in page.locator("#side").inner_text()
        first = page.locator("#step-at").inner_text()
        assert page.locator("section.chapter:not([hidden])").count() == 1  # one day or night at a time
        page.locator("#step-next").click()
        page.locator("#step-next").click()
        assert page.locator("#step-at").inner_text() != first and "(3/" in page.locator("#step-at").inner_text()
        page.select_option("#viewer", "0")  # the god view keeps the step
        assert "(3/" in page.locator("#step-at").inner_text() and "God view" in page.locator("#side").inner_text()
        page.select_option("#viewer", "3")
        shot("replay-seat")
        browser.close()
    outside = [url for url in requests if not url.startswith(site.as_uri())]
    assert not outside, f"requests outside the site: {outside}"
    assert not errors, errors


def test_the_build_reports_its_stages(runs: list[Path], tmp_path: Path) -> None:
    """What `arena site`'s progress bar shows (arena report's bar, on a terminal's stderr): each stage, counted."""
    from arena.site.build import build_site

    heard: list[tuple[str, int, int]] = []
    build_site([runs[2]], tmp_path / "s", boot=0, progress=lambda stage, done, of: heard.append((stage, done, of)))
    stages = [stage for stage, _, _ in heard]
    for stage in ("verifying games (placed)", "publishing transcripts", "refitting placements", "writing replays",
                  "writing pages"):  # fmt: skip
        assert stage in stages, stages
    replays = [(done, total) for stage, done, total in heard if stage == "writing replays"]
    assert replays[0] == (0, 12) and replays[-1] == (11, 12)


def test_the_site_shows_the_points_table_with_scoring(runs: list[Path], tmp_path: Path) -> None:
    """`arena site --scoring fiim`: each configuration's page has its rows of `arena report --scoring`'s points table
    (ranked, and by role), and --check re-derives them (the site records the system by name)."""
    folder = tmp_path / "scored"
    _ok(["site", str(runs[1]), "--out", str(folder), "--boot", "0", "--no-progress", "--scoring", "fiim"])
    page = (folder / "config" / "fiim" / "heuristic.html").read_text(encoding="utf-8")
    assert "Points (fiim" in page and "Points by role (fiim" in page and "points per game" in page
    points = page.split("Points (fiim", 1)[1]
    assert ">heuristic<" in points and ">random<" not in points and ">filler<" not in points  # its own rows only
    assert "all identical" in _ok(["site", "--check", str(folder), "--no-progress"])
    bad = runner.invoke(app, ["site", str(runs[1]), "--out", str(tmp_path / "x"), "--scoring", "nope"])
    assert bad.exit_code == 2 and "--scoring" in bad.output


def test_a_site_never_counts_a_result_made_of_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's rule (arena/research/corpus.py): a finished game in which a model seat's decisions were mostly
    defaults after its model gave no answer is published and replayed, but counted nowhere. Today's arena stops such a
    game instead of finishing it, so the files are written as an older one wrote them (tests/
    test_report_transport_defaults.py), without the model call records today's verify asks for: its verdict is taken
    as passed here, so that the counting rule is what is tested."""
    from test_report_transport_defaults import _game

    from arena.site import check, inputs
    from arena.transcript import Verdict

    passed = Verdict(ok=True, message="ok", outcome="complete")
    monkeypatch.setattr(inputs, "verify", lambda transcript: passed)
    monkeypatch.setattr(check, "verify", lambda transcript: passed)

    run = tmp_path / "old"
    run.mkdir()
    failing = _game(run, 1, set(range(3, 100, 3)))
    _game(run, 2, set())
    out = tmp_path / "site"
    _ok(["site", str(run), "--out", str(out), "--boot", "0", "--no-progress"])
    board = (out / "board-fiim.html").read_text(encoding="utf-8")
    assert re.search(r"games counted: <a [^>]*>1</a>", board) and "transport defaults" in board
    replay = (out / "games" / "fiim" / "old" / failing.name).with_suffix(".html").read_text(encoding="utf-8")
    assert "not counted" in replay and "a result made of failures is not counted" in replay
    assert "no: seat 3:" in (out / "runs.html").read_text(encoding="utf-8")
    _ok(["site", "--check", str(out), "--no-progress"])
