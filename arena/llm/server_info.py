"""What a server says about itself before a game: its context window per slot and its slots.

llama.cpp's `llama-server` answers `GET /props` (next to `/v1`, not under it) with
`default_generation_settings.n_ctx`, the context of one slot (`-c` divided by `--parallel`), and `total_slots`
(tools/server/README.md). Its `/v1/models` repeats the window as `data[0].meta.n_ctx`. Other servers (OpenAI, vLLM,
Ollama) say nothing we read here: their budget is the agent file's `context_tokens`. The look-up is one short GET
each; any failure means "not said".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx2


@dataclass(frozen=True, slots=True)
class ServerInfo:
    context_tokens: int | None = None  # per slot
    slots: int | None = None


def _root(base_url: str) -> str:
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


async def server_info(base_url: str, timeout_s: float = 5.0) -> ServerInfo:
    """The window per slot and the slots `base_url`'s server reports; empty where it reports nothing."""
    async with httpx2.AsyncClient(timeout=timeout_s, trust_env=False) as client:
        try:
            response = await client.get(f"{_root(base_url)}/props")
            if response.status_code == 200:
                body = response.json()
                settings = body.get("default_generation_settings") if isinstance(body, dict) else None
                n_ctx = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
                if n_ctx is not None:
                    return ServerInfo(n_ctx, _positive(body.get("total_slots")))
        except (httpx2.HTTPError, ValueError):
            pass
        try:
            response = await client.get(f"{base_url.rstrip('/')}/models")
            data = response.json().get("data") if response.status_code == 200 else None
            meta = data[0].get("meta") if isinstance(data, list) and data and isinstance(data[0], dict) else None
            if isinstance(meta, dict):
                return ServerInfo(_positive(meta.get("n_ctx")))
        except (httpx2.HTTPError, ValueError, AttributeError):
            pass
    return ServerInfo()
