"""The HTTP connection pool under every `AsyncOpenAI` of a process that runs many games at once.

The SDK's default pool (httpx's httpcore) walks every pooled connection, checking whether its socket is readable,
each time a request is queued or a response finished. One keep-alive client per provider per process (which
`client.py` keeps) means one pool with a connection per concurrent request: 64 games of 10 seats hold hundreds, and
the walk became 44 % of the client's CPU, so the games were CPU-bound long before the latency bound. aiohttp's
connector keeps idle connections in a per-host queue (constant work per request); the SDK ships it as
`DefaultAioHttpClient` (extra `openai[aiohttp]`). A tournament worker switches it on for its event loop with
`use_aiohttp()`, and then goes one step further by default: the calls skip the SDK's request machinery and are sent
as plain JSON POSTs on the process's own keep-alive connections (`direct.py`, `wire.py`; an aiohttp session through
a proxy). ARENA_HTTP_POOL=aiohttp keeps the SDK over aiohttp's pool,
=httpx the SDK's own pool, for comparisons. A single game (`arena play`, `arena resume`) switches it on at the start
of its game's loop as well; the recorded-cassette tests keep the SDK default.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when aiohttp's client is made: a bot-only game never loads the HTTP stack
    import httpx2

_ENABLED: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
_DIRECT: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
MAX_CONNECTIONS = 4096  # per client (one per provider per process); a full vote round of 64 games is 640


def use_aiohttp(enabled: bool = True) -> bool:
    """Use aiohttp's pool for the clients the running loop creates from now on, if it is installed; True if so."""
    loop = asyncio.get_running_loop()
    choice = os.environ.get("ARENA_HTTP_POOL", "direct")  # aiohttp, httpx: the SDK's paths, for comparison
    _ENABLED.discard(loop)
    _DIRECT.discard(loop)
    if enabled and available() and choice != "httpx":
        (_ENABLED if choice == "aiohttp" else _DIRECT).add(loop)
        return True
    return False


def direct() -> bool:
    """True when the running loop sends its calls as plain JSON POSTs (`direct.py`) instead of through the SDK."""
    try:
        return asyncio.get_running_loop() in _DIRECT
    except RuntimeError:
        return False


def available() -> bool:
    try:
        import aiohttp  # noqa: F401
        from openai import DefaultAioHttpClient  # noqa: F401
    except ImportError:
        return False
    return True


def http_client(timeout_s: float) -> httpx2.AsyncClient | None:
    """The `http_client` for a new AsyncOpenAI: aiohttp's when switched on, else None (the SDK's default)."""
    try:
        if asyncio.get_running_loop() not in _ENABLED:
            return None
    except RuntimeError:  # no loop running
        return None
    import httpx2
    from openai import DefaultAioHttpClient

    limits = httpx2.Limits(max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_CONNECTIONS)
    return DefaultAioHttpClient(timeout=timeout_s, limits=limits)
