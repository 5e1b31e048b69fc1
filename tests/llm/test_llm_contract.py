"""The LLM seat (on the local stand-in server) and the LangChain seat (on the fake chat models) keep the seat contract
(`arena.players.contract`), in every role."""

from __future__ import annotations

import pytest
from llmkit import llm_player, llm_spec

from arena.agents import AgentSpec
from arena.engine import load_rules
from arena.players.contract import check_seat
from arena.players.langchain_seat import build_langchain_player
from arena.standin import FakeServer


def test_the_llm_seat_on_the_stand_in_keeps_the_contract() -> None:
    rules = load_rules("fiim")
    with FakeServer() as server:
        report = check_seat(lambda s, seed: llm_player(llm_spec(server.base_url), s, rules), rules, seed=5)
    assert report.ok, report.problems
    assert report.games == len(report.roles) == 4
    assert report.accepted > 0 and report.accepted + sum(report.refused.values()) + report.failed == report.decisions


@pytest.mark.parametrize("factory", ["lc_fakes:tool_model", "lc_fakes:text_model"])
def test_the_langchain_seat_keeps_the_contract(factory: str) -> None:
    rules = load_rules("fiim")
    spec = AgentSpec(name="lc", kind="langchain", langchain_factory=factory)
    report = check_seat(lambda s, seed: build_langchain_player(spec, s, rules=rules), rules, seed=5)
    assert report.ok, report.problems
    assert report.accepted > 0 and report.accepted + sum(report.refused.values()) + report.failed == report.decisions
