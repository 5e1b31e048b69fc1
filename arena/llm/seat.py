"""What every model-backed seat shares: the conversation, the call records, and turning an answer into a Decision.

The OpenAI-compatible seat (`arena/players/llm.py`) and the LangChain seat (`arena/players/langchain_seat.py`) differ
only in how they reach the model. Both build the turn from the seat's own Observation, record every attempt as a
`ModelCall`, read the answer's shape (legality is the engine's), and raise `NoUsableAnswer` when an answer yields no
Decision, which the orchestrator re-asks with the message. Records of an attempt that raised travel on the exception
(`PlayerError.calls`), so the orchestrator writes them all, even for a seat that never answers usably again.
"""

from __future__ import annotations

import asyncio
import time

from arena.engine import Failure, Request
from arena.engine.text import reasoning_cap
from arena.llm.answer import UnusableAnswer, read_completion
from arena.llm.budget import max_tokens_for
from arena.llm.conversation import Conversation, Message, Turn
from arena.llm.modes import Completion, capped
from arena.llm.records import CallLog
from arena.llm.usage import Prices, Usage
from arena.players.base import ERROR_PREFIX, NOT_REACHED, TRANSPORT_PREFIX, Answer, ModelCall, Player, PlayerError

OWN_PREFIX = f"{ERROR_PREFIX} NoUsableAnswer: "  # how the orchestrator words our own failure on the re-ask
TRANSPORT = TRANSPORT_PREFIX  # the error prefix of an attempt that got no answer at all
UNUSABLE = "unusable: "  # the error prefix of an answer that yields no decision (its reason follows)
UNREACHABLE, REFUSED = NOT_REACHED  # how an attempt with no answer is worded (the failure contract, players/base.py)
_NONE = Usage()
OFF_LOOP_CHARS = 16 * 1024  # a longer answer is read in a worker thread: the loop keeps serving (arena serve)


class NoUsableAnswer(PlayerError):
    """The model gave nothing the seat can turn into a Decision; the message says why, `calls` what was tried. An
    attempt it ends is `malformed` when the model answered (`reached`), an `error` when it did not."""

    code = Failure.MALFORMED


def fix_for(error: str, status: int | None, *, overflow: bool = False, where: str = "") -> str:
    """One line on what to do about a call that got no answer, from its HTTP status and error (`where`: the server's
    address, if known): what the game says when it stops on it."""
    at = f" at {where}" if where else ""
    if overflow:
        return (
            "the prompt does not fit the model's context: give the server a larger context (`arena local-model "
            "--ctx`, llama-server's --ctx-size) or the agent a smaller `context_tokens`"
        )
    if status in (401, 403):
        return "check the API key (the agent's `api_key_env` variable) and its access to this model"
    if status == 404:
        return f"check the agent's `model` name and `base_url`: the server{at} does not know this model or path"
    if status == 429:
        return "the provider's rate limit held every attempt: wait, or lower the agent's request rate"
    if status is not None and status >= 500:
        return f"the server{at} kept failing (HTTP {status}): check it, or try again later"
    if status is not None:
        return f"the server{at} refuses this request (HTTP {status}): check the agent's settings (model, structured)"
    if error.startswith("timeout"):
        return f"the server{at} did not answer in time: check that it runs and is not overloaded (`timeout_s`)"
    return f"start the model's server{at}, or check the agent's `base_url`"


class ConversationSeat(Player):
    """A seat whose decisions come from a chat model through an append-only `Conversation`."""

    model_seat = True
    base_tokens: int | None = None  # the agent's `max_tokens` (an HTTP seat's); None: the built-in budgets

    def __init__(self, seat: int, conversation: Conversation, *, prices: Prices | None = None,
                 lang: str = "en") -> None:  # fmt: skip
        self.seat = seat
        self.lang = lang
        self.conversation = conversation
        self.mode = conversation.mode
        self.prices = prices or Prices()
        self.log = CallLog(seat)
        self.reported_model = ""  # the model name the server last reported
        self._unreported: list[ModelCall] = []
        self.reask: str | None = None  # the refusal the decision in progress answers (see `asked`)

    @staticmethod
    def clean_problem(problem: str | None) -> str | None:
        """The orchestrator prefixes our own failure with its wording; the model needs only the reason."""
        if problem is not None and problem.startswith(OWN_PREFIX):
            return problem[len(OWN_PREFIX) :]
        return problem

    def max_tokens(self, request: Request) -> int:
        """The answer's token limit for this request, in the seat's language."""
        return max_tokens_for(request, self.base_tokens, self.lang)

    def asked(self, problem: str | None) -> str | None:
        """Start a decision: the refusal it answers (None on a first ask), cleaned for the model and kept for every
        call record of this decision, so a rebuild can show it again."""
        self.reask = self.clean_problem(problem)
        return self.reask

    def record(self, messages: list[Message], request: Request, **fields: object) -> None:
        flagged = list(self.conversation.shown_flags)
        call = self.log.record(messages, request_kind=request.kind.value, mode=self.mode.value, flags=flagged,
                               reask=self.reask, **fields)  # fmt: skip
        self._unreported.append(call)

    def record_failure(
        self,
        messages: list[Message],
        request: Request,
        attempt: int,
        error: str,
        latency_ms: float,
        usage: Usage,
        compaction: str | None = None,
    ) -> None:
        """Record an attempt that got no answer, with any tokens its error body still reported."""
        self.record(
            messages,
            request,
            compaction=compaction,
            attempt=attempt,
            error=f"{TRANSPORT}{error}",
            latency_ms=latency_ms,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            cached_tokens=usage.cached_tokens,
            cost_usd=self.prices.cost(usage),
        )

    def fail_transport(
        self,
        messages: list[Message],
        request: Request,
        error: str,
        latency_ms: float,
        attempt: int,
        usage: Usage = _NONE,
        *,
        refused: bool = False,
        compaction: str | None = None,
        fix: str = "",
    ) -> NoUsableAnswer:
        """Record an attempt that got no answer; return the exception to raise (not reached: a decision that ends on
        it stops the game, with `fix`). A request the server `refused` (400, 401, 403, 404, 413, 422) is said to be
        refused, and is final: a re-ask would be refused again."""
        self.record_failure(messages, request, attempt, error, latency_ms, usage, compaction)
        fix = fix or fix_for(error, None)
        if refused:
            message = f"{REFUSED}: {error}"
            return NoUsableAnswer(message, self.handover(), final=True, reached=False, fix=fix)
        return NoUsableAnswer(f"{UNREACHABLE}: {error}", self.handover(), reached=False, fix=fix)

    def abandon(self, messages: list[Message], request: Request, attempt: int, started: float) -> None:
        """Record the attempt in flight when the decision's time limit cancelled it: its error and how long it ran."""
        latency = (time.perf_counter() - started) * 1000
        error = f"timeout: the decision's time limit ran out after {latency:.0f} ms; the call was abandoned"
        self.record_failure(messages, request, attempt, error, latency, _NONE)

    def handover(self) -> list[ModelCall]:
        calls, self._unreported = self._unreported, []
        return calls

    def abandoned_calls(self) -> list[ModelCall]:
        return self.handover()

    async def conclude(
        self,
        turn: Turn,
        messages: list[Message],
        request: Request,
        completion: Completion,
        attempt: int,
        max_tokens: int,
        compaction: str | None = None,
    ) -> Answer:
        """Record the answer, keep it in the conversation, and return its Decision (or raise NoUsableAnswer)."""
        completion = capped(completion)  # an oversize answer keeps only its head, here and in the record
        self.reported_model = completion.model or self.reported_model
        usage = completion.usage
        raw = completion.raw or (completion.refusal or "")
        common: dict[str, object] = {
            "attempt": attempt,
            "model": completion.model,
            "raw": raw,
            "finish_reason": completion.finish_reason,
            "latency_ms": completion.latency_ms,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "cached_tokens": usage.cached_tokens,
            "cost_usd": self.prices.cost(usage),
            "timings": completion.timings,
            "compaction": compaction,
        }
        answer = self.conversation.answer_messages(raw)
        try:
            players = self.conversation.rules.players
            if len(completion.raw) > OFF_LOOP_CHARS:  # linear, but a 256 KiB answer still takes milliseconds
                reading = await asyncio.to_thread(read_completion, completion, request, max_tokens, stable=turn.stable,
                                                  players=players)  # fmt: skip
            else:
                reading = read_completion(completion, request, max_tokens, stable=turn.stable, players=players)
        except UnusableAnswer as exc:
            self.record(messages, request, error=f"{UNUSABLE}{exc}", **common)
            self.conversation.commit(turn, answer)  # the model sees its own bad answer before the re-ask
            raise NoUsableAnswer(str(exc), self.handover()) from None
        decision, parsed = reading.decision, reading.parsed
        reasoning = reasoning_cap(self.conversation.rules.speech, decision.reasoning)
        if reasoning != decision.reasoning:  # stored as the engine accepts it: cut to the rules' cap
            decision = decision.model_copy(update={"reasoning": reasoning})
            parsed = {**parsed, "reasoning": reasoning}
        self.record(messages, request, parsed=parsed, error=reading.note, **common)
        self.conversation.commit(turn, answer)
        self.conversation.note = reading.dropped_claim  # told on the seat's next turn: its claim was not recorded
        return Answer(decision=decision, calls=self.handover())
