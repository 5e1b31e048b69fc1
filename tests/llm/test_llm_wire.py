"""The direct path's own connections (`arena/llm/wire.py`) against a raw server on 127.0.0.1 that writes exactly the
bytes each case needs: every framing is read, a stalled or broken answer is the right error, a connection is reused
only when it is whole, the limit holds, a redirect is not followed, and a header cannot smuggle a line."""

from __future__ import annotations

import asyncio
import gzip
import json
import ssl
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import openai
import pytest

from arena.llm.body import MAX_BODY_BYTES, AnswerTooLarge
from arena.llm.direct import DirectPost
from arena.llm.wire import Answer, Pool, WireError, WireTimeout

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
BODY = b'{"ok":true}'


class RawServer:
    """A TCP server on 127.0.0.1 running `handler` per connection; counts connections and keeps the requests."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.connections = 0
        self.open_now = 0
        self.most_open = 0
        self.requests: list[bytes] = []
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> RawServer:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1/chat/completions"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.open_now += 1
        self.most_open = max(self.most_open, self.open_now)
        try:
            await self.handler(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self.open_now -= 1
            writer.close()

    async def request(self, reader: asyncio.StreamReader) -> bytes:
        """One request off the connection (headers and its Content-Length body)."""
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        length = next(int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length"))
        request = head + await reader.readexactly(length)
        self.requests.append(request)
        return request


def _answer(body: bytes = BODY, *headers: str, status: str = "200 OK") -> bytes:
    lines = [f"HTTP/1.1 {status}", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def _framed(body: bytes = BODY, *headers: str, status: str = "200 OK") -> bytes:
    return _answer(body, f"Content-Length: {len(body)}", *headers, status=status)


async def _posts(url: str, count: int = 1, **options: Any) -> list[Answer]:
    pool = Pool(url, {"Authorization": "Bearer sk-wire-test"}, **{"timeout_s": 5.0, **options})
    try:
        return [await pool.post(b'{"n":%d}' % n) for n in range(count)]
    finally:
        await pool.close()


async def test_keep_alive_answers_share_one_connection_and_the_request_is_whole() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await server.request(reader)
            writer.write(_framed())

    async with RawServer(handler) as server:
        answers = await _posts(server.url, 3)
    assert [a.body for a in answers] == [BODY] * 3 and server.connections == 1
    head, _, body = server.requests[1].partition(b"\r\n\r\n")
    assert head.startswith(b"POST /v1/chat/completions HTTP/1.1\r\n") and body == b'{"n":1}'
    assert b"\r\nAuthorization: Bearer sk-wire-test" in head and b"\r\nContent-Length: 7" in head


@pytest.mark.parametrize("framing", ["chunked", "until-close", "gzip", "deflate", "after-100-continue"])
async def test_every_framing_gives_the_same_body(framing: str) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.request(reader)
        if framing == "chunked":
            writer.write(_answer(b"4\r\n" + BODY[:4] + b"\r\n7\r\n" + BODY[4:] + b"\r\n0\r\n\r\n",
                                 "Transfer-Encoding: chunked"))  # fmt: skip
        elif framing == "until-close":
            writer.write(_answer(BODY[:5]))
            await writer.drain()
            writer.write(BODY[5:])
            writer.close()
        elif framing == "after-100-continue":  # an interim answer nobody asked for, then the answer
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            await writer.drain()
            writer.write(_framed())
        elif framing == "gzip":
            writer.write(_framed(gzip.compress(BODY), "Content-Encoding: gzip"))
        else:
            import zlib

            writer.write(_framed(zlib.compress(BODY), "Content-Encoding: deflate"))
        await writer.drain()

    async with RawServer(handler) as server:
        (answer,) = await _posts(server.url)
    assert answer.status == 200 and answer.body == BODY


async def test_a_server_that_stops_answering_is_a_timeout() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.request(reader)
        writer.write(_answer(b"", f"Content-Length: {len(BODY)}"))  # the head, then nothing
        await asyncio.sleep(30)

    async with RawServer(handler) as server:
        with pytest.raises(WireTimeout):
            await _posts(server.url, timeout_s=0.3)


@pytest.mark.parametrize(
    ("reply", "says"),
    [
        (_framed(BODY)[:-4], "closed the connection before its answer was complete"),
        (b"SMTP ready\r\n\r\n", "not HTTP"),
        (_framed(b"xx", "Content-Encoding: br"), "encoded as 'br'"),
        (_framed(gzip.compress(BODY, mtime=0)[:-6], "Content-Encoding: gzip"), "ended early"),  # mtime=0: the
    ],  # same bytes in every process, as pytest-xdist's workers must collect the same tests
    ids=["cut short", "not HTTP", "brotli", "gzip cut short"],
)
async def test_a_broken_answer_is_a_connection_error_that_says_why(reply: bytes, says: str) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.request(reader)
        writer.write(reply)
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.close()

    async with RawServer(handler) as server:
        with pytest.raises(WireError, match=says):
            await _posts(server.url)


async def test_an_answer_over_the_bound_stops_at_it_even_compressed() -> None:
    bomb = gzip.compress(b" " * (MAX_BODY_BYTES * 4))

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.request(reader)
        writer.write(_framed(bomb, "Content-Encoding: gzip"))
        await writer.drain()

    async with RawServer(handler) as server:
        with pytest.raises(AnswerTooLarge) as caught:
            await _posts(server.url)
    assert MAX_BODY_BYTES < caught.value.size <= MAX_BODY_BYTES + 1 and caught.value.head.strip() == b""


async def test_a_closed_or_closing_connection_is_never_reused() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.request(reader)
        if server.connections == 1:  # says it will close, and leaves that to the client
            writer.write(_framed(BODY, "Connection: close"))
            await reader.read()
        else:  # answers, then drops the idle connection as a server's keep-alive timeout would
            writer.write(_framed())
            await writer.drain()
            await asyncio.sleep(0.05)

    async with RawServer(handler) as server:
        pool = Pool(server.url, {}, timeout_s=5.0)
        try:
            for _ in range(3):
                assert (await pool.post(b"{}")).body == BODY
                async with asyncio.timeout(30):  # the connection closed by either side, however slow the machine
                    while pool._open:
                        await asyncio.sleep(0.01)
        finally:
            await pool.close()
    assert server.connections == 3


async def test_the_connection_limit_holds_and_waiting_calls_are_answered() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await server.request(reader)
            await asyncio.sleep(0.02)
            writer.write(_framed())

    async with RawServer(handler) as server:
        pool = Pool(server.url, {}, timeout_s=5.0, limit=2)
        try:
            answers = await asyncio.gather(*(pool.post(b"{}") for _ in range(7)))
        finally:
            await pool.close()
    assert [a.body for a in answers] == [BODY] * 7 and server.most_open == 2


class _Busy:
    """A connection in use, as the pool counts it."""

    reusable = True
    transport = None


async def test_a_call_cancelled_as_its_turn_came_passes_the_turn_on() -> None:
    pool = Pool("http://127.0.0.1:9/v1/chat/completions", {}, timeout_s=5.0, limit=1)
    pool._open.add(_Busy())  # type: ignore[arg-type]  # the one connection allowed
    first, second = asyncio.create_task(pool._connection()), asyncio.create_task(pool._connection())
    await asyncio.sleep(0)  # both wait for a connection
    freed = SimpleNamespace(reusable=True)
    pool._idle.append(freed)  # type: ignore[arg-type]
    pool._wake()  # the first's turn: then it is cancelled before it runs
    first.cancel()
    assert await asyncio.wait_for(second, 5) is freed
    assert first.cancelled()


async def test_a_call_waiting_for_a_connection_fails_when_the_pool_closes() -> None:
    pool = Pool("http://127.0.0.1:9/v1/chat/completions", {}, timeout_s=5.0, limit=1)
    pool._open.add(_Busy())  # type: ignore[arg-type]
    waiting = asyncio.create_task(pool._connection())
    await asyncio.sleep(0)
    await pool.close()
    with pytest.raises(WireError, match="closed"):
        await asyncio.wait_for(waiting, 5)


async def test_a_cancelled_call_closes_its_connection() -> None:
    closed = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.request(reader)
        await reader.read()  # the client's close
        closed.set()

    async with RawServer(handler) as server:
        pool = Pool(server.url, {}, timeout_s=5.0)
        call = asyncio.create_task(pool.post(b"{}"))
        while not server.requests:
            await asyncio.sleep(0.01)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await asyncio.wait_for(closed.wait(), 5)
        assert not pool._open and not pool._idle
        await pool.close()


async def test_a_redirect_is_an_answer_and_never_followed() -> None:
    elsewhere: list[bytes] = []

    async def other(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        elsewhere.append(await reader.read(100))

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.request(reader)
        writer.write(_framed(b"", f"Location: {target.url}", status="307 Temporary Redirect"))
        await writer.drain()

    async with RawServer(other) as target, RawServer(handler) as server:
        (answer,) = await _posts(server.url)
        await asyncio.sleep(0.1)
    assert answer.status == 307 and target.connections == 0 and not elsewhere


@pytest.mark.parametrize("header", [{"X-Evil": "a\r\nHost: elsewhere"}, {"X-Evil\r\nHost": "b"}, {"X": "a\0"}])
async def test_a_header_cannot_smuggle_a_line(header: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="line break or NUL"):
        Pool("http://127.0.0.1:9/v1/chat/completions", header, timeout_s=1.0)


async def test_nothing_listening_is_a_connection_error() -> None:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    with pytest.raises(WireError, match="cannot connect"):
        await _posts(f"http://127.0.0.1:{port}/v1/chat/completions")


async def test_the_direct_path_turns_wire_failures_into_the_sdks_types() -> None:
    async def stall(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(10)
        await asyncio.sleep(30)

    async def drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(10)

    async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.request(reader)
        error = json.dumps({"error": {"message": "slow down"}}).encode()
        writer.write(_framed(error, "retry-after-ms: 250", "Content-Type: application/json", status="429 Too Many"))
        await writer.drain()

    expected: list[tuple[Handler, type[Exception], float]] = [
        (stall, openai.APITimeoutError, 0.3), (drop, openai.APIConnectionError, 30.0),
        (refuse, openai.RateLimitError, 30.0),
    ]  # fmt: skip
    for handler, error, timeout_s in expected:  # only the stall waits out its timeout
        async with RawServer(handler) as server:
            client = openai.AsyncOpenAI(api_key="sk-wire-test", base_url=server.url.rsplit("/chat", 1)[0])
            poster = DirectPost(client, timeout_s)
            try:
                with pytest.raises(error) as caught:
                    await poster.post({"model": "m", "messages": []})
            finally:
                await poster.close()
                await client.close()
        if error is openai.RateLimitError:
            assert caught.value.response.headers["retry-after-ms"] == "250"


async def test_tls_is_verified_and_a_trusted_server_is_read(tmp_path: Path) -> None:
    """An https URL is spoken over TLS with the certificate checked: a self-signed server is refused; the same server
    trusted (its certificate as the authority) answers through the same connection code."""
    from arena.tournament.tls import make_credentials

    cert, key = make_credentials(tmp_path)
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    served.load_cert_chain(cert, key)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(_framed())
        await writer.drain()

    server = await asyncio.start_server(handler, "127.0.0.1", 0, ssl=served)
    url = f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1/chat/completions"
    try:
        with pytest.raises(WireError, match="CERTIFICATE_VERIFY_FAILED"):
            await _posts(url)
        pool = Pool(url, {}, timeout_s=5.0)
        trusted = ssl.create_default_context(cafile=str(cert))
        trusted.check_hostname = False  # the test certificate names the cluster, not 127.0.0.1
        pool._ssl = trusted
        try:
            assert (await pool.post(b"{}")).body == BODY
        finally:
            await pool.close()
    finally:
        server.close()
