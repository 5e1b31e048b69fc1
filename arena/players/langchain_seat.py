"""The LangChain seat: any `BaseChatModel` instance plays one seat (extra `langchain`, langchain-core only).

A model that can bind tools answers through `with_structured_output(schema, include_raw=True)`, which returns the
raw message next to the parsed object, so a parse failure is recorded and re-asked instead of raised. A model
without tool binding (`NotImplementedError`, e.g. a plain completion wrapper) falls back to prompt-and-parse: the
schema goes into the prompt and the JSON is extracted from its text by the same reader the OpenAI seat uses. The
agent names the model by `langchain_factory = "package.module:function"`, a function returning the model; retries
and timeouts are the model's own (configure them on it), so this seat adds no retry layer of its own.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import time
from collections.abc import Callable
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from arena.agents import AgentError, AgentSpec
from arena.engine import Observation, Request, RuleSet
from arena.llm.compaction import Budget
from arena.llm.conversation import Conversation, Message, Turn
from arena.llm.modes import Completion, Mode
from arena.llm.seat import ConversationSeat
from arena.llm.usage import Prices, Usage
from arena.players.base import Answer, Player
from arena.prompts import load_prompt_set

_METHOD = {Mode.JSON_SCHEMA: "json_schema", Mode.TOOLS: "function_calling", Mode.JSON_OBJECT: "json_mode"}


def can_bind_tools(model: BaseChatModel) -> bool:
    """Whether the model overrides `bind_tools` (the core default raises NotImplementedError)."""
    return type(model).bind_tools is not BaseChatModel.bind_tools


def to_langchain(messages: list[Message]) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for message in messages:
        content = str(message.get("content") or "")
        role = message.get("role")
        if role == "system":
            out.append(SystemMessage(content=content))
        elif role == "assistant":
            out.append(AIMessage(content=content))
        else:
            out.append(HumanMessage(content=content))
    return out


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)


def _completion(raw_message: BaseMessage, text: str, latency_ms: float) -> Completion:
    metadata = getattr(raw_message, "response_metadata", None) or {}
    model = str(metadata.get("model_name") or metadata.get("model") or "")
    usage = Usage.from_langchain(getattr(raw_message, "usage_metadata", None))
    refusal = metadata.get("refusal") or getattr(raw_message, "additional_kwargs", {}).get("refusal")
    finish = metadata.get("finish_reason")
    return Completion(text, finish, refusal, model, usage, latency_ms)


class LangChainPlayer(ConversationSeat):
    """One seat played by a LangChain chat model."""

    def __init__(
        self,
        seat: int,
        model: BaseChatModel,
        conversation: Conversation,
        *,
        prices: Prices | None = None,
        lang: str = "en",
    ) -> None:
        super().__init__(seat, conversation, prices=prices, lang=lang)
        self.model = model

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        plain = self.conversation.turn(observation, request, self.asked(problem))
        max_tokens = self.max_tokens(request)
        turn = self.conversation.fit(plain, observation, max_tokens)  # the budget, if the agent sets one
        compaction = "budget" if turn is not plain else None
        messages = self.conversation.request_messages(turn)
        started = time.perf_counter()
        try:
            if self.mode is Mode.PROMPT:
                completion = await self._ask_text(messages, started)
            else:
                completion = await self._ask_structured(turn, messages, started)
        except asyncio.CancelledError:  # the decision's time limit: the call in flight is recorded, then dropped
            self.abandon(messages, request, 1, started)
            raise
        except Exception as exc:  # any provider error: recorded, then re-asked by the orchestrator
            error = f"{type(exc).__name__}: {exc}"[:500]
            raise self.fail_transport(messages, request, error, (time.perf_counter() - started) * 1000, 1) from exc
        return await self.conclude(turn, messages, request, completion, 1, max_tokens, compaction)

    async def _ask_text(self, messages: list[Message], started: float) -> Completion:
        reply = await self.model.ainvoke(to_langchain(messages))
        return _completion(reply, _text(reply), (time.perf_counter() - started) * 1000)

    async def _ask_structured(self, turn: Turn, messages: list[Message], started: float) -> Completion:
        schema = {"title": turn.name, "description": "The decision asked for.", **turn.schema}
        runnable = self.model.with_structured_output(schema, include_raw=True, method=_METHOD[self.mode])
        result: Any = await runnable.ainvoke(to_langchain(messages))
        raw = result["raw"]
        latency = (time.perf_counter() - started) * 1000
        tool_calls = getattr(raw, "tool_calls", None) or []
        if result.get("parsed") is not None:
            return _completion(raw, json.dumps(result["parsed"], ensure_ascii=False), latency)
        if tool_calls:  # arguments that did not parse: keep them as the answer's text, the reader says why
            return _completion(raw, json.dumps(tool_calls[0].get("args", {}), ensure_ascii=False), latency)
        return _completion(raw, _text(raw), latency)


def load_factory(spec: AgentSpec) -> Callable[[], BaseChatModel]:
    """The agent's `langchain_factory` ("package.module:function"), imported and checked."""
    target = spec.langchain_factory or ""
    module_name, _, function_name = target.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), function_name)
    except (ImportError, AttributeError) as exc:
        raise AgentError(f"agent {spec.name}: langchain_factory {target!r} cannot be loaded: {exc}") from None
    if not callable(factory):
        raise AgentError(f"agent {spec.name}: langchain_factory {target!r} is not a function")
    return factory  # type: ignore[no-any-return]


def build_langchain_player(
    spec: AgentSpec, seat: int, *, rules: RuleSet, lang: str = "en", model: BaseChatModel | None = None
) -> Player:
    """The factory's entry point: a LangChainPlayer for `spec` at `seat` (or for `model`, given directly)."""
    chat = model if model is not None else load_factory(spec)()
    if not isinstance(chat, BaseChatModel):
        raise AgentError(f"agent {spec.name}: langchain_factory returned {type(chat).__name__}, not a BaseChatModel")
    mode = Mode(spec.structured)
    if mode is not Mode.PROMPT and not can_bind_tools(chat):
        mode = Mode.PROMPT  # no tool binding: the schema goes into the prompt and the JSON is parsed from the text
    language = spec.language or lang
    prompts = load_prompt_set(spec.prompt_set, language)
    conversation = Conversation(prompts, rules, seat, mode, spec.persona, spec.schema_style)
    conversation.budget = Budget.of(spec.context_tokens, language)
    prices = Prices.of(spec)
    return LangChainPlayer(seat, chat, conversation, prices=prices, lang=language)
