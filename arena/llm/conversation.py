"""One seat's append-only conversation with its model: the system prompt, then a user turn per decision.

The system prompt is the same for every seat (the rules); the first user turn opens with the seat's private role
prompt; each turn then adds only the events the seat has not been shown yet (from its own `view`), a refusal if
the moderator refused the last answer, and the decision asked for. The model's answer is appended after it. So
consecutive calls share everything but their last turn, which providers cache. Messages alternate strictly
user/assistant, because some chat templates reject anything else.

Only committed exchanges stay: a turn whose call failed in transport is dropped, and its events are shown again
next time. Every turn is built from the Observation alone, so a seat is never sent a fact the engine hid from it.
A seat with a context budget is compacted before a turn would pass it (`fit`, the rules in `compaction.py`): the
turn then carries the rewritten history, which replaces the old one when the turn is committed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from arena.engine import Event, EventType, Observation, Request, RuleSet
from arena.llm.compaction import CHARS_PER_TOKEN, TARGET_SHARE, Budget, kept_exchanges, summary_events
from arena.llm.injection import flags as injection_flags
from arena.llm.modes import Mode
from arena.llm.schema import (
    STABLE_NAME,
    FieldSpec,
    answer_fields,
    answer_schema,
    legal_line,
    schema_name,
    stable_kinds,
    stable_schema,
)
from arena.prompts import PromptSet, rules_context

Message = dict[str, Any]

# the events that change what a turn's status line says: the day and phase, the living, today's nominees, fouls
_STATUS_EVENTS = frozenset(
    {EventType.PHASE_STARTED, EventType.ELIMINATED, EventType.REMOVED, EventType.NOMINATED, EventType.FOUL}
)


@dataclass(frozen=True, slots=True)
class Turn:
    """A user turn ready to send: the message, what it asks for, and what it showed."""

    user: Message
    request: Request | None
    name: str
    schema: dict[str, Any]
    fields: list[FieldSpec]
    next_cursor: int
    flags: tuple[str, ...] = ()  # "#4@57:imitates_moderator": quoted text (seat 4, this seat's event 57) in this turn
    # that imitates something
    stable: bool = False  # sent with the game's one stable schema (the answer is `{reasoning, decision}`)
    events: tuple[Event, ...] = ()  # the events this turn shows
    # set by `Conversation.fit` when the history is compacted for this turn: what is sent before it, and the turn's
    # own text before the summary was put in front of it (a compaction that keeps no exchange merges the two)
    history: tuple[Message, ...] | None = None
    plain: Message | None = None
    kept: tuple[tuple[Message, Message, int], ...] = ()  # the exchanges the compacted history keeps


class Conversation:
    """The messages of one seat, and how many of its own events (its `view` numbering) it has been shown."""

    def __init__(
        self,
        prompts: PromptSet,
        rules: RuleSet,
        seat: int,
        mode: Mode = Mode.JSON_SCHEMA,
        persona: str | None = None,
        schema_style: str = "per_request",
    ) -> None:
        self.prompts = prompts
        self.rules = rules
        self.seat = seat
        self.mode = mode
        self.persona = persona
        self.schema_style = schema_style
        # `stable`: built once, the same object (so the same bytes) on every request of this seat
        self.stable_schema = stable_schema(rules) if schema_style == "stable" else None
        self._stable_kinds = frozenset(stable_kinds(rules)) if schema_style == "stable" else frozenset()
        self._context = rules_context(rules)
        stable = schema_style == "stable"
        kinds = [k.value for k in stable_kinds(rules)] if stable else []
        system = prompts.render("system.j2", stable=stable, kinds=kinds, **self._context)
        self.messages: list[Message] = [{"role": "system", "content": system}]
        self.cursor = 0
        self.shown_flags: tuple[str, ...] = ()  # the flags of the latest turn built (see Turn.flags)
        self.budget: Budget | None = None  # the context budget (compaction.py); None: never compacted
        self.shown: list[Event] = []  # every event shown so far, in order (a compaction's summary is built from them)
        # the exchanges of `messages`: (user turn, answer, the cursor before the turn); the first one holds the
        # intro, or after a compaction the summary, so a compaction never keeps it
        self.exchanges: list[tuple[Message, Message, int]] = []

    @classmethod
    def resumed(
        cls,
        prompts: PromptSet,
        rules: RuleSet,
        seat: int,
        mode: Mode,
        persona: str | None,
        history: list[Message],
        cursor: int,
        schema_style: str = "per_request",
        shown: list[Event] | None = None,
        starts: list[int] | None = None,
    ) -> Conversation:
        """A conversation that already holds `history` (system first) and has shown the events before `cursor`.
        For a later compaction: `shown` are those events, `starts` the cursor before each exchange of `history`
        (the event count at the seat's previous answered call; the rebuild reads them from the call records)."""
        conversation = cls(prompts, rules, seat, mode, persona, schema_style)
        conversation.messages = list(history)
        conversation.cursor = cursor
        conversation.shown = list(shown or [])
        pairs = list(zip(history[1::2], history[2::2], strict=False))
        begins = starts if starts is not None and len(starts) == len(pairs) else [0] * len(pairs)
        conversation.exchanges = [(u, a, b) for (u, a), b in zip(pairs, begins, strict=True)]
        return conversation

    @property
    def started(self) -> bool:
        return len(self.messages) > 1

    def role_prompt(self, obs: Observation) -> str:
        role = obs.role.value if obs.role is not None else "civilian"
        return self.prompts.render(
            f"role_{role}.j2", seat=obs.seat, role=role, teammates=obs.teammates, persona=self.persona, **self._context
        )

    def turn(self, obs: Observation, request: Request | None, problem: str | None = None) -> Turn:
        """The next user message: new events since the cursor, the refusal, and the decision asked for."""
        # the events not shown yet, numbered as this seat numbers them (`[#n]` counts only what it saw); the
        # template gets the observation so numbered too
        obs = obs.as_seen()
        events = list(obs.events[max(self.cursor - obs.since, 0) :])
        fields = answer_fields(request) if request is not None else []
        # a re-ask after a refusal carries the strict per-request schema, so constrained decoding forces a legal answer
        stable = request is not None and problem is None and request.kind in self._stable_kinds
        if stable and self.stable_schema is not None:
            schema = self.stable_schema
        else:
            schema = answer_schema(request) if request is not None else {}
        schema_text = (
            json.dumps(schema, ensure_ascii=False)
            if request is not None and self.mode.schema_in_prompt and not stable
            else ""
        )
        options_text = legal_line(request) if stable and request is not None else ""
        # the status line ("Now: Day 2. Alive: ...") again only when one of its facts may have changed since the
        # seat's last turn: it is a function of the events, and the earlier one stays in the history
        status = not self.started or any(e.type in _STATUS_EVENTS for e in events)
        text = self.prompts.render(
            "turn.j2",
            intro=self.role_prompt(obs) if not self.started else "",
            events=events,
            me=self.seat,
            obs=obs,
            request=request,
            problem=problem,
            fields=fields,
            schema_text=schema_text,
            stable=stable,
            options_text=options_text,
            status=status,
            **self._context,
        )
        self.shown_flags = tuple(
            f"#{e.seat}@{e.seq}:{flag}" for e in events if e.text for flag in injection_flags(e.text)
        )
        return Turn(
            user={"role": "user", "content": text},
            request=request,
            name=(STABLE_NAME if stable else schema_name(request)) if request is not None else "",
            schema=schema,
            fields=fields,
            next_cursor=max(obs.next_number, self.cursor),
            flags=self.shown_flags,
            stable=stable,
            events=tuple(events),
        )

    def fit(self, turn: Turn, obs: Observation, max_tokens: int, *, force: bool = False) -> Turn:
        """`turn`, with the history compacted for it if the request (with an answer of `max_tokens`) would pass the
        budget, or if `force` (the server said the prompt did not fit). Deterministic: the same conversation and
        turn give the same messages (compaction.py)."""
        budget = self.budget
        if budget is None and force:  # no budget, but the server said no: compact to half of what it refused
            budget = Budget(1 << 30, CHARS_PER_TOKEN.get(self.prompts.lang, 1.8))
        if budget is None or not self.exchanges:
            return turn
        if not force and budget.fits([*self.messages, turn.user], max_tokens):
            return turn
        target = int(budget.context_tokens * TARGET_SHARE) - max_tokens
        if force:  # the server's window is smaller than the budget says: at most half of what it refused
            target = min(target, budget.tokens([*self.messages, turn.user]) // 2)
        head_room = target - budget.tokens([self.messages[0], turn.user])
        keep = min(kept_exchanges([(u, a) for u, a, _ in self.exchanges], budget, head_room // 2),
                   len(self.exchanges) - 1)  # fmt: skip
        while True:
            history, user, kept = self._compacted(turn, obs, max(keep, 0))
            if keep <= 0 or budget.tokens([*history, user]) <= target:
                break
            keep -= 1
        plain = turn.plain or turn.user
        return replace(turn, user=user, history=tuple(history), plain=plain, kept=tuple(kept))

    def _compacted(
        self, turn: Turn, obs: Observation, keep: int
    ) -> tuple[list[Message], Message, list[tuple[Message, Message, int]]]:
        """The history after a compaction keeping the last `keep` exchanges, the turn's user message, and the
        exchanges of that history."""
        kept = self.exchanges[len(self.exchanges) - keep :] if keep else []
        before = kept[0][2] if kept else self.cursor
        lead = self._summary(obs, [e for e in self.shown if e.seq < before])
        own = turn.plain or turn.user
        if not kept:
            return [self.messages[0]], {"role": "user", "content": f"{lead}\n\n{own['content']}"}, []
        first_user, first_answer, first_start = kept[0]
        merged: Message = {"role": "user", "content": f"{lead}\n\n{first_user['content']}"}
        history: list[Message] = [self.messages[0], merged, first_answer]
        for user, answer, _ in kept[1:]:
            history.extend([user, answer])
        return history, own, [(merged, first_answer, first_start), *kept[1:]]

    def _summary(self, obs: Observation, events: list[Event]) -> str:
        """The role prompt, then the seat's own log up to the kept exchanges, condensed (`summary.j2`)."""
        prompts = self.prompts
        if not prompts.has("summary.j2"):  # a custom prompt set without one: the shipped wording of its language
            from arena.prompts import load_prompt_set

            prompts = load_prompt_set("default", prompts.lang)
        obs = obs.as_seen()  # a template may be anyone's: it never gets the moderator's numbers
        summary = prompts.render(
            "summary.j2", events=summary_events(events), me=self.seat, obs=obs, **self._context
        )
        return f"{self.role_prompt(obs)}\n\n{summary}"

    @staticmethod
    def answer_messages(raw: str) -> list[Message]:
        """The assistant's reply as it goes back into the history: its text (a tool call's arguments in `tools`
        mode, a refusal's words). Kept as plain content in every mode, so the history is the same whatever the
        mode and can be rebuilt from the call record's `raw` alone."""
        return [{"role": "assistant", "content": raw}]

    def commit(self, turn: Turn, answer: list[Message]) -> None:
        """Keep a turn and its answer; the events it showed are not shown again. A turn sent after a compaction
        replaces the history with the compacted one first."""
        if turn.history is not None:
            self.messages = list(turn.history)
            self.exchanges = list(turn.kept)
        self.messages.extend([turn.user, *answer])
        self.exchanges.append((turn.user, answer[-1] if answer else {}, self.cursor))
        self.shown.extend(turn.events)
        self.cursor = turn.next_cursor

    def request_messages(self, turn: Turn) -> list[Message]:
        """What is sent for `turn`: the history (compacted for it, if it was), then the turn."""
        history = turn.history if turn.history is not None else self.messages
        return [*history, turn.user]

