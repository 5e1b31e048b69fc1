"""The LangChain seat: structured output with the raw message kept, the prompt-and-parse fallback, and failures.

The chat models are local fakes (`lc_fakes.py`); no network. A model that binds tools answers through
`with_structured_output(..., include_raw=True)`; one that cannot is switched to the prompt mode, where the schema
travels in the prompt and the JSON is extracted from prose. Full games with either end normally, and a broken
provider or unparsable arguments are recorded and re-asked, never fatal.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lc_fakes import TextModel, ToolModel
from llmkit import play

from arena.agents import AgentError, AgentSpec
from arena.engine import EventType, load_rules
from arena.llm.modes import Mode
from arena.orchestrator import GameStopped
from arena.players.base import Player
from arena.players.langchain_seat import LangChainPlayer, build_langchain_player, can_bind_tools
from arena.transcript import load


def _spec(factory: str) -> AgentSpec:
    return AgentSpec(name="lc", kind="langchain", langchain_factory=factory, price_input_per_m=1.0)


@pytest.mark.parametrize(
    ("factory", "mode"), [("lc_fakes:tool_model", Mode.JSON_SCHEMA), ("lc_fakes:text_model", Mode.PROMPT)]
)
async def test_a_full_game_of_langchain_seats(tmp_path: Path, factory: str, mode: Mode) -> None:
    rules = load_rules("fiim")
    spec = _spec(factory)
    players: dict[int, Player] = {s: build_langchain_player(spec, s, rules=rules) for s in range(1, 11)}
    assert all(isinstance(p, LangChainPlayer) and p.mode is mode for p in players.values())
    path = tmp_path / "lc.jsonl"
    game, stats = await play(rules, 8, players, {s: spec for s in players}, path)
    assert game.over
    transcript = load(path)
    assert transcript.calls and all(c.error is None for c in transcript.calls)
    assert sum(c.invalid + c.errors for c in stats.counters.values()) == 0
    assert {c.mode for c in transcript.calls} == {mode.value}
    if mode is Mode.JSON_SCHEMA:
        assert all(c.model == "tool-fake-1" and c.cached_tokens == 768 and c.cost_usd > 0 for c in transcript.calls)
        assert all("```json" not in str(c.messages[-1].get("content")) for c in transcript.calls)
    else:
        assert all("```json" in str(c.messages[-1].get("content")) for c in transcript.calls if c.messages)


async def test_provider_errors_and_bad_arguments_are_recorded_and_re_asked(tmp_path: Path) -> None:
    rules = load_rules("fiim")
    spec = _spec("lc_fakes:tool_model")
    players: dict[int, Player] = {s: build_langchain_player(spec, s, rules=rules) for s in range(1, 11)}
    players[2] = build_langchain_player(spec, 2, rules=rules, model=ToolModel(failing=2))
    players[6] = build_langchain_player(spec, 6, rules=rules, model=ToolModel(bad_args=True))
    path = tmp_path / "lc-faults.jsonl"
    game, stats = await play(rules, 8, players, {s: spec for s in players}, path)
    assert game.over
    transcript = load(path)
    errors = [(c.seat, c.error or "") for c in transcript.calls if c.error]
    # seat 2 failed twice, then answered: both failures are recorded with the answer, in order
    assert [e for s, e in errors if s == 2] == ["transport: ConnectionError: the provider is down"] * 2

    # seat 6 never answers usably: each attempt is re-asked with the reason, then the rule's default applies
    # (its call records wait for an answer that never comes: see docs/llm.md, "Failed attempts")
    def rejected(seat: int) -> list[str]:
        return [e.value or "" for e in transcript.events if e.type is EventType.ACTION_REJECTED and e.seat == seat]

    assert rejected(6) and all("the JSON does not match the schema" in r for r in rejected(6))
    defaults = {e.seat for e in transcript.events if e.type is EventType.DEFAULT_APPLIED}
    assert 6 in defaults
    assert stats.counters[6].errors >= 3


async def test_a_provider_down_on_every_attempt_stops_the_game(tmp_path: Path) -> None:
    """A seat whose provider never answers is not finished on defaults: its attempts are re-asked, then the game
    stops, saved and resumable, each failed call recorded and the stop too (#31)."""
    rules = load_rules("fiim")
    spec = _spec("lc_fakes:tool_model")
    players: dict[int, Player] = {s: build_langchain_player(spec, s, rules=rules) for s in range(1, 11)}
    players[4] = build_langchain_player(spec, 4, rules=rules, model=ToolModel(failing=-1))
    path = tmp_path / "lc-down.jsonl"
    with pytest.raises(GameStopped, match="seat 4: the model could not be reached"):
        await play(rules, 8, players, {s: spec for s in players}, path)
    transcript = load(path)
    down = "transport: ConnectionError: the provider is down"
    assert [c.error for c in transcript.calls if c.seat == 4] == [down] * 3
    assert not [i for i in transcript.inputs if i.seat == 4 and i.op == "default"]
    assert transcript.end is None and [s.seat for s in transcript.stops] == [4]


def test_tool_binding_is_detected() -> None:
    assert can_bind_tools(ToolModel())
    assert not can_bind_tools(TextModel())


def test_a_bad_factory_is_named() -> None:
    rules = load_rules("fiim")
    with pytest.raises(AgentError, match="lc_fakes:nope"):
        build_langchain_player(_spec("lc_fakes:nope"), 1, rules=rules)
    with pytest.raises(AgentError, match="not a BaseChatModel"):
        build_langchain_player(_spec("builtins:dict"), 1, rules=rules)
