"""One chat-completions call to any OpenAI-compatible server, in one of four structured-output modes.

`json_schema` (default) sends the decision schema as a strict `response_format`; `tools` sends it as the one
function the model must call; `json_object` asks for any JSON object (the schema is in the prompt); `prompt` sends
no format at all (the schema is in the prompt and the JSON is extracted from free text). Transport failures go
through the one retry layer in `retry.py`; the SDK's own retries are off. The result keeps the raw text, the
finish reason, any refusal, the model name the server reported, usage and latency, for the call record. A body is
read with a bound (`body.py`): an oversize answer comes back as a Completion marked `oversize` (its first bytes
kept), which the seat records and re-asks as an unusable answer.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai
from openai.types.chat import ChatCompletion

from arena.llm.body import AnswerTooLarge, parse_body, read_bounded
from arena.llm.direct import DirectPost, History, remember, unsent_http_client, usable
from arena.llm.errors import Overflow, overflow_of, refused
from arena.llm.grammar import compact_grammar
from arena.llm.limits import limiter_for
from arena.llm.modes import Completion, Mode
from arena.llm.pool import direct, http_client
from arena.llm.retry import RetryPolicy, call_with_retries
from arena.llm.usage import Usage


@dataclass(frozen=True, slots=True)
class TransportFailure:
    """One attempt that got no usable HTTP answer (status error, timeout, lost connection)."""

    error: str
    latency_ms: float
    status: int | None = None
    usage: Usage = field(default_factory=Usage)  # tokens the failed attempt's body still reported, if any
    overflow: Overflow | None = None  # the server said the prompt does not fit its context (errors.py)

    @property
    def refused(self) -> bool:
        """A status the same request would get again (400, 401, 403, 404, 413, 422): never retried or re-asked."""
        return refused(self.status)


@dataclass(slots=True)
class CallResult:
    """Every attempt of one logical call: the failures first, then the completion if one arrived."""

    failures: list[TransportFailure] = field(default_factory=list)
    completion: Completion | None = None
    final_error: TransportFailure | None = None
    attempt_started: float = 0.0  # perf_counter at the start of the latest attempt (a call cut short reads it)

    @property
    def usage(self) -> Usage:
        """The tokens of every attempt together: a retried call is billed for each attempt that reported any."""
        total = self.completion.usage if self.completion is not None else Usage()
        for failure in (*self.failures, *([self.final_error] if self.final_error is not None else [])):
            total = total + failure.usage
        return total


_KEYLIKE = re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_*\-]{4,}|Bearer\s+\S+")


def redact(text: str, key: str | None = None) -> str:
    """Remove the client's key and anything key-shaped (providers echo masked keys in 401 messages)."""
    if key and len(key) >= 8:
        text = text.replace(key, "[key]")
    return _KEYLIKE.sub("[key]", text)


def describe_error(exc: BaseException, key: str | None = None) -> tuple[str, int | None]:
    """A short, key-free description of a failed attempt, and its HTTP status if any."""
    text, status = _describe(exc)
    return redact(text, key), status


def _describe(exc: BaseException) -> tuple[str, int | None]:
    if isinstance(exc, json.JSONDecodeError):
        return f"malformed response body (not JSON): {exc}", None
    if isinstance(exc, openai.APIResponseValidationError):
        return f"malformed response body: {exc.message}"[:500], exc.status_code
    if isinstance(exc, openai.APITimeoutError):
        return "timeout: the server did not answer in time", None
    if isinstance(exc, openai.APIConnectionError):
        return f"connection error: {exc.__cause__ or exc}", None
    if isinstance(exc, openai.APIStatusError):
        retry_after = exc.response.headers.get("retry-after")
        hint = f" (Retry-After: {retry_after})" if retry_after else ""
        return f"HTTP {exc.status_code}{hint}: {exc.message}"[:500], exc.status_code
    return f"{type(exc).__name__}: {exc}"[:500], None


def overflow_in(exc: BaseException) -> Overflow | None:
    """The context overflow a failed attempt reports (errors.py), or None."""
    if not isinstance(exc, openai.APIStatusError):
        return None
    return overflow_of(exc.status_code, getattr(exc, "body", None), exc.message)


_FORMATS: dict[tuple[Mode, str, int, bool], tuple[dict[str, Any], dict[str, Any]]] = {}  # (mode, name, id, grammar)


def request_format(mode: Mode, name: str, schema: dict[str, Any], grammar: bool = False) -> dict[str, Any]:
    """The keyword arguments that carry the schema for `mode` (none for `prompt`). A schema is one object per
    answer shape (`answer_schema`, a seat's stable schema), so its format is built once, kept with the schema it
    was built from, and its JSON encoded once (`direct.remember`): read them, never change them. `grammar` (llama.cpp,
    `json_schema` mode): the schema as a grammar with no free whitespace (`grammar.py`) instead of `response_format`."""
    key = (mode, name, id(schema), grammar)
    found = _FORMATS.get(key)
    if found is not None and found[0] is schema:
        return found[1]
    built = _request_format(mode, name, schema)
    if grammar and mode is Mode.JSON_SCHEMA:
        compact = compact_grammar(schema)
        if compact is not None:
            built = {"grammar": compact}
    if len(_FORMATS) >= 4096:
        _FORMATS.clear()
    _FORMATS[key] = (schema, built)
    for value in built.values():
        remember(value)
    return built


def _request_format(mode: Mode, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    if mode is Mode.JSON_SCHEMA:
        return {
            "response_format": {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
        }
    if mode is Mode.TOOLS:
        tool = {"type": "function", "function": {"name": name, "parameters": schema, "strict": True}}
        return {"tools": [tool], "tool_choice": {"type": "function", "function": {"name": name}}}
    if mode is Mode.JSON_OBJECT:
        return {"response_format": {"type": "json_object"}}
    return {}


@dataclass(frozen=True, slots=True)
class ClientSettings:
    model: str
    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 60.0
    temperature: float | None = None
    max_tokens_param: str = "max_tokens"  # OpenAI's newer models take max_completion_tokens
    extra_body: dict[str, Any] = field(default_factory=dict)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_concurrent: int | None = None  # per provider, shared by every game on the loop (limits.py)
    requests_per_minute: float | None = None
    grammar: bool = False  # llama.cpp: `json_schema` as a compact grammar (grammar.py)
    cache_control: bool = False  # mark the last message as a cache breakpoint (`cached`)


_PoolKey = tuple[str | None, str | None, float, int]


class _SharedClients:
    """One `AsyncOpenAI` (one connection pool, one TLS context) per endpoint, key and timeout, shared by the seats
    that use it and closed when the last one is done: ten seats of one model do not build ten TLS contexts."""

    def __init__(self) -> None:
        self._clients: dict[_PoolKey, tuple[openai.AsyncOpenAI, DirectPost | None, int]] = {}

    def acquire(self, s: ClientSettings) -> tuple[openai.AsyncOpenAI, DirectPost | None]:
        key = (s.base_url, s.api_key, s.timeout_s, _loop_id())  # a pool belongs to one event loop
        client, poster, users = self._clients.get(key) or (None, None, 0)
        if client is None:
            thin = direct()  # a tournament worker: plain JSON POSTs of its own (direct.py), the SDK for the rest
            client = self._client(s, unsent_http_client() if thin else http_client(s.timeout_s))
            poster = DirectPost(client, s.timeout_s) if thin and usable(client) else None
            if thin and poster is None:  # the SDK sends this provider's requests after all, on its own default
                client = self._client(s, None)  # transport (SOCKS too); the first client never opened anything
        self._clients[key] = (client, poster, users + 1)
        return client, poster

    @staticmethod
    def _client(s: ClientSettings, http: httpx2.AsyncClient | None) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            api_key=s.api_key,  # None: the SDK reads OPENAI_API_KEY
            base_url=s.base_url,  # None: the SDK reads OPENAI_BASE_URL
            timeout=s.timeout_s,
            max_retries=0,  # the one retry layer is ours (retry.py)
            http_client=http,  # None: the SDK's own; aiohttp's pool in a tournament (pool.py); or one that never sends
        )

    async def release(self, client: openai.AsyncOpenAI) -> None:
        poster = None
        for key, (held, held_poster, users) in list(self._clients.items()):
            if held is client:
                if users > 1:
                    self._clients[key] = (held, held_poster, users - 1)
                    return
                del self._clients[key]
                poster = held_poster
        if poster is not None:
            await poster.close()
        await client.close()


def _loop_id() -> int:
    """The running loop's id (0 outside one): Dask runs one game per task, each on its own loop in a thread."""
    try:
        return id(asyncio.get_running_loop())
    except RuntimeError:
        return 0


_SHARED = _SharedClients()


class LLMClient:
    """An `openai.AsyncOpenAI` with retries off, plus the one retry layer and the structured-output modes."""

    def __init__(self, settings: ClientSettings, client: openai.AsyncOpenAI | None = None) -> None:
        self.settings = settings
        self._own = client is None
        self._direct: DirectPost | None = None
        self._client = client
        if client is None and _loop_id():  # built outside a loop (`arena play`): acquired at first use, on its loop
            self._acquire()
        self._history = History()  # this client's seat's messages as encoded for its previous call (direct path)

    def _acquire(self) -> openai.AsyncOpenAI:
        """The shared client of the running loop (`_SharedClients`), acquired once: a pool belongs to one loop."""
        if self._client is None:
            self._client, self._direct = _SHARED.acquire(self.settings)
        return self._client

    async def close(self) -> None:
        if self._own:
            self._own = False
            if self._client is not None:
                await _SHARED.release(self._client)

    def body(
        self, messages: list[dict[str, Any]], *, mode: Mode, name: str, schema: dict[str, Any], max_tokens: int
    ) -> dict[str, Any]:
        """The JSON body of one chat-completions request."""
        s = self.settings
        if s.cache_control:
            messages = cached(messages)
        body: dict[str, Any] = {"model": s.model, "messages": messages, s.max_tokens_param: max_tokens}
        if s.temperature is not None:
            body["temperature"] = s.temperature
        body.update(request_format(mode, name, schema, s.grammar))
        body.update(s.extra_body)
        return body

    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        mode: Mode,
        name: str,
        schema: dict[str, Any],
        max_tokens: int,
        into: CallResult | None = None,
    ) -> CallResult:
        """Send one request (retrying transport failures) and return every attempt. `into` is filled as the
        attempts go, so a caller whose wait is cancelled (a decision's time limit) still knows what happened."""
        body = self.body(messages, mode=mode, name=name, schema=schema, max_tokens=max_tokens)
        return await _Call(self, body, into if into is not None else CallResult()).run(mode)


class _Call:
    """One logical call of `LLMClient.complete`: its body, its attempts and what each left in `result`.

    `run` makes the attempts through the one retry layer; each is `limited` (a slot of the provider's limits),
    then an `attempt` (the per-attempt deadline) around one `post`; `failed` records an attempt that the retry
    layer will try again. `started` is the start of the latest attempt, which every latency is measured from."""

    __slots__ = ("body", "client", "direct", "history", "limiter", "result", "settings", "started")

    def __init__(self, owner: LLMClient, body: dict[str, Any], result: CallResult) -> None:
        self.settings = s = owner.settings
        self.body = body
        self.result = result
        self.started = result.attempt_started = time.perf_counter()
        self.client = owner._client if owner._client is not None else owner._acquire()
        self.direct = owner._direct  # a tournament worker: plain JSON POSTs (direct.py); None: the SDK
        self.history = owner._history
        self.limiter = limiter_for(s.base_url or "openai", s.max_concurrent, s.requests_per_minute)

    def latency_ms(self) -> float:
        """Milliseconds since the latest attempt started."""
        return (time.perf_counter() - self.started) * 1000

    async def run(self, mode: Mode) -> CallResult:
        """Every attempt, until one is answered or the retry layer gives up; the outcome goes into `result`."""
        s, result = self.settings, self.result
        try:
            response = await call_with_retries(self.limited, s.retry, self.failed)
        except AnswerTooLarge as exc:  # not a transport failure: an unusable answer, re-asked like one
            head = exc.head.decode("utf-8", "ignore")
            result.completion = Completion(head, None, None, "", Usage(), self.latency_ms(), oversize=exc.size)
            return result
        except (openai.OpenAIError, json.JSONDecodeError) as exc:
            text, status = describe_error(exc, s.api_key)
            latency = self.latency_ms()
            result.final_error = TransportFailure(text, latency, status, Usage.from_error(exc), overflow_in(exc))
            return result
        result.completion = _completion(response, self.latency_ms(), mode)
        return result

    def failed(self, exc: BaseException, attempt: int, wait: float) -> None:
        """An attempt the retry layer tries again after `wait` seconds: kept as a failure of the call."""
        text, status = describe_error(exc, self.settings.api_key)
        latency = self.latency_ms()
        usage = Usage.from_error(exc)
        self.result.failures.append(TransportFailure(f"{text}; retrying in {wait:.2f}s", latency, status, usage))

    async def limited(self) -> ChatCompletion | dict[str, Any]:
        """One attempt inside a slot of the provider's limits: a 429 pauses every game."""
        async with self.limiter.slot():
            return await self.attempt()

    async def attempt(self) -> ChatCompletion | dict[str, Any]:
        """One attempt under its deadline. `timeout_s` is a deadline per attempt, headers and body together: the
        transports' own timeouts are per read, so a server that drips a byte now and then would hold an attempt
        for as long as it likes."""
        self.started = self.result.attempt_started = time.perf_counter()
        try:
            async with asyncio.timeout(self.settings.timeout_s):
                return await self.post()
        except TimeoutError as exc:
            raise openai.APITimeoutError(request=httpx2.Request("POST", str(self.client.base_url))) from exc

    async def post(self) -> ChatCompletion | dict[str, Any]:
        """Send the body once: the parsed answer, or the SDK's exception for what went wrong."""
        if self.direct is not None:  # a tournament worker: the same body and headers, without the SDK's layers
            return await self.direct.post(self.body, self.history)
        # The SDK's documented low-level call for a prepared body: `chat.completions.create` would walk every
        # message of the growing conversation through its TypedDict transform on each call (milliseconds per
        # call late in a game); the body here is plain JSON already. Auth, errors and parsing are the SDK's.
        # The body is left unread (`stream`, cast to the HTTP response) so that it is read with a bound (body.py).
        stream: bool = True  # a plain bool: the SDK's overload that returns the cast type
        response = await self.client.post("/chat/completions", body=self.body, cast_to=httpx2.Response, stream=stream)
        try:
            raw = await read_bounded(response.aiter_bytes())
        except httpx2.TimeoutException as exc:
            raise openai.APITimeoutError(request=response.request) from exc
        except httpx2.TransportError as exc:
            raise openai.APIConnectionError(request=response.request) from exc
        finally:
            await response.aclose()
        return parse_body(raw)


EPHEMERAL = {"type": "ephemeral"}


def cached(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with the last one a cache breakpoint: its text as one content block marked `cache_control:
    ephemeral`, as Anthropic asks (through LiteLLM, which passes it on). Anthropic caches the prefix up to the
    breakpoint and, on the next request, finds it again from that request's own breakpoint (it looks back 20
    blocks; a seat's conversation grows by two messages a call), so one breakpoint caches the whole conversation.
    The other messages are the very same dicts (the direct path keeps their encodings)."""
    if not messages:
        return messages
    last = messages[-1]
    content = last.get("content")
    if not isinstance(content, str):
        return messages
    block = {"type": "text", "text": content, "cache_control": EPHEMERAL}
    return [*messages[:-1], {**last, "content": [block]}]


def _completion(response: ChatCompletion | dict[str, Any], latency_ms: float, mode: Mode) -> Completion:
    """Read the first choice. Every field is optional here: a server's body that is JSON but not quite a chat
    completion (no choices, no message) reads as an empty answer, which the seat reports, instead of crashing."""
    if isinstance(response, dict):
        return _completion_of_body(response, latency_ms, mode)
    choices = getattr(response, "choices", None) or []
    usage = Usage.from_openai(getattr(response, "usage", None))
    model = model_name(str(getattr(response, "model", "") or ""))
    choice = choices[0] if choices else None
    message = getattr(choice, "message", None)
    raw = str(getattr(message, "content", None) or "")
    tool_calls = getattr(message, "tool_calls", None) or []
    if mode is Mode.TOOLS and tool_calls:
        function = getattr(tool_calls[0], "function", None)
        if function is not None:
            raw = str(getattr(function, "arguments", None) or "")
    return Completion(
        raw=raw,
        finish_reason=getattr(choice, "finish_reason", None),
        refusal=getattr(message, "refusal", None),
        model=model,
        usage=usage,
        latency_ms=latency_ms,
        timings=timings_of((getattr(response, "model_extra", None) or {}).get("timings")),
    )


_PATHLIKE = re.compile(r"^(?:/|~|[A-Za-z]:[\\/]|\.{1,2}[\\/])")


def model_name(reported: str) -> str:
    """The model name as recorded: a local file path (llama-server started on a GGUF file without `--alias` reports
    the path it was given) becomes the file's name, so no call record or header holds a path of this machine."""
    if _PATHLIKE.match(reported):
        return re.split(r"[\\/]", reported)[-1]
    return reported


def _field(data: Any, name: str) -> Any:
    return data.get(name) if isinstance(data, dict) else None


def _completion_of_body(body: dict[str, Any], latency_ms: float, mode: Mode) -> Completion:
    """`_completion` for the JSON body as a dict (the direct path): the same reading, field by field."""
    choices = _field(body, "choices") or []
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = _field(choice, "message")
    raw = str(_field(message, "content") or "")
    tool_calls = _field(message, "tool_calls") or []
    if mode is Mode.TOOLS and isinstance(tool_calls, list) and tool_calls:
        function = _field(tool_calls[0], "function")
        if function is not None:
            raw = str(_field(function, "arguments") or "")
    finish = _field(choice, "finish_reason")
    refusal = _field(message, "refusal")
    return Completion(
        raw=raw,
        finish_reason=finish if isinstance(finish, str) else None,
        refusal=refusal if isinstance(refusal, str) else None,
        model=model_name(str(_field(body, "model") or "")),
        usage=Usage.from_body(body),
        latency_ms=latency_ms,
        timings=timings_of(_field(body, "timings")),
    )


_TIMINGS = ("cache_n", "prompt_n", "prompt_ms", "predicted_n", "predicted_ms")  # llama.cpp's `timings` we keep


def timings_of(value: Any) -> dict[str, float] | None:
    """The figures of llama.cpp's `timings` object worth keeping in a call record (numbers only, known keys)."""
    if not isinstance(value, dict):
        return None
    kept = {
        k: float(v) for k in _TIMINGS if isinstance(v := value.get(k), (int, float)) and not isinstance(v, bool)
    }
    return kept or None
