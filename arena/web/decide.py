"""A page's decision message, however it came (the WebSocket's `decide` message or `POST /api/decide/{token}`):
parsed once by the route that received it, then checked for its shape here and handed to the table. Both routes
share this one reading, so neither imports the other."""

from __future__ import annotations

from arena.web.table import SPECTATOR, Table


def decide(table: Table, seat: int, message: object) -> str | None:
    """Hand `{"type": "decide", "ask": ID, "answer": {...}}` to the table; the reason it is refused, or None."""
    if seat == SPECTATOR:
        return "spectators do not decide"
    if not isinstance(message, dict) or set(message) - {"type", "ask", "answer"}:
        return "expected {type: decide, ask, answer}"
    return table.answer(seat, message.get("ask"), message.get("answer"))
