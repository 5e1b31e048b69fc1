"""The tournament's direct path (`arena/llm/direct.py`) sends what the SDK sends and reads what the SDK reads: the
same body bytes and headers to the same URL, the same Completion from the answer, and the SDK's exception types
(with the server's headers) for a refused request, so the retry layer and the shared limiter see no difference."""

from __future__ import annotations

import asyncio
import base64
import json
import os
from collections.abc import Awaitable, Callable
from typing import Any

import openai
import pytest
from aiohttp import web
from llmkit import serve_app
from openai.types.chat import ChatCompletion

from arena.llm.client import ClientSettings, LLMClient, _completion
from arena.llm.direct import DirectPost, History, dumps
from arena.llm.modes import Mode
from arena.llm.pool import use_aiohttp
from arena.llm.retry import RetryPolicy, is_transient, retry_after_seconds

ANSWER = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "m-2026",
    "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": '{"vote": "yes"}'}}
    ],
    "usage": {"prompt_tokens": 120, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 96}},
}
SKIPPED_HEADERS = {"host", "content-length", "accept-encoding", "connection", "x-stainless-async"}


async def _exchange(direct: bool, status: int = 200, userinfo: str = "") -> tuple[bytes, dict[str, str], str, Any]:
    """One call through the SDK (direct=False) or the direct path, to a server that keeps what it received
    (`userinfo`: credentials in the base URL, `user:password@`, with which the direct path is not taken)."""
    seen: dict[str, Any] = {}

    async def handler(request: web.Request) -> web.Response:
        seen["body"] = await request.read()
        seen["headers"] = {k.lower(): v for k, v in request.headers.items()}
        seen["path"] = request.path
        if status != 200:
            error = {"error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}
            return web.json_response(error, status=status, headers={"retry-after-ms": "5"})
        return web.json_response(ANSWER)

    runner, port = await serve_app(handler)
    try:
        use_aiohttp(direct)
        settings = ClientSettings(
            model="m", base_url=f"http://{userinfo}127.0.0.1:{port}/v1", api_key="sk-test-key-123", temperature=0.5,
            retry=RetryPolicy(attempts=1), timeout_s=30.0,
        )  # fmt: skip
        client = LLMClient(settings)
        assert (client._direct is not None) is (direct and not userinfo)
        schema = {"type": "object", "properties": {"vote": {"type": "string", "enum": ["yes", "no"]}}}
        messages = [{"role": "system", "content": "Ты — игрок."}, {"role": "user", "content": "Vote: «yes» or no?"}]
        result = await client.complete(messages, mode=Mode.JSON_SCHEMA, name="vote_decision", schema=schema,
                                       max_tokens=64)  # fmt: skip
        await client.close()
    finally:
        use_aiohttp(False)
        await runner.cleanup()
    outcome = result.completion if result.completion is not None else result.final_error
    return seen["body"], seen["headers"], seen["path"], outcome


def test_the_direct_path_sends_the_sdks_bytes_and_reads_the_same_completion() -> None:
    sdk_body, sdk_headers, sdk_path, sdk_completion = asyncio.run(_exchange(direct=False))
    body, headers, path, completion = asyncio.run(_exchange(direct=True))
    assert body == sdk_body  # byte for byte: key order, separators, non-ASCII kept as UTF-8
    assert json.loads(body)["messages"][0]["content"] == "Ты — игрок."
    assert path == sdk_path == "/v1/chat/completions"
    for name in set(sdk_headers) - SKIPPED_HEADERS:
        assert headers.get(name) == sdk_headers[name], name
    assert headers["authorization"] == "Bearer sk-test-key-123"
    assert sdk_completion is not None and completion is not None
    assert completion.raw == sdk_completion.raw == '{"vote": "yes"}'
    assert (completion.model, completion.finish_reason, completion.usage) == (
        sdk_completion.model,
        sdk_completion.finish_reason,
        sdk_completion.usage,
    )
    assert completion.usage.cached_tokens == 96


def test_credentials_in_the_base_url_reach_the_server_as_the_sdk_sends_them() -> None:
    """A base URL with `user:password@` (a server behind a proxy's basic auth): httpx, under the SDK, sends them as
    Basic authorization in place of the key's Bearer. A tournament worker sends that too, not the key without them:
    the direct path, which would drop them, is not taken for such a URL."""
    userinfo = "ann:pa%40ss@"  # percent-encoded "@" in the password
    _, sdk_headers, _, _ = asyncio.run(_exchange(direct=False, userinfo=userinfo))
    _, headers, _, completion = asyncio.run(_exchange(direct=True, userinfo=userinfo))
    assert sdk_headers["authorization"] == "Basic " + base64.b64encode(b"ann:pa@ss").decode()
    assert headers["authorization"] == sdk_headers["authorization"]
    assert completion.raw == '{"vote": "yes"}'


def test_a_refusal_comes_back_as_the_sdks_error() -> None:
    _, _, _, sdk_error = asyncio.run(_exchange(direct=False, status=429))
    _, _, _, error = asyncio.run(_exchange(direct=True, status=429))
    assert error.status == sdk_error.status == 429
    assert error.error == sdk_error.error and "Rate limit reached" in error.error


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"choices": []},
        {"choices": [{}]},
        {"choices": [{"message": None}]},
        {"error": {}},
        ANSWER,
        {"model": "m", "choices": [{"finish_reason": "tool_calls", "message": {"content": None, "refusal": "no",
          "tool_calls": [{"id": "c", "type": "function", "function": {"name": "x", "arguments": "{}"}}]}}]},
    ],
)  # fmt: skip
@pytest.mark.parametrize("mode", [Mode.TOOLS, Mode.JSON_SCHEMA])
def test_reading_a_body_as_a_dict_equals_reading_the_sdks_model(body: dict[str, Any], mode: Mode) -> None:
    assert _completion(body, 3.0, mode) == _completion(ChatCompletion.construct(**body), 3.0, mode)


async def _serve(handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> tuple[web.AppRunner, int]:
    """An aiohttp app on a free port of 127.0.0.1 answering POST /v1/chat/completions with `handler`."""
    runner, port = await serve_app(handler)
    return runner, port


def test_a_429_raises_the_sdks_rate_limit_error_with_the_servers_headers() -> None:
    async def scenario() -> BaseException:
        async def handler(request: web.Request) -> web.Response:
            return web.json_response({"error": {"message": "slow down"}}, status=429, headers={"retry-after-ms": "250"})

        runner, port = await _serve(handler)
        sdk = openai.AsyncOpenAI(api_key="k", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
        poster = DirectPost(sdk, 10.0)
        try:
            await poster.post({"model": "m", "messages": []})
        except Exception as exc:
            return exc
        finally:
            await poster.close()
            await sdk.close()
            await runner.cleanup()
        raise AssertionError("no error")

    error = asyncio.run(scenario())
    assert isinstance(error, openai.RateLimitError) and is_transient(error)
    assert retry_after_seconds(dict(error.response.headers)) == 0.25
    assert "slow down" in str(error)


@pytest.mark.parametrize(
    "body",
    [
        {"model": "m", "messages": [{"role": "system", "content": "Ты — «игрок»\n\t\"q\" \\ \u2028 😀"}], "n": 1},
        {"model": "m", "messages": [{"content": "order", "role": "user"}, {"role": "user", "content": "x", "name": "a"},
                                    {"role": "assistant", "content": None}], "temperature": 0.25, "max_tokens": 7},
        {"messages": "not a list", "response_format": {"type": "json_schema", "json_schema": {"strict": True}}},
        {"messages": [], "extra": [1.5, None, True, {"k": ["v"]}]},
    ],
)  # fmt: skip
def test_the_body_bytes_are_json_dumps_with_the_sdks_settings(body: dict[str, Any]) -> None:
    expected = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    assert dumps(body) == expected
    assert dumps(body) == expected  # again, from the remembered messages


def _sdk(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def test_a_seats_history_encodes_each_call_as_the_sdk_would() -> None:
    """A growing conversation, then the cases the kept encoding must not be trusted for: a message replaced, a
    message's content changed in place, a shorter list, messages that are not plain dicts, and no list at all."""
    history = History()
    messages: list[Any] = [{"role": "system", "content": "rules «ok» \u2028"}]
    for turn in range(4):
        messages.append({"role": "user", "content": f"turn {turn} \"q\""})
        body = {"model": "m", "messages": list(messages), "max_tokens": 5}
        assert dumps(body, history) == _sdk(body)
        messages.append({"role": "assistant", "content": f"answer {turn}"})
    messages[3] = {"role": "user", "content": "replaced"}
    assert dumps({"messages": messages}, history) == _sdk({"messages": messages})
    messages[1]["content"] = "changed in place"
    assert dumps({"messages": messages}, history) == _sdk({"messages": messages})
    messages[1]["role"] = messages[1].pop("role")  # the same objects, the keys in another order
    assert dumps({"messages": messages}, history) == _sdk({"messages": messages})
    messages[2]["name"] = "added in place"
    assert dumps({"messages": messages}, history) == _sdk({"messages": messages})
    assert dumps({"messages": messages[:2]}, history) == _sdk({"messages": messages[:2]})
    odd: list[Any] = [*messages[:2], {"content": "order", "role": "user"}, {"role": "user", "content": None}, "x"]
    assert dumps({"messages": odd}, history) == _sdk({"messages": odd})
    assert dumps({"messages": odd}, history) == _sdk({"messages": odd})
    assert dumps({"messages": []}, history) == _sdk({"messages": []})
    assert dumps({"messages": "not a list"}, history) == _sdk({"messages": "not a list"})
    assert dumps({"messages": messages}, history) == _sdk({"messages": messages})


def test_a_remembered_format_is_sent_as_encoded_and_others_as_they_are() -> None:
    from arena.llm.client import request_format
    from arena.llm.modes import Mode

    schema = {"type": "object", "properties": {"vote": {"type": "boolean"}}, "required": ["vote"]}
    for mode in Mode:
        fmt = request_format(mode, "vote_decision", schema)
        assert request_format(mode, "vote_decision", schema) is fmt  # built once per schema object
        body = {"model": "m", "messages": [], **fmt}
        assert dumps(body) == _sdk(body)
    other = {"response_format": {"type": "json_object"}, "messages": []}  # never remembered: encoded each time
    assert dumps(other) == _sdk(other)
    other["response_format"]["type"] = "text"
    assert dumps(other) == _sdk(other)
    bad = {"response_format": {"x": float("nan")}}
    with pytest.raises(ValueError):
        dumps(bad)


@pytest.mark.parametrize("framing", ["length", "gzip", "chunked"])
def test_the_direct_path_reads_an_answer_in_any_framing(framing: str) -> None:
    """With a Content-Length (and no encoding) the body is read in one piece; compressed or chunked, it is counted
    as it arrives (the bound applies to what it decompresses to): the same answer either way."""
    body = json.dumps(ANSWER).encode()

    async def handler(request: web.Request) -> web.StreamResponse:
        if framing == "chunked":
            streamed = web.StreamResponse(headers={"Content-Type": "application/json"})
            streamed.enable_chunked_encoding()
            await streamed.prepare(request)
            await streamed.write(body[:20])
            await streamed.write(body[20:])
            await streamed.write_eof()
            return streamed
        response = web.Response(body=body, content_type="application/json")
        if framing == "gzip":
            response.enable_compression(web.ContentCoding.gzip)
        return response

    async def scenario() -> dict[str, Any]:
        runner, port = await _serve(handler)
        client = openai.AsyncOpenAI(api_key="sk-test-key-123", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
        poster = DirectPost(client, 10.0)
        try:
            return await poster.post({"model": "m", "messages": []})
        finally:
            await poster.close()
            await client.close()
            await runner.cleanup()

    assert asyncio.run(scenario()) == ANSWER


def test_the_direct_paths_sdk_client_builds_no_tls_context_and_sends_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK client of a direct path lends its URL, headers and error types only: it is built without a transport
    of its own (no CA bundle loaded), and a request sent through it by mistake goes nowhere. Where the direct path
    cannot be taken (`usable`: a SOCKS proxy, a key provider), the SDK gets a client with its own transport again."""
    import ssl

    from arena.llm import client as client_module

    built: list[object] = []
    real = ssl.create_default_context
    monkeypatch.setattr(ssl, "create_default_context", lambda *a, **k: built.append(a) or real(*a, **k))
    for name in [n for n in os.environ if n.lower().endswith("_proxy")]:
        monkeypatch.delenv(name)

    async def acquire() -> tuple[Any, Any]:
        use_aiohttp(True)
        try:
            settings = ClientSettings(model="m", base_url="http://127.0.0.1:9/v1", api_key="sk-test-key-123")
            sdk, poster = client_module._SHARED.acquire(settings)
            try:
                if poster is not None:
                    with pytest.raises(RuntimeError, match="never through its transport"):
                        await sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
                return sdk, poster
            finally:
                await client_module._SHARED.release(sdk)
        finally:
            use_aiohttp(False)

    _, poster = asyncio.run(acquire())
    assert poster is not None and built == []
    monkeypatch.setattr(client_module, "usable", lambda client: False)  # e.g. a SOCKS proxy, or a key provider
    sdk, poster = asyncio.run(acquire())
    assert poster is None and len(built) == 1  # the SDK's own default transport, with its TLS context
    assert type(sdk._client).__name__ == "AsyncHttpxClientWrapper"  # not aiohttp's, which speaks no SOCKS
