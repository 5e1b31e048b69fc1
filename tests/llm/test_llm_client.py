"""The client's reading of odd bodies and its error texts: tolerant of almost-completions, never echoing a key."""

from __future__ import annotations

from typing import Any

import httpx2
import openai
import pytest
from openai.types.chat import ChatCompletion

from arena.llm.client import _completion, describe_error, redact, request_format
from arena.llm.modes import Mode


@pytest.mark.parametrize(
    "body", [{}, {"choices": []}, {"choices": [{}]}, {"choices": [{"message": None}]}, {"error": {}}]
)
def test_a_body_that_is_not_quite_a_completion_reads_as_empty(body: dict[str, Any]) -> None:
    completion = _completion(ChatCompletion.construct(**body), 5.0, Mode.TOOLS)
    assert (completion.raw, completion.finish_reason, completion.refusal) == ("", None, None)


def test_tool_arguments_are_the_answer_in_tools_mode_only() -> None:
    body = {
        "model": "m-1",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "prose",
                     "tool_calls": [{"id": "c", "type": "function", "function": {"name": "x", "arguments": "{}"}}]}}],
    }  # fmt: skip
    response = ChatCompletion.construct(**body)
    assert _completion(response, 1.0, Mode.TOOLS).raw == "{}"
    assert _completion(response, 1.0, Mode.JSON_SCHEMA).raw == "prose"


def test_errors_never_carry_a_key() -> None:
    key = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX"
    response = httpx2.Response(401, request=httpx2.Request("POST", "http://127.0.0.1/v1/chat/completions"))
    exc = openai.AuthenticationError(
        f"Incorrect API key provided: sk-proj-****UVWX, or {key}", response=response, body=None
    )
    text, status = describe_error(exc, key)
    assert status == 401
    assert "UVWX" not in text and "ABCD" not in text and text.count("[key]") == 2
    assert redact("Authorization: Bearer abc.def") == "Authorization: [key]"


def test_request_formats_follow_the_reference() -> None:
    schema = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert request_format(Mode.JSON_SCHEMA, "vote_decision", schema) == {
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "vote_decision", "strict": True, "schema": schema},
        }
    }
    tools = request_format(Mode.TOOLS, "vote_decision", schema)
    assert tools["tool_choice"] == {"type": "function", "function": {"name": "vote_decision"}}
    assert tools["tools"][0]["function"]["parameters"] == schema
    assert request_format(Mode.JSON_OBJECT, "x", schema) == {"response_format": {"type": "json_object"}}
    assert request_format(Mode.PROMPT, "x", schema) == {}
