"""The score sheet's page in a real browser: Debian's headless Chromium (never a downloaded one) at 390×844, in
English and in Russian, on a long sheet (a lift vote, fouls, awards with long reasons, long names), must fit the
phone's width: no sideways scrolling and no element past the right edge, on screen and in the print layout.
`ARENA_SCREENSHOTS=docs/img` keeps the screenshots where docs/scoring.md shows them. Skips only when Chromium is
absent outside CI."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from arena.engine import Game
from arena.players.random_policy import random_decision
from arena.render.protocol import page, sheet_of
from arena.scenario import run_file

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
SHOTS = os.environ.get("ARENA_SCREENSHOTS")
ROOT = Path(__file__).resolve().parent
WIDE = "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
# every element's right edge: a table cell or a word that spills out of its box shows here even when the page clips it
SPILL = """() => { const w = document.documentElement.clientWidth; let worst = 0, what = '';
  for (const el of document.querySelectorAll('body *')) { const r = el.getBoundingClientRect();
    if (r.right > w + 0.5 && r.right - w > worst) { worst = r.right - w; what = el.tagName + ' ' + el.textContent.slice(0, 40); } }
  return [worst, what]; }"""  # noqa: E501


def _need_browser() -> None:
    if not CHROMIUM.exists():
        missing = f"{CHROMIUM} is missing (apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and the browser test cannot run: {missing}")
        pytest.skip(missing)


def _long_game() -> Game:
    """E06 (a tie twice; the lift vote passes and two leave together), played on to its end by random decisions,
    with a foul with a long reason and the judge's awards."""
    result = run_file(ROOT / "scenarios" / "E06_tie_twice_lift_passes.yaml")
    game = result.cases[0].game
    assert game is not None and not game.over
    rng = random.Random(6)
    game.foul(5, "speaking out of turn during someone else's speech, twice, after a warning")
    while not game.over:
        request = game.pending()[0]
        game.submit(request.seat, random_decision(rng, request))
    game.award(2, "extra", 0.45, "an exceptionally long reason: read the table from the first vote, called both "
               "blacks, and held the town together through the lift vote")  # fmt: skip
    game.award(4, "best_move")
    game.award(7, "yellow_card", reason="argued with the judge")
    return game


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_sheet_fits_a_phone_and_prints(lang: str, tmp_path: Path) -> None:
    _need_browser()
    from playwright.sync_api import sync_playwright

    game = _long_game()
    names = {s: f"configuration-with-a-long-name-{s}-no-spaces" for s in range(1, 11)}
    sheet = sheet_of(game, names=names)
    assert any(o.type == "lift" for d in sheet.days for o in d.outcome) and sheet.fouls and sheet.awards
    html = tmp_path / f"sheet-{lang}.html"
    html.write_text(page(sheet, lang), encoding="utf-8")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            phone = browser.new_page(viewport={"width": 390, "height": 844})
            phone.goto(html.as_uri())
            assert phone.evaluate(WIDE) <= 390, "the page scrolls sideways on a 390-pixel phone"
            worst, what = phone.evaluate(SPILL)
            assert worst == 0, f"{what!r} spills {worst:.0f} px past the phone's width"
            assert phone.locator("table.seats tbody tr").count() == 10
            if SHOTS:
                Path(SHOTS).mkdir(parents=True, exist_ok=True)
                phone.screenshot(path=str(Path(SHOTS) / f"protocol-phone-{lang}.png"), full_page=True)
            phone.emulate_media(media="print")  # the print layout (smaller type, no margins) fits too
            assert phone.evaluate(WIDE) <= 390 and phone.evaluate(SPILL)[0] == 0
        finally:
            browser.close()
