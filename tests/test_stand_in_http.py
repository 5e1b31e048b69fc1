"""The stand-in's transport (`arena/standin/transport.py`) speaks HTTP/1.1 as clients expect, and its metering counts
cached tokens exactly as the plain definition does.

Everything runs on 127.0.0.1: raw sockets, so that the tests see the bytes (keep-alive, pipelining, chunked request
bodies, a client that hangs up mid-answer, a burst of hundreds of connections), and the server as a process where
its signals and `--record` are the point.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.standin import FakeServer, FaultPlan, tokens
from arena.standin.metering import message_text
from arena.standin.server import _State
from arena.standin.transport import Gate, HttpRequest, HttpServer, Reply

BODY = json.dumps(
    {
        "model": "fake-model",
        "messages": [{"role": "system", "content": "You play Mafia."}, {"role": "user", "content": "Vote now."}],
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "vote_decision",
                "schema": {"type": "object", "properties": {"reasoning": {"type": "string"}, "vote": {"enum": [2, 5]}}},
            },
        },
    }
).encode()


def _post(body: bytes = BODY, path: str = "/v1/chat/completions") -> bytes:
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


def _read_response(sock: socket.socket, buffer: bytearray) -> tuple[int, dict[str, str], bytes]:
    """One response off `sock` (Content-Length bodies), leaving what follows in `buffer`."""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection"
        buffer += chunk
    head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers["content-length"])
    while len(rest) < length:
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection mid-body"
        rest += chunk
    buffer[:] = rest[length:]
    return int(lines[0].split()[1]), headers, rest[:length]


def _connect(server: FakeServer) -> socket.socket:
    host, port = server.base_url.removeprefix("http://").removesuffix("/v1").split(":")
    return socket.create_connection((host, int(port)), timeout=10)


def test_keep_alive_and_pipelined_requests_are_answered_in_order() -> None:
    with FakeServer() as server, _connect(server) as sock:
        sock.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n" + _post() + _post(path="/v1/nowhere"))
        buffer = bytearray()
        models, completion, missing = (_read_response(sock, buffer) for _ in range(3))
        sock.sendall(_post())  # the same connection still serves
        again = _read_response(sock, buffer)
    assert models[0] == 200 and json.loads(models[2])["data"][0]["id"] == "fake-model"
    assert completion[0] == 200 and completion[1]["content-type"] == "application/json"
    assert json.loads(json.loads(completion[2])["choices"][0]["message"]["content"])["vote"] in (2, 5)
    assert missing[0] == 404
    assert again[0] == 200 and server.stats.requests == 2


def test_a_request_followed_at_once_by_the_clients_eof_is_answered_then_closed() -> None:
    """A client that sends its requests and closes its write side at once still gets every answer, when due, and
    then the connection closes (the write side is kept open while a reply is pending)."""
    with FakeServer(latency_s=0.05) as server, _connect(server) as sock:
        sock.sendall(_post() + _post())  # two pipelined requests, then the write side closed
        sock.shutdown(socket.SHUT_WR)
        buffer = bytearray()
        first, second = _read_response(sock, buffer), _read_response(sock, buffer)
        tail = sock.recv(65536)
    assert first[0] == second[0] == 200 and server.stats.requests == 2
    assert tail == b"" and not buffer  # closed after the answers, nothing more sent


def test_a_chunked_request_body_gets_the_answer_its_plain_twin_gets() -> None:
    parts = (BODY[:10], BODY[10:77], BODY[77:])
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in parts) + b"0\r\n\r\n"
    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    answers = []
    for request in (_post(), head + chunked):
        with FakeServer() as server, _connect(server) as sock:  # a fresh server each: the same metering state
            for byte in range(0, len(request), 50):  # in pieces, as a slow client sends
                sock.sendall(request[byte : byte + 50])
            answers.append(_read_response(sock, bytearray()))
    assert answers[0][0] == answers[1][0] == 200
    assert answers[0][2] == answers[1][2]


def test_other_methods_and_broken_requests_get_an_error_not_a_hang() -> None:
    with FakeServer() as server:
        with _connect(server) as sock:
            sock.sendall(b"DELETE /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
            assert _read_response(sock, bytearray())[0] == 501
            sock.sendall(b"HEAD /v1/models HTTP/1.1\r\nHost: x\r\n\r\n" + _post(path="/v1/nowhere"))
            buffer = bytearray()
            while b"\r\n\r\n" not in buffer:
                buffer += sock.recv(65536)
            head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 501") and b"content-length: " in head.lower()  # and no body:
            assert _read_response(sock, bytearray(rest))[0] == 404  # the next answer follows at once
        with _connect(server) as sock:
            sock.sendall(b"this is not HTTP\r\n\r\n")
            status, _, _ = _read_response(sock, bytearray())
            assert status == 400
            assert sock.recv(10) == b""  # and the connection is closed


def test_a_client_that_hangs_up_in_a_huge_body_leaves_the_server_serving() -> None:
    with FakeServer(plan=FaultPlan().add("huge_body", "vote_decision", 1)) as server:
        with _connect(server) as sock:
            sock.sendall(_post())
            got = b""
            while len(got) < 200_000:
                got += sock.recv(65536)
            assert got.startswith(b"HTTP/1.1 200") and b"transfer-encoding: chunked" in got.lower()
        with _connect(server) as sock:  # the 20 MB were not all written: the next client is served at once
            sock.sendall(_post())
            status, _, body = _read_response(sock, bytearray())
    assert status == 200 and json.loads(body)["object"] == "chat.completion"
    assert server.stats.injected == [("huge_body", "vote_decision", 1)]


def test_a_burst_of_hundreds_of_connections_is_all_answered() -> None:
    async def one(port: int) -> int:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(_post())
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(next(h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")).split(b":")[1])
        await reader.readexactly(length)
        writer.close()
        return int(head.split()[1])

    async def burst(port: int) -> list[int]:
        return await asyncio.gather(*(one(port) for _ in range(700)))

    with FakeServer(latency_s=0.05) as server:
        port = int(server.base_url.rsplit(":", 1)[1].removesuffix("/v1"))
        statuses = asyncio.run(burst(port))
    assert statuses == [200] * 700 and server.stats.requests == 700


def test_the_server_process_records_bodies_and_stops_on_sigterm(tmp_path: Path) -> None:
    record = tmp_path / "bodies.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.standin", "--port", "0", "--record", str(record)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline().strip().rsplit(":", 1)[1].removesuffix("/v1"))
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(_post())
            assert _read_response(sock, bytearray())[0] == 200
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert process.returncode == 0 and "Traceback" not in err
    assert [json.loads(line).encode() for line in record.read_text(encoding="utf-8").splitlines()] == [BODY]


# The prefix cache as first written: compare each remembered prompt message by message, token by token (each
# message's tokens as the stand-in reads them: `tokens(message_text(m))`).
def _reference_shared(previous: list[tuple[str, ...]], current: list[tuple[str, ...]]) -> int:
    shared = 0
    for before, now in zip(previous, current, strict=False):
        if before == now:
            shared += len(now)
            continue
        common = 0
        for x, y in zip(before, now, strict=False):
            if x != y:
                break
            common += 1
        return shared + common
    return shared


def _reference_remember(recent: list[list[tuple[str, ...]]], prompt: list[tuple[str, ...]]) -> int:
    best, where = 0, -1
    for index, previous in enumerate(recent):
        shared = _reference_shared(previous, prompt)
        if shared > best:
            best = shared
            if shared == sum(len(m) for m in previous):
                where = index
    if where >= 0:
        recent[where] = prompt
    else:
        recent.append(prompt)
        del recent[:-32]
    return best


def _bodies(rng: random.Random) -> list[dict[str, Any]]:
    """Interleaved conversations of many games (more than a start remembers): twins (equal games), forks, re-asks
    whose last message grows or changes its last word, tool calls, two schemas."""
    words = ["seat", "vote", "3", "4", "quiet", "night", "day", "I", "think", ",", "."]
    schemas = [{"type": "json_schema", "json_schema": {"name": n, "schema": {"type": "object"}}} for n in "ab"]
    starts = [[{"role": "system", "content": f"Rules {k}."}, {"role": "user", "content": "Day 1."}] for k in range(2)]
    games: list[list[dict[str, Any]]] = [list(starts[g % 2]) for g in range(80)]
    bodies = []
    for _ in range(1500):
        g = rng.randrange(len(games))
        history = games[g]
        text = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 12)))
        luck = rng.random()
        if luck < 0.1 and len(history) > 3:  # a fork: a re-ask from an earlier point
            history = games[g] = history[: rng.randrange(2, len(history))]
        elif luck < 0.2 and len(history) > 2:  # the same request, its last message grown or its last word changed
            last = history[-1]["content"] or ""
            grown = f"{last} {text}" if luck < 0.15 else f"{last.rsplit(' ', 1)[0]} {rng.choice(words)}"
            history[-1] = {"role": "user", "content": grown}
        if luck >= 0.15:
            if rng.random() < 0.15:
                call = {"id": "c", "type": "function", "function": {"name": "vote", "arguments": text}}
                history.append({"role": "assistant", "content": None, "tool_calls": [call]})
            else:
                history.append({"role": "assistant", "content": text})
            history.append({"role": "user", "content": text if rng.random() < 0.3 else f"{text} {len(history)}"})
        if g < 20 and rng.random() < 0.5:
            games[g + 20] = list(history)  # a twin game, word for word so far
        bodies.append({"model": "m", "messages": list(history), "response_format": rng.choice(schemas)})
    return bodies


def test_the_cached_token_figures_are_those_of_the_plain_definition() -> None:
    state = _State(0.0, FaultPlan(), "")
    plain: dict[str, list[list[tuple[str, ...]]]] = {}
    schema_first: dict[str, list[list[tuple[str, ...]]]] = {}
    expected_cached = expected_first = 0
    for body in _bodies(random.Random(5)):
        raw = json.dumps(body).encode()
        reply = state.handle(HttpRequest(b"POST", b"/v1/chat/completions", [], raw, 0.0))
        prompt = [(str(m.get("role", "")), *tokens(message_text(m))) for m in body["messages"]]
        key = json.dumps(body["messages"][:2], sort_keys=True)
        schema = tuple(tokens(json.dumps({"response_format": body["response_format"]}, sort_keys=True)))
        cached = _reference_remember(plain.setdefault(key, []), prompt)
        expected_cached += cached
        expected_first += _reference_remember(schema_first.setdefault(key, []), [schema, *prompt])
        assert json.loads(reply.body)["usage"]["prompt_tokens_details"]["cached_tokens"] == cached
    assert state.stats.cached_tokens == expected_cached > 0
    assert state.stats.cached_schema_first == expected_first > expected_cached


def test_the_stand_in_records_its_peak_of_requests_in_flight() -> None:
    """Five requests sent at once on five connections are held together (by the gate, until all five are in: no
    latency to outlast on a busy machine), then two one after the other: the peak stays five, in `stats` and from
    `GET /stats` (a bench reads it from another process)."""
    with FakeServer(hold_until=5) as server:
        socks = [_connect(server) for _ in range(5)]
        for sock in socks:
            sock.sendall(_post())
        for sock in socks:
            assert _read_response(sock, bytearray())[0] == 200
        for _ in range(2):
            socks[0].sendall(_post())
            assert _read_response(socks[0], bytearray())[0] == 200
        socks[1].sendall(b"GET /stats HTTP/1.1\r\nHost: x\r\n\r\n")
        status, _, body = _read_response(socks[1], bytearray())
        for sock in socks:
            sock.close()
        assert server.stats.peak_in_flight == 5 and server.stats.requests == 7
    assert status == 200 and json.loads(body)["peak_in_flight"] == 5


def test_a_gate_the_client_never_fills_lets_its_replies_go_and_the_peak_says_so() -> None:
    """The gate waits for an event, not a time; if the event never comes, its replies still go (after `give_up_s`),
    so a test that expected more requests at once fails on its count instead of hanging."""
    server = HttpServer(lambda request: Reply(200, b"{}"), gate=Gate(at=3, give_up_s=0.2))
    server.start()
    try:
        sock = socket.create_connection(server.address)
        sock.settimeout(10)
        sock.sendall(_post())
        assert _read_response(sock, bytearray())[0] == 200
        sock.close()
        assert server.peak_in_flight == 1 and server.gate.at == 0 and server.gate.held == []
    finally:
        server.stop()
