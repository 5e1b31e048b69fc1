"""The LLM seat: any OpenAI-compatible chat model plays one seat through its append-only conversation.

`decide` adds one user turn (new events, a refusal if any, the decision with its schema), makes one call (the
retry layer in `arena/llm/retry.py` handles transport failures), and reads the answer's shape. Legality is not
checked here: the orchestrator checks the Decision with the engine and re-asks with the engine's reason. An answer
that yields no Decision at all (a refusal, an empty or cut-off answer, no JSON, the wrong schema, a call that failed
every attempt) raises `NoUsableAnswer`, which the orchestrator treats as a failed attempt: re-asked with the
message, then the rule's default. So there is one re-ask layer, and every fault shows up as an engine event.
The shared mechanics (records, reading, the conversation) are in `arena/llm/seat.py`.
"""

from __future__ import annotations

import asyncio
import time

from arena.agents import AgentError, AgentSpec, api_key_for
from arena.engine import Observation, Request, RuleSet
from arena.llm.budget import max_tokens_for
from arena.llm.client import CallResult, ClientSettings, LLMClient
from arena.llm.conversation import Conversation
from arena.llm.modes import Mode
from arena.llm.retry import RetryPolicy
from arena.llm.seat import ConversationSeat, NoUsableAnswer
from arena.llm.usage import Prices, Usage
from arena.players.base import Answer, Player
from arena.prompts import load_prompt_set

__all__ = ["LLMPlayer", "NoUsableAnswer", "build_llm_player", "client_settings", "seat_language"]


class LLMPlayer(ConversationSeat):
    """One seat played by a chat model over HTTP. Holds the seat's conversation and its client."""

    def __init__(
        self,
        seat: int,
        client: LLMClient,
        conversation: Conversation,
        *,
        prices: Prices | None = None,
        base_tokens: int | None = None,
        lang: str = "en",
    ) -> None:
        super().__init__(seat, conversation, prices=prices)
        self.client = client
        self.base_tokens = base_tokens
        self.lang = lang

    async def close(self) -> None:
        await self.client.close()

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        turn = self.conversation.turn(observation, request, self.clean_problem(problem))
        messages = self.conversation.request_messages(turn)
        max_tokens = max_tokens_for(request, self.base_tokens, self.lang)
        started = time.perf_counter()
        result = CallResult()
        try:
            await self.client.complete(
                messages, mode=self.mode, name=turn.name, schema=turn.schema, max_tokens=max_tokens, into=result
            )
        except asyncio.CancelledError:  # the decision's time limit: the attempts so far and the one cut short
            for attempt, failure in enumerate(result.failures, start=1):
                self.record_failure(messages, request, attempt, failure.error, failure.latency_ms, failure.usage)
            self.abandon(messages, request, len(result.failures) + 1, result.attempt_started or started)
            raise
        attempt = 0
        for failure in result.failures:
            attempt += 1
            self.record_failure(messages, request, attempt, failure.error, failure.latency_ms, failure.usage)
        if result.completion is None:
            final = result.final_error
            error = final.error if final is not None else "no completion"
            latency = final.latency_ms if final is not None else (time.perf_counter() - started) * 1000
            usage = final.usage if final is not None else Usage()
            raise self.fail_transport(messages, request, error, latency, attempt + 1, usage)
        return await self.conclude(turn, messages, request, result.completion, attempt + 1, max_tokens)


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
    )


def seat_language(spec: AgentSpec, lang: str) -> str:
    """The agent's own language if its definition sets one, otherwise the game's."""
    return spec.language or lang


def build_llm_player(spec: AgentSpec, seat: int, *, rules: RuleSet, lang: str = "en") -> Player:
    """The factory's entry point: an LLMPlayer for `spec` at `seat`."""
    language = seat_language(spec, lang)
    prompts = load_prompt_set(spec.prompt_set, language)
    conversation = Conversation(prompts, rules, seat, Mode(spec.structured), spec.persona, spec.schema_style)
    prices = Prices(spec.price_input_per_m, spec.price_cached_per_m, spec.price_output_per_m)
    client = LLMClient(client_settings(spec, seat))
    return LLMPlayer(seat, client, conversation, prices=prices, base_tokens=spec.max_tokens, lang=language)
