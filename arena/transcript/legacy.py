"""Older transcript versions read as today's: the one place a recorded English sentence is read back as data.

Before version 3 the game's end was an English sentence (`game_ended`'s `text`, the end record's `reason`); before
version 4 a failed attempt was one too (a reject or default input's `reason`, its `action_rejected` or
`default_applied` event's `value`: "no answer within 120 s", "the player failed: NoUsableAnswer: ..."). The reader
hands every record of an older file to `legacy_sentences_as_data`, which gives it the codes the engine records now,
so an old file verifies against today's replay and every renderer words it from its codes. Nothing else reads a
sentence back (tests/test_end_as_data.py holds the renderers to it). A resumed old file keeps its version and holds
the new form after the resume: a record that already has its code passes through unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from pydantic import BaseModel

from arena.engine import Event, EventType, Failed, Failure, Input
from arena.engine.record import PlainRecord
from arena.players.base import ERROR_PREFIX, NOT_REACHED, OWN_FAILURE, TIMEOUT_PREFIX
from arena.transcript.records import End

_FAILED = (EventType.ACTION_REJECTED, EventType.DEFAULT_APPLIED)
_V2_ENDINGS = {"day vote": "day_vote", "night kill": "night_kill"}
_V2_REMOVED = re.compile(r"seat (\d+) removed")
_V2_IDLE = re.compile(r"(\d+) nights and the days between passed with nobody leaving")


def legacy_sentences_as_data(
    record: BaseModel | PlainRecord, version: int, models: Collection[int] = ()
) -> BaseModel | PlainRecord:
    """A record of a file of format `version` (older than today's) in today's form: a version-2 (or 1) game end as
    its termination's code and number, and a version-3 (or older) failed attempt as its `Failed` data (`models`:
    the seats a model plays at that point of the file, whose time-outs got no answer from their model)."""
    if isinstance(record, Input) and record.op in ("reject", "default") and record.code is None:
        failed = _failure(record.reason, record.seat in models)
        return record.model_copy(update={"code": failed.code, "limit_ms": failed.limit_ms, "reached": failed.reached})
    if isinstance(record, Event) and record.type in _FAILED and record.code is None:
        failed = _failure(record.value or "", record.seat in models)
        return record.model_copy(update={"code": failed.code, "count": failed.limit_ms})
    if version >= 3:
        return record
    if isinstance(record, Event) and record.type is EventType.GAME_ENDED and record.code is None and record.text:
        ending = _ending(record.text)
        if ending is not None:
            code, seat, count = ending
            return record.model_copy(update={"code": code, "target": seat, "count": count, "text": None})
    elif isinstance(record, End) and record.reason:
        ending = _ending(record.reason)
        if ending is not None:
            return record.model_copy(update={"reason": ending[0]})
    return record


def _ending(sentence: str) -> tuple[str, int | None, int | None] | None:
    """A version-2 end sentence as (code, removed seat, idle nights); None for a text of no form the engine wrote."""
    if sentence in _V2_ENDINGS:
        return _V2_ENDINGS[sentence], None, None
    if match := _V2_REMOVED.fullmatch(sentence):
        return "removal", int(match[1]), None
    if match := _V2_IDLE.fullmatch(sentence):
        return "idle_rounds", None, int(match[1])
    return None


def _failure(reason: str, model: bool) -> Failed:
    """A version-3 failed attempt's reason, as the orchestrator worded it, as data. A `model` seat's time-out got
    no answer from its model (a person's or a bot's is its own); so did an attempt whose model could not be reached
    or whose server refused the request. A reason of none of the orchestrator's forms is the engine's refusal, whose
    IllegalDecision code version 3 did not record."""
    if reason.startswith(TIMEOUT_PREFIX):  # "no answer within 120 s"
        limit = reason[len(TIMEOUT_PREFIX) :].strip().removesuffix(" s").strip()
        try:
            return Failed(Failure.TIMEOUT, round(float(limit) * 1000), reached=not model)
        except ValueError:
            return Failed(Failure.TIMEOUT, reached=not model)
    if not reason.startswith(ERROR_PREFIX):
        return Failed(Failure.REFUSED)
    _, _, message = reason[len(ERROR_PREFIX) :].partition(": ")  # " NoUsableAnswer: the model could not be ..."
    if message.startswith(NOT_REACHED):
        return Failed(Failure.ERROR, reached=False)
    return Failed(Failure.MALFORMED if reason.startswith(OWN_FAILURE) else Failure.ERROR)
