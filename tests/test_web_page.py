"""The seat and spectator pages' own behaviour, one defect of issue #20 per test, in Debian's headless Chromium.

A real `arena serve` serves the pages and the first real state (seat 1 is asked for its Day 1 speech); the page's
WebSocket is answered by the test (playwright's `route_web_socket`), which pushes states made from that real one with
one fact changed (a foul, the end of the game, another speaker) and reads what the page sends back. So each test
pins what the page does with a state, not what the engine happens to deal: "1 foul", the stale "Accepted" box, an
empty card at game over, the "Speaking" line's lag, the forbidden-phrase warning, an over-limit speech, the one clock
that binds, Russian seconds, and the god view's night actions.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin

import pytest
from playwright.sync_api import expect
from test_web_e2e import ARGS, CHROMIUM, _need_browser, _serve, _stop

from arena.engine import Game, load_rules
from arena.orchestrator import RunStats, run_game
from arena.players.base import Player
from arena.players.bots import RandomBot
from arena.web import state as web_state

PHONE = (390, 844)
DESKTOP = (1280, 800)


class Table:
    """The served pages and the first real state of seat 1 (a pending speech) and of the spectators."""

    def __init__(self, links: dict[str, str]) -> None:
        self.links = links
        self.seat_state = self._wait(links["seat 1"], lambda s: bool(s.get("pending")))
        self.watch_state = self._wait(links["spectators"], lambda s: True)

    @staticmethod
    def _wait(link: str, ready: Any) -> dict[str, Any]:
        api = (
            link.replace("/seat/", "/api/state/")
            .replace("/watch/", "/api/state/")
            .replace("//localhost:", "//127.0.0.1:")
        )
        for _ in range(600):
            try:
                with urllib.request.urlopen(api, timeout=10) as answer:
                    state: dict[str, Any] = json.load(answer)
            except urllib.error.URLError:  # the links are printed just before the server listens
                state = {}
            if state and ready(state):
                return state
            time.sleep(0.1)
        raise AssertionError(f"no state ready at {api}")


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Table]:
    _need_browser()
    flags = ["--seat", "1=human", "--seed", "1", "--bot-delay", "0", "--human-timeout", "900", "--start", "now"]
    folder = tmp_path_factory.mktemp("page")
    played = [sys.executable, "-m", "arena.cli", "play", "--seed", "3", "--quiet", "--out", str(folder / "games")]
    subprocess.run(played, check=True, timeout=300, capture_output=True)  # a finished game for the replays
    proc, links = _serve(folder, *flags)
    try:
        yield Table(links)
    finally:
        _stop(proc)


@pytest.fixture(scope="module")
def finished() -> Game:
    """A whole bot game (played before the browser starts: playwright's sync API holds the event loop)."""
    rules = load_rules("fiim")
    game = Game(rules, 11)
    players: dict[int, Player] = {s: RandomBot(s, 11) for s in game.seats()}
    asyncio.run(run_game(game, players, timeouts={}, max_reasks=1, stats=RunStats()))
    assert game.over
    return game


@pytest.fixture(scope="module")
def browser(table: Table, finished: Game) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


class Page:
    """One page whose socket the test answers: `push` sends it a state, `sent` is what it sent back."""

    def __init__(self, browser: Any, url: str, first: dict[str, Any], size: tuple[int, int]) -> None:
        self.sent: list[dict[str, Any]] = []
        self.sockets: list[Any] = []
        self.errors: list[str] = []
        self.pushed = 0
        self.first = first
        self.page = browser.new_page(viewport={"width": size[0], "height": size[1]})
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.route_web_socket(re.compile(r"/ws/"), self._socket)
        body = json.dumps(first)
        self.page.route(
            re.compile(r"/api/state/"), lambda route: route.fulfill(content_type="application/json", body=body)
        )
        self.page.goto(url)
        for _ in range(200):
            if self.sockets:
                break
            self.page.wait_for_timeout(25)
        assert self.sockets, "the page opened no socket"
        expect(self.page.locator("#status")).not_to_have_text("")

    def _socket(self, ws: Any) -> None:
        self.sockets.append(ws)
        ws.on_message(lambda message: self.sent.append(json.loads(message)))
        ws.send(json.dumps({"type": "state", "state": self.first}))  # a socket's first message: the whole state

    def push(self, state: dict[str, Any]) -> None:
        """Send the page a state and return once it has drawn it (a numbered line at the end of its log)."""
        self.pushed += 1
        mark = f"(test state {self.pushed})"
        line = {"seq": 10**6 + self.pushed, "day": state["day"], "text": mark, "audience": "public", "type": None}
        drawn = {**state, "log": [*state["log"], {**line, "speaker": None}], "version": 10**6 + self.pushed}
        self.sockets[-1].send(json.dumps({"type": "state", "state": drawn}))
        expect(self.page.locator("#log")).to_contain_text(mark)

    def decisions(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("type") == "decide"]

    def words(self) -> str:
        """Everything a person or a screen reader gets from the page: its text and its titles and labels."""
        said: str = self.page.evaluate(
            """() => document.body.innerText + "\\n" + [...document.querySelectorAll('[title],[aria-label]')]
                 .map((n) => (n.getAttribute('title') || '') + ' ' + (n.getAttribute('aria-label') || ''))
                 .join('\\n')"""
        )
        return said


def _open(
    browser: Any,
    table: Table,
    first: dict[str, Any],
    *,
    lang: str = "en",
    size: tuple[int, int] = DESKTOP,
    watch: bool = False,
) -> Page:
    url = table.links["spectators" if watch else "seat 1"] + ("?lang=ru" if lang == "ru" else "")
    return Page(browser, url, first, size)


def _waiting(state: dict[str, Any], speaker: int = 4) -> dict[str, Any]:
    """The same table with no decision pending, seat `speaker` speaking."""
    s = copy.deepcopy(state)
    s["pending"] = None
    s["speaker"] = {"seat": speaker, "seconds": 60, "left_s": 41.0}
    return s


def _over(state: dict[str, Any], game: Game, lang: str) -> dict[str, Any]:
    """The table at the end of a finished game: the winner, and the reveal where the server sends one."""
    s = copy.deepcopy(state)
    log = web_state.LogWriter(game.rules, lang)
    s.update(pending=None, speaker=None, over=True, winner="town", winner_label="town", tally=None)
    end_json = getattr(web_state, "end_json", None)  # the reveal (issue #20); absent where it was never built
    if end_json is not None:
        s["end"] = end_json(game, log)
    return s


# ----- "1 fouls" ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_one_foul_reads_one_foul_and_two_read_two(browser: Any, table: Table, lang: str) -> None:
    s = _waiting(table.seat_state)
    s["table"][1]["fouls"] = 1
    s["table"][2]["fouls"] = 2
    page = _open(browser, table, s, lang=lang)
    page.push(s)
    said = page.words()
    if lang == "en":
        assert re.search(r"\b1 foul\b(?!s)", said) and re.search(r"\b2 fouls\b", said), said
        assert not re.search(r"\b1 fouls\b", said)
    else:
        assert re.search(r"\b1 фол(?!\w)", said) and re.search(r"\b2 фола(?!\w)", said), said
    assert not page.errors, page.errors


# ----- the stale "Accepted" box -----------------------------------------------------------------------------------
def test_the_accepted_box_goes_once_the_table_moves_on_and_at_the_end(
    browser: Any, table: Table, finished: Game
) -> None:
    s = table.seat_state
    page = _open(browser, table, s)
    page.push(s)
    page.page.fill("#speech", "Good evening, all.")
    page.page.click("#send")
    page.page.wait_for_timeout(100)
    (decision,) = page.decisions()
    page.sockets[-1].send(json.dumps({"type": "accepted", "ask": decision["ask"]}))
    expect(page.page.locator("#reply")).not_to_have_text("")
    page.push(_waiting(s))  # the next speaker: the answer was taken, nothing is pending any more
    assert page.page.inner_text("#reply").strip() == ""
    page.push(s)  # asked again (a re-ask), answered again: then the game ends
    page.page.fill("#speech", "Good evening again.")
    page.page.click("#send")
    page.page.wait_for_timeout(100)
    assert len(page.decisions()) == 2
    page.sockets[-1].send(json.dumps({"type": "accepted", "ask": decision["ask"]}))
    expect(page.page.locator("#reply")).not_to_have_text("")
    page.push(_over(s, finished, "en"))
    assert page.page.inner_text("#reply").strip() == ""
    assert not page.errors, page.errors


# ----- empty white cards at game over on the phone --------------------------------------------------------------
EMPTY_CARDS = """() => [...document.querySelectorAll('section.card')]
  .filter((c) => c.offsetParent !== null && c.getBoundingClientRect().height > 0 && !c.innerText.trim())
  .map((c) => c.id || c.className)"""


def _at_game_over(
    browser: Any, table: Table, finished: Game, watch: bool, lang: str, size: tuple[int, int], **change: Any
) -> Page:
    """A seat's or the spectators' page shown the end of `finished` (with `change` to the state)."""
    first = table.watch_state if watch else table.seat_state
    end = {**_over(first, finished, lang), **change}
    if watch:
        end["god"] = web_state.god_json(finished, web_state.LogWriter(finished.rules, lang))
    page = _open(browser, table, first, lang=lang, size=size, watch=watch)
    page.push(end)
    return page


@pytest.mark.parametrize("watch", [False, True], ids=["seat", "spectators"])
def test_no_empty_card_is_shown_at_game_over_on_a_phone(
    browser: Any, table: Table, finished: Game, watch: bool
) -> None:
    page = _at_game_over(browser, table, finished, watch, "ru", PHONE)
    assert page.page.evaluate(EMPTY_CARDS) == []
    wide = page.page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
    assert wide <= PHONE[0]
    assert not page.errors, page.errors


@pytest.mark.parametrize("watch", [False, True], ids=["seat", "spectators"])
def test_the_winner_is_named_by_the_header_and_the_end_card_not_again_by_the_status_line(
    browser: Any, table: Table, finished: Game, watch: bool
) -> None:
    page = _at_game_over(browser, table, finished, watch, "en", DESKTOP, winner_label="the zebra side")
    expect(page.page.locator("#phase")).to_contain_text("the zebra side")
    expect(page.page.locator("#status")).to_have_text("Game over")
    assert not page.errors, page.errors


def test_no_empty_card_in_a_replays_seat_view_on_a_phone(browser: Any, table: Table) -> None:
    page = browser.new_page(viewport={"width": PHONE[0], "height": PHONE[1]})
    page.goto(table.links["replays"])
    page.goto(urljoin(page.url, page.locator("a[href*='/replay/']").first.get_attribute("href") or ""))
    for viewer in ("1", "0", "4"):  # a seat, the god view, another seat
        with page.expect_response(lambda r, v=viewer: "/api/replay/" in r.url and f"seat={v}&" in r.url):
            page.select_option("#view-as", viewer)
        page.wait_for_timeout(200)  # drawn from that answer
        expect(page.locator("#step")).not_to_have_text("")
        assert page.evaluate(EMPTY_CARDS) == [], viewer
    page.close()


# ----- the "Speaking" line lags the status line ---------------------------------------------------------------------
WATCH_SPEAKER = """() => { window.seen = []; const status = document.querySelector('#status');
  new MutationObserver(() => window.seen.push([status.textContent, document.querySelector('#speaker').textContent]))
    .observe(status, { childList: true, characterData: true, subtree: true }); }"""


def test_the_speaking_line_changes_with_the_status_line_never_after(browser: Any, table: Table) -> None:
    s = table.seat_state
    page = _open(browser, table, _waiting(s, speaker=3))
    page.push(_waiting(s, speaker=3))
    page.page.evaluate(WATCH_SPEAKER)
    page.push(_waiting(s, speaker=7))
    seen = page.page.evaluate("window.seen")
    assert seen, "the status line did not change"
    status, speaker = seen[0]  # read in the same task as the status line changed
    assert "#7" in status and "#7" in speaker, seen


# ----- the live forbidden-phrase warning looked like the full list --------------------------------------------------
LOOK = "(n) => { const c = getComputedStyle(n); return [c.color, c.backgroundColor, c.borderLeftColor, c.fontWeight]; }"


def test_the_forbidden_phrase_warning_names_the_phrase_apart_from_the_list(browser: Any, table: Table) -> None:
    s = table.seat_state
    phrases = s["pending"]["form"]["forbidden"]
    assert len(phrases) >= 2
    page = _open(browser, table, s)
    page.push(s)
    page.page.type("#speech", f"Friends, {phrases[0]} I am red.")
    warning = page.page.locator("#forbidden-hit")
    assert warning.is_visible()
    text = warning.inner_text()
    assert phrases[0] in text and not any(p in text for p in phrases[1:] if p not in phrases[0])
    listed = page.page.locator(f"text=/{re.escape(phrases[1])}/").first  # the full list, wherever the page keeps it
    assert listed.count() and listed.inner_text() != text
    assert listed.evaluate(LOOK) != warning.evaluate(LOOK)  # it does not look like the list
    assert "Forbidden phrases" not in text  # nor is it headed as the list is


# ----- an over-limit speech can be sent -----------------------------------------------------------------------------
def test_a_speech_over_its_word_budget_is_not_sent(browser: Any, table: Table) -> None:
    s = table.seat_state
    budget = s["pending"]["form"]["max_words"]
    page = _open(browser, table, s)
    page.push(s)
    page.page.fill("#speech", " ".join(["word"] * (budget + 10)))
    page.page.locator("#send").click(force=True, timeout=2000)
    page.page.press("#speech", "Control+Enter")
    page.page.wait_for_timeout(200)
    assert page.decisions() == []
    page.page.fill("#speech", " ".join(["word"] * budget))  # at the budget: sent
    page.page.locator("#send").click()
    page.page.wait_for_timeout(100)
    assert [d["answer"]["text"].count("word") for d in page.decisions()] == [budget]


# ----- two clocks disagree; the one clock binds; "s" in Russian -------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_one_clock_in_the_page_language(browser: Any, table: Table, lang: str) -> None:
    s = copy.deepcopy(table.seat_state)
    s["pending"]["left_s"] = s["speaker"]["left_s"] = 40.0
    page = _open(browser, table, s, lang=lang)
    page.push(s)
    text = page.page.inner_text("body")
    clocks = re.findall(r"\b\d+\s*(?:s|с|сек)\b", text)
    assert len(clocks) == 1, clocks  # one countdown on the page, not "Speaking: #1 · 0 s" beside "Time left: 47 s"
    if lang == "ru":
        assert not re.search(r"\b\d+ s\b", text), text


def test_the_clock_binds_what_was_typed_is_sent_when_it_runs_out(browser: Any, table: Table) -> None:
    s = copy.deepcopy(table.seat_state)
    s["pending"]["left_s"] = s["speaker"]["left_s"] = 2.5
    page = _open(browser, table, s)
    page.push(s)
    page.page.fill("#speech", "Seat four is my pick")
    assert page.decisions() == []  # not yet: time is left
    for _ in range(200):
        if page.decisions():
            break
        page.page.wait_for_timeout(50)
    assert [d["answer"]["text"] for d in page.decisions()] == ["Seat four is my pick"]


# ----- checks shown only in the log; checked seats offered again, unmarked ------------------------------------------
def test_the_seats_own_checks_are_on_its_card_on_the_table_and_on_the_seats_offered_again(
    browser: Any, table: Table
) -> None:
    s = copy.deepcopy(table.seat_state)  # seat 1 is the sheriff; night 2, its check of #4 on night 1 said black
    s["table"][3]["marks"] = [{"kind": "sheriff_check", "value": "black", "night": 1, "by": 1}]
    s.update(phase="night", day=2, phase_label="Night 2", speaker=None)
    form = s["pending"]["form"]
    form.update(kind="sheriff", options=list(range(2, 11)), actions=["check"], default="nothing", allow_none=False)
    form.update(may_nominate=False, nominate_options=[], max_words=0, max_chars=0)
    s["pending"].update(left_s=60.0, limit_s=60.0)
    page = _open(browser, table, s)
    page.push(s)
    card = page.page.inner_text("#rolecard")
    assert re.search(r"#4\b.*black", card), card  # on the role card, not only in the log
    seat = page.page.locator("#seat-4")
    assert "black" in (seat.inner_text() + (seat.get_attribute("aria-label") or "")), seat.inner_text()
    again = page.page.locator("#controls button.pick[data-seat='4']")  # offered again: marked
    assert "black" in again.inner_text() + (again.get_attribute("title") or "")
    unchecked = page.page.locator("#controls button.pick[data-seat='5']")
    assert "black" not in unchecked.inner_text() + (unchecked.get_attribute("title") or "")
    assert not page.errors, page.errors


# ----- the god view showed no night actions -------------------------------------------------------------------------
def test_the_spectators_god_view_draws_the_night_actions_and_checks(browser: Any, table: Table, finished: Game) -> None:
    game = finished
    god = web_state.god_json(game, web_state.LogWriter(game.rules, "en"))
    hidden = [line["text"] for line in god["log"] if line["audience"] != "public"]  # shots, checks, black chat
    kinds = {event.type.value for event in game.events}
    assert {"shot", "sheriff_check", "don_check"} <= kinds and len(hidden) > 10, kinds
    state = _over(table.watch_state, game, "en")
    state["god"] = god
    page = _open(browser, table, table.watch_state, watch=True)
    page.push(state)
    shown = page.page.inner_text("#god-card")
    missing = [text for text in hidden if text not in shown]
    assert not missing, missing[:5]
    assert not page.errors, page.errors


def test_the_god_view_stays_closed_while_the_game_runs(browser: Any, table: Table) -> None:
    page = _open(browser, table, table.watch_state, watch=True)
    page.push(table.watch_state)
    assert table.watch_state.get("god") is None
    assert page.page.locator("#god-roles").count() == 0 and page.page.locator("#god-log").count() == 0


# ----- issue #36, the Low items: one test each ------------------------------------------------------------------------
def _tally(state: dict[str, Any], hands: dict[int, int]) -> dict[str, Any]:
    s = copy.deepcopy(state)
    s["tally"] = {
        "kind": "main",
        "yes_no": False,
        "candidates": [
            {"seat": seat, "hands": n, "voters": [{"seat": 9, "default": False}] * n} for seat, n in hands.items()
        ],
        "yes": [],
        "no": [],
        "abstain": [],
        "counted": False,
        "result": None,
    }
    return s


def test_the_vote_chips_go_from_the_seats_at_the_end(browser: Any, table: Table, finished: Game) -> None:
    s = _tally(_waiting(table.seat_state), {3: 2, 5: 1})
    page = _open(browser, table, s)
    page.push(s)
    assert page.page.locator("#ring .chip.hands").count() == 2
    end = _over(s, finished, "en")
    end["tally"] = s["tally"]  # the day's last round is still in the seat's view after the end
    page.push(end)
    assert page.page.locator("#ring .chip.hands").count() == 0
    assert page.page.locator("#ring .seat.candidate").count() == 0


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_one_hand_reads_one_hand_and_none_reads_in_the_plural(browser: Any, table: Table, lang: str) -> None:
    s = _tally(_waiting(table.seat_state), {3: 1, 5: 0, 7: 2})
    page = _open(browser, table, s, lang=lang)
    page.push(s)
    said = page.words()
    if lang == "en":
        assert re.search(r"\b1 hand\b(?!s)", said) and not re.search(r"\b1 hands\b", said), said
    else:
        assert "0 голосов" in said and "1 голос" in said and "0 голоса" not in said, said


CONTRAST = """(node) => {
  const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lin = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
  const lum = (c) => { const v = rgb(c).map(lin); return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const none = /rgba\\(\\d+,\\d+,\\d+,0\\)|transparent/;
  const clear = (n) => none.test(getComputedStyle(n).backgroundColor.replace(/\\s/g, ''));
  let bg = node, color = getComputedStyle(node).color;
  while (bg && clear(bg)) bg = bg.parentElement;
  const a = lum(color), b = lum(getComputedStyle(bg).backgroundColor);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


@pytest.mark.parametrize("night", [False, True], ids=["day", "night"])
def test_seat_numbers_read_on_black_cards_and_at_night(browser: Any, table: Table, night: bool) -> None:
    s = _waiting(table.seat_state)
    for row in s["table"]:
        row["mate"] = row["seat"] in (2, 7)  # black cards (a black seat sees its team)
    if night:
        s.update(phase="night", phase_label="Night 1", speaker=None)
    page = _open(browser, table, s)
    page.push(s)
    ratios = {n: page.page.locator(f"#seat-{n} .num").evaluate(CONTRAST) for n in range(1, 11)}
    assert min(ratios.values()) >= 4.5, ratios


def test_on_a_phone_no_keyboard_hint_and_no_chip_wraps(browser: Any, table: Table) -> None:
    s = _tally(table.seat_state, {3: 2})
    s["table"][3]["marks"] = [{"kind": "sheriff_check", "value": "black", "night": 1, "by": 1}]
    page = _open(browser, table, s, size=PHONE)
    page.push(s)
    assert not page.page.locator(".keys").first.is_visible()
    assert page.page.locator("#ring .chip").first.evaluate("(n) => getComputedStyle(n).whiteSpace") == "nowrap"
    page.page.fill("#speech", "x")
    assert page.page.evaluate("window.scrollY") == 0  # the header stays in view after the turn comes


def test_a_vote_on_oneself_is_asked_as_such(browser: Any, table: Table) -> None:
    s = copy.deepcopy(table.seat_state)
    s["pending"]["form"].update(kind="vote", candidate=1, candidates=[1, 4], subject=None, options=[], rule="")
    page = _open(browser, table, s)
    page.push(s)
    question = page.page.inner_text("#vote-question")
    assert "yourself" in question and "Vote to eliminate #1?" not in question


def test_the_lift_vote_rule_says_both_or_all() -> None:
    from arena.engine import Decision, Kind, Request
    from arena.human.form import vote_rule

    rules = load_rules("fiim")
    two = Request(seat=1, kind=Kind.VOTE, subject="lift", candidates=(3, 7), default=Decision(vote=False))
    three = Request(seat=1, kind=Kind.VOTE, subject="lift", candidates=(3, 5, 7), default=Decision(vote=False))
    assert "#3 and #7 both leave" in vote_rule(rules, two, "en")
    assert "#3, #5 and #7 all leave" in vote_rule(rules, three, "en")
    assert "уходят оба: #3 и #7" in vote_rule(rules, two, "ru")


def test_the_dons_check_offers_no_teammate_and_the_kill_order_names_its_nights(browser: Any, table: Table) -> None:
    s = copy.deepcopy(table.seat_state)
    s.update(phase="night", day=1, phase_label="Night 1", speaker=None, teammates=[2, 7], role="don")
    form = s["pending"]["form"]
    form.update(kind="don_check", options=[s for s in range(2, 11)], allow_none=True, may_nominate=False)
    page = _open(browser, table, s)
    page.push(s)
    offered = page.page.eval_on_selector_all("#controls button.pick[data-seat]", "(b) => b.map((x) => x.dataset.seat)")
    assert "2" not in offered and "7" not in offered and "5" in offered
    s2 = copy.deepcopy(s)
    s2["pending"]["ask"] = "another"
    s2.update(phase="night", day=0, phase_label="Night 0")
    s2["pending"]["form"].update(kind="black_message", may_set_order=True, max_targets=3, options=[3, 4, 5, 6])
    page.push(s2)
    assert [t.strip() for t in page.page.locator(".order-night").all_inner_texts()] == ["Night 1", "Night 2", "Night 3"]


def test_the_best_move_says_you_were_shot_and_what_it_is(browser: Any, table: Table) -> None:
    s = copy.deepcopy(table.seat_state)
    s.update(phase="night", day=1, phase_label="Night 1", speaker=None)
    s["pending"]["form"].update(kind="best_move", options=list(range(2, 11)), max_targets=3, may_nominate=False)
    page = _open(browser, table, s)
    page.push(s)
    assert "You were shot tonight" in page.page.inner_text("#controls")
    assert "black" in page.page.inner_text("#best-move-what")
    assert "shot" in page.page.inner_text("#seat-1")


def test_the_create_page_shows_the_whole_seed_hint_the_presets_and_the_bot_delay(browser: Any, table: Table) -> None:
    page = browser.new_page(viewport={"width": DESKTOP[0], "height": DESKTOP[1]})
    page.goto(table.links["new table"])
    seed = page.locator("#seed")
    fits = seed.evaluate(
        """(n) => { const c = document.createElement('canvas').getContext('2d'); const s = getComputedStyle(n);
           c.font = s.font; return c.measureText(n.placeholder).width <= n.clientWidth - 8; }"""
    )
    assert fits
    assert page.inner_text("#preset-about").strip()
    assert page.locator("#bot-delay").count() == 1
    page.close()


def test_replays_are_listed_with_date_rules_and_winner_and_jump_to_a_day_and_play(browser: Any, table: Table) -> None:
    page = browser.new_page(viewport={"width": DESKTOP[0], "height": DESKTOP[1]})
    page.goto(table.links["replays"])
    row = page.locator("#replay-files tbody tr").first
    cells = row.locator("td").all_inner_texts()
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d", cells[0]) and cells[1] == "fiim" and cells[2] in ("town", "mafia")
    page.goto(urljoin(page.url, row.locator("a").get_attribute("href") or ""))
    expect(page.locator("#jump option")).not_to_have_count(0)
    labels = page.locator("#jump option").all_inner_texts()
    assert labels[:3] == ["Night 0", "Day 1", "Night 1"], labels
    day1 = page.locator("#jump option", has_text="Day 1").get_attribute("value")
    with page.expect_response(lambda r: "/api/replay/" in r.url and f"step={day1}&" in r.url):
        page.select_option("#jump", label="Day 1")
    expect(page.locator("#step")).to_have_text(str(day1))
    page.click("#play")
    expect(page.locator("#step")).to_have_text(str(int(day1 or 0) + 1), timeout=5000)
    page.click("#play")
    page.close()
