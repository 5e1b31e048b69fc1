"""The HTTP/1.1 protocol of `arena serve`: uvicorn's h11 protocol with a deadline for receiving each request.

Why it exists: uvicorn has no timeout for receiving a request. Its keep-alive timer starts only after a response
and is reset by every byte received, so a client that sends half a request line and then one byte a minute holds
its connection for ever; a few hundred such connections (slowloris) hold the server's sockets. Here every request,
line, headers and body, must be complete within `REQUEST_DEADLINE_S` of its first wait (the connection's start, or
the end of the previous response on a kept-alive connection); otherwise the connection is closed. A complete request
disarms the deadline, so a long poll and the app's own time are never cut, and a WebSocket upgrade hands the
connection to the WebSocket protocol with no deadline left behind.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

REQUEST_DEADLINE_S = 10.0  # a browser sends a whole request in milliseconds; a proxy's in well under a second
_RECEIVING = (h11.IDLE, h11.SEND_BODY)  # the client has not sent its whole request yet


class DeadlineH11Protocol(H11Protocol):
    """H11Protocol whose every request must arrive whole within `deadline_s` (see the module docstring)."""

    deadline_s: float = REQUEST_DEADLINE_S
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.transport.get_protocol() is not self or self.conn.their_state not in _RECEIVING:
            self._disarm()  # the whole request is in (or the connection is a WebSocket now)

    def on_response_complete(self) -> None:
        self._arm()  # the next request on this connection gets its own deadline (a pipelined one disarms it)
        super().on_response_complete()
        if self.transport.is_closing():
            self._disarm()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.deadline_s, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def with_deadline(seconds: float) -> type[DeadlineH11Protocol]:
    """The protocol class with another deadline (`arena serve --request-timeout`)."""
    return type("DeadlineH11Protocol", (DeadlineH11Protocol,), {"deadline_s": seconds})
