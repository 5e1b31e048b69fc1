"""The compact grammar (llama.cpp, `grammar = true`): our answer schemas as GBNF with no free whitespace, sent
instead of `response_format`; a schema outside the subset keeps `response_format`."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from arena.engine import Kind, load_rules
from arena.llm.client import ClientSettings, LLMClient
from arena.llm.grammar import compact_grammar
from arena.llm.modes import Mode
from arena.llm.schema import answer_schema, stable_schema

sys.path.insert(0, str(Path(__file__).parents[1] / "realmodel"))
from realkit import drive_to


@pytest.mark.parametrize("kind", [Kind.SPEECH, Kind.VOTE, Kind.SHOOT, Kind.SHERIFF, Kind.BLACK_MESSAGE])
def test_every_answer_schema_has_a_grammar_without_free_whitespace(kind: Kind) -> None:
    _, request = drive_to(load_rules("fiim"), 7, {kind})
    grammar = compact_grammar(answer_schema(request))
    assert grammar is not None and grammar.startswith("root ::= ")
    outside_literals = re.sub(r'"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]', "", grammar)
    assert "space" not in grammar and "\\t" not in outside_literals  # no whitespace rule anywhere
    for name in answer_schema(request)["properties"]:
        assert f'"\\"{name}\\""' in grammar  # every field, as a fixed literal


def test_the_stable_schema_has_one_too_and_unknown_shapes_have_none() -> None:
    assert compact_grammar(stable_schema(load_rules("fiim"))) is not None
    assert compact_grammar({"type": "object", "properties": {"a": {"type": "string"}}, "required": []}) is None
    assert compact_grammar({"type": "string", "pattern": "x+"}) is not None  # a plain string still
    assert compact_grammar({"oneOf": []}) is None


def test_the_request_carries_the_grammar_instead_of_the_response_format() -> None:
    _, request = drive_to(load_rules("fiim"), 7, {Kind.VOTE})
    schema = answer_schema(request)
    plain = LLMClient(ClientSettings(model="m", base_url="http://127.0.0.1:9/v1", api_key="k"))
    compact = LLMClient(ClientSettings(model="m", base_url="http://127.0.0.1:9/v1", api_key="k", grammar=True))
    body = plain.body([], mode=Mode.JSON_SCHEMA, name="vote", schema=schema, max_tokens=10)
    assert "response_format" in body and "grammar" not in body
    body = compact.body([], mode=Mode.JSON_SCHEMA, name="vote", schema=schema, max_tokens=10)
    assert body["grammar"] == compact_grammar(schema) and "response_format" not in body
    tools = compact.body([], mode=Mode.TOOLS, name="vote", schema=schema, max_tokens=10)
    assert "grammar" not in tools  # llama.cpp refuses a grammar with tools
