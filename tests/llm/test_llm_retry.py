"""The one retry layer: what is retried, how long it waits, and that every failed attempt is reported."""

from __future__ import annotations

import json

import httpx2
import openai
import pytest

from arena.llm.retry import RetryPolicy, call_with_retries, is_transient, retry_after_seconds

_REQUEST = httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions")


def _status(code: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    response = httpx2.Response(code, headers=headers or {}, request=_REQUEST)
    cls = {429: openai.RateLimitError, 500: openai.InternalServerError, 400: openai.BadRequestError}.get(
        code, openai.APIStatusError
    )
    return cls(f"HTTP {code}", response=response, body=None)


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (_status(429), True),
        (_status(500), True),
        (_status(503), True),
        (_status(408), True),
        (_status(400), False),
        (_status(401), False),
        (openai.APITimeoutError(request=_REQUEST), True),
        (openai.APIConnectionError(request=_REQUEST), True),
        (json.JSONDecodeError("x", "{", 1), True),
        (ValueError("bug"), False),
    ],
)
def test_what_is_transient(exc: BaseException, transient: bool) -> None:
    assert is_transient(exc) is transient


def test_retry_after_forms() -> None:
    assert retry_after_seconds({"Retry-After": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250", "Retry-After": "3"}) == 0.25
    date = "Wed, 21 Oct 2026 07:28:10 GMT"
    assert retry_after_seconds({"Retry-After": date}, now=1792567680.0) == 10.0
    assert retry_after_seconds({"Retry-After": "soon"}) is None
    assert retry_after_seconds({}) is None


async def test_retries_until_success_and_reports_each_failure() -> None:
    failures = [_status(429, {"retry-after-ms": "1"}), _status(502), openai.APITimeoutError(request=_REQUEST)]
    seen: list[tuple[str, int, float]] = []

    async def call() -> str:
        if failures:
            raise failures.pop(0)
        return "ok"

    policy = RetryPolicy(attempts=5, backoff=0.001, max_wait=0.01, jitter=0.001)
    result = await call_with_retries(call, policy, lambda e, n, w: seen.append((type(e).__name__, n, w)))
    assert result == "ok"
    assert [(name, n) for name, n, _ in seen] == [("RateLimitError", 1), ("APIStatusError", 2), ("APITimeoutError", 3)]
    assert seen[0][2] == pytest.approx(0.001)  # the server's retry-after-ms, not the backoff
    assert all(w <= 0.01 for _, _, w in seen)  # never above the cap


async def test_gives_up_after_the_attempts_and_never_retries_a_client_error() -> None:
    calls = 0

    async def always(code: int) -> None:
        nonlocal calls
        calls += 1
        raise _status(code)

    policy = RetryPolicy(attempts=3, backoff=0.001, max_wait=0.01, jitter=0.0)
    with pytest.raises(openai.InternalServerError):
        await call_with_retries(lambda: always(500), policy, lambda *_: None)
    assert calls == 3
    calls = 0
    with pytest.raises(openai.BadRequestError):
        await call_with_retries(lambda: always(400), policy, lambda *_: None)
    assert calls == 1
