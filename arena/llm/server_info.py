"""What a server says about itself before a game: its context window per slot and its slots.

llama.cpp's `llama-server` answers `GET /props` (next to `/v1`, not under it) with
`default_generation_settings.n_ctx`, the context of one slot (`-c` divided by `--parallel`), and `total_slots`
(tools/server/README.md). Its `/v1/models` repeats the window as `data[0].meta.n_ctx`. Other servers (OpenAI, vLLM,
Ollama) say nothing we read here: their budget is the agent file's `context_tokens`. The look-up is one short GET
each; any failure means "not said".
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from dataclasses import dataclass
from typing import Any

from arena.llm.body import MAX_BODY_BYTES
from arena.local.key import local_key


@dataclass(frozen=True, slots=True)
class ServerInfo:
    context_tokens: int | None = None  # per slot
    slots: int | None = None


def _root(base_url: str) -> str:
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _get_json(url: str, timeout_s: float, key: str | None = None) -> Any:
    """GET `url` and parse its JSON body; None for any failure. No proxy (the server is the user's own). `key`: the
    local model server's per-run key (arena/local/key.py), which it wants on every route but its health and models."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"} if key else {})
    try:
        with opener.open(request, timeout=timeout_s) as response:
            return json.loads(response.read(MAX_BODY_BYTES)) if response.status == 200 else None
    except (OSError, ValueError):  # refused, 404, timeout, not JSON
        return None


def server_info_now(base_url: str, timeout_s: float = 5.0) -> ServerInfo:
    """The window per slot and the slots `base_url`'s server reports; empty where it reports nothing."""
    key = local_key(base_url)
    body = _get_json(f"{_root(base_url)}/props", timeout_s, key)
    settings = body.get("default_generation_settings") if isinstance(body, dict) else None
    n_ctx = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
    if n_ctx is not None:
        return ServerInfo(n_ctx, _positive(body.get("total_slots")) if isinstance(body, dict) else None)
    body = _get_json(f"{base_url.rstrip('/')}/models", timeout_s, key)
    data = body.get("data") if isinstance(body, dict) else None
    meta = data[0].get("meta") if isinstance(data, list) and data and isinstance(data[0], dict) else None
    return ServerInfo(_positive(meta.get("n_ctx"))) if isinstance(meta, dict) else ServerInfo()


async def server_info(base_url: str, timeout_s: float = 5.0) -> ServerInfo:
    """`server_info_now` in a thread: two small GETs, off the event loop (no TLS context is built for them)."""
    return await asyncio.to_thread(server_info_now, base_url, timeout_s)
