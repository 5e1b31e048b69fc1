"""The score sheet in `arena serve`: each seat's and the spectators' page links to it once the game has ended, a
replay links to it, and the admin's replays of saved games have it; never for a game in progress, never for a
tampered file, and under the pages' strict Content-Security-Policy (its style is a file of the site, not inline)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fastapi.testclient import TestClient
from waiting import wait_until

from arena.agents import resolve_agent
from arena.engine import Game, load_rules
from arena.orchestrator import run_game
from arena.players.bots import RandomBot
from arena.transcript import TranscriptWriter, make_header
from arena.web.app import create_app
from arena.web.server import ServeConfig, Server
from arena.web.table import SPECTATOR, Table

RULES = load_rules("fiim")
SEATS = {s: resolve_agent("bot:random") for s in range(1, 11)}


def _saved(path: Path, seed: int = 2) -> Path:
    writer = TranscriptWriter.create(path, make_header(RULES, seed, SEATS))
    asyncio.run(run_game(Game(RULES, seed), {s: RandomBot(s, seed) for s in SEATS}, writer))
    writer.close()
    return path


def _app(tmp_path: Path) -> tuple[Server, TestClient]:
    server = Server(ServeConfig(out_dir=tmp_path, human_timeout=30.0, bot_delay=0.0))
    return server, TestClient(create_app(server))


def test_a_saved_game_has_its_sheet_from_the_admin_link(tmp_path: Path) -> None:
    done = _saved(tmp_path / "done.jsonl")
    lines = done.read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "live.jsonl").write_text("".join(lines[:-1]), encoding="utf-8")  # no end record: in progress
    (tmp_path / "forged.jsonl").write_text("".join([*lines[:-1], lines[-1].replace('"winner":"', '"winner":"x', 1)]),
                                           encoding="utf-8")  # fmt: skip
    server, client = _app(tmp_path)
    admin = server.config.admin_token
    with client:
        sheet = client.get(f"/protocol/{admin}/done.jsonl?lang=ru")
        assert sheet.status_code == 200 and "Протокол игры" in sheet.text and "<style" not in sheet.text
        assert "href='/protocol.css'" in sheet.text and "unsafe-inline" not in sheet.headers["content-security-policy"]
        css = client.get("/protocol.css")
        assert css.status_code == 200 and css.headers["content-type"].startswith("text/css") and ".protocol" in css.text
        assert "Score sheet" in client.get(f"/protocol/{admin}/done.jsonl?lang=en").text
        assert client.get(f"/protocol/{'Z' * 43}/done.jsonl").status_code == 404  # not the admin link
        assert client.get(f"/protocol/{admin}/live.jsonl").status_code == 404  # its roles are still secret
        assert client.get(f"/protocol/{admin}/forged.jsonl").status_code == 400
        assert client.get(f"/protocol/{admin}/..%2Fdone.jsonl").status_code == 404
        replay = client.get(f"/replay/{admin}/done.jsonl?lang=en").text
        assert f'href="/protocol/{admin}/done.jsonl?lang=en"' in replay


def test_a_tables_pages_link_to_its_sheet_once_the_game_has_ended(tmp_path: Path) -> None:
    server, client = _app(tmp_path)
    seed = 4
    writer = TranscriptWriter.create(tmp_path / "table.jsonl", make_header(RULES, seed, SEATS))

    async def make() -> Table:
        table = Table(game=Game(RULES, seed), seats=SEATS, lang="en", writer=writer, human_timeout=30.0)
        server.tables[table.id] = table
        return table

    with client:
        assert client.portal is not None
        table = client.portal.call(make)
        token = table.spectator_token  # an all-bot table: the spectators' link (a seat's link works the same way)
        assert table.review_links(SPECTATOR) is None
        assert client.get(f"/protocol/{token}").status_code == 404  # before the end: no sheet
        client.portal.call(lambda: _start(table))
        wait_until(lambda: table.over and table.writer is not None and table.writer.closed)
        links = table.review_links(SPECTATOR)
        assert links is not None and links["protocol"] == f"/protocol/{token}"
        sheet = client.get(f"/protocol/{token}?lang=en")
        assert sheet.status_code == 200 and "Score sheet" in sheet.text and "god view" not in sheet.text
        assert "Протокол игры" in client.get(f"/protocol/{token}?lang=ru").text
        review = client.get(f"/review/{token}?lang=en").text
        assert f'href="/protocol/{token}?lang=en"' in review
        script = client.get("/static/app.js").text
        assert "state.review.protocol" in script  # the end of the game links to it


async def _start(table: Table) -> None:
    table.start({s: RandomBot(s, 4) for s in SEATS})


def test_the_judge_gives_awards_after_the_end_then_closes_the_sheet(tmp_path: Path) -> None:
    """A judged table (`arena serve --judge`): at the end every page shows the score sheet's points, the judge names
    the best player and gives extra points after the end, and closing the sheet writes the end record: the awards
    are inputs of the sealed transcript (verify replays them) and the replays and the whole sheet open then."""
    from arena.transcript import load, verify

    # a person at seat 1 keeps the table in its lobby until the host starts it (a bots' table starts, and may end,
    # at once); the person then sends nothing and the rule's defaults play the seat
    server = Server(ServeConfig(out_dir=tmp_path, bot_delay=0.0, judge=True, start="lobby", human_timeout=0.05))
    seats = {**SEATS, 1: resolve_agent("human")}

    async def add() -> Table:
        table, players = server.build(RULES, seats, seed=6)
        table.speech_grace_s = 0.0
        return server.add(table, players)

    with TestClient(create_app(server)) as client:
        assert client.portal is not None
        table: Table = client.portal.call(add)
        judge, token = f"/api/judge/{table.judge_token}", table.spectator_token
        closing = client.post(judge, json={"action": "close"})
        assert closing.status_code == 400 and "has not ended" in closing.json()["error"]
        assert client.post(f"/api/start/{server.config.admin_token}/{table.id}").status_code == 200
        wait_until(lambda: table.over, limit_s=60)
        state = client.get(f"/api/judge-state/{table.judge_token}?lang=en").json()
        assert state["judge"]["closable"] and state["judge"]["awards"]
        assert state["sheet"]["open"] and state["review"] is None  # not final yet: no replay, no whole sheet
        assert table.writer is not None and not table.writer.closed and not table.sealed
        before = {r["seat"]: r for r in state["sheet"]["rows"]}
        seat = 5
        best = client.post(judge, json={"action": "award", "seat": 4, "award": "best_player", "reason": "led the day"})
        assert best.status_code == 200
        extra = client.post(judge, json={"action": "award", "seat": seat, "award": "extra", "points": 0.4})
        assert extra.status_code == 200
        bad = client.post(judge, json={"action": "award", "seat": 4, "award": "best_player"})
        assert bad.status_code == 400  # a title is given once a game
        assert client.post(judge, json={"action": "award", "seat": 4, "award": "trophy"}).status_code == 400
        seen = client.get(f"/api/state/{token}?lang=ru").json()["sheet"]  # the spectators see it at once
        assert seen["title"] == "Протокол игры" and len(seen["rows"]) == 10 and seen["open"]
        assert any("лучший игрок" in a for a in seen["awards"])
        row = {r["seat"]: r for r in client.get(f"/api/state/{token}?lang=en").json()["sheet"]["rows"]}[seat]
        assert round(float(row["points"]) - float(before[seat]["points"]), 2) == 0.4
        assert client.post(judge, json={"action": "close"}).status_code == 200
        wait_until(lambda: table.writer is not None and table.writer.closed, limit_s=30)
        assert table.sealed
        late = client.post(judge, json={"action": "award", "seat": 5, "award": "best_move"})
        assert late.json()["error"] == "the score sheet is closed"
        final = client.get(f"/api/state/{token}?lang=en").json()
        assert not final["sheet"]["open"] and final["review"]["protocol"] == f"/protocol/{token}"
        page = client.get(f"/protocol/{token}?lang=en").text
        assert "the best player (led the day)" in page
        path = table.writer.path
    transcript = load(path or "")
    assert transcript.status == "complete" and verify(transcript).ok
    awards = [(i.op, i.seat) for i in transcript.inputs if i.op == "award"]
    assert awards == [("award", 4), ("award", seat)]


def test_a_table_without_a_judge_is_final_at_its_end_and_shows_the_points(tmp_path: Path) -> None:
    server = Server(ServeConfig(out_dir=tmp_path, bot_delay=0.0, start="now"))

    async def run() -> Table:
        table, players = server.build(RULES, SEATS, seed=7, lang="en")
        table.start(players)
        assert table.task is not None
        await table.task
        return table

    table = asyncio.run(run())
    assert table.sealed and table.writer is not None and table.writer.closed  # sealed at once: nobody to wait for
    state = table.state(SPECTATOR, "en")
    sheet = state["sheet"]
    assert sheet is not None and not sheet["open"] and len(sheet["rows"]) == 10
    assert state["review"] is not None and state["review"]["protocol"].startswith("/protocol/")
    assert sheet["head"][0] == "#" and sheet["head"][-1] == "Total" and len(sheet["head"]) == 2 + 5 + 1
    winners = [r for r in sheet["rows"] if r["groups"][0] == "1"]  # fiim: a win is 1 main point
    assert winners and sheet["result"].startswith(("The town (red) wins", "The mafia (black) wins"))
