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
from typing import NamedTuple

from arena.agents import AgentSpec
from arena.engine import Game, view
from arena.llm.answer import claim_note
from arena.llm.budget import max_tokens_for
from arena.llm.compaction import Budget
from arena.llm.conversation import Conversation, Message
from arena.llm.modes import Mode
from arena.llm.records import Expansion
from arena.llm.seat import TRANSPORT, UNREACHABLE, UNUSABLE, ConversationSeat
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
    since = transcript.resume_calls[run] if run >= 0 else 0  # a resumed seat starts afresh
    earlier = [i for i in mine if shown[i] < target and i >= since]
    return _would_be_sent(transcript, seat, count, target, earlier, full, cursors, prompt_set, list(prompt_folders),
                          run=run)  # fmt: skip


def rebuild_call(
    transcript: Transcript,
    index: int,
    *,
    prompt_set: str | None = None,
    prompt_folders: Sequence[Path] = (),
    shared: _Shared | None = None,
) -> SeatPrompt:
    """Call record `index` rebuilt: the game replayed to where it was asked, the seat's conversation from the calls
    before it (a rejected answer at the same point among them, as the live seat kept it), and the refusal a re-ask
    repeats (`ModelCall.reask`). `shared` holds what rebuilding many calls of one transcript shares (one pass)."""
    shared = shared if shared is not None else _Shared(transcript)
    call = transcript.calls[index]
    seat = call.seat
    positions = transcript.call_positions
    count = min(positions[index], len(transcript.inputs))  # the inputs before it: the game as the seat saw it
    events_after, seat_after = shared.after(seat)
    start = shared.segment_start(index)  # a resumed seat starts a fresh conversation: earlier calls are not its own
    mine = [i for i in shared.calls_of(seat) if start <= i < index]
    cursors = {i: seat_after[min(positions[i], len(transcript.inputs))] for i in mine}
    force = call.compaction == "overflow"  # the server's word, recorded
    return _would_be_sent(transcript, seat, count, events_after[count], mine, shared.full, cursors, prompt_set,
                          list(prompt_folders), force, call.reask, shared.game_at(count),
                          _run_of(transcript.resume_calls, index))  # fmt: skip


class _Shared:
    """What the rebuilds of one transcript's calls share, each computed once: every seat's event counts after each
    input (one replay per seat), one game replayed forward as the calls come (they come in file order), each seat's
    call records, and the expanded records. Rebuilding a call costs its own turn, never a replay of the game."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.full = Expansion(transcript.calls)
        self._after: dict[int, tuple[list[int], list[int]]] = {}
        self._calls: dict[int, list[int]] = {}
        for index, call in enumerate(transcript.calls):
            self._calls.setdefault(call.seat, []).append(index)
        self._game: Game | None = None
        self._replayed = 0

    def after(self, seat: int) -> tuple[list[int], list[int]]:
        found = self._after.get(seat)
        if found is None:
            found = self._after[seat] = events_after_inputs(self.transcript, seat)
        return found

    def calls_of(self, seat: int) -> list[int]:
        return self._calls.get(seat, [])

    def segment_start(self, index: int) -> int:
        """The first call record of the stretch of play (the start, or a resume) that holds call `index`."""
        starts = [0, *(n for n in self.transcript.resume_calls if n <= index)]
        return max(starts)

    def game_at(self, count: int) -> Game:
        """The game after its first `count` inputs: the one game, replayed forward (a fresh one to go back)."""
        if self._game is None or self._replayed > count:
            self._game = Game(self.transcript.rules, self.transcript.header.seed, roles=self.transcript.header.roles)
            self._replayed = 0
        inputs = self.transcript.inputs
        while self._replayed < count:
            self._game.replay([inputs[self._replayed]])
            self._replayed += 1
        return self._game


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
    game: Game | None = None,
    run: int = -1,
) -> SeatPrompt:
    spec = _spec_of(transcript, seat, run)  # a resumed stretch's seats play its resume record's agents
    lang = (spec.language if spec is not None else None) or transcript.header.lang
    name = prompt_set or (spec.prompt_set if spec is not None else "default")
    if prompt_set is not None and not allowed_prompt_set(name, prompt_folders):  # vouches for the folder given
        raise ValueError(f"--prompt-set {prompt_set!r} is neither a set shipped in prompts/ nor a folder")
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
    game = game if game is not None else _replay(transcript, count)
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
    recorded = transcript.header.prompt_set_hash
    hashes = {recorded, *(part.rpartition(":")[2] for part in recorded.split(","))} if recorded is not None else set()
    changed = recorded is not None and prompts.hash not in hashes  # one set, or `set/lang:hash` entries
    return SeatPrompt(conversation.request_messages(turn), False, target, None, changed)


class Compactions(NamedTuple):
    """What `check_compactions` found: `problems` (a prompt the rebuild does not give: the file was altered),
    `notes`, and `unchecked` (calls it could not rebuild, and why: `arena verify` does not pass such a file)."""

    problems: list[str]
    notes: list[str]
    unchecked: list[str]


ABANDONED = "timeout: the decision's time limit ran out"  # a call cut by its decision's limit (seat.abandon)
MAX_PROBLEMS = 20  # the check stops there: a file with more is altered anyway


def check_compactions(
    transcript: Transcript, *, prompt_set: str | None = None, prompt_folders: Sequence[Path] = ()
) -> Compactions:
    """Check that every rewritten history in `transcript` is the one the rules give: rebuild each call marked as
    compacted, and each seat's first call of a stretch of play, and compare it with the messages recorded as sent;
    a call that rewrites its seat's history without the mark is a problem too (removing the mark hides nothing).

    The work is linear in the file: one replay per seat and one forward replay of the game are shared by every
    rebuild, and calls that would rebuild the same prompt (the same seat, point, history, refusal and request) are
    rebuilt once, so any number of fake compacted records at one point costs one rebuild. A seat gets at most as many
    rebuilds as it made attempts (twice over: a budget compaction and an overflow one), and the check stops at
    `MAX_PROBLEMS`. A call whose prompt set is not here, or whose set changed since the game and whose rebuild then
    differs, is `unchecked`, never passed."""
    problems: list[str] = []
    notes: list[str] = []
    unchecked: dict[str, list[int]] = {}
    calls = transcript.calls
    try:
        shared = _Shared(transcript)
    except ValueError as exc:  # a record that refers past its base
        return Compactions([str(exc)], notes, [])
    problems.extend(_unmarked_rewrites(transcript, shared))
    firsts = _segment_firsts(transcript, shared)
    wanted = sorted(firsts | {i for i, c in enumerate(calls) if c.compaction})
    if not wanted:
        return Compactions(problems, notes, [])
    refused: dict[int, set[str | None]] = {}
    attempts: dict[int, int] = {}
    for item in transcript.inputs:
        if item.op in ("decide", "reject", "default"):
            attempts[item.seat] = attempts.get(item.seat, 0) + 1
        if item.op == "reject":
            refused.setdefault(item.seat, set()).add(ConversationSeat.clean_problem(item.reason))
    for call in calls:  # a seat's own failure is re-asked with its reason before any input records it, and a game
        own = _own_failure(call)  # stopped in that batch never writes that input (its last attempt got no answer)
        if own is not None:
            refused.setdefault(call.seat, set()).add(own)
    done: dict[tuple[object, ...], SeatPrompt | str] = {}
    rebuilds: dict[int, int] = {}
    for index in wanted:
        if len(problems) >= MAX_PROBLEMS:
            break
        call = calls[index]
        seat = call.seat
        what = "compacted call" if call.compaction else "first call"
        if call.reask is not None and call.reask not in refused.get(seat, set()) and not _cut_reask(transcript, index):
            if not _stopped_reask(transcript, index):
                problems.append(f"{what} {index} (seat {seat}): its re-ask repeats no recorded refusal")
                continue
            notes.append(f"{what} {index} (seat {seat}): a re-ask of a batch the game stopped in, whose refusal is "
                         "on no record (the unused answers' errors say the stop)")  # fmt: skip
        key = _rebuild_key(transcript, shared, index)
        rebuilt = done.get(key)
        if rebuilt is None:
            rebuilds[seat] = rebuilds.get(seat, 0) + 1
            if rebuilds[seat] > 2 * attempts.get(seat, 0) + 2:
                problems.append(f"{what} {index} (seat {seat}): more rewritten prompts than the seat made attempts")
                break
            try:
                rebuilt = rebuild_call(transcript, index, prompt_set=prompt_set, prompt_folders=prompt_folders,
                                       shared=shared)  # fmt: skip
            except ValueError as exc:  # a prompt set that is not shipped (the header is untrusted): not rebuilt
                rebuilt = str(exc)
            done[key] = rebuilt
        if isinstance(rebuilt, str):
            unchecked.setdefault(rebuilt, []).append(index)
        elif rebuilt.messages != shared.full.messages(index):
            if rebuilt.prompt_set_changed:  # another prompt set gives another prompt: nothing can be said
                unchecked.setdefault("the game's prompt set is not the one here (its hash differs)", []).append(index)
            else:
                problems.append(f"{what} {index} (seat {seat}): the recorded messages are not the rebuild's")
        elif rebuilt.prompt_set_changed:
            notes.append(f"{what} {index} (seat {seat}): rebuilt exactly, although the header names another prompt set")
    listed = [f"calls {_numbers(indices)} not rebuilt: {why}" for why, indices in unchecked.items()]
    return Compactions(problems, notes, listed)


def _own_failure(call: ModelCall) -> str | None:
    """The refusal a seat's next attempt repeats after this call failed on its own (before the engine saw any
    answer): an unusable answer's reason, or, for a call that got no answer (its last HTTP try, not one retried),
    the seat's "the model could not be reached" with the transport's reason (`ConversationSeat.fail_transport`)."""
    error = call.error or ""
    if error.startswith(UNUSABLE):
        return error[len(UNUSABLE) :]
    if error.startswith(TRANSPORT) and "; retrying in " not in error:
        return f"{UNREACHABLE}: {error[len(TRANSPORT) :]}"
    return None


def _cut_reask(transcript: Transcript, index: int) -> bool:
    """Call `index` re-asks a decision whose earlier attempt its time limit cut (the orchestrator's time-out, on no
    input when the game then stopped there): an earlier call of its seat at the same point was abandoned so
    (`ConversationSeat.abandon`). The re-ask's words are not read: its rebuild must still give the messages sent."""
    calls, positions = transcript.calls, transcript.call_positions
    call = calls[index]
    return any(calls[j].seat == call.seat and positions[j] == positions[index]
               and (calls[j].error or "").startswith(ABANDONED) for j in range(index))  # fmt: skip


def _stopped_reask(transcript: Transcript, index: int) -> bool:
    """Call `index` is a re-ask the game stopped before applying (an unused answer), after another call of its seat
    at the same point: the answer it re-asks was recorded as unused too, its reason replaced by the stop's."""
    calls, positions = transcript.calls, transcript.call_positions
    call = calls[index]
    if not (call.error or "").startswith("unused: "):
        return False
    return any(calls[j].seat == call.seat and positions[j] == positions[index] for j in range(index))


def _numbers(indices: list[int]) -> str:
    shown = ", ".join(str(i) for i in indices[:8])
    return shown + (f" and {len(indices) - 8} more" if len(indices) > 8 else "")


def _rebuild_key(transcript: Transcript, shared: _Shared, index: int) -> tuple[object, ...]:
    """What a rebuild of call `index` depends on: its seat, the events the seat had seen and the request pending
    there, the seat's last answered call (its history), the refusal it repeats, whether the server forced it."""
    call = transcript.calls[index]
    count = min(transcript.call_positions[index], len(transcript.inputs))
    _, seat_after = shared.after(call.seat)
    start = shared.segment_start(index)
    base = next((i for i in reversed(shared.calls_of(call.seat)) if start <= i < index
                 and _answered(transcript.calls[i])), None)  # fmt: skip
    request = shared.game_at(count).request_for(call.seat)
    pending = request.model_dump_json() if request is not None else ""
    return call.seat, seat_after[count], pending, base, start, call.reask, call.compaction == "overflow"


def _segment_firsts(transcript: Transcript, shared: _Shared) -> set[int]:
    """Each model seat's first call record of every stretch of play (the start, and each resume): its whole first
    turn, the role prompt included, which every later call of the stretch carries on. (A seat played by a bot or a
    person makes no call: records under its number are not a conversation to rebuild.)"""
    out: set[int] = set()
    stretches = [(0, transcript.header.seats)]
    stretches += list(zip(transcript.resume_calls, (resume.seats for resume in transcript.resumes), strict=True))
    for start, entries in stretches:
        models = {entry.seat for entry in entries if entry.agent.kind in ("llm", "langchain")}
        for seat in models:
            first = next((i for i in shared.calls_of(seat) if i >= start), None)
            if first is not None and shared.segment_start(first) == start:
                out.add(first)
    return out


def _unmarked_rewrites(transcript: Transcript, shared: _Shared) -> list[str]:
    """Calls that rewrite their seat's history but carry no compaction mark. A seat's conversation only grows
    between compactions, so its first user message (the role prompt and first events, or a compaction's summary)
    stays the one of the seat's last answered call; only a compaction changes it, and a resume starts afresh."""
    calls = transcript.calls
    second: list[Message | None] = []  # each record's message 1, resolved through its base once (linear)
    for index, call in enumerate(calls):
        base = shared.full.bases[index]
        shared_count = call.prefix_messages if base is not None else 0
        if base is not None and shared_count >= 2:
            second.append(second[base])
        else:
            at = 1 - shared_count
            second.append(call.messages[at] if 0 <= at < len(call.messages) else None)
    problems: list[str] = []
    current: dict[int, Message | None] = {}
    resumes = set(transcript.resume_calls)
    for index, call in enumerate(calls):
        if index in resumes:
            current.clear()
        seat = call.seat
        held = current.get(seat)
        if call.compaction is None and held is not None and second[index] is not held and second[index] != held:
            problems.append(f"call {index} (seat {seat}): it rewrites the seat's history, but is not marked compacted")
            if len(problems) >= MAX_PROBLEMS:
                break
        if _answered(call) and (held is None or call.compaction is not None):
            current[seat] = second[index]
    return problems
