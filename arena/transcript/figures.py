"""The checks of a transcript's figures and references that need no replay: what it cost, and what its call records
point at (`arena verify` runs them, and a tournament refuses an existing game file that fails them).

Why apart from the replay: the end record's totals and a call's cost decide money (a tournament's `--budget`) but no
event, so the replay cannot see an edit of them. A forged `end.total.cost_usd = -1000000`, re-chained, used to
verify and lifted the budget ($19.02 spent against a $10 cap). Here every figure must be finite and not negative,
the end record's totals must be the sums of the call records they summarise, a call's references must stay within
the records they extend (`arena.llm.records.Expansion`), and a raw answer cannot be longer than the client keeps.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from arena.llm.modes import MAX_ANSWER_BYTES
from arena.llm.records import Expansion
from arena.players.base import ModelCall
from arena.transcript.counters import SeatTotals, call_totals
from arena.transcript.records import Transcript

CENT_FRACTION = 1e-6  # how far a recorded cost may sit from the sum of its calls (the writer rounds to 8 digits)
_CALL_FIGURES = ("cost_usd", "latency_ms", "prompt_tokens", "completion_tokens", "cached_tokens", "attempt")


def _bad_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and (not math.isfinite(value) or value < 0)


def _call_problem(number: int, call: ModelCall) -> str | None:
    for name in _CALL_FIGURES:
        value = getattr(call, name)
        if _bad_number(value):
            return f"call record {number} (seat {call.seat}): {name} is {value!r}; a figure is finite and not negative"
    if len(call.raw) * 4 > MAX_ANSWER_BYTES and len(call.raw.encode("utf-8")) > MAX_ANSWER_BYTES:
        return (
            f"call record {number} (seat {call.seat}): a raw answer of {len(call.raw.encode('utf-8')):,} bytes, over "
            f"the {MAX_ANSWER_BYTES:,} the client keeps"
        )
    return None


def _totals_problem(where: str, recorded: SeatTotals, summed: SeatTotals) -> str | None:
    for name, value in asdict(recorded).items():
        if _bad_number(value):
            return f"the end record's {where} {name} is {value!r}; a figure is finite and not negative"
    for name in ("calls", "failed_calls", "prompt_tokens", "cached_tokens", "completion_tokens"):
        if getattr(recorded, name) != getattr(summed, name):
            return (
                f"the end record's {where} {name} is {getattr(recorded, name)}, but its call records add up to "
                f"{getattr(summed, name)}"
            )
    if abs(recorded.cost_usd - summed.cost_usd) > CENT_FRACTION:
        return (
            f"the end record's {where} cost_usd is {recorded.cost_usd!r}, but its call records add up to "
            f"{summed.cost_usd:.8f}"
        )
    return None


def figures_problem(transcript: Transcript) -> str | None:
    """The first figure or reference a writer never writes, or None: a negative or non-finite cost, token count or
    total; end-record totals that are not the sums of the call records; a reference past its base; a raw answer
    over the client's cap."""
    for number, call in enumerate(transcript.calls):
        problem = _call_problem(number, call)
        if problem:
            return problem
    try:
        Expansion(transcript.calls)
    except ValueError as exc:
        return str(exc)
    end = transcript.end
    if end is None:
        return None
    for seat, counters in end.counters.items():
        for name, value in asdict(counters).items():
            if _bad_number(value):
                return f"the end record's counters of seat {seat}: {name} is {value!r}"
    if not end.totals and end.total is None:
        return None  # written before the totals existed: nothing to compare
    summed = call_totals(transcript.calls)
    game = SeatTotals()
    for seat, recorded in sorted(end.totals.items()):
        mine = summed.get(seat, SeatTotals())
        mine.defaults = recorded.defaults  # counted from the inputs, not the calls
        problem = _totals_problem(f"seat {seat}", recorded, mine)
        if problem:
            return problem
        game.add(recorded)
    missing = sorted(set(summed) - set(end.totals))
    if missing:
        return f"call records of seat {missing[0]} are missing from the end record's totals"
    if end.total is not None:
        game.defaults = end.total.defaults
        return _totals_problem("game total", end.total, game)
    return None

