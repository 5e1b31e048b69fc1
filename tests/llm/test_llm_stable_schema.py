"""The cache-stable request shape: every request of a seat carries byte-identical schema (or tool list) bytes, a
re-ask after a refusal carries the strict per-request schema, and the answer's shape is checked as before."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from llmkit import llm_player, llm_spec, play

from arena.engine import Kind, Request, load_rules
from arena.llm import client as client_module
from arena.llm.schema import (
    STABLE_FIELDS,
    ShapeError,
    legal_line,
    legal_options,
    stable_kinds,
    stable_schema,
    to_decision_stable,
)
from arena.players.base import Player
from arena.players.llm import build_llm_player, client_settings
from arena.standin import FakeServer, FaultPlan

AGENTS = Path(__file__).resolve().parents[2] / "agents"


def _record_formats(monkeypatch: pytest.MonkeyPatch) -> dict[int, list[str]]:
    """Per client (one per seat): the schema part of every request body, as the bytes that are sent."""
    seen: dict[int, list[str]] = {}
    original = client_module.LLMClient.body

    def body(self: client_module.LLMClient, messages: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
        sent = original(self, messages, **kw)
        part = {k: sent[k] for k in ("response_format", "tools", "tool_choice") if k in sent}
        seen.setdefault(id(self), []).append(json.dumps(part, ensure_ascii=False))
        return sent

    monkeypatch.setattr(client_module.LLMClient, "body", body)
    return seen


async def _game(tmp_path: Path, mode: str, schema: str, plan: FaultPlan | None = None) -> None:
    rules = load_rules("fiim")
    with FakeServer(plan=plan or FaultPlan()) as server:
        spec = llm_spec(server.base_url, mode, schema=schema)
        players: dict[int, Player] = {s: llm_player(spec, s, rules) for s in range(1, 11)}
        game, _ = await play(rules, 5, players, {s: spec for s in players}, tmp_path / f"{mode}-{schema}.jsonl")
    assert game.over


@pytest.mark.parametrize("mode", ["json_schema", "tools"])
async def test_every_request_of_a_seat_carries_the_same_schema_bytes(
    tmp_path: Path, api_key: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _record_formats(monkeypatch)
    await _game(tmp_path, mode, "stable")
    assert len(seen) == 10 and sum(len(parts) for parts in seen.values()) > 50
    for parts in seen.values():
        assert len(set(parts)) == 1  # byte-identical on every request of the seat
    assert len({parts[0] for parts in seen.values()}) == 1  # and the same for every seat of the game


async def test_per_request_schemas_change_between_requests(
    tmp_path: Path, api_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check above is not vacuous: today's per-request schema differs between most requests."""
    seen = _record_formats(monkeypatch)
    await _game(tmp_path, "json_schema", "per_request")
    assert all(len(set(parts)) > 1 for parts in seen.values())


async def test_a_reask_carries_the_strict_schema_then_the_stable_one_again(
    tmp_path: Path, api_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _record_formats(monkeypatch)
    plan = FaultPlan().add("illegal_target", "shoot_decision", 1).add("refusal", "vote_decision", 1)
    await _game(tmp_path, "json_schema", "stable", plan)
    stable_bytes = {parts[0] for parts in seen.values()}
    assert len(stable_bytes) == 1
    repairs = [(parts, i) for parts in seen.values() for i, p in enumerate(parts) if p not in stable_bytes]
    assert len(repairs) >= 2  # the illegal shot and the refused vote were each re-asked
    for parts, i in repairs:
        strict = json.loads(parts[i])["response_format"]["json_schema"]
        assert strict["name"] in ("shoot_decision", "vote_decision")
        assert "decision" not in strict["schema"]["properties"]
        assert i + 1 == len(parts) or parts[i + 1] in stable_bytes  # back to the stable schema at once


@pytest.mark.parametrize("preset", ["fiim", "club", "classic", "aurora", "edge"])
def test_stable_schema_is_strict_and_covers_the_presets_kinds(preset: str) -> None:
    rules = load_rules(preset)
    schema = stable_schema(rules)

    def strict(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object":
                assert node["additionalProperties"] is False and node["required"] == list(node["properties"])
            for value in node.values():
                strict(value)
        elif isinstance(node, list):
            for value in node:
                strict(value)

    strict(schema)
    branches = schema["properties"]["decision"]["anyOf"]
    shapes = [tuple(b["properties"]) for b in branches]
    assert len(set(shapes)) == len(shapes)  # kinds with the same fields share one branch
    seats = tuple(range(1, rules.players + 1))
    for kind in stable_kinds(rules):  # every kind the rules can ask has its branch
        assert tuple(f.name for f in STABLE_FIELDS[kind](seats, rules.players)) in shapes
    assert {"speech", "vote"} <= {k.value for k in stable_kinds(rules)}
    assert set(STABLE_FIELDS) == set(Kind)  # the table has an entry for every kind the engine can ask


def test_stable_answers_are_read_per_request() -> None:
    shoot = Request(seat=2, kind=Kind.SHOOT, options=(1, 3, 4), allow_none=True)
    decision = to_decision_stable(shoot, {"reasoning": "r", "decision": {"target": 3}})
    assert decision.target == 3 and decision.reasoning == "r"
    with pytest.raises(ShapeError, match="'target' is missing"):
        to_decision_stable(shoot, {"reasoning": "r", "decision": {"vote": True}})
    with pytest.raises(ShapeError, match="decision"):
        to_decision_stable(shoot, {"reasoning": "r", "target": 3})
    last = Request(seat=2, kind=Kind.SPEECH, max_words=20)  # a last word: no nomination right
    said = {"speech": "bye", "nominate": 5, "extra": False}
    assert to_decision_stable(last, {"decision": said}).nominate == (5,)  # passed on, so the engine refuses it
    expected = {"kind": "speech", "speech": "text, at most 20 words", "nominate": [None], "extra": [False]}
    assert legal_options(last) == expected
    assert legal_options(shoot) == {"kind": "shoot", "target": [1, 3, 4, None]}
    assert legal_line(shoot) == "(shoot) target: 1, 3-4 | null"
    assert legal_line(last) == "(speech) speech: text ≤20"  # unused fields are left out


def test_openai_agent_file_uses_the_stable_shape_and_a_cache_key_per_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    data = tomllib.loads((AGENTS / "openai.toml").read_text(encoding="utf-8"))
    assert data["schema"] == "stable" and data["prompt_cache_key"] is True
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    from arena.agents import AgentSpec

    spec = AgentSpec.model_validate({**data, "name": "openai"})
    assert spec.schema_style == "stable"
    assert client_settings(spec, 4).extra_body["prompt_cache_key"] == "mafia-arena-seat-4"
    assert "prompt_cache_key" not in client_settings(spec.model_copy(update={"prompt_cache_key": False}), 4).extra_body
    player = build_llm_player(spec, 4, rules=load_rules("fiim"))
    assert player.conversation.schema_style == "stable"  # type: ignore[attr-defined]


async def test_cache_hit_rate_per_seat_in_show_and_the_end_record(tmp_path: Path, api_key: str) -> None:
    from typer.testing import CliRunner

    from arena.cli import app
    from arena.transcript import load

    rules = load_rules("fiim")
    with FakeServer() as server:  # it reports cached tokens as a prefix cache would
        spec = llm_spec(server.base_url, schema="stable")
        players: dict[int, Player] = {s: llm_player(spec, s, rules) for s in range(1, 11)}
        path = tmp_path / "cache.jsonl"
        await play(rules, 2, players, {s: spec for s in players}, path)
    transcript = load(path)
    assert transcript.end is not None
    for seat in range(1, 11):
        mine = [c for c in transcript.calls if c.seat == seat]
        counters = transcript.end.counters[seat]
        assert counters.prompt_tokens == sum(c.prompt_tokens for c in mine) > 0
        assert counters.cached_tokens == sum(c.cached_tokens for c in mine) > 0
        assert 0.5 < counters.cache_hit < 1.0
    runner = CliRunner()
    shown = runner.invoke(app, ["show", str(path), "--calls"], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    assert "prompt cache per seat" in shown.output
    c3 = transcript.end.counters[3]
    assert f"{c3.prompt_tokens:,}" in shown.output and f"{c3.cache_hit:.1%}" in shown.output
    own = runner.invoke(app, ["show", str(path), "--seat", "3", "--calls"], terminal_width=200)
    assert own.exit_code == 0 and f"{c3.prompt_tokens:,}" in own.output
    c4 = transcript.end.counters[4]
    assert f"{c4.prompt_tokens:,}" not in own.output  # a seat's view counts its own calls only
