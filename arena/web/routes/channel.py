"""The live channel of `arena serve`: one WebSocket per open page, keyed by the link's token.

The server pushes a seat's state only when that seat's own view changed (a push must not tell of others), and takes
decisions and pings. Upgrades must come from the server's own origin (or one named with --origin); the token is
checked again on every message; a message is size-capped.

No link and no client can starve the server (issue 30: 50 sockets on one spectator link, each within its own
budget, left `GET /` unanswered for 10 s): sockets are capped per link and per client (its address), messages are
budgeted per socket, per link and per client (all of a link's sockets share one budget), and the work of a state is
done once per table change, seat and language, whatever the number of sockets: a push sends the same text to every
socket of a seat, and a socket asking for the state again gets it from the same cache (`Table.state`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import OrderedDict
from typing import Any

from fastapi import FastAPI, WebSocket

from arena.web.decide import decide
from arena.web.guard import MAX_MESSAGE, Buckets, client_of, origin_allowed, token_ok
from arena.web.i18n import pick_lang
from arena.web.routes.site import Site
from arena.web.table import SPECTATOR, Table, state_key

__all__ = ["add_routes", "state_key"]  # state_key: what a push compares (tests/test_seat_isolation.py)

MAX_SEAT_SOCKETS = 4  # open sockets per seat link (a few tabs); a flood of them is refused
MAX_SPECTATOR_SOCKETS = 200  # one spectator link is shared by many viewers
MAX_CLIENT_SOCKETS = 32  # open sockets per client address, over every link (one room behind one address)
MESSAGE_BURST, MESSAGES_PER_S = 40, 20.0  # a socket's message budget: a person clicks, a flood is cut off
LINK_BURST, LINK_PER_S = 100, 50.0  # all the sockets of one link together
CLIENT_BURST, CLIENT_PER_S = 100, 50.0  # all the sockets of one client together
PUSH_CACHE = 512  # (table, seat, language) states kept for pushes


def add_routes(app: FastAPI, site: Site) -> None:
    """`/ws/{token}`."""
    server, config = site.server, site.config
    open_sockets: dict[str, int] = {}  # token -> sockets open with it
    by_client: dict[str, int] = {}  # client address -> sockets open from it
    link_budget = Buckets(LINK_BURST, LINK_PER_S)
    client_budget = Buckets(CLIENT_BURST, CLIENT_PER_S)
    pushes: OrderedDict[tuple[str, int, str], tuple[int, str, str]] = OrderedDict()  # -> (version, key, message)

    def pushed(table: Table, seat: int, lang: str) -> tuple[str, str]:
        """The state a push sends for this table version, seat and language, and its key: built once for every
        socket of that seat (a spectator link's hundred sockets cost one state, not a hundred)."""
        cache_key = (table.id, seat, lang)
        hit = pushes.get(cache_key)
        if hit is not None and hit[0] == table.version:
            pushes.move_to_end(cache_key)
            return hit[1], hit[2]
        version, data = table.version, table.state(seat, lang)
        key, message = state_key(data), json.dumps({"type": "state", "state": data}, ensure_ascii=False)
        pushes[cache_key] = (version, key, message)
        pushes.move_to_end(cache_key)
        if len(pushes) > PUSH_CACHE:
            pushes.popitem(last=False)
        return key, message

    @app.websocket("/ws/{token}")
    async def channel(websocket: WebSocket, token: str) -> None:
        origin_ok = origin_allowed(
            websocket.headers.get("origin"), websocket.headers.get("host"), config.allowed_origins
        )
        found = server.lookup(token) if token_ok(token) else None
        if not origin_ok or found is None:
            await websocket.close(code=1008)
            return
        table, seat = found
        client = client_of(websocket.client.host if websocket.client else None, websocket.headers)
        limit = MAX_SPECTATOR_SOCKETS if seat == SPECTATOR else MAX_SEAT_SOCKETS
        if open_sockets.get(token, 0) >= limit or by_client.get(client, 0) >= MAX_CLIENT_SOCKETS:
            await websocket.accept()  # so the page is told why (a close before the handshake is an HTTP 403)
            await websocket.close(code=1013, reason="too many sockets on this link or from this client")  # try later
            return
        open_sockets[token] = open_sockets.get(token, 0) + 1
        by_client[client] = by_client.get(client, 0) + 1
        table.connect(seat)  # the lobby and the table show who is here
        try:
            await _serve_socket(websocket, table, seat, token, client)
        finally:
            table.disconnect(seat)
            for counts, key in ((open_sockets, token), (by_client, client)):
                counts[key] -= 1
                if not counts[key]:
                    del counts[key]

    async def _serve_socket(websocket: WebSocket, table: Table, seat: int, token: str, client: str) -> None:
        lang = pick_lang(websocket.query_params.get("lang"), table.lang)
        await websocket.accept()
        lock = asyncio.Lock()

        async def send(data: dict[str, Any]) -> None:
            await send_text(json.dumps(data, ensure_ascii=False))

        async def send_text(text: str) -> None:
            async with lock:
                await websocket.send_text(text)

        async def push(seen: int, last: str) -> None:
            while True:
                await table.wait_change(seen)
                if table.version != seen:
                    seen = table.version
                    key, message = pushed(table, seat, lang)
                    if key != last:  # only when this page's own state changed: a push must not tell of others
                        last = key
                        await send_text(message)

        async def listen() -> None:
            budget, refilled = float(MESSAGE_BURST), time.monotonic()
            while True:
                text = await websocket.receive_text()
                now = time.monotonic()
                budget = min(MESSAGE_BURST, budget + (now - refilled) * MESSAGES_PER_S)
                refilled = now
                if budget < 1:
                    await websocket.close(code=1008, reason="too many messages")
                    return
                budget -= 1
                if not link_budget.take(token) or not client_budget.take(client):  # the link's, the client's
                    await websocket.close(code=1008, reason="too many messages on this link or from this client")
                    return
                if len(text.encode("utf-8")) > MAX_MESSAGE:
                    await websocket.close(code=1009)
                    return
                again = server.lookup(token)  # the token is checked again on every message
                if again is None or again[0] is not table or again[1] != seat:
                    await websocket.close(code=1008)
                    return
                try:
                    message = json.loads(text)
                except RecursionError:  # deeply nested: refused, and the socket closed properly
                    await websocket.close(code=1007, reason="nested too deeply")
                    return
                except ValueError:
                    await send({"type": "error", "reason": "not JSON"})
                    continue
                kind = message.get("type") if isinstance(message, dict) else None
                if kind == "ping":
                    await send({"type": "pong"})
                elif kind == "state":
                    await send({"type": "state", "state": table.state(seat, lang)})
                elif kind == "ready" and seat != SPECTATOR and isinstance(message, dict):
                    table.set_ready(seat, message.get("ready") is not False)
                elif kind == "guess" and seat != SPECTATOR and isinstance(message, dict):
                    reason = table.guess(seat, message.get("guesses"))
                    await send({"type": "refused", "reason": reason} if reason else {"type": "accepted"})
                elif kind == "draft" and seat != SPECTATOR and isinstance(message, dict):
                    table.keep_draft(seat, message.get("ask"), message.get("answer"))  # kept quietly, or dropped
                elif kind == "decide" and seat != SPECTATOR:
                    reason = decide(table, seat, message)  # the message as parsed above: once
                    await send({"type": "refused", "reason": reason} if reason else {"type": "accepted"})
                else:
                    await send({"type": "error", "reason": "unknown message type"})

        seen = table.version
        first = table.state(seat, lang)
        await send({"type": "state", "state": first})  # the socket's first message: always the whole current state
        tasks = [asyncio.create_task(push(seen, state_key(first))), asyncio.create_task(listen())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):  # a closed or broken socket ends here
                    await task
