"""The one retry layer for transient transport failures: 429, 408/409, 5xx, timeouts and lost connections.

The SDK's own retries are switched off (`max_retries=0`, see `client.py`) so attempts never multiply. Waits follow
the server's `retry-after-ms` / `Retry-After` when it sends one (capped), otherwise exponential backoff with
jitter. A 200 whose body is broken JSON is retried too. Each failed attempt is reported to `on_failure` so the
seat can record it in the transcript; an answer that arrives but is unusable (bad JSON in the model's text, a
refusal) is not a transport failure and is not retried here: the orchestrator re-asks it.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import openai
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_exponential_jitter

T = TypeVar("T")
OnFailure = Callable[[BaseException, int, float], None]  # (error, attempt number, seconds until the next attempt)

_RETRY_STATUS = frozenset({408, 409, 429})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How hard to try one call. `attempts` counts the first try; waits are in seconds."""

    attempts: int = 5
    backoff: float = 0.5  # the first backoff; doubles each time
    max_wait: float = 30.0  # cap for both backoff and Retry-After
    jitter: float = 0.5


def is_transient(exc: BaseException) -> bool:
    """True for failures worth retrying: timeouts, connection errors, 408, 409, 429, every 5xx, and a response body
    that is not valid JSON (a proxy or server cut it short)."""
    if isinstance(exc, (openai.APIConnectionError, openai.APIResponseValidationError, json.JSONDecodeError)):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    return False


def retry_after_seconds(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """The wait a server asked for: `retry-after-ms`, then `Retry-After` as seconds or as an HTTP date."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = lowered.get(name)
        if raw is None:
            continue
        try:
            return max(float(raw) / divisor, 0.0)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if raw:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        return max(when.timestamp() - (time.time() if now is None else now), 0.0)
    return None


def _headers_of(exc: BaseException | None) -> Mapping[str, str] | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return dict(headers) if headers is not None else None


class _Wait:
    """Retry-After when the server sent one, otherwise exponential backoff with jitter; never above `max_wait`."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy
        self.backoff = wait_exponential_jitter(multiplier=policy.backoff, max=policy.max_wait, jitter=policy.jitter)

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        asked = retry_after_seconds(_headers_of(exc))
        if asked is not None:
            return min(asked, self.policy.max_wait)
        return float(self.backoff(state))


async def call_with_retries(fn: Callable[[], Awaitable[T]], policy: RetryPolicy, on_failure: OnFailure) -> T:
    """Run `fn` until it succeeds, a non-transient error occurs, or the attempts run out (then re-raise).

    The first attempt is made here directly: almost every call succeeds at once, and setting up tenacity's
    machinery per call was a few percent of a tournament client's CPU. A transient failure of it is handed to
    tenacity as its own first attempt (re-raised there), so the waits, the reports and the attempt numbers are
    the same as if tenacity had made it."""
    try:
        return await fn()
    except Exception as exc:
        if policy.attempts <= 1 or not is_transient(exc):
            raise
        first: BaseException | None = exc

    async def again() -> T:
        nonlocal first
        if first is not None:
            failed, first = first, None
            raise failed
        return await fn()

    return await _with_tenacity(again, policy, on_failure)


async def _with_tenacity(fn: Callable[[], Awaitable[T]], policy: RetryPolicy, on_failure: OnFailure) -> T:
    wait = _Wait(policy)

    def report(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome is not None else None
        if exc is not None:
            sleep = state.next_action.sleep if state.next_action is not None else 0.0
            on_failure(exc, state.attempt_number, float(sleep))

    retrying = AsyncRetrying(
        retry=retry_if_exception(is_transient),
        wait=wait,
        stop=stop_after_attempt(max(policy.attempts, 1)),
        before_sleep=report,
        reraise=True,
    )
    async for attempt in retrying:
        with attempt:
            return await fn()
    raise AssertionError("unreachable: tenacity either returns or re-raises")  # pragma: no cover
