"""Writes the cassettes of `test_llm_cassettes.py` when no provider is reachable: `python tests/llm/cassette_author.py`.

Each request body is exactly what the seat sends for its scenario (built by the seat's own conversation and client
code); each response is written in the shape of the OpenAI Chat Completions API reference (openai-python 3.57's
generated types: `ChatCompletion`, `ChatCompletionMessage` with `refusal` and `annotations`, forced `tool_calls`,
`CompletionUsage` with `prompt_tokens_details.cached_tokens`), with OpenAI's response headers. With a key and
network, record real ones instead: `pytest tests/llm/test_llm_cassettes.py --record-mode=rewrite`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).parent))

from test_llm_cassettes import CASSETTES, MODEL, OPENAI, SCENARIOS, seat_for

from arena.llm.budget import max_tokens_for

SERVED = "gpt-4o-mini-2024-07-18"
URI = f"{OPENAI}/chat/completions"


def _usage(prompt: int, cached: int, completion: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _completion(n: int, message: dict[str, Any], finish: str, usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-Bx7{n:03d}kQ2mN8vR4tY6wZ1aC3eG5iK",
        "object": "chat.completion",
        "created": 1790000000 + n,
        "model": SERVED,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": usage,
        "service_tier": "default",
        "system_fingerprint": "fp_560af6e559",
    }


def _message(content: str | None, refusal: str | None = None, tool_calls: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal, "annotations": []}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return message


def _headers(n: int) -> dict[str, list[str]]:
    return {
        "content-type": ["application/json"],
        "openai-organization": ["user-redacted"],
        "openai-processing-ms": [str(400 + 37 * n)],
        "openai-version": ["2020-10-01"],
        "x-request-id": [f"req_{n:04d}c0ffee5eed0123456789abcdef"],
        "x-ratelimit-limit-requests": ["10000"],
        "x-ratelimit-remaining-requests": ["9999"],
        "x-ratelimit-limit-tokens": ["10000000"],
        "x-ratelimit-remaining-tokens": ["9997000"],
    }


def _interaction(body: dict[str, Any], status: int, response: dict[str, Any], headers: dict[str, Any]) -> Any:
    return {
        "request": {
            "body": json.dumps(body, ensure_ascii=False, separators=(",", ":")),
            "headers": {"accept": ["application/json"], "content-type": ["application/json"]},
            "method": "POST",
            "uri": URI,
        },
        "response": {
            "body": {"string": json.dumps(response, ensure_ascii=False)},
            "headers": headers,
            "status": {"code": status, "message": {200: "OK", 429: "Too Many Requests"}[status]},
        },
    }


def responses(name: str, options: tuple[int, ...]) -> list[tuple[int, dict[str, Any], dict[str, Any]]]:
    """(status, body, headers) per exchange of a scenario."""
    n = list(SCENARIOS).index(name) + 1
    ok = _headers(n)
    if name == "test_json_schema_vote":
        text = json.dumps({"reasoning": "Seat 4 pushed hard on seat 9 with no reason; I vote him out.", "vote": True})
        return [(200, _completion(n, _message(text), "stop", _usage(2180, 2048, 41)), ok)]
    if name == "test_tools_shot":
        args = json.dumps({"reasoning": "Follow the don's order.", "target": options[1]})
        call = [
            {"id": "call_Kp3tVb8n2QzX", "type": "function", "function": {"name": "shoot_decision", "arguments": args}}
        ]
        return [(200, _completion(n, _message(None, tool_calls=call), "stop", _usage(3390, 3200, 24)), ok)]
    if name == "test_json_object_speech":
        text = json.dumps(
            {"reasoning": "Seat 4 is too quiet.", "speech": "Good morning. I am worried about seat 4.", "nominate": 4}
        )
        return [(200, _completion(n, _message(text), "stop", _usage(1630, 1536, 38)), ok)]
    if name == "test_prompt_mode_speech":
        inner = {"reasoning": "Nothing yet.", "speech": "I have nothing against anyone yet; let us listen to seat 6.",
                 "nominate": None}  # fmt: skip
        text = f"Here is my decision:\n```json\n{json.dumps(inner, indent=2)}\n```"
        return [(200, _completion(n, _message(text), "stop", _usage(1702, 1536, 52)), ok)]
    if name == "test_refusal_is_unusable_and_recorded":
        refusal = "I'm sorry, I can't assist with that request."
        return [(200, _completion(n, _message(None, refusal=refusal), "stop", _usage(2180, 2048, 11)), ok)]
    if name == "test_cut_off_speech_is_salvaged":
        text = (
            '{"reasoning": "Build the case.", "speech": "Seat 3 voted late yesterday and seat 8 followed, '
            "which tells me"
        )
        return [(200, _completion(n, _message(text), "length", _usage(1590, 1536, 256)), ok)]
    if name == "test_rate_limit_is_retried_after_the_servers_wait":
        error = {"error": {"message": "Rate limit reached for gpt-4o-mini in organization org-redacted on requests "
                           "per min (RPM): Limit 500, Used 500, Requested 1.", "type": "requests", "param": None,
                           "code": "rate_limit_exceeded"}}  # fmt: skip
        limited = {
            **_headers(n),
            "retry-after": ["1"],
            "retry-after-ms": ["20"],
            "x-ratelimit-remaining-requests": ["0"],
        }
        text = json.dumps({"reasoning": "Not seat 4: he argued well.", "vote": False})
        return [(429, error, limited), (200, _completion(n, _message(text), "stop", _usage(2180, 2048, 29)), ok)]
    raise KeyError(name)


def main() -> None:
    CASSETTES.mkdir(parents=True, exist_ok=True)
    for name, scenario in SCENARIOS.items():
        player, observation, request = seat_for(name, "sk-placeholder")
        conversation = player.conversation
        turn = conversation.turn(observation, request)
        body = player.client.body(
            conversation.request_messages(turn),
            mode=scenario.mode,
            name=turn.name,
            schema=turn.schema,
            max_tokens=max_tokens_for(request, None, "en"),
        )
        assert body["model"] == MODEL
        cassette = {
            "interactions": [_interaction(body, *exchange) for exchange in responses(name, request.options)],
            "version": 1,
        }
        path = CASSETTES / f"{name}.yaml"
        path.write_text(yaml.safe_dump(cassette, allow_unicode=True, sort_keys=False, width=120), encoding="utf-8")
        print(path)


if __name__ == "__main__":
    main()
