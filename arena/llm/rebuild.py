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
from arena.engine import Game, seat_log, view
from arena.llm.conversation import Conversation, Message
from arena.llm.modes import Mode
from arena.llm.records import Expansion
from arena.llm.seat import TRANSPORT
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
    """After replaying the first k inputs, for every k: how many events the game holds (the moderator's numbering,
    which `--at` uses), and how many of them `seat` may see (its own numbering, a conversation's cursor)."""
    game = Game(transcript.rules, transcript.header.seed, roles=transcript.header.roles)
    out, mine = [len(game.events)], [len(seat_log(game, seat))]
    for item in transcript.inputs:
        game.replay([item])
        out.append(len(game.events))
        mine.append(len(seat_log(game, seat)))
    return out, mine


def _spec_of(transcript: Transcript, seat: int) -> AgentSpec | None:
    return next((entry.agent for entry in transcript.header.seats if entry.seat == seat), None)


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
) -> SeatPrompt:
    """The messages of `seat` right after event `at` (default: at its last call, or at the end of the game).

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
    if at is None and mine and not rebuild:
        last = mine[-1]
        return SeatPrompt(full.messages(last), True, shown[last], last)
    count = len(transcript.inputs)
    if at is not None:
        count = next((k for k, n in enumerate(events_after) if n > at), count)
    target = events_after[count]
    here = [i for i in mine if shown[i] == target]
    if here and not rebuild:
        return SeatPrompt(full.messages(here[-1]), True, target, here[-1])
    earlier = [i for i in mine if shown[i] < target]
    return _would_be_sent(transcript, seat, count, target, earlier, full, cursors, prompt_set, list(prompt_folders))


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
) -> SeatPrompt:
    spec = _spec_of(transcript, seat)
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
    if answered:
        base = answered[-1]
        history = full.messages(base) + Conversation.answer_messages(transcript.calls[base].raw)
        conversation = Conversation.resumed(prompts, rules, seat, mode, persona, history, cursors[base], style)
    else:
        conversation = Conversation(prompts, rules, seat, mode, persona, style)
    game = _replay(transcript, count)
    observation = view(game, seat)
    turn = conversation.turn(observation, game.request_for(seat))
    changed = transcript.header.prompt_set_hash not in (None, prompts.hash)
    return SeatPrompt(conversation.request_messages(turn), False, target, None, changed)
