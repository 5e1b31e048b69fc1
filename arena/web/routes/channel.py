"""The live channel of `arena serve`: one WebSocket per open page, keyed by the link's token.

The server pushes a seat's state only when that seat's own view changed (a push must not tell of others), and takes
decisions and pings. Upgrades must come from the server's own origin (or one named with --origin); the token is
checked again on every message; sockets per link and messages per socket are bounded, and a message is size-capped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

from fastapi import FastAPI, WebSocket

from arena.web.guard import MAX_MESSAGE, origin_allowed, token_ok
from arena.web.i18n import pick_lang
from arena.web.routes.seats import decide_message
from arena.web.routes.site import Site
from arena.web.table import SPECTATOR, Table, state_key

__all__ = ["add_routes", "state_key"]  # state_key: what a push compares (tests/test_seat_isolation.py)

MAX_SEAT_SOCKETS = 4  # open sockets per seat link (a few tabs); a flood of them is refused
MAX_SPECTATOR_SOCKETS = 200  # one spectator link is shared by many viewers
MESSAGE_BURST, MESSAGES_PER_S = 40, 20.0  # a socket's message budget: a person clicks, a flood is cut off


def add_routes(app: FastAPI, site: Site) -> None:
    """`/ws/{token}`."""
    server, config = site.server, site.config
    open_sockets: dict[str, int] = {}  # token -> sockets open with it

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
        limit = MAX_SPECTATOR_SOCKETS if seat == SPECTATOR else MAX_SEAT_SOCKETS
        if open_sockets.get(token, 0) >= limit:
            await websocket.close(code=1013)  # try again later
            return
        open_sockets[token] = open_sockets.get(token, 0) + 1
        table.connect(seat)  # the lobby and the table show who is here
        try:
            await _serve_socket(websocket, table, seat, token)
        finally:
            table.disconnect(seat)
            open_sockets[token] -= 1
            if not open_sockets[token]:
                del open_sockets[token]

    async def _serve_socket(websocket: WebSocket, table: Table, seat: int, token: str) -> None:
        lang = pick_lang(websocket.query_params.get("lang"), table.lang)
        await websocket.accept()
        lock = asyncio.Lock()

        async def send(data: dict[str, Any]) -> None:
            async with lock:
                await websocket.send_text(json.dumps(data, ensure_ascii=False))

        async def push(seen: int, last: int) -> None:
            while True:
                await table.wait_change(seen)
                if table.version != seen:
                    seen = table.version
                    data = table.state(seat, lang)
                    if data["version"] != last:  # only when this page's own state changed: it must not tell of others
                        last = data["version"]
                        await send({"type": "state", "state": data})

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
                    reason = decide_message(table, seat, text.encode("utf-8"))
                    await send({"type": "refused", "reason": reason} if reason else {"type": "accepted"})
                else:
                    await send({"type": "error", "reason": "unknown message type"})

        seen = table.version
        first = table.state(seat, lang)
        await send({"type": "state", "state": first})  # the socket's first message: always the whole current state
        tasks = [asyncio.create_task(push(seen, first["version"])), asyncio.create_task(listen())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):  # a closed or broken socket ends here
                    await task
