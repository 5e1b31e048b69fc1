"""The stand-in server's HTTP/1.1 transport: one asyncio event loop, h11 for the protocol, no thread per connection.

A 64-game vote round opens hundreds of connections at once; a thread each (and a `time.sleep` each for the latency) cost
the stand-in more CPU than the answers. Here every connection is an `asyncio.Protocol` on one loop, h11 parses and
frames the messages (keep-alive, Content-Length and chunked bodies), and a reply leaves at its due time through
`loop.call_at`, counted from the request's arrival: the loop turn that read its bytes, before any parsing (the bytes are
parsed in a callback of their own, so a burst read in one turn is stamped as it came, not behind its own work). A
streamed (chunked) reply is written as the client reads it, and dropped when the client hangs up. The listening socket
is bound at construction (a taken port fails at once) with a large backlog, so that a burst of connections is not
dropped. What to answer is the handler's job (`arena/standin/server.py`); it runs on the loop, so it needs no lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http import HTTPStatus

import h11

BACKLOG = 4096  # a full vote round of 64 games is 640 connections at once; the kernel caps this at somaxconn
_REASONS = {status.value: status.phrase.encode() for status in HTTPStatus}


@dataclass(slots=True)
class HttpRequest:
    method: bytes
    target: bytes
    headers: list[tuple[bytes, bytes]]  # names lower-case, as h11 gives them
    body: bytes
    arrived: float  # the loop's clock when the request's head arrived

    def header(self, name: bytes) -> str | None:
        for key, value in self.headers:
            if key == name:
                return value.decode("latin-1")
        return None


@dataclass(slots=True)
class Reply:
    status: int
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    delay_s: float = 0.0  # sent this long after the request arrived (at once if that is past)
    chunks: Callable[[], Iterator[bytes]] | None = None  # a chunked body, streamed instead of `body`
    cut: bool = False  # no answer: the connection is closed when the reply is due (a server that went away)


Handler = Callable[[HttpRequest], Reply]


class _Connection(asyncio.Protocol):
    """One client connection: h11 parses its requests one at a time; each reply is sent when due."""

    def __init__(self, server: HttpServer) -> None:
        self.server = server
        self.loop = asyncio.get_running_loop()
        self.h11 = h11.Connection(h11.SERVER)
        self.transport: asyncio.Transport | None = None
        self.head: h11.Request | None = None
        self.arrived = 0.0
        self.body: list[bytes] = []
        self.pending: asyncio.TimerHandle | None = None  # the reply waiting for its due time
        self.stream: Iterator[bytes] | None = None  # the chunks of a streamed reply still to write
        self.paused = False  # the transport's write buffer is full: wait for resume_writing
        self.bodiless = False
        self.queued: list[bytes] = []  # bytes received, not yet parsed (`data_received` only notes them)
        self.seen = 0.0  # the loop's clock when the queued bytes came in
        self.parsing_seen = 0.0  # the same for the bytes h11 is parsing now

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:  # headers and body go out in one write, but a streamed reply is several
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.connections.discard(self)
        if self.pending is not None:
            self.pending.cancel()
            self.server.in_flight -= 1
        self.pending = None
        self.stream = None
        self.transport = None

    def data_received(self, data: bytes) -> None:
        # Only noted here, parsed in a callback of its own: a burst of requests readable at once is stamped as it
        # arrived, not after the parsing and answering of every request read before it in the same loop turn
        # (a real provider reads them in parallel; the stand-in's own CPU is not the latency it stands for).
        if not self.queued:
            self.seen = self.loop.time()
            self.loop.call_soon(self._ingest)
        self.queued.append(data)

    def _ingest(self) -> None:
        if not self.queued or self.transport is None:
            self.queued = []
            return
        data = self.queued[0] if len(self.queued) == 1 else b"".join(self.queued)
        self.queued = []
        self.parsing_seen = self.seen
        try:
            self.h11.receive_data(data)
        except h11.RemoteProtocolError:  # data after the peer said it closed
            self.close()
            return
        self._next()

    def eof_received(self) -> bool:
        if self.queued:  # after the bytes still to parse (asyncio's selector loop never gets here: it parses them a
            # turn before it reads the EOF; another loop may read both in one turn); the write side stays open till then
            self.loop.call_soon(self._eof, True)
            return True
        self._eof(False)
        # keep the write side open for a reply still due; close it otherwise
        return self.pending is not None or self.stream is not None

    def _eof(self, deferred: bool) -> None:
        with contextlib.suppress(h11.RemoteProtocolError):
            self.h11.receive_data(b"")
        if deferred and self.pending is None and self.stream is None:
            self.close()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        self._pump()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def _next(self) -> None:
        """Handle the events h11 has parsed so far, up to the end of one request."""
        conn = self.h11
        while self.transport is not None:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                self._bad_request(exc)
                return
            kind = type(event)
            if kind is h11.Data:
                self.body.append(event.data)  # type: ignore[union-attr]
            elif kind is h11.Request:
                self.head = event  # type: ignore[assignment]
                self.arrived = self.parsing_seen
                self.body = []
                if conn.they_are_waiting_for_100_continue:
                    self._write(conn.send(h11.InformationalResponse(status_code=100, headers=[])))
            elif kind is h11.EndOfMessage:
                self._dispatch()
                return
            elif event is h11.PAUSED:  # the next request waits until this reply is out
                self.transport.pause_reading()
                return
            elif event is h11.NEED_DATA:
                return
            elif kind is h11.ConnectionClosed:
                self.close()
                return

    def _dispatch(self) -> None:
        head = self.head
        assert head is not None
        body = bytes(self.body[0]) if len(self.body) == 1 else b"".join(self.body)  # h11 may give bytearrays
        request = HttpRequest(head.method, head.target, list(head.headers), body, self.arrived)
        self.head, self.body = None, []
        self.bodiless = head.method == b"HEAD"  # its reply has the headers of a body, not the body
        try:
            reply = self.server.handler(request)
        except Exception as exc:  # a body the handler cannot read: say so, drop the connection (as http.server did)
            print(f"stand-in: cannot answer {head.method.decode()} {head.target.decode()}: {exc!r}", file=sys.stderr)
            self.close()
            return
        server = self.server
        server.in_flight += 1
        server.peak_in_flight = max(server.peak_in_flight, server.in_flight)
        if server.gate.holds(self, reply, server.in_flight, self.loop):
            return
        self.schedule(reply)

    def schedule(self, reply: Reply) -> None:
        due = self.arrived + reply.delay_s
        if due > self.loop.time():
            self.pending = self.loop.call_at(due, self._send, reply)
        else:
            self._send(reply)

    def _send(self, reply: Reply) -> None:
        self.pending = None
        self.server.in_flight -= 1
        if self.transport is None:
            return
        if reply.cut:
            self.transport.abort()
            return
        headers = [("Content-Type", "application/json")]
        if reply.chunks is None:
            headers.append(("Content-Length", str(len(reply.body))))
        else:
            headers.append(("Transfer-Encoding", "chunked"))
        headers.extend(reply.headers)
        conn = self.h11
        response = h11.Response(status_code=reply.status, headers=headers, reason=_REASONS.get(reply.status, b""))
        if reply.chunks is not None and not self.bodiless:
            self._write(conn.send(response))
            self.stream = reply.chunks()
            self._pump()
            return
        head = conn.send(response)
        data = b"" if self.bodiless else conn.send(h11.Data(data=reply.body))
        self._write(head + data + conn.send(h11.EndOfMessage()))
        self._finish()

    def _pump(self) -> None:
        """Write a streamed reply's chunks while the client keeps up; its end finishes the exchange."""
        while self.stream is not None and self.transport is not None and not self.paused:
            part = next(self.stream, None)
            if part is None:
                self.stream = None
                self._write(self.h11.send(h11.EndOfMessage()))
                self._finish()
                return
            self._write(self.h11.send(h11.Data(data=part)))

    def _finish(self) -> None:
        """One exchange done: close if HTTP says so, else read the next request (maybe already buffered)."""
        conn = self.h11
        if conn.our_state is h11.MUST_CLOSE or conn.their_state in (h11.MUST_CLOSE, h11.CLOSED):
            self.close()
            return
        try:
            conn.start_next_cycle()
        except h11.LocalProtocolError:  # the client has not finished its request: nothing more on this one
            self.close()
            return
        if self.transport is not None:
            self.transport.resume_reading()
            self._next()

    def _bad_request(self, exc: h11.RemoteProtocolError) -> None:
        if self.h11.our_state in (h11.IDLE, h11.SEND_RESPONSE):  # as h11's own server example does
            body = b'{"error": {"message": "bad request"}}'
            headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
            with contextlib.suppress(h11.LocalProtocolError):
                status = exc.error_status_hint
                response = h11.Response(status_code=status, headers=headers, reason=_REASONS.get(status, b""))
                self._write(self.h11.send(response) + self.h11.send(h11.Data(data=body)))
                self._write(self.h11.send(h11.EndOfMessage()))
        self.close()

    def _write(self, data: bytes) -> None:
        if self.transport is not None and data:
            self.transport.write(data)


class Gate:
    """Holds every reply until `at` requests are in flight at once, then lets them all go and holds no more.

    A test that must see its client keep N requests open together waits for that event instead of trusting a
    latency to be long enough on a busy machine. `at = 0` holds nothing. If the client never gets there, the
    replies go after `give_up_s`, so the test fails on its count instead of hanging."""

    def __init__(self, at: int = 0, give_up_s: float = 30.0) -> None:
        self.at = at
        self.give_up_s = give_up_s
        self.held: list[tuple[_Connection, Reply]] = []
        self._timer: asyncio.TimerHandle | None = None

    def holds(self, conn: _Connection, reply: Reply, in_flight: int, loop: asyncio.AbstractEventLoop) -> bool:
        if self.at <= 0:
            return False
        self.held.append((conn, reply))
        if in_flight >= self.at:
            self.open()
        elif self._timer is None:
            self._timer = loop.call_later(self.give_up_s, self.open)
        return True

    def open(self) -> None:
        self.at = 0
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        held, self.held = self.held, []
        for conn, reply in held:
            conn.schedule(reply)


class HttpServer:
    """Serves `handler` on `host:port` (bound now); run it with `serve()` on a loop, or `start()` in a thread."""

    def __init__(self, handler: Handler, host: str = "127.0.0.1", port: int = 0, gate: Gate | None = None) -> None:
        self.handler = handler
        self.gate = gate or Gate()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.sock.bind((host, port))
            self.sock.listen(BACKLOG)  # connections queue from now on, before the loop runs
        except OSError:
            self.sock.close()
            raise
        self.address: tuple[str, int] = self.sock.getsockname()[:2]
        self.connections: set[_Connection] = set()
        self.in_flight = 0  # requests read and not yet answered (a provider's concurrent requests)
        self.peak_in_flight = 0  # the most at once, since the start
        self.loop: asyncio.AbstractEventLoop | None = None  # the loop serving, once `serve()` runs
        self._stopped: asyncio.Event | None = None
        self._serving = threading.Event()
        self._thread: threading.Thread | None = None

    async def serve(self) -> None:
        """Serve on the running loop until cancelled or `stop()`; then close every connection."""
        self.loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        server = await self.loop.create_server(lambda: _Connection(self), sock=self.sock, backlog=BACKLOG)
        self._serving.set()
        try:
            await self._stopped.wait()
        finally:
            server.close()
            for connection in list(self.connections):
                connection.close()
            await server.wait_closed()
            self.sock.close()

    @property
    def threaded(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        """Serve on a new event loop in a daemon thread (the in-process server of the tests)."""
        self._thread = threading.Thread(target=asyncio.run, args=(self.serve(),), name="fake-openai", daemon=True)
        self._thread.start()
        self._serving.wait(timeout=10)

    def stop(self) -> None:
        """Stop serving (from any thread) and wait for the thread, if `start()` made one."""
        loop, stopped = self.loop, self._stopped
        if loop is not None and stopped is not None:
            with contextlib.suppress(RuntimeError):  # the loop has ended already
                loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(timeout=5)
        if loop is None:  # never served; else serve() closes it on its way out
            self.sock.close()
