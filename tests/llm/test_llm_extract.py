"""JSON extraction from model text: every way a model wraps or breaks its JSON, and what must not be guessed."""

from __future__ import annotations

import pytest

from arena.llm.extract import NoJSON, close_truncated, extract_object


@pytest.mark.parametrize(
    ("text", "how"),
    [
        ('{"vote": true}', "exact"),
        ('Sure!\n```json\n{"vote": true}\n```\nGood luck.', "fenced"),
        ('```\n{"vote": true}\n```', "fenced"),
        ('My answer is {"vote": true} and that is final.', "embedded"),
        ('<think>maybe {"vote": false}</think>{"vote": true}', "exact"),
        ('{"vote": true,}', "repaired"),
    ],
)
def test_finds_the_object(text: str, how: str) -> None:
    found = extract_object(text)
    assert found.value == {"vote": True}
    assert found.how == how


def test_embedded_skips_braces_that_are_not_objects() -> None:
    assert extract_object('I pick {seat 3}. {"target": 3}').value == {"target": 3}


def test_a_cut_off_object_is_closed_only_when_asked() -> None:
    text = '{"reasoning": "hm", "speech": "I think seat 4 is'
    with pytest.raises(NoJSON):
        extract_object(text)
    found = extract_object(text, truncated=True)
    assert found.how == "closed"
    assert found.value == {"reasoning": "hm", "speech": "I think seat 4 is"}


@pytest.mark.parametrize(
    ("cut", "closed"),
    [
        ('{"a": "x\\', '{"a": "x"}'),
        ('{"a": 1, "b', '{"a": 1}'),
        ('{"a": 1, "b":', '{"a": 1}'),
        ('{"a": [1, 2', '{"a": [1, 2]}'),
        ('{"a": {"b": "c', '{"a": {"b": "c"}}'),
    ],
)
def test_close_truncated(cut: str, closed: str) -> None:
    assert close_truncated(cut) == closed


def test_a_complete_object_needs_no_closing() -> None:
    assert close_truncated('{"a": 1}') is None


@pytest.mark.parametrize("text", ["", "   ", "I refuse to answer.", "[1, 2, 3]", "{not json at all}"])
def test_no_object(text: str) -> None:
    with pytest.raises(NoJSON):
        extract_object(text, truncated=True)
