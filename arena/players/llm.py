"""The LLM seat: any OpenAI-compatible chat model plays one seat through its append-only conversation.

`decide` adds one user turn (new events, a refusal if any, the decision with its schema), makes one call (the
retry layer in `arena/llm/retry.py` handles transport failures), and reads the answer's shape. Legality is not
checked here: the orchestrator checks the Decision with the engine and re-asks with the engine's reason. An answer
that yields no Decision at all (a refusal, an empty or cut-off answer, no JSON, the wrong schema, a call that failed
every attempt) raises `NoUsableAnswer`, which the orchestrator treats as a failed attempt: re-asked with the
message, then the rule's default. So there is one re-ask layer, and every fault shows up as an engine event.

Every attempt becomes a `ModelCall`. The orchestrator records the calls of an Answer; the calls of an attempt that
raised are handed over with the seat's next Answer, so none is lost in the middle of a game.
"""

from __future__ import annotations

import time

from arena.agents import AgentError, AgentSpec, api_key_for
from arena.engine import Observation, Request, RuleSet
from arena.llm.answer import UnusableAnswer, read_completion
from arena.llm.budget import max_tokens_for
from arena.llm.client import ClientSettings, Completion, LLMClient, Mode
from arena.llm.conversation import Conversation, Message, Turn
from arena.llm.records import CallLog
from arena.llm.retry import RetryPolicy
from arena.llm.usage import Prices, Usage
from arena.players.base import Answer, ModelCall, Player
from arena.prompts import load_prompt_set

_OWN_PREFIX = "the player failed: NoUsableAnswer: "  # how the orchestrator words our own failure on the re-ask


class NoUsableAnswer(RuntimeError):
    """The model gave nothing the seat can turn into a Decision; the message says why."""


class LLMPlayer(Player):
    """One seat played by a chat model. Holds the seat's conversation and its HTTP client."""

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
        self.seat = seat
        self.client = client
        self.conversation = conversation
        self.mode = conversation.mode
        self.prices = prices or Prices()
        self.base_tokens = base_tokens
        self.lang = lang
        self.log = CallLog(seat)
        self.reported_model = ""  # the model name the server last reported
        self._unreported: list[ModelCall] = []

    async def close(self) -> None:
        await self.client.close()

    def _record(self, messages: list[Message], request: Request, **fields: object) -> None:
        self._unreported.append(
            self.log.record(messages, request_kind=request.kind.value, mode=self.mode.value, **fields)
        )

    def _handover(self) -> list[ModelCall]:
        calls, self._unreported = self._unreported, []
        return calls

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        if problem is not None and problem.startswith(_OWN_PREFIX):
            problem = problem[len(_OWN_PREFIX) :]
        turn = self.conversation.turn(observation, request, problem)
        messages = self.conversation.request_messages(turn)
        max_tokens = max_tokens_for(request, self.base_tokens, self.lang)
        started = time.perf_counter()
        result = await self.client.complete(
            messages, mode=self.mode, name=turn.name, schema=turn.schema, max_tokens=max_tokens
        )
        attempt = 0
        for failure in result.failures:
            attempt += 1
            self._record(
                messages, request, attempt=attempt, error=f"transport: {failure.error}", latency_ms=failure.latency_ms
            )
        if result.completion is None:
            final = result.final_error
            error = final.error if final is not None else "no completion"
            latency = final.latency_ms if final is not None else (time.perf_counter() - started) * 1000
            self._record(messages, request, attempt=attempt + 1, error=f"transport: {error}", latency_ms=latency)
            raise NoUsableAnswer(f"the model could not be reached: {error}")
        return self._conclude(turn, messages, request, result.completion, attempt + 1, max_tokens)

    def _conclude(
        self,
        turn: Turn,
        messages: list[Message],
        request: Request,
        completion: Completion,
        attempt: int,
        max_tokens: int,
    ) -> Answer:
        self.reported_model = completion.model or self.reported_model
        usage: Usage = completion.usage
        common: dict[str, object] = {
            "attempt": attempt,
            "model": completion.model,
            "raw": completion.raw or (completion.refusal or ""),
            "finish_reason": completion.finish_reason,
            "latency_ms": completion.latency_ms,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "cached_tokens": usage.cached_tokens,
            "cost_usd": self.prices.cost(usage),
        }
        answer = self.conversation.answer_messages(str(common["raw"]))
        try:
            reading = read_completion(completion, request, max_tokens)
        except UnusableAnswer as exc:
            self._record(messages, request, error=f"unusable: {exc}", **common)
            self.conversation.commit(turn, answer)  # the model sees its own bad answer before the re-ask
            raise NoUsableAnswer(str(exc)) from None
        self._record(messages, request, parsed=reading.parsed, error=reading.note, **common)
        self.conversation.commit(turn, answer)
        return Answer(decision=reading.decision, calls=self._handover())


def client_settings(spec: AgentSpec) -> ClientSettings:
    """The HTTP settings of an `llm` agent; the key is read from its variable now, never stored."""
    if not spec.model:
        raise AgentError(f"agent {spec.name}: kind 'llm' needs a model")
    return ClientSettings(
        model=spec.model,
        base_url=spec.base_url,
        api_key=api_key_for(spec),
        timeout_s=spec.timeout_s,
        temperature=spec.temperature,
        max_tokens_param=spec.max_tokens_param,
        extra_body=dict(spec.extra_body),
        retry=RetryPolicy(attempts=spec.retries + 1),
    )


def seat_language(spec: AgentSpec, lang: str) -> str:
    """The agent's own language if its definition sets one, otherwise the game's."""
    return spec.language or lang


def build_llm_player(spec: AgentSpec, seat: int, *, rules: RuleSet, lang: str = "en") -> Player:
    """The factory's entry point: an LLMPlayer for `spec` at `seat`."""
    language = seat_language(spec, lang)
    prompts = load_prompt_set(spec.prompt_set, language)
    mode = Mode(spec.structured)
    conversation = Conversation(prompts, rules, seat, mode, spec.persona)
    prices = Prices(spec.price_input_per_m, spec.price_cached_per_m, spec.price_output_per_m)
    client = LLMClient(client_settings(spec))
    return LLMPlayer(seat, client, conversation, prices=prices, base_tokens=spec.max_tokens, lang=language)
