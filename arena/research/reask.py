"""Re-asking a model seat at a point of a replayed game, for `arena persuasion` (persuasion.py).

The messages are the ones `arena prompt --rebuild` gives there (`llm.rebuild.seat_prompt`): the seat's recorded
history (its calls before that point, each with the messages it was sent and its answer) and the events since, from
the engine's view of the replayed game. On the counterfactual arm the history shows the neutral speech wherever it
showed the real one (`persuasion.substituted`); a history that holds the speech in another form (a compaction's
summary) cannot be rewritten, and the pair is left out. The call goes through the seat's own client, with the
request's schema and token budget as the live seat would send them; its answer is read as the seat reads one.
"""

from __future__ import annotations

from collections.abc import Mapping

from arena.agents import AgentSpec
from arena.engine import Game, Request
from arena.llm.answer import UnusableAnswer, read_completion
from arena.llm.budget import max_tokens_for
from arena.llm.client import CallResult, LLMClient
from arena.llm.modes import Mode
from arena.llm.rebuild import seat_prompt
from arena.llm.schema import STABLE_NAME, answer_schema, schema_name, stable_kinds, stable_schema
from arena.llm.settings import client_settings
from arena.llm.usage import Prices
from arena.players.base import ModelCall
from arena.players.llm import seat_language
from arena.research.persuasion import COUNTERFACTUAL, Asked, Session, seat_number, substituted
from arena.transcript import Transcript


class Budget:
    """Spending across a run: a call that would pass `limit` (USD) is not made."""

    def __init__(self, limit: float | None) -> None:
        self.limit = limit
        self.spent = 0.0
        self.calls = 0
        self.stopped = False

    def allows(self, expected: float) -> bool:
        if self.limit is not None and self.spent + expected > self.limit:
            self.stopped = True
            return False
        return True


class ModelAsker:
    """Model seats, each from its local agent definition (`specs`: seat -> spec), sharing one budget."""

    def __init__(self, specs: Mapping[int, AgentSpec], budget: Budget, expected: Mapping[int, float]) -> None:
        self.specs = dict(specs)
        self.budget = budget
        self.expected = dict(expected)  # seat -> the expected cost of one call (the dry run's figure)
        self.clients: dict[int, LLMClient] = {}

    async def close(self) -> None:
        for client in self.clients.values():
            await client.close()

    def _client(self, seat: int) -> LLMClient:
        if seat not in self.clients:
            self.clients[seat] = LLMClient(client_settings(self.specs[seat], seat))
        return self.clients[seat]

    def history(self, session: Session, seat: int, inputs: int) -> tuple[list[ModelCall], list[int]] | None:
        """The seat's call records before the point (`inputs` inputs in), rewritten for the arm, then the calls
        made earlier in this session; None when the counterfactual history cannot be rewritten."""
        item = session.item
        t = item.game.transcript
        calls: list[ModelCall] = []
        positions: list[int] = []
        shown = 0
        old, new = item.event.text or "", item.neutral.text
        number = seat_number(item, seat) if session.arm == COUNTERFACTUAL else 0
        for call, position in zip(t.calls, t.call_positions, strict=True):
            if call.seat != seat or position >= inputs or position >= session.limit:
                continue
            if session.arm == COUNTERFACTUAL and position > item.index:
                messages, n = substituted(list(call.messages), old, new, number)
                shown += n
                call = call.model_copy(update={"messages": messages})
            calls.append(call)
            positions.append(position)
        after = [p for p in positions if p > item.index]
        if session.arm == COUNTERFACTUAL and after and not shown:
            return None  # shown to the seat, but not as a log line we can rewrite (a compaction's summary)
        for position, call in session.calls:
            calls.append(call)
            positions.append(position)
        return calls, positions

    async def ask(self, game: Game, seat: int, request: Request, session: Session) -> Asked:
        spec = self.specs[seat]
        expected = self.expected.get(seat, 0.0)
        if not self.budget.allows(expected):
            return Asked(None, note="budget")
        t = session.item.game.transcript
        count = len(game.inputs)
        history = self.history(session, seat, count)
        if history is None:
            return Asked(None, note="history not rewritable")
        calls, positions = history
        scratch = Transcript(header=t.header, inputs=game.inputs, calls=calls, call_positions=positions)
        try:
            prompt = seat_prompt(scratch, seat, rebuild=True)
        except ValueError as exc:
            return Asked(None, note=f"prompt: {exc}")
        rules = t.rules
        lang = seat_language(spec, t.header.lang)
        stable = spec.schema_style == "stable" and request.kind in stable_kinds(rules)
        schema = stable_schema(rules) if stable else answer_schema(request)
        name = STABLE_NAME if stable else schema_name(request)
        max_tokens = max_tokens_for(request, spec.max_tokens, lang)
        result = CallResult()
        await self._client(seat).complete(prompt.messages, mode=Mode(spec.structured), name=name, schema=schema,
                                          max_tokens=max_tokens, into=result)  # fmt: skip
        usage = result.usage
        cost = Prices.of(spec).cost(usage)
        self.budget.spent += cost
        self.budget.calls += 1 + len(result.failures)
        completion = result.completion
        record = ModelCall(seat=seat, request_kind=request.kind.value, messages=list(prompt.messages),
                           raw=completion.raw if completion is not None else "", prompt_tokens=usage.prompt_tokens,
                           completion_tokens=usage.completion_tokens, cached_tokens=usage.cached_tokens,
                           cost_usd=cost, model=completion.model if completion is not None else "")  # fmt: skip
        session.calls.append((count, record))
        if completion is None:
            return Asked(None, [record], note="no answer")
        try:
            reading = read_completion(completion, request, max_tokens, stable=stable)
        except UnusableAnswer as exc:
            return Asked(None, [record], note=f"unusable: {exc}")
        return Asked(reading.decision, [record])
