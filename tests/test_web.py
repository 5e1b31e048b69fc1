"""`arena serve` without a browser: the protocol, seat isolation, tokens, time limits, reconnects and resume."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from driving import resume_with_piped_answers
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from waiting import wait_until

from arena.agents import resolve_agent
from arena.engine import PUBLIC, Game, Observation, Request, load_rules, view
from arena.players.base import Answer, Player
from arena.players.bots import HeuristicBot
from arena.transcript import TranscriptWriter, load, make_header, verify
from arena.web.app import create_app
from arena.web.guard import MAX_MESSAGE, origin_allowed
from arena.web.server import ServeConfig, Server
from arena.web.table import SPECTATOR, Table

ORIGIN = {"origin": "http://testserver"}


class Whispering(Player):
    """A heuristic bot that records a secret in its reasoning: it must reach only the god view, after the end."""

    def __init__(self, seat: int, seed: int) -> None:
        self.seat = seat
        self.inner = HeuristicBot(seat, seed, load_rules("fiim"), "en")

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        answer = await self.inner.decide(observation, request, problem)
        return Answer(decision=answer.decision.model_copy(update={"reasoning": f"SECRET-REASONING-{self.seat}"}))


def _app(tmp_path: Path, human_timeout: float | None = 30.0) -> tuple[Server, TestClient]:
    config = ServeConfig(out_dir=tmp_path, human_timeout=human_timeout, bot_delay=0.0, start="now")
    server = Server(config)
    return server, TestClient(create_app(server))


@contextmanager
def _one_human(tmp_path: Path) -> Iterator[tuple[Server, TestClient, Table]]:
    """The table most tests here read: seat 1 a person's, the others bots, seed 3, the client open."""
    server, client = _app(tmp_path)
    with client:
        yield server, client, _table(client, server, (1,), seed=3, tmp_path=tmp_path)


def _table(
    client: TestClient,
    server: Server,
    humans: tuple[int, ...],
    seed: int,
    tmp_path: Path,
    timeout: float = 30.0,
    probes: bool = False,
) -> Table:
    rules = load_rules("fiim", overrides=["probes.daily=true"] if probes else None)
    seats = {s: resolve_agent("human" if s in humans else "bot:heuristic") for s in range(1, 11)}
    header = make_header(rules, seed, seats)
    writer = TranscriptWriter.create(tmp_path / f"game-{seed}.jsonl", header)

    async def make() -> Table:
        table = Table(game=Game(rules, seed), seats=seats, lang="en", writer=writer, human_timeout=timeout)
        server.tables[table.id] = table
        table.start({s: Whispering(s, seed) for s in seats if s not in humans})
        return table

    assert client.portal is not None
    return client.portal.call(make)


def _answer(form: dict[str, Any]) -> dict[str, Any]:
    """A legal, simple answer to a form, as the page would send it."""
    kind = form["kind"]
    if kind == "speech":
        return {"text": "I am red. <script>alert(1)</script>", "nominate": form["nominate_options"][:1]}
    if kind == "vote":
        return {"vote": False}
    if kind == "black_message":
        return {"text": "hello team", "targets": []}
    if kind == "best_move":
        return {"targets": []}
    if kind == "choose_side":
        return {"action": form["choices"][0]}
    if kind == "sheriff":
        return {"action": "check", "target": form["options"][0]}
    if kind == "probe":  # a distinctive probability per seat, to find it later in the transcript
        return {"beliefs": {str(s): 0.123 for s in form["options"]}}
    return {"target": form["options"][0] if form["options"] else None}


def _check_isolation(table: Table, seat: int, state: dict[str, Any]) -> None:
    """Seat `seat`'s data holds only what the engine's view gives that seat."""
    obs = view(table.game, seat)
    numbers = {n: e for n, e in obs.numbered()}  # the seat's own numbering: its log lines are numbered so
    assert state["next_seq"] <= obs.next_number
    for line in state["log"]:
        assert table.log.line(numbers[line["seq"]]) == line["text"]
    assert state["role"] == (obs.role.value if obs.role else None)
    assert set(state["teammates"]) == set(obs.teammates)
    text = json.dumps(state)
    assert "SECRET-REASONING" not in text
    assert "roles" not in state and "god" not in state


def _questions(client: TestClient, table: Table, rounds: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """Poll human seats 1 and 2 until the game ends (at most `rounds` rounds): each state is checked for isolation
    as it arrives, and each pending question is handed to the test as (seat, pending) to answer."""
    for _ in range(rounds):
        if table.over:
            return
        for seat in (1, 2):
            state = client.get(f"/api/state/{table.tokens[seat]}").json()
            _check_isolation(table, seat, state)
            if state["pending"] is not None:
                yield seat, state["pending"]
        time.sleep(0.005)


def test_two_human_seats_are_isolated_before_during_and_after_every_move(tmp_path: Path) -> None:
    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, (1, 2), seed=7, tmp_path=tmp_path)
        tokens = dict(table.tokens)
        assert all(len(tok) >= 43 for tok in tokens.values())  # 32 random bytes: 256 bits
        assert tokens[1] != tokens[2]
        moves = 0
        for seat, pending in _questions(client, table, rounds=2000):
            other = 2 if seat == 1 else 1
            _check_isolation(table, other, client.get(f"/api/state/{tokens[other]}").json())
            body = {"type": "decide", "ask": pending["ask"], "answer": _answer(pending["form"])}
            done = client.post(f"/api/decide/{tokens[seat]}", json=body)
            assert done.status_code == 200, done.text
            moves += 1
            again = client.post(f"/api/decide/{tokens[seat]}", json=body)  # a reused ask id is refused
            assert again.status_code == 400
            _check_isolation(table, seat, client.get(f"/api/state/{tokens[seat]}").json())
            _check_isolation(table, other, client.get(f"/api/state/{tokens[other]}").json())
        wait_until(lambda: table.over and table.task is not None and table.task.done())
        assert moves > 5
        for seat in (1, 2):
            _check_isolation(table, seat, client.get(f"/api/state/{tokens[seat]}").json())
        watch = client.get(f"/api/state/{table.spectator_token}").json()
        assert watch["god"] is not None and len(watch["god"]["roles"]) == 10
        assert "SECRET-REASONING" in json.dumps(watch["god"])  # the positive control: the god view has it
    transcript = load(table.writer.path if table.writer and table.writer.path else "")
    assert transcript.status == "complete" and verify(transcript).ok


def test_probes_from_the_page_stay_private_to_their_seat(tmp_path: Path) -> None:
    """With daily probes on, each human answers the probe form; no seat's state ever holds the other's probe, and
    the transcript records each answer as the prober's private event."""
    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, (1, 2), seed=7, tmp_path=tmp_path, probes=True)
        tokens = dict(table.tokens)
        probed: set[int] = set()
        bad = client.post(f"/api/decide/{tokens[1]}", json={"type": "decide", "ask": "x", "answer": {"beliefs": 2}})
        assert bad.status_code == 400
        for seat, pending in _questions(client, table, rounds=4000):
            form = pending["form"]
            if form["kind"] == "probe":
                wrong = {"type": "decide", "ask": pending["ask"], "answer": {"beliefs": {"99": 0.5}}}
                refused = client.post(f"/api/decide/{tokens[seat]}", json=wrong)
                assert refused.status_code == 400 and "99" in refused.text
                probed.add(seat)
            body = {"type": "decide", "ask": pending["ask"], "answer": _answer(form)}
            assert client.post(f"/api/decide/{tokens[seat]}", json=body).status_code == 200
        wait_until(lambda: table.over and table.task is not None and table.task.done())
    assert probed, "a human seat was asked a probe"
    transcript = load(table.writer.path if table.writer and table.writer.path else "")
    mine = [e for e in transcript.events if e.type.value == "probe" and e.seat in probed]
    assert mine and all(e.to == (e.seat,) and set(e.counts) == {123} for e in mine)
    assert transcript.status == "complete" and verify(transcript).ok


def test_a_spectator_sees_only_public_events_and_no_god_view_before_the_end(tmp_path: Path) -> None:
    with _one_human(tmp_path) as (_, client, table):
        wait_until(lambda: table.asks.get(1) is not None)
        state = client.get(f"/api/state/{table.spectator_token}").json()
        public = dict(view(table.game, PUBLIC).numbered())  # numbered in the public sequence
        assert all(public[line["seq"]].vis.value == "public" for line in state["log"])
        assert state["god"] is None and state["role"] is None and state["pending"] is None
        assert "SECRET-REASONING" not in json.dumps(state)
        refused = client.post(f"/api/decide/{table.spectator_token}", json={"type": "decide", "ask": "x", "answer": {}})
        assert refused.status_code == 400 and "spectators" in refused.json()["reason"]


def test_wrong_missing_and_foreign_tokens_are_refused(tmp_path: Path) -> None:
    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, (1,), seed=5, tmp_path=tmp_path)
        good = table.tokens[1]
        wrong = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
        for path in (f"/api/state/{wrong}", "/api/state/", f"/seat/{wrong}", f"/watch/{good}", "/seat/x"):
            assert client.get(path).status_code == 404, path
        assert client.get(f"/seat/{table.spectator_token}").status_code == 404  # a spectator link is not a seat
        assert client.post(f"/api/decide/{wrong}", json={}).status_code == 404
        assert client.get(f"/new/{good}").status_code == 404  # a seat token is not the admin token
        assert client.get(f"/new/{server.config.admin_token}").status_code == 200
    # a token of another server (e.g. before a restart) opens nothing here
    _, other = _app(tmp_path)
    with other:
        assert other.get(f"/api/state/{good}").status_code == 404


def test_the_form_refuses_at_once_with_the_reason_and_the_seat_comes_from_the_token(tmp_path: Path) -> None:
    with _one_human(tmp_path) as (_, client, table):
        token = table.tokens[1]
        wait_until(lambda: table.asks.get(1) is not None)
        pending = client.get(f"/api/state/{token}").json()["pending"]
        ask = pending["ask"]
        bad = [
            ({"type": "decide", "ask": ask, "answer": {"target": 99}}, None),
            ({"type": "decide", "ask": ask, "answer": {"vote": "maybe", "text": 5}}, None),
            ({"type": "decide", "ask": ask, "seat": 2, "answer": {}}, "expected {type: decide, ask, answer}"),
            ({"type": "decide", "ask": "stale", "answer": {}}, "no longer pending"),
        ]
        for body, reason in bad:
            got = client.post(f"/api/decide/{token}", json=body)
            assert got.status_code == 400, body
            if reason:
                assert reason in got.json()["reason"]
        big = client.post(f"/api/decide/{token}", content=b"{" + b" " * (MAX_MESSAGE + 10) + b"}")
        assert big.status_code == 413
        assert table.asks[1].id == ask  # nothing was taken


def _until_speech(client: TestClient, table: Table, token: str) -> dict[str, Any]:
    for _ in range(500):
        wait_until(lambda: table.asks.get(1) is not None or table.over)
        state = client.get(f"/api/state/{token}").json()
        pending = state["pending"]
        if pending and pending["form"]["kind"] == "speech" and pending["form"]["may_nominate"]:
            return pending  # type: ignore[no-any-return]
        if pending:
            client.post(
                f"/api/decide/{token}",
                json={"type": "decide", "ask": pending["ask"], "answer": _answer(pending["form"])},
            )
    raise AssertionError("no speech with a nomination right")


def test_an_illegal_nomination_is_refused_with_the_reason(tmp_path: Path) -> None:
    with _one_human(tmp_path) as (_, client, table):
        token = table.tokens[1]
        pending = _until_speech(client, table, token)
        legal = pending["form"]["nominate_options"]
        body = {"type": "decide", "ask": pending["ask"], "answer": {"text": "hi", "nominate": [legal[0], legal[1]]}}
        got = client.post(f"/api/decide/{token}", json=body)
        assert got.status_code == 400 and "one nomination per speech" in got.json()["reason"]
        body["answer"] = {"text": "x" * (pending["form"]["max_chars"] + 1)}
        got = client.post(f"/api/decide/{token}", json=body)
        assert "over the cap" in got.json()["reason"]
        body["answer"] = {"text": "hi", "nominate": [legal[0]]}
        assert client.post(f"/api/decide/{token}", json=body).status_code == 200


def test_websocket_protocol_origin_size_and_reconnect(tmp_path: Path) -> None:
    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, (1, 2), seed=3, tmp_path=tmp_path)
        token = table.tokens[1]
        for headers in ({}, {"origin": "http://evil.example"}):
            with (
                pytest.raises(WebSocketDisconnect) as closed,
                client.websocket_connect(f"/ws/{token}", headers=headers) as ws,
            ):
                ws.receive_json()
            assert closed.value.code == 1008
        with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws/" + "A" * 43, headers=ORIGIN) as ws:
            ws.receive_json()
        wait_until(lambda: table.asks.get(1) is not None)
        with client.websocket_connect(f"/ws/{token}", headers=ORIGIN) as ws:
            first = ws.receive_json()
            assert first["type"] == "state" and first["state"]["seat"] == 1
            ask = first["state"]["pending"]["ask"]
            assert client.portal is not None
            client.portal.call(table.changed)  # a change that is not seat 1's (e.g. another seat's ask) ...
            ws.send_json({"type": "ping"})
            assert ws.receive_json()["type"] == "pong"  # ... sends seat 1 nothing: a push never tells of others
        # the page went away (a reload): the same decision is still pending, the view is whole again
        with client.websocket_connect(f"/ws/{token}", headers=ORIGIN) as ws:
            state = ws.receive_json()["state"]
            assert state["pending"]["ask"] == ask
            assert len(state["log"]) == len([e for e in view(table.game, 1).events if table.log.line(e) is not None])
            ws.send_json({"type": "decide", "ask": ask, "answer": _answer(state["pending"]["form"])})
            assert _next(ws, "accepted", "refused")["type"] == "accepted"
            ws.send_text(json.dumps({"type": "decide", "ask": ask, "answer": {"text": "x" * MAX_MESSAGE}}))
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(50):
                    ws.receive_json()
            assert closed.value.code == 1009
        assert origin_allowed("https://mafia.example.org", "127.0.0.1:8000", ("https://mafia.example.org",))
        assert not origin_allowed(None, "testserver", ())


def test_a_seat_link_opens_few_sockets_and_a_message_flood_is_cut_off(tmp_path: Path) -> None:
    from contextlib import ExitStack

    from arena.web.routes.channel import MAX_SEAT_SOCKETS, MESSAGE_BURST

    with _one_human(tmp_path) as (_, client, table):
        token = table.tokens[1]
        with ExitStack() as stack:
            for _ in range(MAX_SEAT_SOCKETS):  # a few tabs are fine
                ws = stack.enter_context(client.websocket_connect(f"/ws/{token}", headers=ORIGIN))
                assert ws.receive_json()["type"] == "state"
            with (
                pytest.raises(WebSocketDisconnect) as refused,
                client.websocket_connect(f"/ws/{token}", headers=ORIGIN) as extra,
            ):
                extra.receive_json()
            assert refused.value.code == 1013
        with client.websocket_connect(f"/ws/{token}", headers=ORIGIN) as ws:  # closing one frees its place
            assert ws.receive_json()["type"] == "state"
            for _ in range(MESSAGE_BURST * 3):
                ws.send_json({"type": "ping"})
            with pytest.raises(WebSocketDisconnect) as flooded:
                for _ in range(MESSAGE_BURST * 3 + 10):
                    ws.receive_json()
            assert flooded.value.code == 1008


def _next(ws: Any, *types: str) -> dict[str, Any]:
    for _ in range(200):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] in types:
            return message
    raise AssertionError(f"no {types} message")


def test_a_silent_or_disconnected_human_never_stalls_the_table(tmp_path: Path) -> None:
    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, (1,), seed=9, tmp_path=tmp_path, timeout=0.05)
        with client.websocket_connect(f"/ws/{table.tokens[1]}", headers=ORIGIN) as ws:
            ws.receive_json()  # connected, then gone without answering
        wait_until(lambda: table.over and table.task is not None and table.task.done(), limit_s=120)
    transcript = load(table.writer.path if table.writer and table.writer.path else "")
    assert transcript.status == "complete"
    mine = [i for i in transcript.inputs if i.seat == 1]
    assert mine and {i.op for i in mine} == {"reject", "default"}  # the re-asks of a timed-out seat, then defaults
    assert all(i.reason.startswith("no answer within") for i in mine)


def test_a_server_restart_keeps_every_decision_and_the_game_resumes(tmp_path: Path) -> None:
    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, (1,), seed=4, tmp_path=tmp_path)
        token = table.tokens[1]
        made = 0
        while made < 2:
            wait_until(lambda: table.asks.get(1) is not None)
            pending = client.get(f"/api/state/{token}").json()["pending"]
            got = client.post(
                f"/api/decide/{token}",
                json={"type": "decide", "ask": pending["ask"], "answer": _answer(pending["form"])},
            )
            made += got.status_code == 200
        path = table.writer.path if table.writer and table.writer.path else Path()
        wait_until(lambda: len([i for i in load(path, repair=True).inputs if i.seat == 1 and i.op == "decide"]) == 2)
        assert not table.over
    # leaving the client's context stops its event loop: the server process is gone mid-game
    saved = load(path, repair=True)
    assert saved.status == "started"
    decided = [i for i in saved.inputs if i.seat == 1 and i.op == "decide"]
    assert len(decided) == 2  # every decision already made is in the file
    copy = tmp_path / "copy" / path.name
    copy.parent.mkdir()
    copy.write_bytes(path.read_bytes())
    # `arena resume` takes a web game like any other: the human seat continues at the terminal
    cli = resume_with_piped_answers(copy)
    assert cli.returncode == 0, cli.stderr[-2000:]
    assert load(copy).status == "complete"
    server2, client2 = _app(tmp_path, human_timeout=0.05)
    with client2:

        async def resume() -> Table:
            transcript = load(path, repair=True)
            return server2.resume(transcript, transcript.rebuild())

        assert client2.portal is not None
        table2 = client2.portal.call(resume)
        assert table2.tokens[1] != token  # new links after a restart; the old ones open nothing
        assert client2.get(f"/api/state/{token}").status_code == 404
        wait_until(lambda: table2.over and table2.task is not None and table2.task.done(), limit_s=120)
    final = load(path)
    assert final.status == "complete" and verify(final).ok
    assert final.inputs[: len(saved.inputs)] == saved.inputs


def test_pages_are_escaped_and_locked_down(tmp_path: Path) -> None:
    with _one_human(tmp_path) as (_, client, table):
        page = client.get(f"/seat/{table.tokens[1]}?lang=ru")
        assert page.status_code == 200
        csp = page.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert page.headers["referrer-policy"] == "no-referrer"
        assert "Место" in page.text and "http://" not in page.text and "https://" not in page.text
        hostile = client.get(f"/seat/{table.tokens[1]}?lang=</script><script>alert(1)</script>")
        assert "<script>alert(1)" not in hostile.text  # an unknown language falls back, never echoed
        script = client.get("/static/app.js").text
        assert "innerHTML" not in script and "http://" not in script and "https://" not in script
        assert client.get("/static/../app.py").status_code == 404


def test_replays_step_through_any_transcript_as_god_or_any_seat(tmp_path: Path) -> None:
    rules = load_rules("fiim")
    seats = {s: resolve_agent("bot:random") for s in range(1, 11)}
    header = make_header(rules, 2, seats)
    path = tmp_path / "old.jsonl"
    writer = TranscriptWriter.create(path, header)
    from arena.orchestrator import run_game
    from arena.players.bots import RandomBot

    game = Game(rules, 2)
    asyncio.run(run_game(game, {s: RandomBot(s, 2) for s in seats}, writer))
    writer.close()
    server, client = _app(tmp_path)
    admin = server.config.admin_token
    with client:
        assert "old.jsonl" in client.get(f"/replays/{admin}").text
        assert client.get(f"/replay/{admin}/old.jsonl").status_code == 200
        assert client.get(f"/replay/{table_token()}/old.jsonl").status_code == 404
        assert client.get(f"/api/replay/{admin}/..%2Fold.jsonl").status_code == 404
        start = client.get(f"/api/replay/{admin}/old.jsonl", params={"seat": 3, "step": 0}).json()
        end = client.get(f"/api/replay/{admin}/old.jsonl", params={"seat": 3}).json()
        god = client.get(f"/api/replay/{admin}/old.jsonl", params={"seat": 0}).json()
        assert start["step"] == 0 and end["step"] == end["steps"] > 0
        assert len(start["log"]) < len(end["log"])
        assert [line["seq"] for line in end["log"]] == [n for n, e in view(game, 3).numbered() if end_line(rules, e)]
        assert len(god["roles"]) == 10 and "roles" not in end


def end_line(rules: Any, event: Any) -> bool:
    from arena.web.state import LogWriter

    return LogWriter(rules).line(event) is not None


def table_token() -> str:
    return "Z" * 43


def test_decisions_check_isolation_of_a_seat_that_acts_for_another(tmp_path: Path) -> None:
    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, (1, 2), seed=6, tmp_path=tmp_path)
        wait_until(lambda: bool(table.asks))
        seat, ask = next(iter(table.asks.items()))
        other = 2 if seat == 1 else 1
        body = {"type": "decide", "ask": ask.id, "answer": _answer(ask.form.to_json())}
        got = client.post(f"/api/decide/{table.tokens[other]}", json=body)
        assert got.status_code == 400  # seat B's token cannot answer seat A's decision
        assert table.asks.get(seat) is ask
        assert table.seat_of(table.tokens[other]) == other and table.seat_of(table.spectator_token) == SPECTATOR


def test_serve_refuses_bad_input_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "serve", "--seat", "11=human", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.startswith("error: ") and "Traceback" not in done.stderr


def test_loopback_detection() -> None:
    from arena.cli.serve import _is_loopback

    assert _is_loopback("127.0.0.1") and _is_loopback("::1") and _is_loopback("localhost")
    assert not _is_loopback("0.0.0.0") and not _is_loopback("192.168.1.5")


def test_russian_pages_say_the_same_facts(tmp_path: Path) -> None:
    with _one_human(tmp_path) as (_, client, table):
        wait_until(lambda: table.asks.get(1) is not None)
        en = client.get(f"/api/state/{table.tokens[1]}").json()
        ru = client.get(f"/api/state/{table.tokens[1]}?lang=ru").json()
        assert [line["seq"] for line in en["log"]] == [line["seq"] for line in ru["log"]]
        assert ru["role"] == en["role"] and ru["role_label"] in {"мирный", "шериф", "мафия", "дон"}
        assert any(line["text"] == "— Ночь 0 —" for line in ru["log"])
        page = client.get(f"/seat/{table.tokens[1]}?lang=ru").text
        assert json.dumps("Ваш ход") in page and ">Место #1</h2>" in page


def test_serve_reports_a_busy_port_in_one_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", "serve", "--port", str(port), "--out", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2 and done.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}")
    assert not list(tmp_path.iterdir())


def test_stopping_the_server_leaves_a_resumable_transcript(tmp_path: Path) -> None:
    import signal
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "games"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "serve",
            "--seat",
            "1=human",
            "--start",
            "now",
            "--port",
            str(port),
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(5)]
        assert lines[0].startswith("seat 1: http://localhost:") and lines[2].startswith("transcript: ")
        path = Path(lines[2].split(": ", 1)[1].strip())
        wait_until(lambda: len(load(path, repair=True).events) > 3)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    saved = load(path)
    assert saved.status == "started" and verify(saved).ok
    resumed = subprocess.run(
        [sys.executable, "-m", "arena.cli", "resume", str(path), "--allow-piped-human", "--human-timeout", "5"],
        input="\n".join(["pass", "n", "none", "", "1"] * 400) + "\n",
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert load(path).status == "complete"


async def _post_chunked(app: Any, path: str, chunks: int, size: int) -> tuple[int, int]:
    """POST a chunked body (no Content-Length) straight to the ASGI app; (status, chunks the app read)."""
    read = 0
    statuses: list[int] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        if read < chunks:
            read += 1
            return {"type": "http.request", "body": b"x" * size, "more_body": read < chunks}
        await asyncio.sleep(3600)  # pragma: no cover - a finished body is never read again
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", b"testserver"), (b"transfer-encoding", b"chunked")],
        "client": ("127.0.0.1", 1), "server": ("testserver", 80),
    }  # fmt: skip
    await asyncio.wait_for(app(scope, receive, send), 30)
    return statuses[0], read


def test_a_chunked_body_is_refused_past_the_limit_without_reading_the_rest(tmp_path: Path) -> None:
    with _one_human(tmp_path) as (server, client, table):
        assert client.portal is not None
        for path in (f"/api/decide/{table.tokens[1]}", f"/api/tables/{server.config.admin_token}"):
            status, read = client.portal.call(_post_chunked, client.app, path, 1000, 4096)  # 4 MB offered
            assert status == 413, path
            assert read <= MAX_MESSAGE // 4096 + 2, (path, read)  # stopped just past 16 KiB


def test_deeply_nested_json_is_refused_never_a_500_or_a_dead_socket(tmp_path: Path) -> None:
    nested = "[" * 5000 + "]" * 5000  # under MAX_MESSAGE, far past the JSON parser's recursion limit
    with _one_human(tmp_path) as (server, client, table):
        token = table.tokens[1]
        wait_until(lambda: table.asks.get(1) is not None)
        got = client.post(f"/api/decide/{token}", content=nested)
        assert got.status_code == 400 and got.json()["reason"] == "nested too deeply"
        inner = '{"type": "decide", "ask": "x", "answer": {"text": ' + nested + "}}"
        assert client.post(f"/api/decide/{token}", content=inner).status_code == 400
        got = client.post(f"/api/tables/{server.config.admin_token}", content=nested)
        assert got.status_code == 400
        with client.websocket_connect(f"/ws/{token}", headers=ORIGIN) as ws:
            assert ws.receive_json()["type"] == "state"
            ws.send_text(nested)
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(50):
                    ws.receive_json()
            assert closed.value.code == 1007
        assert table.asks.get(1) is not None  # nothing was taken; the table still waits for seat 1


def test_replays_never_show_a_game_in_progress_or_a_tampered_file(tmp_path: Path) -> None:
    rules = load_rules("fiim")
    seats = {s: resolve_agent("bot:random") for s in range(1, 11)}
    from arena.orchestrator import run_game
    from arena.players.bots import RandomBot

    path = tmp_path / "done.jsonl"
    writer = TranscriptWriter.create(path, make_header(rules, 2, seats))
    asyncio.run(run_game(Game(rules, 2), {s: RandomBot(s, 2) for s in seats}, writer))
    writer.close()
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "live.jsonl").write_text("".join(lines[:-1]), encoding="utf-8")  # no end record: in progress
    forged = [*lines[:-1], lines[-1].replace('"winner":"', '"winner":"x', 1)]  # the chain breaks at the end
    assert forged[-1] != lines[-1]
    (tmp_path / "forged.jsonl").write_text("".join(forged), encoding="utf-8")
    server, client = _app(tmp_path)
    admin = server.config.admin_token
    with client:
        listing = client.get(f"/replays/{admin}").text
        assert "done.jsonl" in listing and "live.jsonl" not in listing
        assert client.get(f"/replay/{admin}/live.jsonl").status_code == 404
        assert client.get(f"/api/replay/{admin}/live.jsonl", params={"seat": 0}).status_code == 404
        got = client.get(f"/api/replay/{admin}/forged.jsonl", params={"seat": 0})
        assert got.status_code == 400 and "tampered" in got.json()["detail"]
        assert client.get(f"/api/replay/{admin}/done.jsonl", params={"seat": 0}).status_code == 200
        # a table being played on this server is not listed either, until its game ends
        table = _table(client, server, (1,), seed=5, tmp_path=tmp_path)
        assert table.writer is not None and table.writer.path is not None
        assert table.writer.path.name not in client.get(f"/replays/{admin}").text


def test_serve_resume_refuses_a_signed_game_without_its_key(tmp_path: Path) -> None:
    from arena.orchestrator import run_game
    from arena.players.bots import RandomBot
    from arena.web.server import TableError

    rules = load_rules("fiim")
    seats = {s: resolve_agent("bot:random") for s in range(1, 11)}
    full = tmp_path / "full.jsonl"
    writer = TranscriptWriter.create(full, make_header(rules, 2, seats), sign_key=b"k" * 32)
    asyncio.run(run_game(Game(rules, 2), {s: RandomBot(s, 2) for s in seats}, writer))
    writer.close()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(full.read_text(encoding="utf-8").splitlines(keepends=True)[:40]), encoding="utf-8")
    before = cut.read_bytes()
    server = Server(ServeConfig(out_dir=tmp_path, bot_delay=0.0))
    transcript = load(cut)
    assert transcript.header.signed and transcript.status == "started"
    with pytest.raises(TableError, match=r"signed.*--sign-key-env"):
        server.build_resume(transcript, transcript.rebuild())
    assert cut.read_bytes() == before  # refused before anything was written
    table, _ = server.build_resume(transcript, transcript.rebuild(), sign_key=b"k" * 32)  # with the key it goes on
    assert table.writer is not None
    table.writer.close()
    # `arena serve --sign-key-env VAR` puts the key in the config: it resumes signed games and signs new tables
    keyed = Server(ServeConfig(out_dir=tmp_path / "keyed", bot_delay=0.0, sign_key=b"k" * 32))
    again = load(cut)
    resumed, _ = keyed.build_resume(again, again.rebuild())
    assert resumed.writer is not None
    resumed.writer.close()
    fresh, _ = keyed.build(rules, seats, seed=5)
    assert fresh.writer is not None and fresh.writer.path is not None
    fresh.writer.close()
    assert load(fresh.writer.path).header.signed
