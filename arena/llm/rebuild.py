"""What a seat was sent, or would be sent, at a point of a recorded game: the engine of `arena prompt`.

A call record holds the messages that were sent (by reference to the seat's previous record, see `records.py`), so
"was sent" is read back verbatim. "Would be sent" (a point where the seat made no call, or a seat that is not an
LLM) is built by the same `Conversation` code the live seat uses: the seat's last answered call gives the history,
the engine's `view` of the replayed game gives the events since, and the request pending there gives the decision.
Researchers audit prompts with it, and the leak and injection tests read every seat's prompts through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.agents import AgentSpec
from arena.engine import Game, view
from arena.llm.answer import claim_note
from arena.llm.budget import max_tokens_for
from arena.llm.compaction import Budget
from arena.llm.conversation import Conversation, Message
from arena.llm.modes import Mode
from arena.llm.records import Expansion
from arena.llm.seat import TRANSPORT, ConversationSeat
from arena.players.base import ModelCall
from arena.prompts import load_prompt_set
from arena.transcript import Transcript
from arena.trust import allowed_prompt_set


@dataclass(frozen=True)
class SeatPrompt:
    """The messages, whether they were recorded as sent (else rebuilt), and where: events shown, call index."""

    messages: list[Message]
    sent: bool
    events: int
    call: int | None
    prompt_set_changed: bool = False


def _replay(transcript: Transcript, count: int) -> Game:
    game = Game(transcript.rules, transcript.header.seed, roles=transcript.header.roles)
    game.replay(transcript.inputs[:count])
    return game


def events_after_inputs(transcript: Transcript, seat: int) -> tuple[list[int], list[int]]:
    """After replaying the first k inputs, for every k: how many events the game holds (the moderator's numbering),
    and how many of them `seat` may see (its own numbering, a conversation's cursor, and what `--at` takes)."""
    out, mine, _ = _counts(transcript, seat)
    return out, mine


def _counts(transcript: Transcript, seat: int) -> tuple[list[int], list[int], list[bool]]:
    """`events_after_inputs`, and for every k whether `seat` is asked for a decision after the first k inputs."""
    game = Game(transcript.rules, transcript.header.seed, roles=transcript.header.roles)
    out, mine = [len(game.events)], [view(game, seat).next_number]
    asked = [_asked(game, seat)]
    for item in transcript.inputs:
        game.replay([item])
        out.append(len(game.events))
        mine.append(view(game, seat, mine[-1]).next_number)  # from its last count on: only the new events
        asked.append(_asked(game, seat))
    return out, mine, asked


def _asked(game: Game, seat: int) -> bool:
    request = game.request_for(seat) if not game.over else None
    return request is not None and request.seat == seat


@dataclass(frozen=True)
class Point:
    """A point where a seat is asked for a decision: after `inputs` inputs, when it had seen its events #0 to
    #`seen` - 1 (its own numbering, the `[#n]` its prompt shows); `moved` when it is not the point asked for."""

    inputs: int
    seen: int
    moved: bool = False
    asked: bool = True


def decision_point(transcript: Transcript, seat: int, at: int | None = None) -> Point:
    """Where `seat` is asked right after its own event #`at` (the number its prompt shows), or, if it is not asked
    there, its next decision (`moved`); `at` None: its last decision. ValueError saying why there is none: `at`
    past the seat's log, or no decision left for it (it left the game, or the game ended)."""
    _, seen, asked = _counts(transcript, seat)
    points = [k for k, flag in enumerate(asked) if flag]
    if at is None:  # its last decision; in a file where it has none yet, what it has seen so far (`asked` False)
        if not points:
            return Point(len(asked) - 1, seen[-1], asked=False)
        return Point(points[-1], seen[points[-1]])
    if at >= seen[-1]:
        raise ValueError(f"seat {seat}'s log holds its events #0 to #{seen[-1] - 1}; there is no event #{at}")
    after = next(k for k, n in enumerate(seen) if n > at)
    later = [k for k in points if k >= after]
    if not later:
        why = "the game ended" if transcript.rebuild().alive[seat] else "it left the game"
        last = f"; its last decision came after its event #{seen[points[-1]] - 1}" if points else ""
        raise ValueError(f"seat {seat} is asked for no decision after its event #{at} ({why}){last}")
    return Point(later[0], seen[later[0]], moved=seen[later[0]] != at + 1)


def _spec_of(transcript: Transcript, seat: int, run: int = -1) -> AgentSpec | None:
    """The seat's agent in run `run`: -1 the first (the header's seats), else the `run`-th resume's."""
    seats = transcript.header.seats if run < 0 else transcript.resumes[run].seats
    return next((entry.agent for entry in seats if entry.seat == seat), None)


def _run_of(marks: Sequence[int], at: int) -> int:
    """Which run of the game (-1: the first, k: after the k-th resume) holds position `at`, given where each resume
    began (`resume_calls` for a call's index, `resume_positions` for a count of inputs). A resumed game's seats are
    built afresh from the resume's agents, so their conversations start again there."""
    return max((k for k, mark in enumerate(marks) if mark <= at), default=-1)


def _answered(call: ModelCall) -> bool:
    return not (call.error or "").startswith(TRANSPORT)


def seat_prompt(
    transcript: Transcript,
    seat: int,
    at: int | None = None,
    *,
    rebuild: bool = False,
    prompt_set: str | None = None,
    prompt_folders: Sequence[Path] = (),
    inputs: int | None = None,
) -> SeatPrompt:
    """The messages of `seat` right after event `at` of the game (the moderator's numbering; default: at its last
    call, or at the end of the game), or after the first `inputs` inputs (`decision_point` gives them for a point of
    the seat's own numbering, as `arena prompt --at` takes it).

    With `rebuild`, a point where the seat did make a call is rebuilt too (with the current prompt set) instead of
    read from the record: the two agree unless the prompt set changed, which is how the tests check the rebuild.
    A rebuild renders the header's prompt set only if it is shipped or one of `prompt_folders` (the header is
    untrusted); `prompt_set` (from the command line) replaces it.
    """
    positions = transcript.call_positions  # per call, how many inputs precede it in the file: its decision
    if len(positions) != len(transcript.calls):
        raise ValueError(f"{len(positions)} call positions for {len(transcript.calls)} calls")
    events_after, seat_after = events_after_inputs(transcript, seat)
    full = Expansion(transcript.calls)  # one record's messages at a time: never every record's at once
    mine = [i for i, c in enumerate(transcript.calls) if c.seat == seat]
    shown = {i: events_after[min(positions[i], len(transcript.inputs))] for i in mine}
    cursors = {i: seat_after[min(positions[i], len(transcript.inputs))] for i in mine}  # in the seat's numbering
    if at is None and inputs is None and mine and not rebuild:
        last = mine[-1]
        return SeatPrompt(full.messages(last), True, shown[last], last)
    count = len(transcript.inputs)
    if inputs is not None:
        count = min(inputs, count)
    elif at is not None:
        count = next((k for k, n in enumerate(events_after) if n > at), count)
    target = events_after[count]
    here = [i for i in mine if shown[i] == target]
    if here and not rebuild:
        return SeatPrompt(full.messages(here[-1]), True, target, here[-1])
    if here:  # a point where the seat called: its last call there, rebuilt
        return rebuild_call(transcript, here[-1], prompt_set=prompt_set, prompt_folders=prompt_folders)
    run = _run_of(transcript.resume_positions, count)
    since = transcript.resume_calls[run] if run >= 0 else 0
    earlier = [i for i in mine if shown[i] < target and i >= since]
    return _would_be_sent(transcript, seat, count, target, earlier, full, cursors, prompt_set, list(prompt_folders),
                          run=run)  # fmt: skip


def rebuild_call(
    transcript: Transcript, index: int, *, prompt_set: str | None = None, prompt_folders: Sequence[Path] = ()
) -> SeatPrompt:
    """Call record `index` rebuilt: the game replayed to where it was asked, the seat's conversation from the calls
    before it (a rejected answer at the same point among them, as the live seat kept it), and the refusal a re-ask
    repeats (`ModelCall.reask`)."""
    call = transcript.calls[index]
    seat = call.seat
    positions = transcript.call_positions
    count = min(positions[index], len(transcript.inputs))  # the inputs before it: the game as the seat saw it
    events_after, seat_after = events_after_inputs(transcript, seat)
    run = _run_of(transcript.resume_calls, index)
    since = transcript.resume_calls[run] if run >= 0 else 0  # a resumed seat starts afresh
    mine = [i for i, c in enumerate(transcript.calls) if c.seat == seat and since <= i < index]
    cursors = {i: seat_after[min(positions[i], len(transcript.inputs))] for i in mine}
    force = call.compaction == "overflow"  # the server's word, recorded
    return _would_be_sent(transcript, seat, count, events_after[count], mine, Expansion(transcript.calls), cursors,
                          prompt_set, list(prompt_folders), force, call.reask, run)  # fmt: skip


def _would_be_sent(
    transcript: Transcript,
    seat: int,
    count: int,
    target: int,
    earlier: list[int],
    full: Expansion,
    cursors: dict[int, int],
    prompt_set: str | None,
    prompt_folders: list[Path],
    force: bool = False,
    reask: str | None = None,
    run: int = -1,
) -> SeatPrompt:
    spec = _spec_of(transcript, seat, run)
    lang = (spec.language if spec is not None else None) or transcript.header.lang
    name = prompt_set or (spec.prompt_set if spec is not None else "default")
    if prompt_set is None and not allowed_prompt_set(name, prompt_folders):
        raise ValueError(
            f"seat {seat}: the transcript names prompt set {name!r}, which is not shipped in prompts/; "
            "pass --prompt-set NAME|FOLDER to rebuild with a set you trust"
        )
    prompts = load_prompt_set(name, lang)
    mode = Mode(spec.structured) if spec is not None else Mode.JSON_SCHEMA
    persona = spec.persona if spec is not None else None
    style = spec.schema_style if spec is not None else "per_request"
    rules = transcript.rules
    answered = [i for i in earlier if _answered(transcript.calls[i])]
    game = _replay(transcript, count)
    observation = view(game, seat)
    if answered:
        base = answered[-1]
        history = full.messages(base) + Conversation.answer_messages(transcript.calls[base].raw)
        cursor = cursors[base]  # in the seat's own numbering, as every cursor below
        # where each exchange of the history began: the seat's event count at its previous answered call
        pairs = (len(history) - 1) // 2
        begins = [0, *(cursors[i] for i in answered[:-1])][-pairs:] if pairs else []
        starts = [0] * (pairs - len(begins)) + begins
        seen = observation.renumbered()[:cursor]  # as the live seat kept them: numbered as the seat numbers them
        conversation = Conversation.resumed(prompts, rules, seat, mode, persona, history, cursor, style, seen, starts)
        conversation.note = claim_note(transcript.calls[base].error)  # a dropped claim, told on the next turn
    else:
        conversation = Conversation(prompts, rules, seat, mode, persona, style)
    conversation.budget = Budget.of(spec.context_tokens if spec is not None else None, lang)
    request = game.request_for(seat)
    turn = conversation.turn(observation, request, reask)
    if request is not None:
        max_tokens = max_tokens_for(request, spec.max_tokens if spec is not None else None, lang)
        turn = conversation.fit(turn, observation, max_tokens, force=force)
    changed = transcript.header.prompt_set_hash not in (None, prompts.hash)
    return SeatPrompt(conversation.request_messages(turn), False, target, None, changed)


def check_compactions(transcript: Transcript) -> tuple[list[str], list[str]]:
    """Rebuild every compacted call of `transcript` and compare it with the messages recorded as sent.

    Returns (problems, notes): a problem is a compacted call whose recorded messages the rebuild does not give (the
    record was altered, or the compaction was not the deterministic one); a note says why a call was not checked
    (its prompt set is not one shipped here, or the set changed since the game: the rebuild would differ anyway)."""
    problems: list[str] = []
    notes: list[str] = []
    compacted = [i for i, c in enumerate(transcript.calls) if c.compaction]
    if not compacted:
        return problems, notes
    full = Expansion(transcript.calls)
    for index in compacted:
        call = transcript.calls[index]
        refused = {
            ConversationSeat.clean_problem(i.reason)
            for i in transcript.inputs
            if i.op == "reject" and i.seat == call.seat
        }
        if call.reask is not None and call.reask not in refused:  # a re-ask repeats a refusal the file records
            problems.append(f"compacted call {index} (seat {call.seat}): its re-ask repeats no recorded refusal")
            continue
        try:
            rebuilt = rebuild_call(transcript, index)
        except ValueError as exc:  # an untrusted prompt set: not rebuilt
            notes.append(f"compacted call {index} (seat {call.seat}) not rebuilt: {exc}")
            continue
        if rebuilt.prompt_set_changed:
            notes.append(f"compacted call {index} (seat {call.seat}) not checked: the prompt set changed since")
        elif rebuilt.messages != full.messages(index):
            problems.append(f"compacted call {index} (seat {call.seat}): the recorded messages are not the rebuild's")
    return problems, notes
