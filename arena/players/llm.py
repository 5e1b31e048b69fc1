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
from dataclasses import replace

from arena.agents import AgentSpec
from arena.engine import Observation, Request, RuleSet
from arena.llm.client import CallResult, LLMClient
from arena.llm.compaction import Budget
from arena.llm.conversation import Conversation, Message, Turn
from arena.llm.modes import Mode
from arena.llm.seat import ConversationSeat, NoUsableAnswer, fix_for
from arena.llm.settings import client_settings
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
        super().__init__(seat, conversation, prices=prices, lang=lang)
        self.client = client
        self.base_tokens = base_tokens

    @property
    def where(self) -> str:
        """The server's address, for a stop's one line (never a key: `base_url` userinfo is dropped)."""
        url = self.client.settings.base_url or "https://api.openai.com/v1"
        scheme, _, rest = url.partition("://")
        return f"{scheme}://{rest.rpartition('@')[2]}" if rest else url

    async def close(self) -> None:
        await self.client.close()

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        conversation = self.conversation
        turn = conversation.turn(observation, request, self.asked(problem))
        max_tokens = self.max_tokens(request)
        fitted = conversation.fit(turn, observation, max_tokens)
        compaction = "budget" if fitted is not turn else None
        attempt = 0
        while True:
            messages = conversation.request_messages(fitted)
            result, attempt = await self._call(messages, request, fitted, max_tokens, attempt, compaction)
            if result.completion is not None:
                completion = result.completion
                return await self.conclude(fitted, messages, request, completion, attempt, max_tokens, compaction)
            final = result.final_error
            error = final.error if final is not None else "no completion"
            usage = final.usage if final is not None else Usage()
            latency = final.latency_ms if final is not None else 0.0
            if final is not None and final.overflow is not None and compaction != "overflow":
                # the prompt does not fit the server's context: never a transport failure; compact, one new attempt
                refit = conversation.fit(turn, observation, max_tokens, force=True)
                if refit is not turn:
                    note = f"context overflow, compacted for one new attempt: {error}"
                    self.record_failure(messages, request, attempt, note, latency, usage, compaction)
                    fitted, compaction = refit, "overflow"
                    continue
            refused = final is not None and (final.refused or final.overflow is not None)
            fix = fix_for(error, final.status if final is not None else None,
                          overflow=final is not None and final.overflow is not None, where=self.where)  # fmt: skip
            raise self.fail_transport(messages, request, error, latency, attempt, usage, refused=refused,
                                      compaction=compaction, fix=fix)  # fmt: skip

    async def _call(
        self,
        messages: list[Message],
        request: Request,
        turn: Turn,
        max_tokens: int,
        attempt: int,
        compaction: str | None,
    ) -> tuple[CallResult, int]:
        """One logical call (its transport retries included); the failed attempts recorded. Returns the result and
        the number of the attempt that ended it."""
        started = time.perf_counter()
        result = CallResult()
        try:
            await self.client.complete(
                messages, mode=self.mode, name=turn.name, schema=turn.schema, max_tokens=max_tokens, into=result
            )
        except asyncio.CancelledError:  # the decision's time limit: the attempts so far and the one cut short
            for failure in result.failures:
                attempt += 1
                self.record_failure(messages, request, attempt, failure.error, failure.latency_ms, failure.usage,
                                    compaction)  # fmt: skip
            self.abandon(messages, request, attempt + 1, result.attempt_started or started)
            raise
        for failure in result.failures:
            attempt += 1
            self.record_failure(messages, request, attempt, failure.error, failure.latency_ms, failure.usage,
                                compaction)  # fmt: skip
        return result, attempt + 1


def seat_language(spec: AgentSpec, lang: str) -> str:
    """The agent's own language if its definition sets one, otherwise the game's."""
    return spec.language or lang


def build_llm_player(spec: AgentSpec, seat: int, *, rules: RuleSet, lang: str = "en") -> Player:
    """The factory's entry point: an LLMPlayer for `spec` at `seat`."""
    language = seat_language(spec, lang)
    prompts = load_prompt_set(spec.prompt_set, language)
    conversation = Conversation(prompts, rules, seat, Mode(spec.structured), spec.persona, spec.schema_style)
    conversation.budget = Budget.of(spec.context_tokens, language)
    prices = Prices.of(spec)
    settings = client_settings(spec, seat)
    if spec.server_slots is not None and spec.server_slots >= rules.players:
        # llama.cpp: a slot per seat, so each seat's prefix stays cached in its own slot (fewer slots than seats
        # share them by prompt similarity, and the server's RAM cache keeps the rest)
        settings = replace(settings, extra_body={**settings.extra_body, "id_slot": seat - 1})
    client = LLMClient(settings)
    return LLMPlayer(seat, client, conversation, prices=prices, base_tokens=spec.max_tokens, lang=language)
