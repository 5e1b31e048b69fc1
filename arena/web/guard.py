"""What every request of `arena serve` must pass before a route sees it: the size limit, the JSON depth, the shape
of a token, the WebSocket origin, and the headers every response carries.

Why one place: tokens live in URLs, so every response carries a strict Content-Security-Policy and no Referer leaves
a page; a chunked body has no Content-Length, so a body is read as a stream and refused as soon as it passes the
limit; deeply nested JSON is refused as a ValueError, never a 500.
"""

from __future__ import annotations

import ipaddress
import json
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response

MAX_MESSAGE = 16 * 1024  # bytes of one WebSocket message or request body; a speech is a few thousand at most
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


class TooLarge(Exception):
    """A request body over MAX_MESSAGE (read no further)."""


async def read_body(request: Request, limit: int = MAX_MESSAGE) -> bytes:
    """The request body, read as a stream and refused (TooLarge) as soon as it passes `limit`: a chunked body has
    no Content-Length for the middleware to check, and must not be buffered whole before it is refused."""
    parts: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge
        parts.append(chunk)
    return b"".join(parts)


def loads(data: str | bytes) -> Any:
    """json.loads with deeply nested JSON refused as a ValueError (it would be a RecursionError, a 500)."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("nested too deeply") from None


class Bucket:
    """A token bucket: `burst` at once, refilled at `per_s` a second; `take()` spends one if there is one."""

    def __init__(self, burst: float, per_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.burst, self.per_s, self.clock = burst, per_s, clock
        self.tokens, self.at = float(burst), clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_s)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Buckets:
    """One bucket per key (a link, a client), the least recently used forgotten past `most` keys."""

    def __init__(self, burst: float, per_s: float, most: int = 10_000) -> None:
        self.burst, self.per_s, self.most = burst, per_s, most
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()

    def take(self, key: str) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(self.burst, self.per_s)
            if len(self._buckets) > self.most:
                self._buckets.popitem(last=False)
        self._buckets.move_to_end(key)
        return bucket.take()


def client_of(peer: str | None, headers: Mapping[str, str]) -> str:
    """Who is connecting, for the per-client limits: the peer's address; from a loopback peer (the reverse proxy of
    docs/web.md), the address it names in `X-Real-IP`, if that is an address."""
    host = peer or "unknown"
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    forwarded = headers.get("x-real-ip", "").strip()
    if loopback and forwarded:
        try:
            return str(ipaddress.ip_address(forwarded))
        except ValueError:
            pass
    return host


def token_ok(token: str) -> bool:
    return bool(_TOKEN.match(token))


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """A WebSocket upgrade is accepted only from this server's own page (same host) or a configured origin."""
    if not origin:
        return False
    if origin in allowed:
        return True
    match = re.match(r"^https?://([^/]+)$", origin)
    return bool(match and host and match.group(1).lower() == host.lower())


async def headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    """The HTTP middleware: a declared body over the limit is refused at once; every response gets the headers."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_MESSAGE):
        return JSONResponse({"error": "request too large"}, status_code=413)
    response = await call_next(request)
    response.headers["Content-Security-Policy"] = CSP
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Cache-Control"] = "no-store"
    return response
