"""Issue 30, security round 3 (medium): about 50 WebSockets on one spectator link, each within the per-socket budget,
left `GET /` unanswered for 10 s. Now sockets are capped per link and per client, messages are budgeted per link and
per client as well as per socket, and a state is built once per table change whatever the number of sockets.

Real sockets on 127.0.0.1 against `arena serve` in a child process; the assertions are on outcomes (who is
refused, who is cut off, what is answered), never on times: a bound only stops a hang from hanging the suite."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
from pathlib import Path
from typing import Any

import pytest
from servekit import serve

websockets = pytest.importorskip("websockets")
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from arena.web.routes.channel import LINK_PER_S, MAX_CLIENT_SOCKETS, MESSAGES_PER_S  # noqa: E402

SOCKETS = 50
HANG = 60.0


def _get(port: int, path: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
    connection.request("GET", path)
    response = connection.getresponse()
    response.read()
    return response.status


async def _open(url: str, origin: str) -> tuple[Any, int | None]:
    """A socket and the first message's outcome: (socket, None) when a state came, (None, close code) when refused."""
    ws = await connect(url, origin=origin, open_timeout=HANG)  # type: ignore[arg-type]
    try:
        first = json.loads(await asyncio.wait_for(ws.recv(), HANG))
        assert first["type"] == "state"
        return ws, None
    except ConnectionClosed as closed:
        return None, closed.rcvd.code if closed.rcvd is not None else None


async def _flood(ws: Any, rate: float, count: int) -> int | None:
    """Ask for the state `count` times, `rate` times a second (within one socket's own budget); the close code if
    the server closed the socket meanwhile, else None (and the socket is closed here)."""

    async def drain() -> None:  # read every answer, as a page would
        with contextlib.suppress(ConnectionClosed):
            async for _ in ws:
                pass

    reader = asyncio.create_task(drain())
    try:
        for _ in range(count):
            await ws.send(json.dumps({"type": "state"}))
            await asyncio.sleep(1 / rate)
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else -1
    finally:
        await ws.close()
        await reader
    return None


def test_one_spectator_link_cannot_starve_the_server(tmp_path: Path) -> None:
    with serve("--seat", "1=human", "--human-timeout", "600", "--out", str(tmp_path / "games")) as served:
        port = served.port
        url = f"ws://127.0.0.1:{port}" + served.path("spectators").replace("/watch/", "/ws/")
        origin = f"http://127.0.0.1:{port}"

        async def attack() -> tuple[list[int | None], list[int | None], int]:
            opened = await asyncio.gather(*(_open(url, origin) for _ in range(SOCKETS)))
            sockets = [ws for ws, _ in opened if ws is not None]
            refused = [code for ws, code in opened if ws is None]
            rate = MESSAGES_PER_S * 0.75  # each socket within its own budget: 60 messages in 4 s
            floods = [asyncio.create_task(_flood(ws, rate, 60)) for ws in sockets]
            status = await asyncio.to_thread(_get, port, "/")  # answered while the link floods
            closed = await asyncio.wait_for(asyncio.gather(*floods), HANG)
            return refused, closed, status

        refused, closed, status = asyncio.run(attack())
        assert status == 200
        # sockets past the per-client cap are refused (try again later)
        assert len(refused) == SOCKETS - MAX_CLIENT_SOCKETS and set(refused) == {1013}
        # flooding sockets are cut off once the link's (and the client's) budget is spent, though each kept within
        # its own: the link's sockets together get what one client may send (a few are left, at a rate the budget
        # refills)
        cut = [code for code in closed if code is not None]
        assert len(closed) == MAX_CLIENT_SOCKETS and set(cut) == {1008}
        assert len(cut) >= MAX_CLIENT_SOCKETS - LINK_PER_S / (MESSAGES_PER_S * 0.75) - 1, closed
        # and the server still serves: the page, the spectators' state, a new socket
        assert _get(port, "/") == 200
        assert _get(port, served.path("spectators").replace("/watch/", "/api/state/")) == 200

        async def again() -> int | None:
            ws, code = await _open(url, origin)
            if ws is not None:
                await ws.close()
            return code

        assert asyncio.run(again()) is None
