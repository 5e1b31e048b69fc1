"""The stand-in's server: `FakeServer`, which answers `POST /v1/chat/completions` on 127.0.0.1 as a provider would.

Each answer is in the shape of the Chat Completions API reference (content JSON for `response_format`, a forced
`tool_calls` entry for tools, a fenced block in prose for the prompt mode, `usage` with
`prompt_tokens_details.cached_tokens`), after a fixed latency. The decision is drawn from the request's own schema
(`answers.py`), seeded by the request body, so it is always of the right shape and legal. With `vary`, the n-th
identical request gets the n-th draw (a repeated game goes another way, as with a sampling model); `salt` gives
another set of draws. A `FaultPlan` (`faults.py`) turns chosen requests into faults, acted out here; `metering.py`
counts the tokens. The transport is `transport.py`: one asyncio event loop (in a daemon thread for the in-process
server of the tests, the main thread's for `python -m arena.standin` and `arena stand-in`), HTTP/1.1 by h11, each
answer sent `latency` after its request arrived.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import signal
import threading
from collections import Counter
from collections.abc import Iterator
from typing import IO, Any

import jiter

from arena.standin.answers import canonical, schema_of, stable_options, valid_answer
from arena.standin.faults import FaultPlan
from arena.standin.metering import Meter, ServerStats
from arena.standin.transport import Gate, HttpRequest, HttpServer, Reply

_NOT_FOUND = b'{"error": {"message": "not found"}}'


class _State:
    """What the server remembers between requests, and the answer to each; every call runs on the server's loop."""

    def __init__(
        self, latency_s: float, plan: FaultPlan, model_suffix: str, salt: str = "", vary: bool = False
    ) -> None:
        self.latency_s = latency_s
        self.salt = salt.encode()  # mixed into every answer's seed: another salt, other answers to the same prompts
        self.vary = vary  # the n-th identical request gets the n-th draw, as a model sampling at a temperature would
        self.repeats: Counter[bytes] = Counter()
        self.seen: Counter[bytes] = Counter()  # how many times each request body came (a mixed plan's draws)
        self.plan = plan
        self.model_suffix = model_suffix
        self.stats = ServerStats()
        self.meter = Meter(self.stats)
        self.record: IO[str] | None = None  # every POST body, one JSON string a line (`--record`)
        self.http: HttpServer | None = None  # the transport serving it (its count of requests in flight)

    def handle(self, request: HttpRequest) -> Reply:
        path = request.target.decode("latin-1").rstrip("/")
        if request.method == b"GET":
            return self._get(path)
        if request.method != b"POST":
            return Reply(501, b'{"error": {"message": "unsupported method"}}')
        if not path.endswith("/chat/completions"):
            return Reply(404, _NOT_FOUND)
        return self._post(request)

    def _get(self, path: str) -> Reply:
        if path.endswith("/stats"):  # for a benchmark that runs the server in another process
            stats = self.stats
            body = {
                "requests": stats.requests,
                "prompt_tokens": stats.prompt_tokens,
                "cached_tokens": stats.cached_tokens,
                "schema_tokens": stats.schema_tokens,
                "cached_schema_first": stats.cached_schema_first,
                "injected": stats.injected,
                "peak_in_flight": self.http.peak_in_flight if self.http is not None else 0,
            }
            return Reply(200, json.dumps(body).encode())
        if path.endswith("/models"):
            body = {"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "local"}]}
            return Reply(200, json.dumps(body).encode())
        return Reply(404, _NOT_FOUND)

    def _post(self, request: HttpRequest) -> Reply:
        raw = request.body
        if self.record is not None:
            self.record.write(json.dumps(raw.decode()) + "\n")
        body = _loads(raw)
        name, schema, mode = schema_of(body)
        stable = stable_options(body, schema)
        sent_name = name  # the name the request used (`decision` for the stable schema): the answer's tool name
        if stable is not None:  # answer from the legal options; faults are planned per decision kind as before
            name, schema = f"{stable[0]}_decision", stable[1]
        stats = self.stats
        stats.requests += 1
        stats.by_schema[name] += 1
        nth = stats.by_schema[name]
        auth = request.header(b"authorization")
        if auth:
            stats.authorization_seen.add(auth)
        fault = self.plan.faults.get((name, nth)) or self.plan.faults.get(("*", stats.requests))
        if fault is None and self.plan.mix:
            digest = hashlib.sha256(raw).digest()
            fault = self.plan.draw(digest, self.seen[digest])
            self.seen[digest] += 1
            if fault == "overflow" and len(body.get("messages") or []) < 4:
                fault = None  # a drawn overflow forces a compaction: a first prompt (nothing to compact) fits
        if fault:
            stats.injected.append((fault, name, nth))
        latency = self.latency_s  # the answer leaves `latency` after the request arrived, whatever the work took
        if fault == "rate_limit":
            error = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
            return Reply(429, json.dumps(error).encode(), (("Retry-After", "1"), ("retry-after-ms", "50")), latency)
        if fault == "rate_limit_bare":
            error = {"error": {"message": "Too many requests", "type": "requests", "code": "rate_limit_exceeded"}}
            return Reply(429, json.dumps(error).encode(), delay_s=latency)
        if fault == "server_error":
            error = {"error": {"message": "The server had an error", "type": "server_error"}}
            return Reply(500, json.dumps(error).encode(), delay_s=latency)
        if fault == "unavailable":
            error = {"error": {"message": "Service Unavailable", "type": "server_error"}}
            return Reply(503, json.dumps(error).encode(), delay_s=latency)
        if fault == "cut_connection":
            return Reply(0, cut=True, delay_s=latency)
        if fault == "overflow":  # llama.cpp's body (arena/llm/errors.py), with the metered prompt size
            size = self.meter.prompt_size(body)
            message = f"request ({size} tokens) exceeds the available context size ({size - 1} tokens)"
            refused = {"code": 400, "message": message, "type": "exceed_context_size_error", "n_prompt_tokens": size,
                       "n_ctx": size - 1}  # fmt: skip
            return Reply(400, json.dumps({"error": refused}).encode(), delay_s=latency)
        if fault == "server_error_usage":
            usage = self.meter.usage(body, "", raw)
            error = {"error": {"message": "The server had an error after reading the prompt"}, "usage": usage}
            return Reply(500, json.dumps(error).encode(), delay_s=latency)
        if fault == "timeout":  # past the latency, `hang_s` more before a late 504
            return Reply(504, b'{"error": {"message": "too late"}}', delay_s=latency + self.plan.hang_s)
        if fault == "unauthorized":
            token = (auth or "").removeprefix("Bearer ")
            masked = f"{token[:8]}{'*' * max(len(token) - 12, 0)}{token[-4:]}"
            error = {"error": {"message": f"Incorrect API key provided: {masked}.", "code": "invalid_api_key"}}
            return Reply(401, json.dumps(error).encode())
        if fault == "huge_body":  # the client may hang up early (it reads a bounded body)
            return Reply(200, chunks=_huge_body)
        if fault == "nested_body":
            return Reply(200, b"[" * 100_000 + b"]" * 100_000)
        if fault == "huge_answer":
            answer = {"model": "fake-model", "choices": [{"index": 0, "finish_reason": "stop",
                      "message": {"role": "assistant", "content": "{" + " " * 300 * 1024 + "}"}}]}  # fmt: skip
            return Reply(200, json.dumps(answer).encode())
        if fault == "bad_body":
            return Reply(200, b'{"id": "chatcmpl-broken", "choices": [ {"mess', delay_s=latency)
        completion = self._completion(body, raw, name, schema, mode, fault, stable is not None, sent_name)
        return Reply(200, json.dumps(completion).encode(), delay_s=latency)

    def _completion(
        self,
        body: dict[str, Any],
        raw: bytes,
        name: str,
        schema: dict[str, Any] | None,
        mode: str,
        fault: str | None,
        stable: bool = False,
        sent_name: str = "",
    ) -> dict[str, Any]:
        key = body.get("prompt_cache_key")
        if isinstance(key, str) and schema is not None:
            # one key per seat: seed by the seat, the decision's legal options and the conversation's length, not
            # the wording, so two request shapes (stable, per-request) of the same seeds play the same game
            basis = json.dumps([key, name, canonical(schema), len(body.get("messages") or [])]).encode()
        else:
            basis = raw
        hashed = hashlib.sha256(self.salt)
        hashed.update(basis)
        digest = hashed.digest()
        if self.vary:  # a repeated game (the same seating again) draws other answers from its first repeat on
            nth = self.repeats[digest]
            self.repeats[digest] += 1
            if nth:
                digest = hashlib.sha256(digest + nth.to_bytes(8, "big")).digest()
        seed = int.from_bytes(digest[:8], "big")
        rng = random.Random(seed)
        answer = valid_answer(schema or {}, rng, overlong=fault == "overlong")
        if fault == "wrong_schema":
            answer = {"thoughts": "hmm", "decision": "maybe"}
        elif fault == "illegal_target":
            for key in ("target", "nominate"):
                if key in answer:
                    answer[key] = 99
            if "targets" in answer or "kill_order" in answer:
                answer["targets" if "targets" in answer else "kill_order"] = [99]
            if "vote" in answer:
                answer["vote"] = "perhaps"
        if stable and fault != "wrong_schema":  # the stable shape: {reasoning, decision: {fields}}
            reasoning = answer.pop("reasoning", "")
            answer = {"reasoning": reasoning, "decision": answer}
        text = json.dumps(answer, ensure_ascii=False)
        finish = "stop"
        refusal = None
        if fault == "bad_json":
            text = "I think seat 3 is suspicious, so my vote goes there. {reasoning: no quotes, target: 3"
        elif fault == "refusal":
            text, refusal = "", "I'm sorry, but I can't help with that."
        elif fault == "empty":
            text = ""
        elif fault == "cut_off":  # cut inside the longest text field, as a token limit does
            start = max(text.find('"speech": "'), text.find('"message": "'))
            text, finish = text[: start + 16 if start > 0 else max(len(text) // 2, 12)], "length"
        if mode == "prompt" and text and fault not in ("bad_json", "cut_off"):
            text = f"Here is my decision.\n```json\n{text}\n```"
        message: dict[str, Any] = {"role": "assistant", "content": text or None, "refusal": refusal}
        if mode == "tools" and fault not in ("refusal", "empty", "bad_json"):
            function = {"name": sent_name or name, "arguments": text}
            call = {"id": f"call_{seed % 10**8}", "type": "function", "function": function}
            message = {"role": "assistant", "content": None, "refusal": None, "tool_calls": [call]}
            finish = "length" if fault == "cut_off" else "tool_calls"
        usage = self.meter.usage(body, text, raw)
        return {
            "id": f"chatcmpl-{seed % 10**12}",
            "object": "chat.completion",
            "created": 1_790_000_000,
            "model": f"{body.get('model', 'fake')}{self.model_suffix}",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": usage,
            "system_fingerprint": "fp_local",
        }


def _loads(raw: bytes) -> Any:
    """`json.loads(raw)`, by jiter (openai's own parser: the same objects, a third of the time on these bodies) when
    it can; by json when it cannot (a lone surrogate escape, a body not in UTF-8), so a body reads as json reads it."""
    try:
        return jiter.from_json(raw)
    except ValueError:
        return json.loads(raw)


def _huge_body() -> Iterator[bytes]:
    """A 20 MB answer in 64 KiB chunks."""
    yield b'{"model":"fake-model","choices":[{"index":0,"message":{"role":"assistant","content":"'
    part = b"A" * 65536
    for _ in range(320):
        yield part
    yield b'"}}]}'


class FakeServer:
    """Start with `with FakeServer(...) as server:`; point clients at `server.base_url`. `start()` serves on an
    event loop in a daemon thread; `serve()` serves on the running loop instead (`arena stand-in`)."""

    def __init__(
        self,
        latency_s: float = 0.0,
        plan: FaultPlan | None = None,
        model_suffix: str = "-2026-01-01",
        port: int = 0,
        salt: str = "",
        vary: bool = False,
        hold_until: int = 0,
    ) -> None:
        """`hold_until = N`: no reply goes until N requests are in flight at once (then none is held; see `Gate`)."""
        self._state = _State(latency_s, plan or FaultPlan(), model_suffix, salt, vary)
        gate = Gate(hold_until)
        self._http = HttpServer(self._state.handle, "127.0.0.1", port, gate)  # bound now: a taken port fails here
        self._state.http = self._http

    @property
    def base_url(self) -> str:
        host, port = self._http.address
        return f"http://{host!s}:{port}/v1"

    @property
    def stats(self) -> ServerStats:
        self._state.stats.peak_in_flight = self._http.peak_in_flight
        return self._state.stats

    def record_to(self, out: IO[str]) -> FakeServer:
        """Write every POST body to `out`, one JSON string a line (the bodies `bench/standin.py` replays)."""
        self._state.record = out
        return self

    @property
    def started(self) -> bool:
        """True once `start()` serves it in a thread of its own."""
        return self._http.threaded

    def start(self) -> FakeServer:
        self._http.start()
        return self

    async def serve(self) -> None:
        """Serve on the running event loop until cancelled (or `stop()`)."""
        await self._http.serve()

    def stop(self) -> None:
        self._http.stop()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_until_interrupted(server: FakeServer) -> None:
    """Serve `server` on this thread's event loop until Ctrl-C or SIGTERM, then stop it. (One `start()`ed already
    serves in its thread: then wait for Ctrl-C.)"""

    async def run() -> None:
        with contextlib.suppress(NotImplementedError):  # no signal handlers in this loop (Windows)
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, server.stop)
        await server.serve()

    try:
        if server.started:
            threading.Event().wait()
        else:
            asyncio.run(run())
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
