"""Token usage and cost of one model call.

Servers report usage differently: OpenAI and llama.cpp put cached prompt tokens in
`usage.prompt_tokens_details.cached_tokens`, some OpenAI-compatible servers omit the details, LangChain reports
`usage_metadata.input_token_details.cache_read`. Everything is normalised here into one `Usage`, and priced with the
agent's per-million prices (input, cached input, output).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Prices:
    """USD per million tokens. Cached input tokens are billed at `cached` instead of `input`."""

    input: float = 0.0
    cached: float = 0.0
    output: float = 0.0

    def cost(self, usage: Usage) -> float:
        uncached = max(usage.prompt_tokens - usage.cached_tokens, 0)
        total = uncached * self.input + usage.cached_tokens * self.cached + usage.completion_tokens * self.output
        return total / 1_000_000


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
        )

    @classmethod
    def from_openai(cls, usage: Any) -> Usage:
        """From an SDK `CompletionUsage` (or None when the server sent no usage)."""
        if usage is None:
            return cls()
        details = getattr(usage, "prompt_tokens_details", None)
        cached = getattr(details, "cached_tokens", None) if details is not None else None
        return cls(
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cached_tokens=int(cached or 0),
        )

    @classmethod
    def from_body(cls, body: Any) -> Usage:
        """From a response's JSON body as a dict, e.g. an error body that still reports the tokens spent."""
        usage = body.get("usage") if isinstance(body, dict) else None
        if not isinstance(usage, dict):
            return cls()
        details = usage.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else 0
        try:
            return cls(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0), int(cached or 0))
        except (TypeError, ValueError):
            return cls()

    @classmethod
    def from_error(cls, exc: BaseException) -> Usage:
        """What a failed attempt's response still reported: the SDK's parsed error body, else the whole JSON body."""
        usage = cls.from_body(getattr(exc, "body", None))
        response = getattr(exc, "response", None)
        if usage != cls() or response is None:
            return usage
        try:
            return cls.from_body(response.json())
        except Exception:  # not JSON, or no body: nothing was reported
            return usage

    @classmethod
    def from_langchain(cls, metadata: Any) -> Usage:
        """From a LangChain `AIMessage.usage_metadata` dict (or None)."""
        if not isinstance(metadata, dict):
            return cls()
        details = metadata.get("input_token_details") or {}
        return cls(
            prompt_tokens=int(metadata.get("input_tokens", 0) or 0),
            completion_tokens=int(metadata.get("output_tokens", 0) or 0),
            cached_tokens=int(details.get("cache_read", 0) or 0),
        )
