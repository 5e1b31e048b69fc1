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
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from arena.engine import Event, EventType, Observation, Request, RuleSet
from arena.llm.compaction import CHARS_PER_TOKEN, Budget, Plan, plan_compactions, summary_events
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
    # set by `Conversation.fit` when the history is compacted for this turn: what is sent before it
    history: tuple[Message, ...] | None = None
    kept: tuple[tuple[Message, Message, int], ...] = ()  # the exchanges the compacted history keeps
    problem: str | None = None  # the refusal this turn answers, and the note it carries: for re-rendering it
    note: str | None = None


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
        self.note: str | None = None  # why the seat's last claim was dropped: said once, on its next turn

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
        players = self.rules.players
        fields = answer_fields(request, players) if request is not None else []
        # a re-ask after a refusal carries the strict per-request schema, so constrained decoding forces a legal answer
        stable = request is not None and problem is None and request.kind in self._stable_kinds
        if stable and self.stable_schema is not None:
            schema = self.stable_schema
        else:
            schema = answer_schema(request, players) if request is not None else {}
        self.shown_flags = tuple(
            f"#{e.seat}@{e.seq}:{flag}" for e in events if e.text for flag in injection_flags(e.text)
        )
        turn = Turn(
            user={},
            request=request,
            name=(STABLE_NAME if stable else schema_name(request)) if request is not None else "",
            schema=schema,
            fields=fields,
            next_cursor=max(obs.next_number, self.cursor),
            flags=self.shown_flags,
            stable=stable,
            events=tuple(events),
            problem=problem,
            note=self.note,
        )
        # the status line ("Now: Day 2. Alive: ...") again only when one of its facts may have changed since the
        # seat's last turn: it is a function of the events, and the earlier one stays in the history
        status = not self.started or any(e.type in _STATUS_EVENTS for e in events)
        intro = self.role_prompt(obs) if not self.started else ""
        return replace(turn, user={"role": "user", "content": self._text(turn, obs, events, intro, status)})

    def _text(self, turn: Turn, obs: Observation, events: Sequence[Event], intro: str, status: bool) -> str:
        """The text of `turn`'s user message showing `events` (seen-numbered `obs`)."""
        request = turn.request
        schema_text = (
            json.dumps(turn.schema, ensure_ascii=False)
            if request is not None and self.mode.schema_in_prompt and not turn.stable
            else ""
        )
        return self.prompts.render(
            "turn.j2",
            intro=intro,
            events=list(events),
            me=self.seat,
            obs=obs,
            request=request,
            problem=turn.problem,
            note=turn.note,
            fields=turn.fields,
            schema_text=schema_text,
            stable=turn.stable,
            options_text=legal_line(request) if turn.stable and request is not None else "",
            status=status,
            **self._context,
        )

    def fit(self, turn: Turn, obs: Observation, max_tokens: int, *, force: bool = False) -> Turn:
        """`turn`, with the history compacted for it if the request (with an answer of `max_tokens`) would pass the
        budget, or if `force` (the server said the prompt did not fit). A first turn too (a resumed seat's is its
        whole view). Deterministic: the same conversation and turn give the same messages (compaction.py).

        The compacted request is, in game order: the system prompt; the role prompt and the seat's notes (its own
        log before what is kept verbatim, with the words of its own latest speeches); the latest exchanges kept
        verbatim; the new turn, whose oldest events go into the notes too when it alone is too long. The sizes come
        from the parts themselves: the system prompt, the role prompt and the decision are always sent, and of
        the room left beside them and the answer, half is used and half stays free for the turns to come."""
        budget = self.budget
        if budget is None and force:  # no budget, but the server said no: compact to half of what it refused
            budget = Budget(1 << 30, CHARS_PER_TOKEN.get(self.prompts.lang, 2.3))
        if budget is None:
            return turn
        whole = [*self.messages, turn.user]
        if not force and budget.fits(whole, max_tokens):
            return turn
        seen = obs.as_seen()
        limit = budget.context_tokens - max_tokens  # the most the prompt may take
        if force:  # the server's window is smaller than the budget says: at most half of what it refused
            limit = min(limit, budget.tokens(whole) // 2)
        fixed = budget.tokens([self.messages[0], {"content": self.role_prompt(seen)}, self._bare(turn, seen)])
        target = limit - max(limit - fixed, 0) // 2
        best: tuple[list[Message], Message, list[tuple[Message, Message, int]]] | None = None
        for plan in plan_compactions(len(self.exchanges), len(turn.events)):
            candidate = self._compacted(turn, seen, plan)
            best = candidate
            if budget.tokens([*candidate[0], candidate[1]]) <= target:
                break
        assert best is not None  # the plans always end with the smallest one
        history, user, kept = best
        return replace(turn, user=user, history=tuple(history), kept=tuple(kept))

    def _bare(self, turn: Turn, obs: Observation) -> Message:
        """`turn` with no events: the refusal, the note and the decision alone."""
        return {"role": "user", "content": self._text(turn, obs, (), "", True)}

    def _compacted(
        self, turn: Turn, obs: Observation, plan: Plan
    ) -> tuple[list[Message], Message, list[tuple[Message, Message, int]]]:
        """The history after a compaction of `plan`, the turn's user message, and the exchanges of that history."""
        keep = plan.keep
        kept = self.exchanges[len(self.exchanges) - keep :] if keep else []
        before = kept[0][2] if kept else self.cursor
        noted = [e for e in self.shown if e.seq < before]
        if not kept:  # the turn's own oldest events may go into the notes too
            noted += turn.events[: plan.split]
        verbatim = turn.events[plan.split :] if not kept else turn.events
        lead = self._summary(obs, noted, plan.own, plan.brief)
        own = self._text(turn, obs, verbatim, "", True)  # the status line always ends a compacted turn
        if not kept:
            return [self.messages[0]], {"role": "user", "content": f"{lead}\n\n{own}"}, []
        first_user, first_answer, first_start = kept[0]
        merged: Message = {"role": "user", "content": f"{lead}\n\n{first_user['content']}"}
        history: list[Message] = [self.messages[0], merged, first_answer]
        for user, answer, _ in kept[1:]:
            history.extend([user, answer])
        return history, {"role": "user", "content": own}, [(merged, first_answer, first_start), *kept[1:]]

    def _summary(self, obs: Observation, events: list[Event], own: int, brief: bool = False) -> str:
        """The role prompt, then the seat's own log in `events`, condensed (`summary.j2`): the words of speeches
        are left out except its own `own` latest."""
        prompts = self.prompts
        if not prompts.has("summary.j2"):  # a custom prompt set without one: the shipped wording of its language
            from arena.prompts import load_prompt_set

            prompts = load_prompt_set("default", prompts.lang)
        mine = [e.seq for e in events if e.type is EventType.SPEECH and e.seat == self.seat and e.text]
        quoted = frozenset(mine[len(mine) - own :] if own else ())
        kept = summary_events(events, quoted, brief=brief)
        summary = prompts.render("summary.j2", events=kept, me=self.seat, obs=obs, quoted=quoted, **self._context)
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
        self.note = None  # said in this turn

    def request_messages(self, turn: Turn) -> list[Message]:
        """What is sent for `turn`: the history (compacted for it, if it was), then the turn."""
        history = turn.history if turn.history is not None else self.messages
        return [*history, turn.user]

