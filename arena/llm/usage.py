"""Token usage and cost of one model call.

Servers report usage differently: OpenAI, Gemini's OpenAI-compatible endpoint, LiteLLM and llama.cpp put cached
prompt tokens in `usage.prompt_tokens_details.cached_tokens`, some OpenAI-compatible servers omit the details,
LangChain reports `usage_metadata.input_token_details.cache_read`. Tokens written to a provider's cache (Anthropic
bills them above the input price) come as `usage.cache_creation_input_tokens` (LiteLLM, Anthropic's field name) or
`usage.prompt_tokens_details.cache_write_tokens` (OpenAI's). `prompt_tokens` counts every input token, read from the
cache, written to it or neither. Everything is normalised here into one `Usage`, and priced with the agent's
per-million prices (input, cached input, cache writes, output).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.agents import AgentSpec


def _count(value: Any) -> int:
    """A token count a server reported, or 0 for anything that is not a non-negative number."""
    try:
        number = int(value or 0)
    except (TypeError, ValueError):
        return 0
    return max(number, 0)


@dataclass(frozen=True, slots=True)
class Prices:
    """USD per million tokens. Cached input tokens are billed at `cached` instead of `input`, tokens written to the
    cache at `cache_write` (None: the input price)."""

    input: float = 0.0
    cached: float = 0.0
    output: float = 0.0
    cache_write: float | None = None

    @classmethod
    def of(cls, spec: AgentSpec) -> Prices:
        """An agent's prices (a file without a cached price pays the input price for it: `AgentSpec`)."""
        return cls(spec.price_input_per_m, spec.price_cached_per_m, spec.price_output_per_m,
                   spec.price_cache_write_per_m)  # fmt: skip

    def cost(self, usage: Usage) -> float:
        uncached = max(usage.prompt_tokens - usage.cached_tokens, 0)
        written = min(usage.cache_write_tokens, uncached)
        write = self.input if self.cache_write is None else self.cache_write
        total = ((uncached - written) * self.input + written * write + usage.cached_tokens * self.cached
                 + usage.completion_tokens * self.output)  # fmt: skip
        return total / 1_000_000


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0  # of the prompt tokens, those written to the provider's cache (priced apart)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    @classmethod
    def from_openai(cls, usage: Any) -> Usage:
        """From an SDK `CompletionUsage` (or None when the server sent no usage)."""
        if usage is None:
            return cls()
        details = getattr(usage, "prompt_tokens_details", None)
        cached = getattr(details, "cached_tokens", None) if details is not None else None
        written = getattr(usage, "cache_creation_input_tokens", None) or (
            getattr(details, "cache_write_tokens", None) if details is not None else None
        )
        return cls(
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cached_tokens=int(cached or 0),
            cache_write_tokens=_count(written),
        )

    @classmethod
    def from_body(cls, body: Any) -> Usage:
        """From a response's JSON body as a dict, e.g. an error body that still reports the tokens spent."""
        usage = body.get("usage") if isinstance(body, dict) else None
        if not isinstance(usage, dict):
            return cls()
        details = usage.get("prompt_tokens_details")
        cached = details.get("cached_tokens") if isinstance(details, dict) else 0
        written = usage.get("cache_creation_input_tokens") or (
            details.get("cache_write_tokens") if isinstance(details, dict) else None
        )
        try:
            return cls(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0), int(cached or 0),
                       _count(written))  # fmt: skip
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
