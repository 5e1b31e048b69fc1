"""A full 10-seat fiim game of LLM seats against a local server that injects every kind of fault.

The server (arena.standin, on 127.0.0.1) answers in the Chat Completions reference shapes and injects: 429
with Retry-After, 500, a hang past the client timeout, a broken body, malformed JSON, the wrong schema, an illegal
target, a refusal, an empty answer, a cut-off answer and a speech far over its word limit. The game must end
normally, and each fault must be visible in the transcript: as a failed call record, a re-ask event, or the
engine's cut of the speech. The API key in the environment must not appear anywhere in the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from llmkit import llm_player, llm_spec, play

from arena.engine import EventType, load_rules
from arena.players.base import Player
from arena.standin import FakeServer, FaultPlan
from arena.transcript import load, verify

# A `timeout` fault answers long after the client gave up; an answered attempt has seconds to spare, so a busy
# machine does not turn a planned fault into a time-out (a fault so lost is never logged as itself)
CLIENT_TIMEOUT_S, HANG_S = 5.0, 30.0
PLAN = (
    FaultPlan(hang_s=HANG_S)
    .in_turn("black_message_decision", "rate_limit", "server_error")
    .in_turn(
        "speech_decision", "timeout", "bad_body", "bad_json", "wrong_schema", "overlong", "refusal", "empty", "cut_off"
    )
    .in_turn("shoot_decision", "illegal_target")
    .in_turn("vote_decision", "illegal_target", "refusal")
)


@pytest.mark.parametrize("schema", ["per_request", "stable"])
@pytest.mark.parametrize("mode", ["json_schema", "tools"])
async def test_every_fault_is_survived_and_recorded(tmp_path: Path, api_key: str, mode: str, schema: str) -> None:
    rules = load_rules("fiim")
    with FakeServer(plan=PLAN) as server:
        spec = llm_spec(server.base_url, mode, api_key_env="ARENA_TEST_KEY", schema=schema)
        # a deadline per attempt for the whole answer (not a gap between reads)
        players: dict[int, Player] = {s: llm_player(spec, s, rules, timeout_s=CLIENT_TIMEOUT_S) for s in range(1, 11)}
        path = tmp_path / "faults.jsonl"
        game, stats = await play(rules, 11, players, {s: spec for s in players}, path)
        injected = {fault for fault, _, _ in server.stats.injected}

    assert game.over and game.winner in ("town", "mafia", "draw")
    assert injected == {
        "rate_limit", "server_error", "timeout", "bad_body", "bad_json", "wrong_schema", "overlong",
        "refusal", "empty", "cut_off", "illegal_target",
    }  # fmt: skip
    transcript = load(path)
    assert transcript.status == "complete"
    verdict = verify(transcript)  # every re-ask, default and salvaged answer pairs with its call record
    assert verdict.ok and verdict.outcome == "complete", verdict.message
    errors = [c.error or "" for c in transcript.calls]

    def logged(fragment: str) -> bool:
        return any(fragment in e for e in errors)

    assert logged("transport: HTTP 429 (Retry-After: 1)")
    assert logged("transport: HTTP 500")
    assert logged("transport: timeout")
    assert logged("transport: malformed response body")
    assert logged("unusable: no JSON object found")
    assert logged("unusable: the JSON does not match the schema: field 'speech' is missing")
    assert logged("unusable: the model refused")
    assert logged("unusable: the answer was empty")
    assert logged("cut off at the token limit")
    assert logged("unusable: the JSON does not match the schema: field 'vote' must be true or false")

    rejected = [e.value or "" for e in transcript.events if e.type is EventType.ACTION_REJECTED]
    assert any("there is no seat 99" in r for r in rejected)  # the illegal shot, refused by the engine
    assert any("NoUsableAnswer: the model refused" in r for r in rejected)  # re-asked with the reason
    assert any(e.type is EventType.SPEECH_TRUNCATED for e in transcript.events)  # the over-long speech, cut

    # every call record carries its numbers; the server's dated model name is what is recorded
    answered = [c for c in transcript.calls if not (c.error or "").startswith("transport:")]
    assert answered and all(c.model == "fake-model-2026-01-01" for c in answered)
    assert all(c.prompt_tokens > 0 and c.latency_ms > 0 for c in answered)
    assert sum(c.cached_tokens for c in answered) > 0
    assert transcript.end is not None
    counters = transcript.end.counters.values()
    assert sum(c.errors for c in counters) >= 6  # bad JSON, wrong schema, bad vote, two refusals, empty: re-asked
    assert sum(c.invalid for c in counters) >= 1  # the illegal shot: refused by the engine, re-asked
    assert stats.decisions == sum(c.decisions for c in transcript.end.counters.values())

    text = path.read_text(encoding="utf-8")
    assert api_key not in text and "Bearer" not in text
