"""A seat's call records: `model_call` skips pydantic only where the record comes out the same as validated."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from arena.llm.records import model_call
from arena.players.base import ModelCall
from arena.transcript import _line

_BASE: dict[str, Any] = {
    "seat": 3,
    "request_kind": "vote",
    "mode": "json_schema",
    "flags": ["#2@17:imitates_moderator"],
    "messages": [{"role": "system", "content": "rules"}, {"role": "user", "content": "vote «now»"}],
    "attempt": 1,
    "model": "m",
    "raw": '{"vote": "yes"}',
    "finish_reason": "stop",
    "latency_ms": 101.5,
    "prompt_tokens": 120,
    "completion_tokens": 7,
    "cached_tokens": 96,
    "cost_usd": 0.000123,
    "parsed": {"vote": "yes", "nested": {"a": [1, 2]}},
    "error": None,
    "prefix_ref": -1,
    "prefix_messages": 2,
}


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"parsed": None, "error": "unusable: no JSON", "finish_reason": None},
        {"latency_ms": 100, "cost_usd": 0},  # ints for floats: pydantic makes them floats
        {"prompt_tokens": True},  # a bool for an int: pydantic makes it 1
        {"messages": [{"role": "user", "content": "x", "name": "a"}, {1: "not a str key"}]},
        {"parsed": {1: "x"}},
        {"flags": ("a",)},
        {"messages": ({"role": "user", "content": "x"},)},
    ],
)
def test_a_record_is_the_validated_one(change: dict[str, Any]) -> None:
    data = {**_BASE, **change}
    try:
        expected = ModelCall(**data)
    except ValidationError:
        with pytest.raises(ValidationError):
            model_call(**data)
        return
    got = model_call(**data)
    assert got == expected
    assert _line("call", got) == _line("call", expected)
    assert got.model_dump() == expected.model_dump()
    for mine, given in zip(got.messages, data["messages"], strict=True):
        assert mine == given and mine is not given  # copied as pydantic copies: nothing shared with the seat
    if data["parsed"] is not None:
        assert got.parsed == data["parsed"] and got.parsed is not data["parsed"]


def test_an_unknown_field_is_pydantics_error() -> None:
    with pytest.raises(ValidationError):
        model_call(**_BASE, surprise=1)
