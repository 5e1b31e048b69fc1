"""LLM edge cases against the local server: the preflight probe retries transients, a request that times out (the
client's timeout or the decision's time limit) still leaves a call record with its error and latency, and tokens
reported by any attempt of a retried call are kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llmkit import FAST, llm_player, llm_spec

from arena.agents import AgentError, AgentSpec
from arena.engine import Decision, Failed, Failure, Game, Kind, Request, load_rules, view
from arena.llm.client import CallResult, ClientSettings, TransportFailure
from arena.llm.modes import Completion
from arena.llm.preflight import preflight, probe_with
from arena.llm.seat import TRANSPORT
from arena.llm.settings import client_settings
from arena.llm.usage import Usage
from arena.orchestrator import run_game
from arena.players.base import Player
from arena.players.bots import RandomBot
from arena.standin import FakeServer, FaultPlan
from arena.transcript import TranscriptWriter, load, make_header

PROBE = ""  # the probe sends no schema: the server files it under no schema name


def _first_request(seed: int = 1) -> tuple[Game, Request]:
    game = Game(load_rules("fiim"), seed)
    return game, game.pending()[0]


async def test_preflight_retries_429_5xx_and_timeouts(api_key: str) -> None:
    # the time-out fault hangs far past the client's 3 s, which an answered probe never needs, even on a busy machine
    plan = FaultPlan(hang_s=30.0).in_turn(PROBE, "rate_limit", "server_error", "timeout")
    with FakeServer(plan=plan) as server:
        spec = AgentSpec(name="busy", kind="llm", model="fake-model", base_url=server.base_url, timeout_s=3.0)
        settings = client_settings(spec)
        fast = ClientSettings(settings.model, settings.base_url, settings.api_key, settings.timeout_s, retry=FAST)
        assert await probe_with(fast, spec) == "fake-model-2026-01-01"
        assert [fault for fault, _, _ in server.stats.injected] == ["rate_limit", "server_error", "timeout"]
        assert server.stats.requests == 4
    # the agent's own policy (retries = 4 by default) is what `preflight` uses
    with FakeServer(plan=FaultPlan().add("rate_limit", PROBE, 1)) as server:
        spec = AgentSpec(name="busy", kind="llm", model="fake-model", base_url=server.base_url)
        seats = await preflight({1: spec})
        assert seats[1].reported_model == "fake-model-2026-01-01" and server.stats.requests == 2
    # a refused key is not a transient: one request, then the error
    with FakeServer(plan=FaultPlan().add("unauthorized", PROBE, 1)) as server:
        spec = AgentSpec(name="refused", kind="llm", model="m", base_url=server.base_url, api_key_env="ARENA_TEST_KEY")
        with pytest.raises(AgentError, match="HTTP 401"):
            await preflight({1: spec})
        assert server.stats.requests == 1


async def test_a_client_timeout_leaves_a_record_per_attempt(api_key: str) -> None:
    rules = load_rules("fiim")
    game, request = _first_request()
    plan = FaultPlan(hang_s=30.0).add("timeout", "*", 1).add("timeout", "*", 2)
    with FakeServer(plan=plan) as server:
        player = llm_player(llm_spec(server.base_url), request.seat, rules, timeout_s=2.0)
        answer = await player.decide(view(game, request.seat), request)
        await player.close()
    assert [c.attempt for c in answer.calls] == [1, 2, 3]
    for call in answer.calls[:2]:
        assert call.error is not None and call.error.startswith(f"{TRANSPORT}timeout")
        assert 1900 <= call.latency_ms < 29_000  # the client's 2 s, not the server's 30 s (room for a loaded machine)
    assert answer.calls[2].error is None and answer.calls[2].parsed is not None


async def test_the_decision_time_limit_still_leaves_a_record(tmp_path: Path, api_key: str) -> None:
    """The orchestrator's limit cancels a seat mid-call: the attempt is recorded with its error and latency."""
    rules = load_rules("fiim")
    game = Game(rules, 1)
    seat = game.pending()[0].seat  # the first to decide: the don's Night-0 message
    with FakeServer(plan=FaultPlan(hang_s=30.0).add("timeout", "*", 1)) as server:
        spec = llm_spec(server.base_url)
        players: dict[int, Player] = {s: RandomBot(s, 1) for s in range(1, 11)}
        players[seat] = llm_player(spec, seat, rules)
        specs = {s: AgentSpec(name="bot:random", kind="bot", bot="random") for s in players}
        specs[seat] = spec
        path = tmp_path / "limit.jsonl"
        writer = TranscriptWriter.create(path, make_header(rules, 1, specs))
        try:
            await run_game(game, players, writer, timeout_s=None, timeouts={seat: 2.0}, max_reasks=1)  # the LLM seat's
        finally:
            writer.close()
            for player in players.values():
                await player.close()
    transcript = load(path)
    first = transcript.calls[0]
    assert first.seat == seat and first.attempt == 1
    assert first.error is not None and "time limit ran out" in first.error
    assert 1900 <= first.latency_ms < 29_000  # the 2 s limit, not the server's 30 s (room for a loaded machine)
    rejected = [i for i in transcript.inputs if i.seat == seat and i.op in ("reject", "default")]
    assert rejected and rejected[0].failed == Failed(Failure.TIMEOUT, 2000, reached=False)  # its model's silence
    assert transcript.calls[1].seat == seat and transcript.calls[1].error is None  # the re-ask was answered


async def test_tokens_of_every_attempt_are_kept(api_key: str) -> None:
    rules = load_rules("fiim")
    game, request = _first_request()
    with FakeServer(plan=FaultPlan().add("server_error_usage", "*", 1)) as server:
        player = llm_player(llm_spec(server.base_url), request.seat, rules)
        answer = await player.decide(view(game, request.seat), request)
        await player.close()
        served = server.stats.prompt_tokens
    failed, answered = answer.calls
    assert failed.error is not None and "HTTP 500" in failed.error and answered.error is None
    assert failed.prompt_tokens > 0 and answered.prompt_tokens > 0
    assert failed.prompt_tokens + answered.prompt_tokens == served  # nothing the server counted is lost

    result = CallResult(
        failures=[TransportFailure("HTTP 500", 1.0, 500, Usage(100, 5, 40)), TransportFailure("HTTP 502", 1.0, 502)],
        completion=Completion("{}", "stop", None, "m", Usage(120, 30, 100), 2.0),
    )
    assert result.usage == Usage(220, 35, 140)


async def test_reasoning_is_stored_cut_in_the_call_record_as_in_the_input(server: FakeServer, api_key: str) -> None:
    rules = load_rules("fiim")
    game, request = _first_request()
    player = llm_player(llm_spec(server.base_url), request.seat, rules)
    turn = player.conversation.turn(view(game, request.seat), request)
    messages = player.conversation.request_messages(turn)
    huge = "why " * 5000
    raw = json.dumps({"reasoning": huge.strip(), "message": "hello", "kill_order": []})
    completion = Completion(raw, "stop", None, "m", Usage(), 1.0)
    answer = await player.conclude(turn, messages, request, completion, 1, 600)
    await player.close()
    cap = rules.speech.chars(rules.speech.reasoning_words)
    assert request.kind is Kind.BLACK_MESSAGE
    assert len(answer.decision.reasoning) <= cap and len(answer.decision.reasoning.split()) <= 600
    record = answer.calls[-1]
    assert record.parsed is not None and record.parsed["reasoning"] == answer.decision.reasoning
    assert game.check(request.seat, answer.decision) == answer.decision  # the engine accepts it as it is
    assert game.check(request.seat, Decision(text="x", reasoning=huge)).reasoning == answer.decision.reasoning
