"""A club night end to end (issue #36): two people and a judge in three browsers, from the lobby to the end.

`arena serve --seat 3=human --seat 8=human --judge` as a user runs it, and Debian's headless Chromium in three
contexts: a person on a 1280×800 desktop in English who takes seat 3 through the lobby link, a person on a 390×844
phone in Russian who opens seat 8's own link, and the judge on a desktop. Both people press Ready (no decision is
asked before), play every decision through their page, and the judge gives extra time to seat 3 during its speech,
pauses and resumes the table, and gives a bot a foul with a reason. At the end both pages show the reveal and the
score sheet's points; the judge names the best player and gives extra points after the end, then closes the sheet,
and both pages link to the whole sheet. The transcript verifies with the judge's inputs in it. Screenshots go to
`docs/img/club-*.png` with `ARENA_SCREENSHOTS=docs/img`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from test_web_e2e import ARGS, CHROMIUM, SHOTS, _need_browser, _serve, _stop

from arena.transcript import load, verify

NIGHT = {"shoot", "sheriff", "don_check", "heal", "visit", "maniac_kill"}
SAID = {"en": "Good evening. I watch the votes today.", "ru": "Добрый вечер. Сегодня смотрю на голоса."}


def _act(page: Any, lang: str) -> str | None:
    """Answer the page's pending decision as a person would; the kind answered, or None if nothing is pending."""
    controls = page.locator("#controls")
    ask = controls.get_attribute("data-ask")
    if not ask or not page.locator("#controls-card").is_visible() or page.locator("#controls button:disabled").count():
        return None
    kind = controls.get_attribute("data-kind") or ""
    if kind in ("speech", "black_message"):
        page.fill("#speech", SAID[lang])
        page.click("#send")
    elif kind == "vote":
        page.click("#vote-no")
    elif kind == "best_move":
        page.click("#send")
    elif kind == "choose_side":
        page.locator("button.choice").first.click()
    elif kind in NIGHT:
        seats = page.locator("#ring button.seat.choosable:not(.me):not(.mate)")
        (seats.first if seats.count() else page.locator("#controls button.pick").first).click()
    else:
        page.locator("#controls button.pick").first.click()
    for _ in range(500):  # taken: the controls say Sent (disabled) or the next decision is there
        if controls.get_attribute("data-ask") != ask or page.locator("#controls button:disabled").count():
            break
        page.wait_for_timeout(20)
    return kind


def _shot(page: Any, folder: Path, name: str, width: int) -> None:
    wide = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
    assert wide <= width, f"{name}: {wide} px wide in a {width} px viewport"
    page.screenshot(path=str(folder / f"club-{name}.png"))


def test_two_people_and_a_judge_from_the_lobby_to_the_end(tmp_path: Path) -> None:
    _need_browser()
    from playwright.sync_api import expect, sync_playwright

    folder = Path(SHOTS) if SHOTS else tmp_path / "shots"
    folder.mkdir(parents=True, exist_ok=True)
    flags = ["--seat", "3=human", "--seat", "8=human", "--judge", "--seed", "4", "--bot-delay", "0.1"]
    proc, links = _serve(tmp_path, *flags, "--bot-wpm", "0", "--human-timeout", "60")
    errors: list[str] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            one = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            two = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
            judge = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            for page in (one, two, judge):
                page.on("pageerror", lambda exc: errors.append(str(exc)))
            # the lobby: seat 3 is picked through the lobby link, seat 8 comes by its own link
            one.goto(links["lobby"])
            one.click("#join-seats button[data-seat='3']")
            one.wait_for_selector("#lobby-seats")
            two.goto(links["seat 8"] + "?lang=ru")
            two.wait_for_selector("#lobby-seats")
            judge.goto(links["judge"])
            expect(one.locator(".lobby-seat[data-seat='8']")).to_have_class(re.compile(r"\bhere\b"))
            _shot(one, folder, "desktop-en-lobby", 1280)
            one.click("#ready")
            expect(two.locator(".lobby-seat[data-seat='3']")).to_have_class(re.compile(r"\bready\b"))
            _shot(two, folder, "phone-ru-lobby", 390)
            assert one.inner_text("#phase") == "Lobby"  # nothing has started: the table waits for seat 8
            assert '"kind":"input"' not in Path(links["transcript"]).read_text()  # no seat, bot or person, was asked
            two.click("#ready")
            expect(one.locator("#lobby-card")).to_be_hidden(timeout=20_000)
            kinds: dict[str, list[str]] = {"one": [], "two": []}
            judged = False
            for _ in range(20_000):
                if one.locator("#status[data-over='1']").count() and two.locator("#status[data-over='1']").count():
                    break
                if not judged and one.locator("#controls[data-kind='speech']").count():
                    before = one.evaluate("document.querySelector('#clock-text').textContent")
                    judge.select_option("#judge-seat", "3")
                    judge.fill("#judge-seconds", "30")
                    judge.click("#judge-extra")
                    expect(judge.locator("#reply")).to_have_class("good")
                    expect(one.locator("#log")).to_contain_text("the judge gives #3 30 s more")
                    judge.click("#judge-pause")
                    expect(one.locator("#phase")).to_contain_text("Paused by the judge")
                    expect(two.locator("#phase")).to_contain_text("Пауза судьи")
                    _shot(judge, folder, "desktop-en-judge", 1280)
                    judge.click("#judge-pause")  # now "Resume"
                    expect(one.locator("#phase")).not_to_contain_text("Paused")
                    living = [s for s in ("1", "2", "4", "5", "6", "7", "9", "10")
                              if "dead" not in (judge.locator(f"#seat-{s}").get_attribute("class") or "")]  # fmt: skip
                    judge.select_option("#judge-seat", living[0])
                    judge.fill("#judge-reason", "a phone at the table")
                    judge.click("#judge-foul")
                    expect(two.locator("#log")).to_contain_text("фол 1")
                    assert before  # the clock ran before the judge acted
                    _shot(one, folder, "desktop-en-speech", 1280)
                    judged = True
                for name, page, lang in (("one", one, "en"), ("two", two, "ru")):
                    done = _act(page, lang)
                    if done:
                        kinds[name].append(done)
                one.wait_for_timeout(30)
            else:
                raise AssertionError("the game did not end")
            assert judged and "speech" in kinds["one"] and "speech" in kinds["two"]
            for page in (one, two):
                page.wait_for_selector("#end-title", timeout=30_000)
                assert page.locator("#reveal li").count() == 10
            # the score sheet: the judge names the best player and gives extra points after the end, then closes it
            expect(judge.locator("#judge-close")).to_be_visible(timeout=20_000)
            expect(one.locator("#sheet-open")).to_be_visible()  # the people see the sheet is not final yet
            judge.select_option("#judge-seat", "3")
            judge.select_option("#judge-award", "best_player")
            judge.click("#judge-give")
            expect(judge.locator("#reply")).to_have_class("good")
            judge.select_option("#judge-seat", "8")
            judge.select_option("#judge-award", "extra")
            judge.fill("#judge-points", "0.5")
            judge.click("#judge-give")
            expect(judge.locator("#sheet-awards li")).to_have_count(2, timeout=10_000)
            judge.click("#judge-close")
            expect(judge.locator("#judge-close")).to_be_hidden(timeout=10_000)
            for page, best in ((one, "the best player"), (two, "лучший игрок")):
                expect(page.locator("#sheet-open")).to_have_count(0, timeout=10_000)  # final: the links are there
                expect(page.locator("#review-protocol")).to_be_visible()
                assert page.locator("#sheet-points tbody tr").count() == 10
                expect(page.locator("#sheet-awards")).to_contain_text(best)
            expect(judge.locator("#sheet-points tbody tr")).to_have_count(10)
            _shot(judge, folder, "desktop-en-judge-sheet", 1280)
            two.locator("#score-sheet").scroll_into_view_if_needed()
            _shot(two, folder, "phone-ru-sheet", 390)
            two.locator("#end-card").scroll_into_view_if_needed()
            _shot(two, folder, "phone-ru-end", 390)
            _shot(one, folder, "desktop-en-end", 1280)
            lines = two.locator("#log li:not(.spoken)").all_inner_texts()  # the bots speak the table's language
            bare = [re.sub(r"«[^»]*»", "", line).replace("fiim", "") for line in lines]  # quoted: the judge's words
            english = [line for line in bare if re.search(r"[A-Za-z]{3,}", line)]
            assert not english, english
            browser.close()
    finally:
        _stop(proc)
    assert not errors, errors
    (path,) = (tmp_path / "games").glob("*.jsonl")
    transcript = load(path)
    assert transcript.status == "complete" and verify(transcript).ok
    ops = [i.op for i in transcript.inputs if i.op not in ("decide", "reject", "default")]
    assert ops == ["extra_time", "pause", "resume", "foul", "award", "award"], ops
    awards = [(i.seat, i.award, i.points) for i in transcript.inputs if i.op == "award"]
    assert awards == [(3, "best_player", 0.0), (8, "extra", 0.5)], awards
