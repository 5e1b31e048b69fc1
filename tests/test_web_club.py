"""A club night (issue #36), the defects a person found, one test each, in Debian's headless Chromium against a real
`arena serve` app run in this process (tests/web_live.py), so the test can hold the table's pace and an HTTP answer.

Timing: where a browser timing is asserted (the speech form within 1 s of the seat's turn) the figure is the
issue's acceptance bound; the page draws in milliseconds, so the margin is wide. Everything else waits on events.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_e2e import ARGS, CHROMIUM, _need_browser
from waiting import wait_until
from web_live import Gate, Live

from arena.agents import resolve_agent
from arena.engine import load_rules
from arena.web.table import Table

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

WATCH_FORM = """() => {
  window.formAt = null; window.formGone = null; window.fetched = 0;
  const real = window.fetch;
  window.fetch = (...args) => real(...args).then((r) => { window.fetched += 1; return r; });
  new MutationObserver(() => {
    const form = document.querySelector('#speech');
    if (form && window.formAt === null) window.formAt = Date.now();
    if (!form && window.formAt !== null && window.formGone === null) window.formGone = Date.now();
  }).observe(document, { childList: true, subtree: true });
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    """A live `arena serve` with the defaults, stopped at the end of the test."""
    running = Live(tmp_path)
    yield running
    running.stop()


def _seated(live: Live, humans: dict[int, str], seed: int, gate: Gate | None = None, **options: Any) -> Table:
    """A fiim table with `humans` (seat -> "human"), heuristic bots elsewhere, its pace held by `gate`."""
    seats = {s: resolve_agent(humans.get(s, "bot:heuristic")) for s in range(1, 11)}

    async def make() -> Table:
        table, players = live.server.build(load_rules("fiim"), seats, seed=seed, **options)
        if gate is not None:
            gate.event = __import__("asyncio").Event()
            table.pause = gate.pause
        live.server.add(table, players)
        return table

    return live.call(make())


# ----- High: the page froze on a stale state ------------------------------------------------------------------------
def test_a_late_first_state_answer_never_replaces_the_turn_the_socket_drew(browser: Any, tmp_path: Path) -> None:
    """The issue's repro, held by events: the page asks for the state while seat 1 (a bot) is to speak, the answer
    is held back 3 s; the socket draws the table, then seat 2's turn. The speech form must come within 1 s of the
    turn (acceptance) and stay when the old answer finally arrives (on the old page it drew the stale table: the
    form went, and "#1 is speaking" stayed until the rule's default spoke for the person)."""
    live = Live(tmp_path, bot_delay=1.0)
    gate = Gate()
    try:
        table = _seated(live, {2: "human"}, seed=5, gate=gate)
        page = browser.new_page(viewport=DESKTOP, bypass_csp=True)  # the test's own probes are scripts
        page.add_init_script(f"({WATCH_FORM})()")
        page.goto(f"{live.base}/seat/{table.tokens[2]}")
        page.wait_for_function("document.querySelector('#status') && document.querySelector('#status').textContent")
        assert table.asks == {}  # not seat 2's turn yet: the bots wait at the gate
        live.soon(gate.event.set if gate.event else (lambda: None))  # the table goes on
        page.wait_for_function("window.formAt !== null", timeout=30_000)
        turn = table.asks[2].started  # the server's time of seat 2's turn (the speech's start)
        form_at = page.evaluate("window.formAt") / 1000
        print(f"the speech form came {form_at - turn:.3f} s after the turn")  # the figure the report quotes
        assert form_at - turn < 1.0, f"the form came {form_at - turn:.2f} s after the turn"
        if live.app.asked.is_set():  # the page asked over HTTP too: let the old answer go, 3 s after it was made
            time.sleep(max(0.0, live.app.computed_at + 3.0 - time.time()))
            live.app.hold.set()
            assert live.app.sent.wait(10)
            page.wait_for_function("window.fetched >= 1", timeout=10_000)
        page.wait_for_timeout(300)  # a draw after the answer would be within a frame or two
        assert page.evaluate("window.formGone") is None, "the late answer took the speech form away"
        assert page.locator("#speech").is_visible()
        assert "#1" not in page.inner_text("#speaker")
        page.close()
    finally:
        live.stop()


def test_the_socket_opens_with_the_whole_current_state_and_state_numbers_never_go_back(tmp_path: Path) -> None:
    """At the root of the race: every state carries the page's own number, which grows with each change of that
    page's state whichever request computed it; the socket's first message is the whole current state."""
    from test_web import _app, _table

    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, (1,), seed=5, tmp_path=tmp_path)
        token = table.tokens[1]
        first = client.get(f"/api/state/{token}").json()
        assert isinstance(first["version"], int) and first["version"] >= 1
        with client.websocket_connect(f"/ws/{token}", headers={"origin": "http://testserver"}) as ws:
            opening = ws.receive_json()
            assert opening["type"] == "state"
            state = opening["state"]
            assert {"table", "log", "pending", "speaker", "phase", "version"} <= set(state)
            assert state["version"] >= first["version"]
            numbers = [state["version"]]
            while state["pending"] is None:  # the bots play on to seat 1's turn: each push numbered above the last
                message = ws.receive_json()
                if message["type"] == "state":
                    state = message["state"]
                    numbers.append(state["version"])
            assert numbers == sorted(set(numbers)), numbers
            again = client.get(f"/api/state/{token}").json()
            assert again["version"] == state["version"]  # nothing changed for this page: the same number over HTTP


def _speech_turn(live: Live, seat: int, seed: int, **options: Any) -> tuple[Table, Any]:
    """A table whose person at `seat` is asked for a speech (the bots play at once), and that seat's page."""
    table = _seated(live, {seat: "human"}, seed=seed, **options)
    deadline = time.monotonic() + 60
    while seat not in table.asks or table.asks[seat].form.kind.value != "speech":
        assert time.monotonic() < deadline, "the seat was never asked for a speech"
        time.sleep(0.05)
    return table, f"{live.base}/seat/{table.tokens[seat]}"


def _decided(table: Table, seat: int) -> Any:
    deadline = time.monotonic() + 60
    while True:
        mine = [i for i in table.game.inputs if i.seat == seat and i.op in ("decide", "default")]
        if mine:
            return mine[0]
        assert time.monotonic() < deadline, "the seat's speech was never taken"
        time.sleep(0.05)


# ----- the nomination is switched off when you do what the hint says -------------------------------------------------
def test_typing_a_nomination_then_clicking_that_seat_as_the_hint_says_keeps_it(browser: Any, live: Live) -> None:
    table, url = _speech_turn(live, 1, seed=5)
    page = browser.new_page(viewport=DESKTOP)
    page.goto(url)
    page.locator("#speech").type("Good evening. I nominate 3")
    page.locator("#heard").filter(has_text="#3").wait_for()
    page.click("#ring button.seat[data-seat='3']")  # "click a seat on the table to nominate it"
    assert page.input_value("#nominate") == "3"
    page.click("#send")
    decided = _decided(table, 1)
    assert decided.op == "decide" and decided.decision.nominate == (3,), decided
    page.close()


# ----- the spoken minute bound typed speeches; the nomination at the end was lost ------------------------------------
def test_when_time_runs_out_mid_text_the_typed_speech_and_its_nomination_are_taken(
    browser: Any, tmp_path: Path
) -> None:
    """The page is gone when the clock runs out (nothing sends at zero): the server takes what was typed so far,
    with the nomination made in the form, instead of the rule's silence."""
    live = Live(tmp_path, human_timeout=6.0)
    try:
        table, url = _speech_turn(live, 1, seed=5)
        page = browser.new_page(viewport=DESKTOP)
        page.goto(url)
        page.select_option("#nominate", "4")
        page.locator("#speech").type("I have a bad feeling about four, and I will explain why in a")
        deadline = time.monotonic() + 10
        while table.asks.get(1) is None or table.asks[1].draft is None or "explain" not in table.asks[1].draft.text:
            assert time.monotonic() < deadline, "the typed draft never reached the server"
            time.sleep(0.05)
        page.close()  # the person's browser is gone before the clock runs out
        decided = _decided(table, 1)
        assert decided.op == "decide", decided
        assert decided.decision.nominate == (4,) and "explain why in a" in decided.decision.text
    finally:
        live.stop()


def test_the_speech_allowance_is_the_word_budget_at_typing_speed_and_the_clock_shows_it(tmp_path: Path) -> None:
    live = Live(tmp_path, typing_wpm=40.0)
    try:
        table, _ = _speech_turn(live, 1, seed=5)
        ask = table.asks[1]
        budget = ask.form.request.max_words
        assert ask.limit_s == round(budget * 60 / 40) > budget * 60 / table.rules.speech.words_per_minute
        state = table.state(1)
        assert state["pending"]["limit_s"] == ask.limit_s and state["speaker"]["seconds"] == round(ask.limit_s)
        assert table.state(2)["speaker"]["seconds"] == round(ask.limit_s)  # every page shows the one clock
    finally:
        live.stop()


# ----- Low: after a reload the typed speech was lost -----------------------------------------------------------------
def test_a_reload_keeps_the_typed_speech_and_nomination(browser: Any, live: Live) -> None:
    _, url = _speech_turn(live, 1, seed=5)
    page = browser.new_page(viewport=DESKTOP)
    page.goto(url)
    page.locator("#speech").type("Seat six voted oddly yesterday")
    page.select_option("#nominate", "6")
    page.reload()
    page.locator("#speech").wait_for()
    assert page.input_value("#speech") == "Seat six voted oddly yesterday"
    assert page.input_value("#nominate") == "6"
    page.close()


# ----- no lobby: the game started before the people arrived ---------------------------------------------------------
def _lobby_table(tmp_path: Path, humans: tuple[int, ...] = (4,)) -> tuple[Any, Any, Table]:
    from fastapi.testclient import TestClient

    from arena.web.app import create_app
    from arena.web.server import ServeConfig, Server

    server = Server(ServeConfig(out_dir=tmp_path, bot_delay=0.0, judge=True))  # the default start: the lobby
    client = TestClient(create_app(server))
    seats = {s: resolve_agent("human" if s in humans else "bot:heuristic") for s in range(1, 11)}

    async def make() -> Table:
        return server.add(*server.build(load_rules("fiim"), seats, seed=5))

    client.__enter__()
    assert client.portal is not None
    return server, client, client.portal.call(make)


ORIGIN = {"origin": "http://testserver"}


def test_no_speech_is_made_until_the_person_is_here_and_ready(tmp_path: Path) -> None:
    _server, client, table = _lobby_table(tmp_path)
    try:
        token = table.tokens[4]
        with client.websocket_connect(f"/ws/{token}", headers=ORIGIN) as ws:
            state = ws.receive_json()["state"]
            assert state["lobby"]["seats"] == [{"seat": 4, "presence": "here", "ready": False}]
            assert not table.started and table.game.inputs == [] and table.asks == {}  # the bots wait too
            assert not any(e.type.value == "speech" for e in table.game.events)
            spectators = client.get(f"/api/state/{table.spectator_token}").json()
            assert spectators["lobby"]["seats"][0]["presence"] == "here"
            ws.send_json({"type": "ready"})
            while state["pending"] is None:  # the game starts: the bots play on to seat 4's first decision
                message = ws.receive_json()
                if message["type"] == "state":
                    state = message["state"]
            assert table.started and state["lobby"] is None
    finally:
        client.__exit__(None, None, None)


def test_a_person_who_leaves_the_lobby_is_away_and_not_ready(tmp_path: Path) -> None:
    _server, client, table = _lobby_table(tmp_path, humans=(4, 7))
    try:
        with client.websocket_connect(f"/ws/{table.tokens[4]}", headers=ORIGIN) as ws:
            ws.receive_json()
            ws.send_json({"type": "ready"})
            ws.send_json({"type": "ping"})
            while ws.receive_json()["type"] != "pong":
                pass
            assert table.ready == {4} and not table.started  # seat 7 is not here: the table waits
        lobby = client.get(f"/api/state/{table.tokens[7]}").json()["lobby"]
        assert lobby["seats"] == [
            {"seat": 4, "presence": "away", "ready": False},
            {"seat": 7, "presence": "absent", "ready": False},
        ]
        assert table.game.inputs == []
    finally:
        client.__exit__(None, None, None)


def test_the_host_starts_the_table_from_the_admin_link(tmp_path: Path) -> None:
    server, client, table = _lobby_table(tmp_path)
    try:
        admin = server.config.admin_token
        listed = client.get(f"/api/tables-state/{admin}").json()["tables"]
        assert [t["id"] for t in listed] == [table.id] and not listed[0]["started"]
        assert "lobby" in listed[0]["links"] and "judge" in listed[0]["links"]
        assert client.get(f"/tables/{admin}").status_code == 200
        assert client.post(f"/api/start/{table.tokens[4]}/{table.id}").status_code == 404  # a seat is no host
        assert not table.started
        assert client.post(f"/api/start/{admin}/{table.id}").status_code == 200
        assert table.started
    finally:
        client.__exit__(None, None, None)


def test_a_person_picks_a_free_seat_with_the_join_link(tmp_path: Path) -> None:
    _server, client, table = _lobby_table(tmp_path, humans=(4, 7))
    try:
        page = client.get(f"/join/{table.join_token}")
        assert page.status_code == 200
        got = client.post(f"/api/join/{table.join_token}", json={"seat": 7}).json()
        assert got == {"url": f"/seat/{table.tokens[7]}"}
        again = client.post(f"/api/join/{table.join_token}", json={"seat": 7})
        assert again.status_code == 409 and again.json()["free"] == [4]
        assert client.post(f"/api/join/{table.join_token}", json={"seat": 3}).status_code == 409  # a bot's seat
        assert client.post(f"/api/join/{table.spectator_token}", json={"seat": 4}).status_code == 404
    finally:
        client.__exit__(None, None, None)


def _answer_pending(client: Any, token: str, state: dict[str, Any]) -> None:
    """The seat's pending decision answered as the page would."""
    from test_web import _answer

    pending = state["pending"]
    answer = {"type": "decide", "ask": pending["ask"], "answer": _answer(pending["form"])}
    client.post(f"/api/decide/{token}", json=answer)


# ----- a judge ------------------------------------------------------------------------------------------------------
def test_the_judges_foul_removal_pause_and_extra_time_are_recorded_verified_and_replayed(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from arena.engine import EventType, Game, view
    from arena.transcript import load, verify
    from arena.web.app import create_app
    from arena.web.server import ServeConfig, Server

    server = Server(ServeConfig(out_dir=tmp_path, bot_delay=0.0, judge=True, start="now", human_timeout=20.0))
    seats = {s: resolve_agent("human" if s == 2 else "bot:heuristic") for s in range(1, 11)}
    with TestClient(create_app(server)) as client:
        assert client.portal is not None
        table: Table = client.portal.call(lambda: _add(server, seats))
        judge = f"/api/judge/{table.judge_token}"
        assert client.get(f"/judge/{table.judge_token}").status_code == 200
        assert client.post(f"/api/judge/{table.spectator_token}", json={"action": "pause"}).status_code == 404
        mine = table.tokens[2]
        state = client.get(f"/api/state/{mine}").json()
        deadline = time.monotonic() + 60
        while state["pending"] is None or state["pending"]["form"]["kind"] != "speech":
            if state["pending"] is not None:  # a night decision first: answered as the page would
                _answer_pending(client, mine, state)
            assert time.monotonic() < deadline
            state = client.get(f"/api/state/{mine}").json()
        before = state["pending"]["left_s"]
        assert client.post(judge, json={"action": "extra_time", "seat": 2, "seconds": 30}).status_code == 200
        assert client.get(f"/api/state/{mine}").json()["pending"]["left_s"] > before + 25  # the clock moved
        assert client.post(judge, json={"action": "pause", "reason": "a dispute"}).status_code == 200
        held = client.get(f"/api/state/{mine}").json()
        time.sleep(0.3)
        again = client.get(f"/api/state/{mine}").json()
        assert held["paused"] and abs(again["pending"]["left_s"] - held["pending"]["left_s"]) < 0.05  # stopped
        assert client.post(judge, json={"action": "pause"}).json()["error"] == "the table is already paused"
        living = [s for s in table.game.living() if s != 2]
        foul = client.post(judge, json={"action": "foul", "seat": living[0], "reason": "talking at night"})
        assert foul.status_code == 200
        assert client.post(judge, json={"action": "resume"}).status_code == 200
        assert client.post(judge, json={"action": "remove", "seat": living[1], "reason": "a phone"}).status_code == 200
        seen = client.get(f"/api/state/{table.tokens[2]}").json()["log"]
        said = "\n".join(line["text"] for line in seen)
        assert "The judge pauses the table (a dispute)" in said and "talking at night" in said and "a phone" in said
        assert "the judge gives #2 30 s more" in said
        for _ in range(3000):  # the person plays on to the end, as the page would
            if table.over:
                break
            state = client.get(f"/api/state/{mine}").json()
            if state["pending"] is not None:
                _answer_pending(client, mine, state)
            time.sleep(0.005)
        assert table.over
        # after the end: the judge's score sheet (extra points, the best player), then the sheet is closed
        extra = {"action": "award", "seat": 2, "award": "extra", "points": 0.3}
        assert client.post(judge, json=extra).status_code == 200
        assert client.post(judge, json={"action": "award", "seat": 7, "award": "best_player"}).status_code == 200
        assert client.post(judge, json={"action": "close"}).status_code == 200
        wait_until(lambda: table.writer is not None and table.writer.closed)
        path = table.writer.path if table.writer is not None else None
    transcript = load(path or "")
    assert transcript.status == "complete" and verify(transcript).ok
    ops = [
        (i.op, i.seat, i.reason, i.seconds) for i in transcript.inputs if i.op not in ("decide", "reject", "default")
    ]
    assert ops == [
        ("extra_time", 2, "", 30),
        ("pause", 0, "a dispute", 0),
        ("foul", living[0], "talking at night", 0),
        ("resume", 0, "", 0),
        ("remove", living[1], "a phone", 0),
        ("award", 2, "", 0),
        ("award", 7, "", 0),
    ]
    replayed = Game(transcript.rules, transcript.header.seed)
    replayed.replay(list(transcript.inputs))
    assert replayed.events == table.game.events
    public = [e for e in view(replayed, 5).events if e.type in (EventType.JUDGE, EventType.FOUL, EventType.REMOVED)]
    assert [e.type.value for e in public] == ["judge", "judge", "foul", "judge", "removed"]  # every seat sees them


async def _add(server: Any, seats: dict[int, Any]) -> Table:
    return server.add(*server.build(load_rules("fiim"), seats, seed=5))


def _day_table(pause: Any) -> tuple[Table, Any, Any]:
    """A live table at Day (bot delay 1 s, 180 wpm) whose pauses go to `pause`, seat 1's view and a speech request."""
    from arena.engine import Decision, Game, Kind, Phase, Request, view

    game = Game(load_rules("fiim"), 5)
    table = Table(game=game, seats={}, lang="en", bot_delay=1.0, bot_wpm=180.0)
    table.pause = pause
    obs = view(game, 1)
    obs.phase = Phase.DAY
    return table, obs, Request(seat=1, kind=Kind.SPEECH, max_words=150, default=Decision())


# ----- bot speeches went by in 1-1.5 s --------------------------------------------------------------------------------
def test_a_bot_speech_is_paced_by_its_length_at_a_live_table() -> None:
    """A bot's speech appears after its words at --bot-wpm (180: a 90-word speech takes 30 s), never before the bot
    delay; its other decisions wait the bot delay; nothing waits when the delay is 0 (tests, scripts)."""
    import asyncio
    import concurrent.futures

    from arena.engine import Decision, Kind, Observation, Request
    from arena.players.base import Answer, Player
    from arena.web.table import Paced

    class Says(Player):
        def __init__(self, text: str) -> None:
            self.seat = 1
            self.text = text

        async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
            return Answer(decision=Decision(text=self.text))

    waited: list[float] = []

    async def pause(seconds: float) -> None:
        waited.append(seconds)

    async def run() -> None:
        table, obs, speech = _day_table(pause)
        vote = Request(seat=1, kind=Kind.VOTE, candidate=2, default=Decision(vote=False))
        await Paced(Says(" ".join(["word"] * 90)), table, 1.0).decide(obs, speech)
        await Paced(Says("Pass."), table, 1.0).decide(obs, speech)
        await Paced(Says(""), table, 1.0).decide(obs, vote)
        await Paced(Says(" ".join(["word"] * 90)), table, 0.0).decide(obs, speech)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # a loop of its own (playwright's may run in this thread)
        pool.submit(asyncio.run, run()).result(60)
    assert waited == [30.0, 1.0, 1.0]


# ----- a bot's or a model's clock at a live table counts its thinking only ------------------------------------------
def test_a_paced_seat_keeps_its_own_clock_for_its_thinking_only() -> None:
    """The pace a speech is shown at (a blinded table's typing speed can pass a minute) does not count against the
    seat's limit; a seat that thinks past it raises TimeoutError(limit), as a person's seat does; a model seat stays a
    model seat to the orchestrator, and its cut calls are handed on (so a dead model stops the game)."""
    import asyncio
    import concurrent.futures

    from arena.engine import Decision, Observation, Request
    from arena.players.base import Answer, ModelCall, Player
    from arena.web.table import Paced

    class Model(Player):
        model_seat = True

        def __init__(self, hang: bool) -> None:
            self.seat = 1
            self.hang = hang

        async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
            if self.hang:
                await asyncio.Event().wait()  # its server never answers
            return Answer(decision=Decision(text="word " * 150))

        def abandoned_calls(self) -> list[ModelCall]:
            return [ModelCall(seat=1, request_kind="speech", error="transport: cut")]

    slept: list[float] = []

    async def pause(seconds: float) -> None:  # the pace, as long as it is, with the seat's clock long run out
        slept.append(seconds)
        await asyncio.sleep(0.2)

    async def run() -> tuple[Answer, BaseException | None]:
        table, obs, speech = _day_table(pause)
        answered = await Paced(Model(hang=False), table, 1.0, limit_s=0.05).decide(obs, speech)
        hung = Paced(Model(hang=True), table, 1.0, limit_s=0.05)
        assert hung.model_seat and hung.time_limit(speech) is None  # no orchestrator limit: its own clock
        assert [c.error for c in hung.abandoned_calls()] == ["transport: cut"]
        try:
            await hung.decide(obs, speech)
        except TimeoutError as exc:
            return answered, exc
        return answered, None

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # a loop of its own (playwright's may run in this thread)
        answered, error = pool.submit(asyncio.run, run()).result(60)
    assert answered.decision.text and slept == [50.0]  # 150 words at 180 wpm, past its 0.05 s: the answer stands
    assert isinstance(error, TimeoutError) and error.args == (0.05,)
