"""The remote seats' server (docs/remote.md) against a hostile client: a token opens its own seat and nothing else,
a refused token learns nothing, hostile bodies are one clear error each (and the attempt they cost, as a model's
unreadable answer does), nothing is bound beyond loopback unless asked, and no token is ever written down."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from arena.agents import BUILTIN
from arena.engine import Game, load_rules, view
from arena.players.base import PlayerError
from arena.players.remote import RemotePlayer, build_remote_player
from arena.remote.protocol import MAX_ANSWER_BYTES, Exchange
from arena.remote.server import LOOPBACK, RemoteError, RemoteTable


async def _open(seats: tuple[int, ...] = (3, 5)) -> tuple[Game, RemoteTable, dict[int, RemotePlayer], list[Exchange]]:
    rules = load_rules("fiim")
    game = Game(rules, 1)
    kept: list[Exchange] = []
    table = RemoteTable(rules, deadline_s=None, record=kept.append)
    players = {s: build_remote_player(BUILTIN["remote"], s, table=table) for s in seats}
    await table.start()
    return game, table, players, kept


def _ask(game: Game, player: RemotePlayer) -> asyncio.Task[Any]:
    """The seat's decision on the request the game has for it now (its night-zero or day-one turn)."""
    request = game.request_for(player.seat) or game.pending()[0].model_copy(update={"seat": player.seat})
    return asyncio.ensure_future(player.decide(view(game, player.seat), request))


async def _get(http: aiohttp.ClientSession, url: str, token: str | None, **params: str) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with http.get(url, headers=headers, params=params) as response:
        return response.status, await response.json()


async def _post(http: aiohttp.ClientSession, url: str, token: str, data: bytes) -> tuple[int, Any]:
    async with http.post(url, headers={"Authorization": f"Bearer {token}"}, data=data) as response:
        return response.status, await response.json()


async def test_a_token_opens_its_own_seat_only() -> None:
    game, table, players, _ = await _open()
    five = _ask(game, players[5])
    try:
        async with aiohttp.ClientSession() as http:
            token3, token5 = table.lines[3].token, table.lines[5].token
            status, body = await _get(http, f"{table.url}/turn", token3, wait="0")
            assert (status, body["status"], body["seat"]) == (200, "waiting", 3)  # seat 5's turn is not seat 3's
            answer = json.dumps({"turn": 1, "decision": {}}).encode()
            status, _ = await _post(http, f"{table.url}/answer", token3, answer)
            assert status == 409 and not five.done()
            status, body = await _get(http, f"{table.url}/turn", token5, wait="0")
            assert (status, body["status"], body["seat"], body["observation"]["seat"]) == (200, "turn", 5, 5)
            status, _ = await _post(http, f"{table.url}/answer", token5, answer)
            assert status == 200
        assert (await five).decision is not None
    finally:
        await table.stop()


async def test_a_refused_token_learns_nothing() -> None:
    _game, table, _players, _ = await _open()
    try:
        async with aiohttp.ClientSession() as http:
            answers = set()
            for headers in ({}, {"Authorization": "Basic abc"}, {"Authorization": "Bearer " + "x" * 32},
                            {"Authorization": "Bearer " + table.lines[3].token[:-1] + "~"},
                            {"Authorization": "Bearer short"}, {"Authorization": "Bearer " + "é" * 20}):  # fmt: skip
                for path in ("/hello", "/turn?wait=0"):
                    async with http.get(table.url + path, headers=headers) as response:
                        answers.add((response.status, await response.text()))
            assert len(answers) == 1 and next(iter(answers))[0] == 401
        assert not any(line.connected for line in table.lines.values())  # a refused try is not a connection
    finally:
        await table.stop()


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"\xff\xfe not utf-8", "not UTF-8"),
        (b"x" * (MAX_ANSWER_BYTES + 1), "over"),
        (b'{"turn": 1, "decision": ' + b"[" * 5000 + b"]" * 5000 + b"}", "not JSON"),
        (b'{"turn": 1, "turn": 1, "decision": {}}', "twice"),
        (b'{"turn": 1, "decision": {"target": ' + b"9" * 10000 + b"}}", "not JSON"),
        (b'{"turn": 1, "decision": {"text": "\\ud800", "reasoning": 5}}', "reasoning"),
    ],
)
async def test_a_hostile_body_is_a_failed_attempt_with_one_clear_reason(body: bytes, said: str) -> None:
    game, table, players, kept = await _open((3,))
    asked = _ask(game, players[3])
    try:
        async with aiohttp.ClientSession() as http:
            token = table.lines[3].token
            status, got = await _get(http, f"{table.url}/turn", token, wait="5")
            assert got["status"] == "turn"
            status, answer = await _post(http, f"{table.url}/answer", token, body)
            assert status == 422 and said in answer["error"]
            with pytest.raises(PlayerError, match=said):
                await asked
            status, _again = await _post(http, f"{table.url}/answer", token, body)
            assert status == 409  # that turn is closed; the orchestrator's re-ask would open the next
        [exchange] = kept
        assert exchange.outcome == "unreadable" and said in (exchange.error or "")
        assert exchange.answer_bytes >= min(len(body), MAX_ANSWER_BYTES)
        assert exchange.answer is None or len(exchange.answer) <= MAX_ANSWER_BYTES
        assert table.lines[3].token not in exchange.model_dump_json()
    finally:
        await table.stop()


async def test_a_bad_poll_is_refused_and_a_newer_poll_takes_over() -> None:
    game, table, players, _ = await _open((3,))
    try:
        async with aiohttp.ClientSession() as http:
            token = table.lines[3].token
            for wait in ("-1", "61", "nan", "soon"):
                status, _ = await _get(http, f"{table.url}/turn", token, wait=wait)
                assert status == 400
            first = asyncio.ensure_future(_get(http, f"{table.url}/turn", token, wait="30"))
            await asyncio.sleep(0.1)
            second = asyncio.ensure_future(_get(http, f"{table.url}/turn", token, wait="30"))
            assert (await first)[1]["status"] == "waiting"  # at most one poll of a seat waits at a time
            asked = _ask(game, players[3])
            assert (await second)[1]["status"] == "turn"
            again = await _get(http, f"{table.url}/turn", token, wait="0")
            assert again[1]["status"] == "turn" and again[1]["turn"] == 1  # an open turn is sent until answered
            asked.cancel()
    finally:
        await table.stop()


def test_the_server_binds_loopback_and_tokens_are_per_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = load_rules("fiim")
    table = RemoteTable(rules)
    try:
        assert table.host == LOOPBACK and table.sock.getsockname()[0] == "127.0.0.1"
        three, four = table.seat(3), table.seat(4)
        assert three.token != four.token and len(three.token) >= 32
        with pytest.raises(RemoteError, match="its own token"):
            table.seat(5, token=three.token)
        monkeypatch.setenv("ARENA_REMOTE_TOKEN_6", "short")
        with pytest.raises(RemoteError, match="ARENA_REMOTE_TOKEN_6"):
            table.seat(6)
        monkeypatch.setenv("ARENA_REMOTE_TOKEN_7", "a-token-from-the-env-0123")
        assert table.seat(7).from_env
    finally:
        table.sock.close()
