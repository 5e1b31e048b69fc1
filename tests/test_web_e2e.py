"""End to end in a real browser: a person plays a whole game at the club table against nine bots, as a person would.

Runs `arena serve` as a user would and drives Debian's headless Chromium with Python playwright (never a downloaded
browser): on a 1280×800 screen and on a 390×844 phone, each in English and in Russian (as the sheriff, the don or a
mafioso). The person nominates by clicking a seat, types a nomination into a speech, votes with the keyboard, acts at
night by clicking a seat on the table (or with the arrow keys), and reads the reveal at the end. Screenshots are taken
at the start, during someone's speech, during the person's own speech, at a vote with the live tally, at a night
action and at the end; at each one the page must fit its viewport (no sideways scrolling). `ARENA_SCREENSHOTS=docs/img`
keeps them where the README shows them. Skips only when Chromium is absent outside CI; under CI=true that is a failure.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.transcript import load, verify

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = os.environ.get("ARENA_SCREENSHOTS")  # a folder to keep the screenshots in (docs/img holds the committed ones)
MOMENTS = ("start", "speech-other", "speech-own", "vote", "night", "end")
CASES = [  # name, language, viewport, seed, the person's role at seat 1 with that seed
    ("desktop-en", "en", (1280, 800), 1, "sheriff"),
    ("phone-ru", "ru", (390, 844), 9, "don"),
    ("desktop-ru", "ru", (1280, 800), 7, "mafia"),
    ("phone-en", "en", (390, 844), 16, "sheriff"),
]
SPEAKING = """() => { const lit = document.querySelector('#ring .seat.speaking');
  return { seat: lit ? lit.dataset.seat : null, line: document.querySelector('#speaker').textContent }; }"""
GOD_EARLY = "!document.querySelector('#status[data-over]') && !!document.querySelector('#god-roles')"
ROLES_SHOWN = "document.querySelector('#end-title') ? 0 : document.querySelectorAll('#ring .role').length"
WORTH_ACTING_ON = """(seat) => { const b = document.querySelector(`#ring button.seat[data-seat='${seat}']`);
  const pick = document.querySelector(`#controls button.pick[data-seat='${seat}']`);
  return !!b && b.classList.contains('choosable') && !b.classList.contains('me') && !b.classList.contains('mate')
    && !!pick && !pick.classList.contains('checked'); }"""  # as a person would: not oneself, a friend, a checked seat
NIGHT_KINDS = {"shoot", "sheriff", "don_check", "heal", "visit", "maniac_kill"}


def _need_browser() -> None:
    if not CHROMIUM.exists():
        missing = f"{CHROMIUM} is missing (apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and the browser test cannot run: {missing}")
        pytest.skip(missing)  # the only skip: no browser on a developer's machine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _serve(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[str], dict[str, str]]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "serve", "--port", str(port), "--out", str(tmp_path / "games"), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    links: dict[str, str] = {}
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        who, _, rest = line.strip().partition(": ")
        links[who] = rest
        if who == "replays":
            return proc, links
    proc.kill()
    raise AssertionError(f"the server did not print its links: {links}")


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


class Shots:
    """Screenshots of one run, each checked for sideways overflow (the page must fit its viewport)."""

    def __init__(self, folder: Path, case: str, width: int) -> None:
        self.folder = folder
        self.case = case
        self.width = width
        self.taken: dict[str, Path] = {}

    def take(self, page: Any, moment: str, *, full: bool = False) -> None:
        if moment in self.taken:
            return
        wide = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
        assert wide <= self.width, f"{self.case} {moment}: the page is {wide} px wide in a {self.width} px viewport"
        path = self.folder / f"{self.case}-{moment}.png"
        page.screenshot(path=str(path), full_page=full)
        self.taken[moment] = path


SPEECH = {
    "en": "Good evening. Seat {n} was quiet on purpose, I think. I nominate {n}.",
    "ru": "Добрый вечер. Игрок {n} слишком тихий. Выставляю {n}.",
}


def _speak(page: Any, lang: str, shots: Shots, first: bool) -> None:
    """A speech: over the budget first (Send is refused), then a nomination said in the text, which the picker takes."""
    form_words = int(page.locator("#counter").inner_text().split("/")[1].split()[0])
    page.fill("#speech", " ".join(["word"] * (form_words + 5)))
    assert page.locator("#send").is_disabled()  # over the word budget: the page will not send it
    assert page.locator("#counter.over").count() == 1
    choosable = page.locator("#ring button.seat.choosable")
    if first and choosable.count():  # nominate by clicking a seat on the table, then take it back by the words
        choosable.first.click()
        assert page.locator("#ring button.seat.chosen").count() == 1
        page.select_option("#nominate", "")
    options = [o.lstrip("#") for o in page.locator("#nominate option").all_inner_texts() if o.startswith("#")]
    team = page.locator("#teammates")
    friends = set(re.findall(r"\d+", team.inner_text())) if team.count() else set()
    options = [o for o in options if o != "1" and o not in friends]  # as a person would: not oneself, not a friend
    target = options[0] if options else "2"
    page.fill("#speech", "")
    page.type("#speech", SPEECH[lang].format(n=target))
    if first:  # a forbidden phrase: the live warning names it, apart from the list of them all (a foul once sent)
        phrase = (page.locator("#forbidden details p").text_content() or "").split("»")[0].lstrip("«")
        assert phrase
        page.type("#speech", " " + phrase)
        warning = page.locator("#forbidden-hit")
        assert warning.is_visible() and phrase in warning.inner_text()
        assert page.locator("#forbidden details").get_attribute("open") is None  # the full list stays folded
    if options:
        assert page.locator("#nominate").input_value() == target  # the spoken nomination set the picker
        assert page.locator("#heard").inner_text()
    assert not page.locator("#send").is_disabled()
    assert page.locator("#clock").is_visible()  # one clock: the rules' speech time
    shots.take(page, "speech-own")
    page.press("#speech", "Control+Enter")


def _act(page: Any, kind: str, lang: str, shots: Shots, done: list[str]) -> None:
    """One decision through the page's own controls, as a person would click or type; `done`: the kinds so far."""
    if kind == "speech":
        if {"sheriff", "don_check"} & set(done):  # the seat's own checks are on its role card, not only in the log
            assert page.locator("#my-checks li").count() >= 1
        _speak(page, lang, shots, "speech" not in done)
    elif kind == "black_message":
        page.fill("#speech", "Стреляем по порядку." if lang == "ru" else "Shoot in the order.")
        page.click("#send")
    elif kind == "vote":
        assert page.locator("#vote-rule").inner_text()  # one line on how the vote counts
        if lang == "ru":  # every word of the form in Russian: the keys' names are the only Latin letters left
            words = re.findall(r"[A-Za-z]{2,}", page.inner_text("#controls"))
            assert not words, words
        hands = page.evaluate("[...document.querySelectorAll('#tally-list .count')].map((c) => +c.textContent)")
        last = page.locator("#tally-list .tally-row").last.get_attribute("class") or ""
        if page.locator("#tally").is_visible() and (sum(hands) > 0 or "now" in last):
            shots.take(page, "vote")  # the live tally, once hands are up (or at the last nominee)
        page.locator("body").press("n")  # the keyboard: N votes no
    elif kind == "best_move":
        page.click("#send")
    elif kind == "choose_side":
        page.locator("button.choice").first.click()
    elif kind in NIGHT_KINDS:
        assert page.locator("body.night").count() == 1  # the room is dim at night
        shots.take(page, "night")
        if lang == "en":  # the keyboard: the table is one tab stop, the arrows move, Enter picks
            start = page.locator("#ring button.seat[tabindex='0']")
            first = start.get_attribute("data-seat")
            start.focus()
            page.keyboard.press("ArrowRight")
            assert page.evaluate("document.activeElement.dataset.seat") != first
            page.keyboard.press("ArrowLeft")
            assert page.evaluate("document.activeElement.dataset.seat") == first
            for _ in range(12):
                if page.evaluate(WORTH_ACTING_ON, page.evaluate("document.activeElement.dataset.seat")):
                    break
                page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
        else:  # the action is a click on the table
            seats = page.locator("#ring button.seat.choosable").evaluate_all("(bs) => bs.map((b) => b.dataset.seat)")
            target = next((n for n in seats if page.evaluate(WORTH_ACTING_ON, n)), seats[0])
            page.locator(f"#ring button.seat.choosable[data-seat='{target}']").click()
    else:
        page.locator("#controls button.pick").first.click()


def _review(seat: Any, errors: list[str]) -> None:
    """The end links to the replay from the seat's own chair, then as the god view; both step through the game."""
    from playwright.sync_api import expect

    seat.click("#review-seat")
    seat.wait_for_selector("#ring button.seat")
    seat.wait_for_selector("#role-name")
    assert seat.locator("#view-as").input_value() == "1"
    assert seat.locator("#god-roles").count() == 0  # the seat's own view holds no one else's card
    assert seat.locator("#god-card").is_hidden()  # and no empty card stands in its place
    seat.click("#first")
    expect(seat.locator("#step")).to_have_text("0")
    seat.click("#next")
    expect(seat.locator("#step")).to_have_text("1")
    seat.select_option("#view-as", "0")
    seat.wait_for_selector("#god-roles .seatbox")
    assert seat.locator("#rolecard").is_hidden()  # the god view has no role card: none is drawn empty
    assert not errors, errors


def _create(browser: Any, url: str, errors: list[str]) -> None:
    """The create page: fiim by default, a seed and a time limit, and a busy state while the seats are checked."""
    page = browser.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    assert page.locator("#preset").input_value() == "fiim"
    page.fill("#seed", "7")
    page.fill("#time-limit", "30")
    page.select_option("select.agent[data-seat='2']", "human")
    release: list[Any] = []
    page.route("**/api/tables/**", lambda route: release.append(route))  # hold the answer: the check takes time
    page.click("#create")
    page.wait_for_function("document.querySelector('#busy') && !document.querySelector('#busy').hidden")
    assert page.locator("#create").is_disabled()
    page.wait_for_timeout(100)
    assert release, "the page sent no request"
    release[0].continue_()
    page.wait_for_selector("#links a")
    made = [a.get_attribute("href") or "" for a in page.locator("#links a").all()]
    assert any("/seat/" in url for url in made) and any("/watch/" in url for url in made)
    assert page.locator("#busy").is_hidden() and not page.locator("#create").is_disabled()


def _play(case: str, lang: str, size: tuple[int, int], seed: int, role: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    width, height = size
    folder = Path(SHOTS) if SHOTS else tmp_path / "shots"
    folder.mkdir(parents=True, exist_ok=True)
    shots = Shots(folder, case, width)
    flags = [
        "--seat",
        "1=human",
        "--seed",
        str(seed),
        "--lang",
        lang,
        "--bot-delay",
        "0.3",
        "--bot-wpm",
        "0",
        "--human-timeout",
        "60",
        "--start",
        "now",
    ]
    proc, links = _serve(tmp_path, *flags)
    errors: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            seat = browser.new_page(viewport={"width": width, "height": height})
            watch = browser.new_page(viewport={"width": width, "height": height})
            for page in (seat, watch):
                page.on("pageerror", lambda exc: errors.append(str(exc)))
                page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
            seat.goto(links["seat 1"])
            watch.goto(links["spectators"])
            seat.wait_for_selector("#role-name", timeout=20_000)
            assert seat.locator("#ring button.seat").count() == 10
            assert "1" in (seat.locator("#seat-1").get_attribute("aria-label") or "")
            shots.take(seat, "start")
            kinds: list[str] = []
            acted: set[str] = set()
            known_before_end = 0
            for _ in range(20_000):  # bounded: a game is a few hundred decisions at most
                if seat.locator("#status[data-over='1']").count():
                    break
                speaking = seat.evaluate(SPEAKING)  # the lit seat and the centre's line, read at one moment
                if speaking["seat"] and speaking["seat"] != "1":
                    assert f"#{speaking['seat']}" in speaking["line"], speaking  # the "Speaking" line never lags
                if "speech-other" not in shots.taken and seat.locator("#ring .seat.speaking:not(.me)").count():
                    shots.take(seat, "speech-other")
                fouls = seat.locator("#seat-1 .fouls")
                if fouls.count():
                    assert fouls.get_attribute("title") == ("1 фол" if lang == "ru" else "1 foul")
                known_before_end = max(known_before_end, seat.evaluate(ROLES_SHOWN))  # one read, no race
                ask = seat.locator("#controls").get_attribute("data-ask")
                if not ask or ask in acted or not seat.locator("#controls-card").is_visible():
                    seat.wait_for_timeout(40)
                    continue
                kind = seat.locator("#controls").get_attribute("data-kind") or ""
                _act(seat, kind, lang, shots, kinds)
                acted.add(ask)
                kinds.append(kind)
                assert not watch.evaluate(GOD_EARLY)  # no god view while the game runs (read with the page's status)
            else:
                raise AssertionError("the game did not end")
            seat.wait_for_selector("#end-title", timeout=30_000)
            assert seat.locator("#reveal li").count() == 10  # every card, at the end only
            assert seat.locator("#ring .seat .role").count() == 10
            assert seat.locator("#summary-votes h5").count() >= 1
            assert seat.locator("#controls-card").is_hidden() and not seat.inner_text("#reply").strip()
            if width < 700:  # a phone: the reveal, scrolled to, fills the screen
                seat.locator("#end-card").scroll_into_view_if_needed()
            shots.take(seat, "end", full=width >= 700)
            watch.wait_for_selector("#god-roles .seatbox", timeout=30_000)
            god = watch.inner_text("#god-log")
            assert re.search(r"shoots at|стреляет|holds fire|не стреляет", god), god[:2000]  # night actions
            assert re.search(r"checks #|проверяет #", god)  # the checks
            watch.screenshot(path=str(folder / f"{case}-spectator-end.png"), full_page=True)
            _review(seat, errors)
            _create(browser, links["new table"], errors)
            browser.close()
    finally:
        _stop(proc)
    assert not errors, errors
    assert {"speech", "vote"} <= set(kinds), kinds
    assert known_before_end == (3 if role in ("don", "mafia") else 1)  # before the end: itself, its team if black
    missing = [m for m in MOMENTS if m not in shots.taken]
    assert not missing, f"{case}: no screenshot of {missing} (the person's decisions: {kinds})"
    transcript = load(links["transcript"])
    assert transcript.status == "complete" and verify(transcript).ok
    decided = [i for i in transcript.inputs if i.seat == 1 and i.op == "decide"]
    assert len(decided) == len(kinds)  # every click of the person became a decision of seat 1


@pytest.mark.parametrize(("case", "lang", "size", "seed", "role"), CASES, ids=[c[0] for c in CASES])
def test_a_person_plays_a_whole_game_at_the_table(
    case: str, lang: str, size: tuple[int, int], seed: int, role: str, tmp_path: Path
) -> None:
    _need_browser()
    _play(case, lang, size, seed, role, tmp_path)


def test_the_committed_screenshots_are_there_and_the_readme_shows_two() -> None:
    root = Path(__file__).resolve().parents[1]
    for case, *_ in CASES:
        for moment in MOMENTS:
            path = root / "docs" / "img" / f"{case}-{moment}.png"
            assert path.is_file() and path.stat().st_size > 10_000, path
    readme = (root / "README.md").read_text(encoding="utf-8")
    shown = re.findall(r"!\[[^\]]*\]\((docs/img/[^)]+\.png)\)", readme)
    assert len(shown) >= 2 and all((root / path).is_file() for path in shown), shown


def test_the_ci_script_installs_chromium_when_missing() -> None:
    script = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text(encoding="utf-8")
    assert "/usr/bin/chromium" in script and "apt-get install -y -qq chromium" in script
    assert script.index("chromium") < script.index("step install")


def test_no_playwright_install_anywhere() -> None:
    root = Path(__file__).resolve().parents[1]
    for path in [root / ".ci" / "run", root / "README.md", root / "pyproject.toml"]:
        assert "playwright install" not in path.read_text(encoding="utf-8")


def test_the_exported_page_fits_a_390_px_phone(tmp_path: Path) -> None:
    """`arena export --html` on a phone: the page is never wider than the screen (it was 481 px at 390); a wide vote
    table or timeline scrolls inside its card."""
    _need_browser()
    from playwright.sync_api import sync_playwright

    arena = [sys.executable, "-m", "arena.cli"]
    subprocess.run([*arena, "play", "--seed", "3", "--quiet", "--out", str(tmp_path)], check=True, timeout=120)
    (game,) = tmp_path.glob("*.jsonl")
    page_file = tmp_path / "game.html"
    subprocess.run([*arena, "export", str(game), "--html", str(page_file)], check=True, timeout=120)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(page_file.as_uri())
        for viewer in page.locator("#viewer option").all()[:3]:  # the god view and two seats
            page.select_option("#viewer", viewer.get_attribute("value") or "")
            wide = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
            assert wide <= 390, f"{viewer.inner_text()}: {wide} px"
        browser.close()
