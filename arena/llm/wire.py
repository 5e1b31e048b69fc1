"""One provider's keep-alive HTTP/1.1 connections for the direct path (`direct.py`): a POST written on asyncio's
transport, the answer parsed by httptools (llhttp, the C parser under uvicorn and aiohttp's own).

Why: the direct path sends one kind of request to one host, and aiohttp's machinery around it (a request and a
response object, URL and header objects, a stream reader and timers per call) was a quarter of a tournament client's
CPU per call (`bench/client_profile.py --games 64 --plain --latency 0.1`: 0.80 to 0.89 ms per call, 0.61 without
it). A proxy keeps aiohttp's path (`direct.py`).

What it keeps from the session it replaces:
- the request: the same headers (the SDK's, with its key, and aiohttp's Host, Accept-Encoding and Content-Length)
  and the same body bytes, to the URL the user chose; a redirect is never followed (a 3xx is the SDK's status error),
  so the key goes nowhere else;
- the timeouts: `timeout_s` to connect (with TLS) and at most `timeout_s` between two reads of an answer;
- the answer in any framing (Content-Length, chunked, or until the server closes; an interim 1xx skipped), gzip or
  deflate, its body read up to `MAX_BODY_BYTES` (decompressed) and `AnswerTooLarge` past it;
- at most `MAX_CONNECTIONS` connections open at once; an idle one the server closed is never reused.
Failures are `WireTimeout` (a TimeoutError) and `WireError` (a ConnectionError), which `direct.py` turns into the
SDK's types. A connection left mid-answer (an error, a cancelled call) is closed, never reused.
"""

from __future__ import annotations

import asyncio
import ssl
import urllib.parse
import zlib
from collections import deque
from typing import NamedTuple, cast

import httptools

from arena.llm.body import MAX_BODY_BYTES, AnswerTooLarge
from arena.llm.modes import ANSWER_KEPT_BYTES
from arena.llm.pool import MAX_CONNECTIONS

ACCEPT_ENCODING = "gzip, deflate"  # what aiohttp's session asked for; both are decoded here


class WireError(ConnectionError):
    """The connection failed, or the server's answer was not HTTP this client can read."""


class WireTimeout(TimeoutError):
    """No connection within the timeout, or no data from the server for that long while it answered."""


class Answer(NamedTuple):
    status: int
    headers: list[tuple[str, str]]  # as received, decoded as Latin-1 (HTTP's header bytes)
    body: bytes  # decoded if it came compressed


class _Connection(asyncio.Protocol):
    """One socket, one exchange at a time: `send` writes a request and returns the future of its answer."""

    def __init__(self, pool: Pool) -> None:
        self._pool = pool
        self._loop = pool.loop
        self._parser = httptools.HttpResponseParser(self)
        self.transport: asyncio.Transport | None = None
        self.reusable = True  # false once closed, broken, or left mid-answer
        self._answer: asyncio.Future[Answer] | None = None
        self._headers: list[tuple[str, str]] = []
        self._chunks: list[bytes] = []
        self._size = 0
        self._headers_done = False
        self._framed = True  # Content-Length or chunked; else the answer ends when the server closes
        self._decoder: zlib._Decompress | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._last_read = 0.0

    # the exchange

    def send(self, request: bytes) -> asyncio.Future[Answer]:
        assert self.transport is not None and self._answer is None
        answer = self._answer = self._loop.create_future()
        self._new_message()
        self.transport.write(request)
        self._last_read = self._loop.time()
        self._timer = self._loop.call_at(self._last_read + self._pool.timeout_s, self._check_read)
        return answer

    def _new_message(self) -> None:
        self._headers, self._chunks, self._size = [], [], 0
        self._headers_done, self._framed, self._decoder = False, True, None

    def _check_read(self) -> None:
        # one timer per exchange, moved on lazily: a read after it was set only postpones the check
        due = self._last_read + self._pool.timeout_s
        if self._loop.time() >= due:
            self._timer = None
            self._fail(WireTimeout(f"no data from the server for {self._pool.timeout_s:g} s"))
        else:
            self._timer = self._loop.call_at(due, self._check_read)

    def _done(self, result: Answer | BaseException) -> None:
        answer, self._answer = self._answer, None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if answer is not None and not answer.done():
            if isinstance(result, BaseException):
                answer.set_exception(result)
            else:
                answer.set_result(result)

    def _fail(self, error: BaseException) -> None:
        self.reusable = False
        self._done(error)
        if self.transport is not None:
            self.transport.close()

    # asyncio's protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not an asyncio.Transport subclass

    def data_received(self, data: bytes) -> None:
        if self._answer is None:  # nothing was asked: the connection is out of step
            self._fail(WireError("the server sent data that answers no request"))
            return
        self._last_read = self._loop.time()
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail(WireError("the server switched protocols"))
        except httptools.HttpParserError as exc:
            cause = exc.__context__ if isinstance(exc.__context__, (AnswerTooLarge, WireError)) else None
            self._fail(cause or WireError(f"the server's answer is not HTTP this client reads: {exc}"))

    def eof_received(self) -> bool | None:
        return None  # close the transport: connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self.reusable = False
        self._pool.forget(self)
        if self._answer is None:
            return
        if self._headers_done and not self._framed:  # an answer that ends where the connection does
            self._finish()
        else:
            reason = f": {exc}" if exc is not None else ""
            self._done(WireError(f"the server closed the connection before its answer was complete{reason}"))

    # httptools' callbacks

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers.append((name.decode("latin-1"), value.decode("latin-1")))

    def on_headers_complete(self) -> None:
        self._headers_done = True
        framed = False
        for name, value in self._headers:
            lowered = name.lower()
            if lowered == "content-length" or (lowered == "transfer-encoding" and "chunked" in value.lower()):
                framed = True
            elif lowered == "content-encoding":
                coding = value.strip().lower()
                if coding in ("gzip", "deflate", "x-gzip"):
                    self._decoder = zlib.decompressobj(wbits=47)  # zlib or gzip, told apart by the header
                elif coding != "identity":
                    raise WireError(f"the answer is encoded as {coding!r}, which was not asked for")
        status = self._parser.get_status_code()
        self._framed = framed or status in (204, 304) or 100 <= status < 200

    def on_body(self, body: bytes) -> None:
        if self._decoder is not None:
            body = self._decoder.decompress(body, MAX_BODY_BYTES + 1 - self._size)
        self._chunks.append(body)
        self._size += len(body)
        if self._size > MAX_BODY_BYTES or (self._decoder is not None and self._decoder.unconsumed_tail):
            raise AnswerTooLarge(b"".join(self._chunks)[:ANSWER_KEPT_BYTES], self._size)

    def on_message_complete(self) -> None:
        self._finish()

    def _finish(self) -> None:
        if 100 <= self._parser.get_status_code() < 200:  # an interim answer (100 Continue): the real one follows
            self._new_message()
            return
        if self._decoder is not None and not self._decoder.eof:
            self._fail(WireError("the compressed answer ended early"))
            return
        status = self._parser.get_status_code()
        if not self._parser.should_keep_alive():
            self.reusable = False
        self._done(Answer(status, self._headers, b"".join(self._chunks)))


class Pool:
    """The connections to one URL's host, for POSTs to that URL with fixed headers (`post`)."""

    def __init__(self, url: str, headers: dict[str, str], timeout_s: float, limit: int = MAX_CONNECTIONS) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.tls = parts.scheme == "https"
        self.timeout_s = timeout_s
        self.limit = limit
        self.loop = asyncio.get_running_loop()
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        fields = {"Host": parts.netloc.rpartition("@")[2], **headers, "Accept-Encoding": ACCEPT_ENCODING}
        for name, value in fields.items():
            if any(c in name + value for c in "\r\n\0"):
                raise ValueError(f"the header {name!r} holds a line break or NUL")
        lines = [f"POST {target} HTTP/1.1", *(f"{name}: {value}" for name, value in fields.items())]
        self._head = ("\r\n".join(lines) + "\r\nContent-Length: ").encode("latin-1")
        self._idle: list[_Connection] = []
        self._open: set[_Connection] = set()
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._ssl: ssl.SSLContext | None = None

    async def post(self, body: bytes) -> Answer:
        """One exchange: the server's answer, whatever its status."""
        connection = await self._connection()
        answered = False
        try:
            answer = await connection.send(self._head + b"%d\r\n\r\n" % len(body) + body)
            answered = True
            return answer
        finally:
            if answered and connection.reusable:
                self._idle.append(connection)
                self._wake()
            else:
                connection.reusable = False
                if connection.transport is not None:
                    connection.transport.close()
                self.forget(connection)

    def _reuse(self) -> _Connection | None:
        while self._idle:
            connection = self._idle.pop()  # the latest used: the likeliest still open
            if connection.reusable:
                return connection
        return None

    async def _connection(self) -> _Connection:
        reused = self._reuse()
        while reused is None and len(self._open) >= self.limit:
            waiter = self.loop.create_future()
            self._waiting.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():  # woken, then cancelled: the turn goes to the next
                    self._wake()
                raise
            reused = self._reuse()
        if reused is not None:
            return reused
        connection = _Connection(self)
        self._open.add(connection)
        try:
            async with asyncio.timeout(self.timeout_s):
                await self.loop.create_connection(
                    lambda: connection, self.host, self.port,
                    ssl=self._tls() if self.tls else None, server_hostname=self.host if self.tls else None,
                )  # fmt: skip
        except TimeoutError:
            self.forget(connection)
            raise WireTimeout(f"no connection to {self.host}:{self.port} within {self.timeout_s:g} s") from None
        except (OSError, ssl.SSLError) as exc:
            self.forget(connection)
            raise WireError(f"cannot connect to {self.host}:{self.port}: {exc}") from exc
        except BaseException:
            self.forget(connection)
            raise
        return connection

    def _tls(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = ssl.create_default_context()  # the system's certificates, as aiohttp's session used
        return self._ssl

    def forget(self, connection: _Connection) -> None:
        """`connection` is closed or closing: it no longer counts against the limit."""
        if connection in self._open:
            self._open.discard(connection)
            self._wake()

    def _wake(self) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    async def close(self) -> None:
        for connection in list(self._open):
            connection.reusable = False
            if connection.transport is not None:
                connection.transport.close()
        self._idle.clear()
        self._open.clear()
        for waiter in self._waiting:  # a call still waiting for a connection gets none
            if not waiter.done():
                waiter.set_exception(WireError("the connections were closed"))
        self._waiting.clear()
        await asyncio.sleep(0)  # the transports' connection_lost run
