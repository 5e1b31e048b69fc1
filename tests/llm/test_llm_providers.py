"""The shipped agent files of Anthropic, Gemini and a LiteLLM proxy, each against recorded answers shaped on that
provider's reference format (`cassettes/test_llm_providers/`, written by `provider_cassette_author.py`).

- `anthropic.toml`: Anthropic's OpenAI-compatible endpoint ignores `response_format`, so the seat asks for a forced
  tool call; the answer comes back as `tool_calls` with `finish_reason: "tool_calls"`, a `msg_` id and a `toolu_` call
  id, and usage without cache fields (that layer has no prompt caching).
- `gemini.toml`: Google's OpenAI-compatible endpoint honours `response_format` json_schema; a repeated prefix is a
  hit of its implicit cache, reported as `usage.prompt_tokens_details.cached_tokens`.
- `litellm.toml`: Claude behind a LiteLLM proxy. Anthropic caches only where asked: each request marks its last
  message `cache_control: ephemeral`; LiteLLM reports the hits as `prompt_tokens_details.cached_tokens` and the
  tokens written as `cache_creation_input_tokens` (its documented usage object), and both are priced.

Each seat is built from the shipped file as `arena play` builds it (key from the environment, here a test key that
never reaches a file). Requests match on method, URL, model and how the schema is sent; Authorization and x-api-key
are never recorded. No request leaves the process (CI replays with `--block-network --record-mode=none`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_llm_cassettes import situation

from arena.agents import resolve_agent
from arena.engine import Kind, Observation, Request, load_rules
from arena.llm.client import LLMClient
from arena.llm.usage import Prices, Usage
from arena.players.llm import LLMPlayer, build_llm_player

AGENTS = Path(__file__).resolve().parents[2] / "agents"
CASSETTES = Path(__file__).parent / "cassettes" / "test_llm_providers"
KEYS = {"anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY", "litellm": "LITELLM_API_KEY"}
PROVIDER_KEY = "sk-provider-test-DO-NOT-LEAK-0123456789"
# test name -> (agent file, the request it answers)
SCENARIOS = {
    "test_anthropic_answers_by_a_forced_tool_call": ("anthropic", Kind.VOTE),
    "test_gemini_honours_the_json_schema_and_reports_implicit_cache_hits": ("gemini", Kind.VOTE),
    "test_litellm_asks_claude_to_cache_and_counts_the_savings": ("litellm", Kind.SHOOT),
}


def seat_for(name: str, monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[LLMPlayer, Observation, Request]:
    """The seat of scenario `name`, built from the shipped agent file, and the request it is asked."""
    agent, kind = SCENARIOS[name]
    if monkeypatch is not None:
        monkeypatch.setenv(KEYS[agent], PROVIDER_KEY)
    spec = resolve_agent(agent, AGENTS)
    observation, request = situation(kind)
    player = build_llm_player(spec, request.seat, rules=load_rules("fiim"))
    assert isinstance(player, LLMPlayer)
    return player, observation, request


def spy_bodies(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every request body the seats build, as sent."""
    bodies: list[dict[str, Any]] = []
    original = LLMClient.body

    def body(self: LLMClient, *args: Any, **kwargs: Any) -> dict[str, Any]:
        built = original(self, *args, **kwargs)
        bodies.append(built)
        return built

    monkeypatch.setattr(LLMClient, "body", body)
    return bodies


async def ask(name: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Request, list[dict[str, Any]]]:
    bodies = spy_bodies(monkeypatch)
    player, observation, request = seat_for(name, monkeypatch)
    try:
        answer = await player.decide(observation, request)
    finally:
        await player.close()
    return answer, request, bodies


@pytest.mark.vcr
async def test_anthropic_answers_by_a_forced_tool_call(monkeypatch: pytest.MonkeyPatch) -> None:
    answer, _, bodies = await ask("test_anthropic_answers_by_a_forced_tool_call", monkeypatch)
    [body] = bodies
    assert "response_format" not in body and body["tool_choice"]["function"]["name"] == "vote_decision"
    assert body["temperature"] <= 1  # the endpoint caps it at 1
    assert answer.decision.vote is False and answer.decision.reasoning.startswith("Seat 9")
    (call,) = answer.calls
    assert (call.mode, call.finish_reason, call.error) == ("tools", "tool_calls", None)
    assert call.model == "claude-haiku-4-5-20251001" and call.raw.startswith('{"reasoning"')
    assert (call.prompt_tokens, call.cached_tokens, call.completion_tokens) == (2214, 0, 58)
    assert call.cost_usd == pytest.approx((2214 * 1.00 + 58 * 5.00) / 1e6)  # every prompt token at the input price


@pytest.mark.vcr
async def test_gemini_honours_the_json_schema_and_reports_implicit_cache_hits(monkeypatch: pytest.MonkeyPatch) -> None:
    name = "test_gemini_honours_the_json_schema_and_reports_implicit_cache_hits"
    answer, _, bodies = await ask(name, monkeypatch)
    spec = resolve_agent("gemini", AGENTS)
    [body] = bodies
    assert body["response_format"]["type"] == "json_schema" and "tools" not in body
    assert answer.decision.vote is True
    (call,) = answer.calls
    assert (call.mode, call.model, call.finish_reason) == ("json_schema", "gemini-2.5-flash", "stop")
    assert (call.prompt_tokens, call.cached_tokens, call.completion_tokens) == (2169, 2048, 47)
    assert call.cost_usd == pytest.approx(((2169 - 2048) * 0.30 + 2048 * 0.03 + 47 * 2.50) / 1e6)
    assert Prices.of(spec) == Prices(0.30, 0.03, 2.50)


@pytest.mark.vcr
async def test_litellm_asks_claude_to_cache_and_counts_the_savings(monkeypatch: pytest.MonkeyPatch) -> None:
    answer, request, bodies = await ask("test_litellm_asks_claude_to_cache_and_counts_the_savings", monkeypatch)
    [body] = bodies
    *history, last = body["messages"]
    assert last["content"] == [{"type": "text", "text": last["content"][0]["text"],
                                "cache_control": {"type": "ephemeral"}}]  # fmt: skip
    assert all(isinstance(m["content"], str) for m in history)  # one breakpoint: the last message
    assert answer.decision.target in request.options
    (call,) = answer.calls
    assert call.messages[-1]["content"] == last["content"][0]["text"]  # the transcript keeps the plain text
    assert (call.prompt_tokens, call.cached_tokens, call.completion_tokens) == (3405, 3072, 31)
    written = 301  # cache_creation_input_tokens
    paid = ((3405 - 3072 - written) * 1.00 + written * 1.25 + 3072 * 0.10 + 31 * 5.00) / 1e6
    assert call.cost_usd == pytest.approx(paid)
    assert call.cost_usd < (3405 * 1.00 + 31 * 5.00) / 1e6 / 3  # the savings: under a third of the uncached price


def test_usage_reads_each_providers_cache_fields() -> None:
    litellm = {"prompt_tokens": 3405, "completion_tokens": 31, "cache_creation_input_tokens": 301,
               "cache_read_input_tokens": 3072, "prompt_tokens_details": {"cached_tokens": 3072}}  # fmt: skip
    openai = {"prompt_tokens": 2000, "completion_tokens": 5,
              "prompt_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 512}}  # fmt: skip
    gemini_miss = {"prompt_tokens": 2169, "completion_tokens": 47, "prompt_tokens_details": None}
    assert Usage.from_body({"usage": litellm}) == Usage(3405, 31, 3072, 301)
    assert Usage.from_body({"usage": openai}) == Usage(2000, 5, 1024, 512)
    assert Usage.from_body({"usage": gemini_miss}) == Usage(2169, 47, 0, 0)
    assert Usage.from_body({"usage": {**litellm, "cache_creation_input_tokens": "x"}}).cache_write_tokens == 0
    prices = Prices(input=1.0, cached=0.1, output=5.0)  # no write price: writes at the input price, never at 0
    assert prices.cost(Usage(1000, 0, 0, 400)) == pytest.approx(1000 / 1e6)


def test_each_shipped_provider_file_resolves_with_its_own_key_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    for agent, variable in KEYS.items():
        monkeypatch.delenv(variable, raising=False)
        with pytest.raises(ValueError, match=variable):
            resolve_agent(agent, AGENTS)  # a game never starts without the key
        monkeypatch.setenv(variable, PROVIDER_KEY)
        spec = resolve_agent(agent, AGENTS)
        assert spec.api_key_env == variable and PROVIDER_KEY not in spec.model_dump_json()
    assert resolve_agent("anthropic", AGENTS).cached_price_assumed  # no cache there: cached tokens at input price
    assert resolve_agent("litellm", AGENTS).cache_control and not resolve_agent("gemini", AGENTS).cache_control
