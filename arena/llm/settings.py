"""An `llm` agent's HTTP settings: what its client sends to its server, read from its definition (the key from its
environment variable, at the moment the client is built, never stored). The LLM seat and the preflight probe both
build their clients from it."""

from __future__ import annotations

from arena.agents import AgentError, AgentSpec, api_key_for
from arena.llm.client import ClientSettings
from arena.llm.retry import RetryPolicy


def client_settings(spec: AgentSpec, seat: int | None = None) -> ClientSettings:
    """The HTTP settings of an `llm` agent; the key is read from its variable now, never stored. With
    `prompt_cache_key` on, each seat sends its own key, so the provider routes a seat's requests to its cache."""
    if not spec.model:
        raise AgentError(f"agent {spec.name}: kind 'llm' needs a model")
    extra_body = dict(spec.extra_body)
    if spec.prompt_cache_key and seat is not None:
        extra_body.setdefault("prompt_cache_key", f"mafia-arena-seat-{seat}")
    return ClientSettings(
        model=spec.model,
        base_url=spec.base_url,
        api_key=api_key_for(spec),
        timeout_s=spec.timeout_s,
        temperature=spec.temperature,
        max_tokens_param=spec.max_tokens_param,
        extra_body=extra_body,
        retry=RetryPolicy(attempts=spec.retries + 1),
        max_concurrent=spec.max_concurrent_requests,
        requests_per_minute=spec.requests_per_minute,
        grammar=spec.grammar,
        cache_control=spec.cache_control,
    )
