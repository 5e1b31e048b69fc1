"""Writes the cassettes of `test_llm_providers.py`: `python tests/llm/provider_cassette_author.py`.

No provider was reachable when they were made (tests and this machine reach only 127.0.0.1), so each request body is
exactly what the seat built from the shipped agent file sends, and each response is written in the shape of that
provider's reference:
- Anthropic's OpenAI SDK compatibility layer: an OpenAI chat completion whose id is the Messages API's `msg_` id, a
  forced tool call as `tool_calls` with a `toolu_` id and `finish_reason: "tool_calls"`, usage with the three counts
  only (the layer has no prompt caching), Anthropic's `request-id` header;
- Gemini's OpenAI-compatible endpoint: the content as JSON text, `finish_reason: "stop"`, usage with
  `prompt_tokens_details.cached_tokens` (an implicit cache hit), Google's `server` header;
- a LiteLLM proxy in front of Claude: LiteLLM's documented usage object for Anthropic (`prompt_tokens` counting every
  input token, `prompt_tokens_details.cached_tokens`, and `cache_creation_input_tokens` / `cache_read_input_tokens`),
  its `x-litellm-*` headers.
With a key and network, record real ones instead: `pytest tests/llm/test_llm_providers.py --record-mode=rewrite`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).parent))

from test_llm_providers import CASSETTES, SCENARIOS, seat_for

from arena.llm.budget import max_tokens_for


def _tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def anthropic(name: str, tool: str) -> tuple[dict[str, Any], dict[str, list[str]]]:
    args = {"reasoning": "Seat 9 was nominated on thin grounds; I will not follow the crowd yet.", "vote": False}
    body = {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "object": "chat.completion",
        "created": 1790000101,
        "model": "claude-haiku-4-5-20251001",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "", "tool_calls": [_tool_call("toolu_01A09q90qw90lq917835lq9", tool, args)],
        }}],
        "usage": {"prompt_tokens": 2214, "completion_tokens": 58, "total_tokens": 2272},
    }
    headers = {"content-type": ["application/json"], "request-id": ["req_011CSHoEeqs5C35K2UUqR7Fy"],
               "anthropic-organization-id": ["00000000-0000-0000-0000-000000000000"]}  # fmt: skip
    return body, headers


def gemini(name: str, tool: str) -> tuple[dict[str, Any], dict[str, list[str]]]:
    text = json.dumps({"reasoning": "Seat 9 dodged every question about the night; he is my pick.", "vote": True})
    body = {
        "id": "lbRkaOXVKf2B7M8P4IzUkQ8",
        "object": "chat.completion",
        "created": 1790000102,
        "model": "gemini-2.5-flash",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 2169, "completion_tokens": 47, "total_tokens": 2216,
                  "prompt_tokens_details": {"cached_tokens": 2048}},
    }
    headers = {"content-type": ["application/json"], "server": ["scaffolding on HTTPServer2"],
               "x-content-type-options": ["nosniff"]}  # fmt: skip
    return body, headers


def litellm(name: str, tool: str, options: tuple[int, ...]) -> tuple[dict[str, Any], dict[str, list[str]]]:
    args = {"reasoning": "The don's order names this seat first.", "target": options[0]}
    body = {
        "id": "chatcmpl-6a3c1e5f-8d2b-4b7e-9f10-2c4d6e8a0b1c",
        "object": "chat.completion",
        "created": 1790000103,
        "model": "claude-haiku-4-5-20251001",
        "system_fingerprint": None,
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "function_call": None,
            "tool_calls": [_tool_call("toolu_01Fb7yZcQvYtS1pE2Wmx4K8a", tool, args)],
        }}],
        "usage": {
            "prompt_tokens": 3405, "completion_tokens": 31, "total_tokens": 3436,
            "prompt_tokens_details": {"cached_tokens": 3072, "audio_tokens": None},
            "completion_tokens_details": None,
            "cache_creation_input_tokens": 301, "cache_read_input_tokens": 3072,
        },
    }
    headers = {"content-type": ["application/json"], "x-litellm-model-id": ["3f1c2b7a9e"],
               "x-litellm-response-cost": ["0.00078"],
               "llm_provider-request-id": ["req_011CSHoF4Yb2dWm7Lx9Q3nRt"]}  # fmt: skip
    return body, headers


def main() -> None:
    CASSETTES.mkdir(parents=True, exist_ok=True)
    for name, (agent, _) in SCENARIOS.items():
        player, observation, request = seat_for(name)
        conversation = player.conversation
        turn = conversation.turn(observation, request)
        max_tokens = max_tokens_for(request, player.base_tokens, "en")
        body = player.client.body(conversation.request_messages(turn), mode=player.mode, name=turn.name,
                                  schema=turn.schema, max_tokens=max_tokens)  # fmt: skip
        if agent == "litellm":
            response, headers = litellm(name, turn.name, request.options)
        else:
            response, headers = {"anthropic": anthropic, "gemini": gemini}[agent](name, turn.name)
        base = player.client.settings.base_url
        assert base is not None
        interaction = {
            "request": {
                "body": json.dumps(body, ensure_ascii=False, separators=(",", ":")),
                "headers": {"accept": ["application/json"], "content-type": ["application/json"]},
                "method": "POST",
                "uri": base.rstrip("/") + "/chat/completions",
            },
            "response": {
                "body": {"string": json.dumps(response, ensure_ascii=False)},
                "headers": headers,
                "status": {"code": 200, "message": "OK"},
            },
        }
        path = CASSETTES / f"{name}.yaml"
        cassette = {"interactions": [interaction], "version": 1}
        path.write_text(yaml.safe_dump(cassette, allow_unicode=True, sort_keys=False, width=120), encoding="utf-8")
        print(path)


if __name__ == "__main__":
    main()
