"""A model's answer is read with a bound: an oversize answer is an unusable answer (its first bytes recorded,
re-asked like any other), and a body of deeply nested JSON is a malformed body, never a RecursionError. Both
transports (the SDK's, the tournament's direct path) read the body the same way."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from llmkit import FAST, llm_player, llm_spec, play

from arena.agents import AgentError
from arena.engine import load_rules
from arena.llm.client import CallResult, ClientSettings, LLMClient
from arena.llm.modes import ANSWER_KEPT_BYTES, MAX_ANSWER_BYTES, Mode
from arena.llm.pool import use_aiohttp
from arena.llm.preflight import probe_with
from arena.players.base import Player
from arena.standin import FakeServer, FaultPlan
from arena.transcript import load, verify


async def _one_call(base_url: str, direct: bool) -> LLMClient:
    use_aiohttp(direct)
    client = LLMClient(ClientSettings(model="m", base_url=base_url, api_key="sk-test-1234", retry=FAST))
    assert (client._direct is not None) is direct
    return client


async def _ask_once(fault: str, direct: bool) -> CallResult:
    """One call against a stand-in whose first answer is `fault`, on the SDK's path or the direct one."""
    with FakeServer(plan=FaultPlan().add(fault, "*", 1)) as server:
        client = await _one_call(server.base_url, direct)
        try:
            return await client.complete([{"role": "user", "content": "hi"}], mode=Mode.PROMPT, name="x",
                                         schema={}, max_tokens=8)  # fmt: skip
        finally:
            await client.close()
            use_aiohttp(False)


@pytest.mark.parametrize("direct", [False, True])
async def test_an_oversize_body_is_cut_and_marked_not_read_whole(direct: bool) -> None:
    result = await _ask_once("huge_body", direct)
    completion = result.completion
    assert completion is not None and result.final_error is None and not result.failures  # not retried
    assert completion.oversize > MAX_ANSWER_BYTES
    assert completion.oversize < 20_000_000  # the read stopped at the bound, long before the 20 MB end
    assert len(completion.raw.encode()) <= ANSWER_KEPT_BYTES and completion.raw.startswith('{"model"')


@pytest.mark.parametrize("direct", [False, True])
async def test_a_deeply_nested_body_is_a_malformed_body(direct: bool) -> None:
    result = await _ask_once("nested_body", direct)
    assert result.completion is not None  # retried (a malformed body is transient), then answered
    assert "malformed response body" in result.failures[0].error and "nested too deeply" in result.failures[0].error


def test_a_deeply_nested_body_is_a_clear_preflight_error() -> None:
    plan = FaultPlan()
    for n in range(1, 6):
        plan.add("nested_body", "*", n)
    with FakeServer(plan=plan) as server:
        spec = llm_spec(server.base_url)
        settings = ClientSettings(model="fake-model", base_url=server.base_url, api_key="sk-test-1234", retry=FAST)
        with pytest.raises(AgentError, match=r"malformed response body .*nested too deeply"):
            asyncio.run(probe_with(settings, spec))


@pytest.mark.parametrize("fault", ["huge_body", "huge_answer"])
async def test_an_oversize_answer_is_recorded_cut_and_re_asked(tmp_path: Path, api_key: str, fault: str) -> None:
    rules = load_rules("fiim")
    with FakeServer(plan=FaultPlan().add(fault, "speech_decision", 1)) as server:
        spec = llm_spec(server.base_url, "json_schema", api_key_env="ARENA_TEST_KEY")
        players: dict[int, Player] = {s: llm_player(spec, s, rules) for s in range(1, 11)}
        path = tmp_path / "big.jsonl"
        game, _ = await play(rules, 11, players, {s: spec for s in players}, path)
        assert (fault, "speech_decision", 1) in server.stats.injected
    assert game.over
    transcript = load(path)
    assert verify(transcript).ok
    (bad,) = [c for c in transcript.calls if "too long" in (c.error or "")]
    assert bad.error is not None and bad.error.startswith("unusable: the answer was too long")
    assert bad.parsed is None and 0 < len(bad.raw.encode()) <= ANSWER_KEPT_BYTES
    later = transcript.calls[transcript.calls.index(bad) + 1]
    assert later.seat == bad.seat and later.attempt == 1 and later.error is None  # the re-ask answered
    assert path.stat().st_size < 3_000_000
