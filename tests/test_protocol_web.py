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
