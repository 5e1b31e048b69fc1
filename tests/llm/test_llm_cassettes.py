"""Cassette tests: the LLM seat against recorded Chat Completions exchanges, one per structured mode and failure.

The cassettes in `cassettes/test_llm_cassettes/` hold `https://api.openai.com/v1/chat/completions` exchanges whose
responses follow the OpenAI Chat Completions API reference (the shapes of openai-python 3.57's generated types):
`response_format` json_schema with `strict`, a forced function `tool_calls` entry (finish_reason "stop", as for a
named tool_choice), `json_object`, free text with a fenced block, `message.refusal`, `finish_reason: "length"`,
`usage.prompt_tokens_details.cached_tokens`, and a 429 carrying `retry-after-ms`. No provider was reachable when
they were made, so `cassette_author.py` wrote them from those shapes around the request bodies the seat really
sends; re-record against a real provider with `pytest tests/llm/test_llm_cassettes.py --record-mode=rewrite` and a
real OPENAI_API_KEY (docs/llm.md). Requests match on method, URL, model and how the schema is sent, not on the
prompt wording; Authorization is never recorded. CI replays them with `--block-network --record-mode=none`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from llmkit import FAST

from arena.engine import Game, Kind, Observation, Request, load_rules, view
from arena.llm.client import ClientSettings, LLMClient
from arena.llm.conversation import Conversation
from arena.llm.modes import Mode
from arena.llm.usage import Prices
from arena.players.base import Answer
from arena.players.llm import LLMPlayer, NoUsableAnswer
from arena.players.random_policy import random_decision
from arena.prompts import load_prompt_set

OPENAI = "https://api.openai.com/v1"
MODEL = "gpt-4o-mini"
CASSETTES = Path(__file__).parent / "cassettes" / "test_llm_cassettes"


@dataclass(frozen=True)
class Scenario:
    mode: Mode
    kind: Kind


SCENARIOS = {
    "test_json_schema_vote": Scenario(Mode.JSON_SCHEMA, Kind.VOTE),
    "test_tools_shot": Scenario(Mode.TOOLS, Kind.SHOOT),
    "test_json_object_speech": Scenario(Mode.JSON_OBJECT, Kind.SPEECH),
    "test_prompt_mode_speech": Scenario(Mode.PROMPT, Kind.SPEECH),
    "test_refusal_is_unusable_and_recorded": Scenario(Mode.JSON_SCHEMA, Kind.VOTE),
    "test_cut_off_speech_is_salvaged": Scenario(Mode.JSON_SCHEMA, Kind.SPEECH),
    "test_rate_limit_is_retried_after_the_servers_wait": Scenario(Mode.JSON_SCHEMA, Kind.VOTE),
}


def situation(kind: Kind) -> tuple[Observation, Request]:
    """The first request of `kind` in a fixed fiim game played by the random policy, and its seat's view."""
    rng = random.Random(5)
    game = Game(load_rules("fiim"), seed=5)
    while not game.over:
        for request in game.pending():
            if request.kind is kind and request.seat != 1:
                return view(game, request.seat), request
            game.submit(request.seat, random_decision(rng, request))
    raise AssertionError(f"no {kind} request")


def seat_for(name: str, key: str) -> tuple[LLMPlayer, Observation, Request]:
    scenario = SCENARIOS[name]
    observation, request = situation(scenario.kind)
    settings = ClientSettings(model=MODEL, base_url=OPENAI, api_key=key, timeout_s=30, retry=FAST)
    rules = load_rules("fiim")
    conversation = Conversation(load_prompt_set("default", "en"), rules, request.seat, scenario.mode)
    prices = Prices(input=0.15, cached=0.075, output=0.60)
    return LLMPlayer(request.seat, LLMClient(settings), conversation, prices=prices), observation, request


async def answer_for(name: str, key: str) -> Answer:
    """The seat of scenario `name` asked its question once (from the cassette); the seat is closed after."""
    player, observation, request = seat_for(name, key)
    try:
        return await player.decide(observation, request)
    finally:
        await player.close()


@pytest.mark.vcr
async def test_json_schema_vote(api_key: str) -> None:
    answer = await answer_for("test_json_schema_vote", api_key)
    assert answer.decision.vote is True
    assert answer.decision.reasoning.startswith("Seat")
    (call,) = answer.calls
    assert (call.mode, call.model, call.error) == ("json_schema", "gpt-4o-mini-2024-07-18", None)
    assert (call.prompt_tokens, call.cached_tokens, call.completion_tokens) == (2180, 2048, 41)
    assert call.cost_usd == pytest.approx((132 * 0.15 + 2048 * 0.075 + 41 * 0.60) / 1e6)
    assert call.parsed == {"reasoning": answer.decision.reasoning, "vote": True}


@pytest.mark.vcr
async def test_tools_shot(api_key: str) -> None:
    player, observation, request = seat_for("test_tools_shot", api_key)
    answer = await player.decide(observation, request)
    assert answer.decision.target in request.options
    (call,) = answer.calls
    assert call.mode == "tools" and call.finish_reason == "stop"
    assert call.raw.startswith('{"reasoning"')  # the tool call's arguments
    assert player.conversation.messages[-1] == {"role": "assistant", "content": call.raw}
    await player.close()


@pytest.mark.vcr
async def test_json_object_speech(api_key: str) -> None:
    answer = await answer_for("test_json_object_speech", api_key)
    assert answer.decision.text.startswith("Good morning")
    assert answer.decision.nominate == (4,)
    sent = answer.calls[0].messages[-1]["content"]
    assert isinstance(sent, str) and '"nominate"' in sent and "```json" in sent  # the schema travels in the prompt


@pytest.mark.vcr
async def test_prompt_mode_speech(api_key: str) -> None:
    answer = await answer_for("test_prompt_mode_speech", api_key)
    assert answer.decision.text == "I have nothing against anyone yet; let us listen to seat 6."
    assert answer.decision.nominate == ()


@pytest.mark.vcr
async def test_refusal_is_unusable_and_recorded(api_key: str) -> None:
    player, observation, request = seat_for("test_refusal_is_unusable_and_recorded", api_key)
    with pytest.raises(
        NoUsableAnswer, match=r"the model refused: I'm sorry, I can't assist with that request\."
    ) as info:
        await player.decide(observation, request)
    # the record of the refused call goes out with the failure itself, so the transcript keeps it
    (call,) = info.value.calls
    assert player.handover() == []
    assert call.error is not None and call.error.startswith("unusable: the model refused")
    assert call.raw == "I'm sorry, I can't assist with that request."
    await player.close()


@pytest.mark.vcr
async def test_cut_off_speech_is_salvaged(api_key: str) -> None:
    answer = await answer_for("test_cut_off_speech_is_salvaged", api_key)
    assert answer.decision.text == "Seat 3 voted late yesterday and seat 8 followed, which tells me"
    (call,) = answer.calls
    assert call.finish_reason == "length"
    assert call.error is not None and "cut off at the token limit" in call.error


@pytest.mark.vcr
async def test_rate_limit_is_retried_after_the_servers_wait(api_key: str) -> None:
    answer = await answer_for("test_rate_limit_is_retried_after_the_servers_wait", api_key)
    assert answer.decision.vote is False
    first, second = answer.calls
    assert first.error is not None and first.error.startswith("transport: HTTP 429 (Retry-After: 1)")
    assert "retrying in 0.02s" in first.error  # retry-after-ms: 20 wins over the backoff
    assert (second.attempt, second.error) == (2, None)
    assert second.prefix_ref == -1 and second.messages == []  # same messages: stored by reference


def test_cassettes_hold_no_key(api_key: str) -> None:
    files = sorted(CASSETTES.glob("*.yaml"))
    assert {f.stem for f in files} == set(SCENARIOS)
    for file in files:
        text = file.read_text(encoding="utf-8")
        assert api_key not in text and "authorization" not in text.lower() and "sk-" not in text
        assert "https://api.openai.com/v1/chat/completions" in text
