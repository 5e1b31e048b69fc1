"""The tournament's thin path to an OpenAI-compatible server: one JSON POST per call on the process's own keep-alive
connections to the provider (`wire.py`), or on an aiohttp session when a proxy is set.

Profiled at 32 games on one event loop, the SDK's request machinery (options, headers and URL objects per request,
an httpx-shaped request wrapped around aiohttp, the response model built field by field) was about a quarter of the
client's CPU. A tournament worker sends one kind of request, so it sends it itself: the same body bytes as the SDK
(`json.dumps` with the SDK's settings), the same headers (read once from the SDK client that would have sent it,
with its key), to the same URL; the answer is the JSON body as a dict. Failures keep the SDK's types: a status
error is built by the SDK client from the response (so `retry.py`, `limits.py` and `describe_error` read it
unchanged), a timeout is `APITimeoutError`, a lost connection `APIConnectionError`, a body that is not JSON a
`json.JSONDecodeError`, as through the SDK, and a body is read with the same bound (`body.py`). Only plain API-key
clients with no credentials in the base URL take this path (`usable`). A proxy is taken from the environment as the
SDK's httpx takes it (HTTP(S)_PROXY, ALL_PROXY, NO_PROXY, via `urllib.request`), never with aiohttp's `trust_env`,
which would also read ~/.netrc credentials into the API host's Authorization header. Without a proxy the POST goes
out on `wire.Pool`'s connections (aiohttp's request machinery was a quarter of a tournament client's CPU per call;
`wire.py` says what they keep).
"""

from __future__ import annotations

import base64
import json
import urllib.parse
import urllib.request
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import httpx2
import openai

if TYPE_CHECKING:  # aiohttp is imported when the first DirectPost opens its session, never by a bot game
    import aiohttp
    import yarl

from arena.llm import wire
from arena.llm.body import MAX_BODY_BYTES, parse_body, read_bounded
from arena.llm.pool import MAX_CONNECTIONS


class _NeverSends(httpx2.AsyncBaseTransport):
    """The transport of an SDK client whose requests `DirectPost` sends: it sends none."""

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        raise RuntimeError("this SDK client's requests go out through arena.llm.direct, never through its transport")


def unsent_http_client() -> httpx2.AsyncClient:
    """The `http_client` of an SDK client built for this path, which reads the client's URL, headers and error
    types but sends its requests itself. The SDK's default would load the CA bundle into a TLS context that no
    request ever uses (a thirtieth of a second of CPU for every tournament worker's wave); this one has no
    transport of its own and reads no proxy settings."""
    return httpx2.AsyncClient(transport=_NeverSends(), trust_env=False)


def usable(client: openai.AsyncOpenAI) -> bool:
    """True for a client whose requests this path can send as the SDK would: a static key, no custom auth hooks,
    no credentials in the base URL (httpx sends `user:password@` as Basic authorization in place of the key), and no
    proxy but an HTTP(S) one (aiohttp speaks no SOCKS)."""
    if getattr(client, "_provider_runtime", None) is not None or getattr(client, "_api_key_provider", None) is not None:
        return False
    if "@" in urllib.parse.urlsplit(str(client.base_url)).netloc:
        return False
    proxy = proxy_for(str(client.base_url))
    return proxy is None or urllib.parse.urlsplit(proxy).scheme in ("http", "https")


def proxy_for(url: str) -> str | None:
    """The proxy the environment names for `url` (its scheme's, else ALL_PROXY), or None if NO_PROXY covers its
    host: what httpx, under the SDK, would use."""
    parts = urllib.parse.urlsplit(url)
    proxies = urllib.request.getproxies()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if not proxy:
        return None
    host = parts.netloc.rpartition("@")[2]
    if host and urllib.request.proxy_bypass(host):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"  # `host:port` means an HTTP proxy, as in httpx


def _proxy_parts(proxy: str | None) -> tuple[str | None, dict[str, str] | None]:
    """The proxy URL without credentials, and the Proxy-Authorization header its credentials make (as httpx does)."""
    if proxy is None:
        return None, None
    parts = urllib.parse.urlsplit(proxy)
    if parts.username is None:
        return proxy, None
    user = urllib.parse.unquote(parts.username)
    password = urllib.parse.unquote(parts.password or "")
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    bare = parts._replace(netloc=parts.netloc.rpartition("@")[2])
    return urllib.parse.urlunsplit(bare), {"Proxy-Authorization": f"Basic {token}"}


# `json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)`, which builds this very encoder on
# every call (a Python __init__ per call; a request's body made about eight of them): built once, the same bytes
_json: Callable[[Any], str] = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_KEYS: dict[str, bytes] = {}  # a body's keys ("model", "messages", ...) as JSON, encoded once


def _key(key: str) -> bytes:
    found = _KEYS.get(key)
    if found is None:
        found = _json(key).encode()
        if len(_KEYS) < 1024 and type(key) is str:  # a few names per provider; `extra_body` keys are the user's
            _KEYS[key] = found
    return found


@lru_cache(maxsize=65536)  # a process's conversations resend each message on every later call of their seat
def _message(role: str, content: str) -> str:
    return _json({"role": role, "content": content})


def _messages(messages: Any) -> str:
    if not isinstance(messages, list):
        return _json(messages)
    parts = []
    for m in messages:
        plain = type(m) is dict and len(m) == 2 and type(m.get("role")) is str and type(m.get("content")) is str
        parts.append(_message(m["role"], m["content"]) if plain and next(iter(m)) == "role" else _json(m))
    return "[" + ",".join(parts) + "]"


_REMEMBERED: dict[int, tuple[object, bytes]] = {}  # id -> (the value, its JSON as UTF-8)


def remember(value: object) -> None:
    """Encode `value` now and reuse the bytes whenever `dumps` meets this very object again (a request's format,
    built once per answer shape: `client.request_format`). The caller never changes it afterwards."""
    try:
        encoded = _json(value).encode()
    except (TypeError, ValueError, UnicodeEncodeError):  # not JSON: `dumps` raises it where it always did
        return
    if len(_REMEMBERED) >= 4096:
        _REMEMBERED.clear()
    _REMEMBERED[id(value)] = (value, encoded)


def _encoded(value: object) -> bytes:
    found = _REMEMBERED.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    return _json(value).encode()


def _plain(m: Any) -> bool:
    """A `{role, content}` message of two strings, in that order (what a seat's conversation holds)."""
    return (
        type(m) is dict
        and len(m) == 2
        and next(iter(m)) == "role"
        and type(m.get("role")) is str
        and type(m.get("content")) is str
    )


class History:
    """One seat's message list as JSON, kept between its calls. A seat's conversation only grows (each call sends
    the messages of the previous one, then its answer and the new turn), so the UTF-8 encodings of the messages
    already sent are kept and only the new ones are encoded: the same bytes as `_messages`, without a cache lookup
    per message of an ever longer history on every call. Only plain `{role, content}` messages are kept, and one
    counts as already sent only while it is the very same dict, still with exactly those two keys in that order
    holding the very same objects; from the first that is not, the rest is encoded afresh."""

    def __init__(self) -> None:
        self._sent: list[tuple[dict[str, Any], object, object]] = []  # (message, its role, its content) as encoded
        self._chunks: list[bytes] = []  # their encodings with the commas between them: [m1, b",", m2, ...]

    def encode_into(self, messages: Any, out: list[bytes]) -> None:
        """Append the JSON of `messages` to `out`, as chunks of bytes."""
        if not isinstance(messages, list):
            out.append(_json(messages).encode())
            return
        sent, chunks = self._sent, self._chunks
        same = 0
        for (message, role, content), m in zip(sent, messages, strict=False):  # checked plain when kept
            if m is not message or len(m) != 2 or m.get("role") is not role or m.get("content") is not content:
                break
            if next(iter(m)) != "role":
                break
            same += 1
        if same < len(sent):
            del sent[same:]
            del chunks[max(2 * same - 1, 0) :]
        for index in range(same, len(messages)):
            m = messages[index]
            if not _plain(m):  # kept up to here; this one and the rest are encoded for this call only
                out.append(b"[")
                out.extend(chunks)
                if chunks:
                    out.append(b",")
                out.append(_messages(messages[index:])[1:-1].encode())
                out.append(b"]")
                return
            if chunks:
                chunks.append(b",")
            chunks.append(_json({"role": m["role"], "content": m["content"]}).encode())
            sent.append((m, m["role"], m["content"]))
        out.append(b"[")
        out.extend(chunks)
        out.append(b"]")


def dumps(body: dict[str, Any], history: History | None = None) -> bytes:
    """The request body as the SDK encodes it (`openai._utils._json.openapi_dumps` for plain JSON data), byte for
    byte. JSON with these separators is the concatenation of its parts' encodings (and UTF-8 that of its parts'),
    so the conversation so far is encoded once per message (it was a tenth of the client's CPU, re-encoded on
    every call) and the body's bytes are joined once; with a seat's `history`, the messages it already sent are
    not even looked up again."""
    chunks: list[bytes] = []
    for key, value in body.items():
        chunks.append(b"," if chunks else b"{")
        chunks.append(_key(key))
        chunks.append(b":")
        if key != "messages":
            chunks.append(_encoded(value))
        elif history is not None:
            history.encode_into(value, chunks)
        else:
            chunks.append(_messages(value).encode())
    chunks.append(b"}" if chunks else b"{}")
    return b"".join(chunks)


class DirectPost:
    """POST `/chat/completions` for one SDK client (one provider, key and timeout) on one event loop."""

    def __init__(self, client: openai.AsyncOpenAI, timeout_s: float) -> None:
        self._client = client
        self.url = str(client.base_url).rstrip("/") + "/chat/completions"
        headers = {k: v for k, v in client.default_headers.items() if isinstance(v, str)}  # the SDK's Omit()s out
        headers.update(client.auth_headers)
        headers["x-stainless-read-timeout"] = str(float(timeout_s))
        headers["x-stainless-retry-count"] = "0"  # the SDK's own retries are off (client.py): it always sends 0
        self.headers = headers
        self._timeout_s = timeout_s
        self._proxy, self._proxy_headers = _proxy_parts(proxy_for(self.url))  # read once, as the SDK's client does
        self._session: aiohttp.ClientSession | None = None
        self._url: yarl.URL | None = None
        self._wire: wire.Pool | None = None  # the connections without a proxy (`wire.py`)

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:
            import aiohttp
            import yarl

            timeout = aiohttp.ClientTimeout(total=None, sock_connect=self._timeout_s, sock_read=self._timeout_s)
            connector = aiohttp.TCPConnector(limit=MAX_CONNECTIONS, limit_per_host=MAX_CONNECTIONS)
            # the headers are the same on every request: the session's defaults (in the same order, ahead of
            # aiohttp's own as before), so aiohttp does not rebuild them from a dict per request; the URL is parsed
            # once for the same reason
            self._session = aiohttp.ClientSession(
                connector=connector, timeout=timeout, skip_auto_headers=("User-Agent",), headers=self.headers
            )
            self._url = yarl.URL(self.url)
        return self._session

    async def post(self, body: dict[str, Any], history: History | None = None) -> dict[str, Any]:
        """One attempt: the parsed JSON body of a 2xx answer, or the SDK's exception for what went wrong. `history`:
        the calling seat's encoder of its messages (`History`)."""
        data = dumps(body, history)
        if self._proxy is None:
            if self._wire is None:
                self._wire = wire.Pool(self.url, self.headers, self._timeout_s)
            try:
                status, reply_headers, raw = await self._wire.post(data)
            except TimeoutError as exc:
                raise openai.APITimeoutError(request=self._request()) from exc
            except OSError as exc:  # WireError is a ConnectionError
                raise openai.APIConnectionError(request=self._request()) from exc
        else:
            status, reply_headers, raw = await self._post_via_proxy(data)
        if not 200 <= status < 300:
            failed = httpx2.Response(status, headers=reply_headers, content=raw, request=self._request())
            raise self._client._make_status_error_from_response(failed)
        return parse_body(raw)  # broken or too deeply nested: JSONDecodeError; JSON but not an object: {}

    async def _post_via_proxy(self, data: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
        """One POST on the aiohttp session, through the proxy."""
        import aiohttp

        try:
            session = self._open()
            url = self._url if self._url is not None else self.url
            async with session.post(url, data=data, proxy=self._proxy, proxy_headers=self._proxy_headers) as response:
                length = response.content_length
                if length is not None and length <= MAX_BODY_BYTES and "Content-Encoding" not in response.headers:
                    raw = await response.read()  # the length is the bound: aiohttp reads exactly that, in one piece
                else:  # chunked or compressed: counted as it arrives, AnswerTooLarge past the bound
                    raw = await read_bounded(response.content.iter_any())
                return response.status, list(response.headers.items()), raw
        except TimeoutError as exc:  # aiohttp's socket timeouts are TimeoutErrors
            raise openai.APITimeoutError(request=self._request()) from exc
        except aiohttp.ClientError as exc:
            raise openai.APIConnectionError(request=self._request()) from exc

    def _request(self) -> httpx2.Request:
        return httpx2.Request("POST", self.url)

    async def close(self) -> None:
        if self._wire is not None:
            await self._wire.close()
            self._wire = None
        if self._session is not None:
            await self._session.close()
            self._session = None
