"""What a seat does with the answers a real server gives that no retry can change, and with a server too slow.

- A request the server refuses (400, 401, 403, 404, 413, 422) is sent once: no transport retry, no re-ask (the same
  request would be refused again); the game stops there, saved and resumable, with the server's words and what to
  fix (never a default: a result is not made of failures).
- A context overflow, in each server's own words (llama.cpp's `exceed_context_size_error`, OpenAI's
  `context_length_exceeded`, vLLM's and Ollama's messages), compacts the conversation and makes one new attempt.
- `timeout_s` is a deadline per attempt: a server that drips a byte at a time cannot hold a call past it
  (security issue: 39.5 s against `timeout_s = 20`).

The servers here are small aiohttp apps on 127.0.0.1 whose error bodies copy the real servers' formats (read from
llama.cpp's tools/server sources, OpenAI's API reference, vLLM's and Ollama's issue threads).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from llmkit import llm_player, llm_spec, play, serve_app

from arena.agents import resolve_agent
from arena.engine import load_rules
from arena.llm.compaction import Budget
from arena.llm.errors import overflow_of
from arena.orchestrator import GameStopped
from arena.players.base import Player
from arena.players.factory import build_player
from arena.standin import valid_answer
from arena.transcript import load

LLAMA_OVERFLOW = {
    "error": {
        "code": 400,
        "message": "request (8534 tokens) exceeds the available context size (8192 tokens), try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 8534,
        "n_ctx": 8192,
    }
}
OPENAI_OVERFLOW = {
    "error": {
        "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130123 "
        "tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}
VLLM_OVERFLOW = {
    "error": {
        "message": "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. "
        "Please reduce the length of the input messages.",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }
}
OLLAMA_OVERFLOW = {"error": {"message": "the input length exceeds the context length", "type": "api_error"}}
BAD_REQUEST = {"error": {"code": 400, "message": "Failed to parse grammar", "type": "invalid_request_error"}}


@pytest.mark.parametrize(
    ("body", "prompt", "window"),
    [
        (LLAMA_OVERFLOW, 8534, 8192),
        (OPENAI_OVERFLOW, 130123, 128000),
        (VLLM_OVERFLOW, 5000, 4096),
        (OLLAMA_OVERFLOW, 0, 0),
    ],
)
def test_each_servers_overflow_is_recognised(body: dict[str, Any], prompt: int, window: int) -> None:
    found = overflow_of(400, body)
    assert found is not None and (found.prompt_tokens, found.context_tokens) == (prompt, window)


def test_other_errors_are_not_overflows() -> None:
    assert overflow_of(400, BAD_REQUEST) is None
    assert overflow_of(429, LLAMA_OVERFLOW) is None
    assert overflow_of(401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}) is None


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


async def _serve(handler: Handler) -> tuple[web.AppRunner, str]:
    runner, port = await serve_app(handler)
    return runner, f"http://127.0.0.1:{port}/v1"


def _answer(body: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    schema = body["response_format"]["json_schema"]["schema"]
    text = json.dumps(valid_answer(schema, rng))
    message = {"role": "assistant", "content": text}
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 3}}
    timings = {"cache_n": 3, "prompt_n": 7, "prompt_ms": 1.5, "predicted_n": 5, "predicted_ms": 2.5}
    return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "model": "m", "usage": usage,
            "timings": timings}  # fmt: skip


async def _five_seat_game(tmp_path: Path, handler: Handler, **spec_fields: Any) -> Any:
    rules = load_rules("fiim")
    runner, base_url = await _serve(handler)
    try:
        spec = llm_spec(base_url, "json_schema", **spec_fields)
        players: dict[int, Player] = {}
        for seat in (1, 2, 3):
            player = llm_player(spec, seat, rules)
            player.conversation.budget = Budget.of(spec.context_tokens, "en")
            players[seat] = player
        bot = resolve_agent("bot:heuristic")
        for seat in range(4, 11):  # bots for the other seats
            players[seat] = build_player(bot, seat, seed=2, rules=rules, lang="en")
        specs = {s: (spec if s <= 3 else bot) for s in players}
        path = tmp_path / "game.jsonl"
        await play(rules, 2, players, specs, path)
    finally:
        await runner.cleanup()
    return load(path)


async def test_a_refused_request_is_sent_once_and_stops_the_game(tmp_path: Path, api_key: str) -> None:
    """A request the server refuses is refused again on every retry: it is sent once, never re-asked, and, since the
    seat got no answer from its model, the game stops there (saved, resumable, the stop recorded) instead of being
    finished on defaults (#31)."""
    requests = 0

    async def handler(request: web.Request) -> web.Response:
        nonlocal requests
        requests += 1
        return web.json_response(BAD_REQUEST, status=400)

    with pytest.raises(GameStopped) as stopped:
        await _five_seat_game(tmp_path, handler)
    transcript = load(tmp_path / "game.jsonl")
    calls = transcript.calls
    assert calls and requests == len(calls) == 1  # sent once: no transport retry, no re-ask
    assert "HTTP 400" in (calls[0].error or "") and "Failed to parse grammar" in (calls[0].error or "")
    assert not [i for i in transcript.inputs if i.seat in (1, 2, 3)]  # no default, no refusal: nothing applied
    assert transcript.status == "started" and transcript.end is None  # resumable
    [stop] = transcript.stops
    assert stop.seat == stopped.value.stop.seat and stop.reason.startswith("the server refused the request: HTTP 400")
    assert "check the agent's settings" in stop.fix and str(stopped.value).count("\n") == 0  # one line


async def test_an_overflow_compacts_and_tries_once_more(tmp_path: Path, api_key: str) -> None:
    rng = random.Random(1)
    limit = 9000  # characters: a prompt above it does not "fit" this server

    async def handler(request: web.Request) -> web.Response:
        body = await request.json()
        size = sum(len(str(m.get("content") or "")) for m in body["messages"])
        if size > limit:
            return web.json_response(LLAMA_OVERFLOW, status=400)
        return web.json_response(_answer(body, rng))

    # the budget says 32k, far more than the server has: only the server's overflow can trigger compaction
    transcript = await _five_seat_game(tmp_path, handler, context_tokens=32768)
    assert transcript.end is not None and transcript.end.status == "complete"
    calls = transcript.calls
    overflows = [i for i, c in enumerate(calls) if "context overflow" in (c.error or "")]
    assert overflows
    for index in overflows:  # each overflow is followed by its one compacted attempt, which was answered
        after = calls[index + 1]
        assert after.seat == calls[index].seat and after.compaction == "overflow"
        assert after.attempt == calls[index].attempt + 1 and after.parsed is not None
    defaults = [i for i in transcript.inputs if i.op == "default" and i.seat in (1, 2, 3)]
    assert not [d for d in defaults if "context" in (d.reason or "")]
    answered = [c for c in calls if c.parsed is not None]
    assert all(c.timings == {"cache_n": 3.0, "prompt_n": 7.0, "prompt_ms": 1.5, "predicted_n": 5.0,
                             "predicted_ms": 2.5} for c in answered)  # fmt: skip


async def test_a_slow_drip_cannot_hold_an_attempt_past_its_deadline(api_key: str) -> None:
    async def handler(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        for _ in range(200):  # a byte every 0.1 s: each read is quick, the whole answer never comes
            await response.write(b" ")
            await asyncio.sleep(0.1)
        return response

    runner, base_url = await _serve(handler)
    try:
        from arena.llm.client import ClientSettings, LLMClient
        from arena.llm.modes import Mode
        from arena.llm.retry import RetryPolicy

        settings = ClientSettings(model="m", base_url=base_url, api_key="k", timeout_s=1.0, retry=RetryPolicy(attempts=2, backoff=0.01, max_wait=0.05, jitter=0.0))  # noqa: E501
        client = LLMClient(settings)
        started = time.perf_counter()
        result = await client.complete([{"role": "user", "content": "hi"}], mode=Mode.PROMPT, name="x", schema={},
                                       max_tokens=5)  # fmt: skip
        took = time.perf_counter() - started
        await client.close()
    finally:
        await runner.cleanup()
    assert result.completion is None and result.final_error is not None
    assert result.final_error.error.startswith("timeout")
    assert len(result.failures) == 1  # two attempts of about a second each
    # the deadline, not the drip (20 s an attempt), ended each: bounds far from both, so a loaded machine passes
    assert all(f.latency_ms < 10_000 for f in [*result.failures, result.final_error])
    assert took < 15
