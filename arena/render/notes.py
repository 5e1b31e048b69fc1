"""A seat's private records beside the game, placed where the decision was taken: its reasoning for each decision
and each of its model calls (`Note`). A seat's story holds only its own notes; the god view holds every seat's.

The calls and inputs are the transcript's records; `input_anchors` replays the inputs to find how many events each
decision followed, and `call_owners` finds the input each call served. A decision shows at most `CALLS_SHOWN` of its
calls, then one line saying how many more it made: a game has a bounded number of decisions, a file does not have
a bounded number of call records (200,000 failed ones once made `arena export` take 1.5 GB and `arena show --calls`
run past 90 s), and a real decision makes a handful (re-asks times transport retries).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from arena.engine import MODERATOR, EventType, Game, Input, Role, visible_events
from arena.players.base import ModelCall
from arena.render.phrases import clean

CALLS_SHOWN = 24  # calls drawn per decision (a seat's re-asks times its transport retries stay below it)


@dataclass(frozen=True, slots=True)
class Note:
    """A seat's private record next to the game: its reasoning for a decision, or one model call."""

    seq: int  # drawn before the event with this seq
    kind: Literal["reasoning", "call"]
    seat: int
    request: str
    text: str
    call: ModelCall | None = None


def input_anchors(game: Game, inputs: Sequence[Input]) -> list[tuple[int, str]]:
    """For each input: how many events existed when it was given, and the kind of request it answered.

    Replays the inputs on a fresh game of the same rules, seed and deal (the god view's `roles_dealt` says whether
    the deal was fixed), so reasoning and calls can be drawn where the decision was taken.
    """
    # bookkeeping only: the deal is needed to replay, and nothing of it reaches a story
    dealt = next((e for e in visible_events(game, MODERATOR) if e.type is EventType.ROLES_DEALT), None)
    roles = [Role(r) for r in dealt.roles] if dealt is not None and dealt.value == "fixed" else None
    fresh = Game(game.rules, game.seed, roles=roles)
    out: list[tuple[int, str]] = []
    for item in inputs:
        request = fresh.request_for(item.seat)
        out.append((len(fresh.events), request.kind.value if request is not None else ""))
        try:
            fresh.replay([item])
        except Exception:  # a transcript that does not replay: draw the rest at the end
            out += [(len(game.events), "")] * (len(inputs) - len(out))
            break
    return out


def call_owners(
    inputs: Sequence[Input],
    calls: Sequence[ModelCall],
    positions: Sequence[int] | None = None,
    kinds: Sequence[str] | None = None,
) -> list[int | None]:
    """For each call, the index of the input that settled the request it served (that seat's next `decide` or
    `default`), or None.

    The orchestrator writes an ask's calls just before that ask's inputs, so with `positions` (how many inputs the
    transcript held before each call) the owner is exact. Without them it is a best effort: each seat's calls are
    dealt to its settling inputs in order, one logical call each, a rising `attempt` (transport retries) staying
    with the call before it, and a call skipping forward to the next input of its `request_kind` (from `kinds`).
    """
    settling: dict[int, list[int]] = {}
    for i, item in enumerate(inputs):
        if item.op in ("decide", "default"):
            settling.setdefault(item.seat, []).append(i)
    owners: list[int | None] = []
    if positions is not None:
        for call, pos in zip(calls, positions, strict=True):
            mine = settling.get(call.seat, [])
            k = bisect_left(mine, pos)
            owners.append(mine[k] if k < len(mine) else None)
        return owners
    cursor: dict[int, int] = {}
    last: dict[int, ModelCall] = {}
    for call in calls:
        mine = settling.get(call.seat, [])
        k = cursor.get(call.seat, 0)
        previous = last.get(call.seat)
        if previous is not None and call.attempt <= previous.attempt:
            k += 1  # a new logical call: the next request
        if kinds is not None and call.request_kind:
            while k < len(mine) and kinds[mine[k]] and kinds[mine[k]] != call.request_kind:
                k += 1
        cursor[call.seat] = k
        last[call.seat] = call
        owners.append(mine[k] if k < len(mine) else None)
    return owners


def story_notes(
    game: Game,
    viewer: int,
    inputs: Sequence[Input],
    calls: Sequence[ModelCall],
    reasoning: bool,
    with_calls: bool,
    anchors: Sequence[tuple[int, str]] | None,
    call_positions: Sequence[int] | None,
    models: Mapping[int, str] | None = None,
) -> list[Note]:
    """The viewer's notes (every seat's for the god view), each anchored at the event count of its decision."""
    god = viewer == MODERATOR
    if not (reasoning or with_calls) or not (inputs or calls):
        return []
    if anchors is None:
        anchors = input_anchors(game, inputs)
    end = len(game.events)
    keyed: list[tuple[int, int, int, Note]] = []  # (seq, input index, order, note): calls before the reasoning
    if with_calls:
        seat_models = call_models(calls, models)
        owners = call_owners(inputs, calls, call_positions, [kind for _, kind in anchors])
        drawn: dict[tuple[int, int], int] = {}  # (seat, decision) -> calls drawn
        left: dict[tuple[int, int], tuple[int, int, str, int, int]] = {}  # -> (seq, order, request, calls, failed)
        for n, (call, owner) in enumerate(zip(calls, owners, strict=True)):
            if not (god or call.seat == viewer):
                continue
            seq = anchors[owner][0] if owner is not None else end
            place = owner if owner is not None else len(inputs)
            if drawn.get((call.seat, place), 0) < CALLS_SHOWN:
                drawn[(call.seat, place)] = drawn.get((call.seat, place), 0) + 1
                keyed.append((seq, place, n, _call_note(seq, call, seat_models.get(call.seat, ""))))
                continue
            _, first, request, more, failed = left.get((call.seat, place), (seq, n, call.request_kind, 0, 0))
            left[(call.seat, place)] = (seq, first, request, more + 1, failed + (call.parsed is None))
        for (seat, place), (seq, first, request, more, failed) in left.items():
            text = f"{more:,} more calls for this decision ({failed:,} without an answer) not drawn: see the file"
            keyed.append((seq, place, first, Note(seq, "call", seat, request, text)))
    if reasoning:
        for i, item in enumerate(inputs):
            if not (god or item.seat == viewer) or item.op != "decide" or item.decision is None:
                continue
            text = item.decision.reasoning.strip()
            if text:
                seq, kind = anchors[i]
                keyed.append((seq, i, len(calls), Note(seq, "reasoning", item.seat, kind, clean(text))))
    keyed.sort(key=lambda k: k[:3])
    return [note for *_, note in keyed]


def call_models(calls: Sequence[ModelCall], models: Mapping[int, str] | None = None) -> dict[int, str]:
    """Each seat's model name, to label its calls that got no answer (and so no reported name): the name its other
    calls reported, else `models` (from the transcript header: the probe's reported model, or the model asked for)."""
    out = {seat: name for seat, name in (models or {}).items() if name}
    for call in calls:
        if call.model:
            out.setdefault(call.seat, call.model)
    return out


def _call_note(seq: int, call: ModelCall, fallback: str = "") -> Note:
    name = call.model or fallback or f"seat {call.seat}'s model"
    summary = f"{name} · attempt {call.attempt} · {call.prompt_tokens}+{call.completion_tokens} tokens"
    if call.latency_ms:
        summary += f" · {call.latency_ms / 1000:.1f} s"
    if call.error:
        summary += f" · error: {call.error}"
    return Note(seq, "call", call.seat, call.request_kind, clean(summary), call)
