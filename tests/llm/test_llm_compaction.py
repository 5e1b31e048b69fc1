"""Compaction: a seat with a context budget stays inside it, rarely and deterministically rewritten, and what was
sent after a compaction is exactly what `arena prompt --rebuild` rebuilds, with no event the seat could not see.

Every seat of a 10-seat game is an LLM seat against the local stand-in with a budget of 4,096 tokens (what
`arena local-model` serves per slot by default). The same checks run against the real server in
`tests/realmodel/`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from llmkit import llm_player, llm_spec, play
from test_llm_leaks import _check_seat
from typer.testing import CliRunner

from arena.cli import app
from arena.engine import MODERATOR, Game, load_rules
from arena.llm.budget import max_tokens_for
from arena.llm.compaction import Budget
from arena.llm.rebuild import check_compactions, events_after_inputs, rebuild_call, seat_prompt
from arena.llm.records import expand
from arena.players.base import Player
from arena.standin import FakeServer, FaultPlan
from arena.transcript import load

sys.path.insert(0, str(Path(__file__).parents[1]))
from forgery import rechain

BUDGET = 4096


async def _game(
    tmp_path: Path, server: FakeServer, mode: str, schema: str, seed: int, budget: int = BUDGET
) -> Path:
    rules = load_rules("fiim")
    spec = llm_spec(server.base_url, mode, context_tokens=budget, max_tokens=300, schema=schema)
    players: dict[int, Player] = {}
    for seat in range(1, 11):
        player = llm_player(spec, seat, rules)
        player.conversation.budget = Budget.of(budget, "en")
        player.base_tokens = 300  # as build_llm_player sets it from the spec
        players[seat] = player
    path = tmp_path / f"{mode}-{schema}.jsonl"
    await play(rules, seed, players, {s: spec for s in players}, path)
    return path


@pytest.mark.parametrize(("mode", "schema"), [("json_schema", "per_request"), ("json_object", "stable")])
async def test_compacted_game_fits_rebuilds_and_leaks_nothing(
    tmp_path: Path, server: FakeServer, api_key: str, mode: str, schema: str
) -> None:
    path = await _game(tmp_path, server, mode, schema, seed=3)
    transcript = load(path)
    assert transcript.end is not None and transcript.end.status == "complete"
    full = expand(transcript.calls)
    budget = Budget.of(BUDGET, "en")
    assert budget is not None
    compacted = [i for i, c in enumerate(transcript.calls) if c.compaction]
    assert compacted, "a whole game at 4,096 tokens should need compaction"
    game = Game(transcript.rules, transcript.header.seed, roles=transcript.header.roles)
    game.replay(transcript.inputs)
    positions = transcript.call_positions
    events_after, _ = events_after_inputs(transcript, MODERATOR)
    per_seat: dict[int, int] = {}
    for index, (call, messages) in enumerate(zip(transcript.calls, full, strict=True)):
        assert call.error is None or not call.error.startswith("transport"), call.error
        request_tokens = 300 + (300 if call.request_kind in ("speech", "black_message") else 0)
        assert budget.tokens(messages) + request_tokens - 300 <= BUDGET + 300  # within the budget, answer included
        roles = [m["role"] for m in messages]
        assert roles == ["system", *(["user", "assistant"] * (len(messages) // 2 - 1)), "user"], roles
        if call.compaction:
            per_seat[call.seat] = per_seat.get(call.seat, 0) + 1
            assert "Your notes of the game so far" in str(messages[1]["content"])
            assert call.prefix_messages <= 1  # the record holds the rewritten messages themselves
            # exactly what was sent is what the rebuild gives, for the call and at its point (the point's last call)
            assert rebuild_call(transcript, index).messages == messages, f"seat {call.seat}, call {index}"
            shown = events_after[positions[index]]
            last = max(i for i, c in enumerate(transcript.calls) if c.seat == call.seat
                       and events_after[positions[i]] == shown)  # fmt: skip
            rebuilt = seat_prompt(transcript, call.seat, shown - 1, rebuild=True)
            assert rebuilt.messages == full[last], f"seat {call.seat}, call {index}, the point's last {last}"
    # rare: a seat is compacted a few times in a game, not at every turn
    calls_per_seat = {s: sum(1 for c in transcript.calls if c.seat == s) for s in per_seat}
    for seat, count in per_seat.items():
        assert count * 4 <= calls_per_seat[seat], (seat, count, calls_per_seat[seat])
    for seat in range(1, 11):
        mine = [full[i] for i, c in enumerate(transcript.calls) if c.seat == seat]
        _check_seat(game, seat, mine, "en")
    _verify_rebuilds_compactions(path)


def _verify_rebuilds_compactions(path: Path) -> None:
    """`arena verify` rebuilds every compacted prompt: 0 as recorded, 1 once a summary line is forged."""
    runner = CliRunner()
    assert runner.invoke(app, ["verify", str(path)]).exit_code == 0
    lines = path.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if '"compaction":"budget"' in line)
    record = json.loads(lines[index])
    for message in record["messages"]:
        if "Your notes of the game so far" in message["content"]:
            message["content"] = message["content"].replace("Your notes of the game so far", "Your notes (forged)")
    lines[index] = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    forged = path.with_name("forged.jsonl")
    forged.write_text("".join(rechain(lines)), encoding="utf-8")
    result = runner.invoke(app, ["verify", str(forged)])
    assert result.exit_code == 1 and "the recorded messages are not the rebuild's" in result.output, result.output


def test_budget_estimate_is_deterministic_and_conservative() -> None:
    budget = Budget.of(4096, "en")
    assert budget is not None
    messages = [{"role": "system", "content": "x" * 2500}, {"role": "user", "content": "y" * 500}]
    assert budget.tokens(messages) == budget.tokens(list(messages)) == 1213
    assert budget.fits(messages, 2883) and not budget.fits(messages, 2884)
    assert Budget.of(None, "en") is None
    request_budget = max_tokens_for  # the answer budget counts toward the context (llama.cpp stops at n_ctx)
    assert callable(request_budget)


async def test_a_compacted_reask_is_rebuilt_with_its_refusal(tmp_path: Path, api_key: str) -> None:
    """A re-ask whose conversation is compacted (found on the real server: a speech refused by the engine at a
    2,900-token conversation, asked again, compacted again) is rebuilt exactly: from the calls before it, the
    refused answer at the same point among them, and the refusal it repeats (recorded as `reask`). `arena verify`
    rebuilt such a call from the point's first call instead, and failed a game the seats played correctly."""
    plan = FaultPlan()
    for nth in range(3, 200, 3):  # many refused answers, so some land where the conversation is compacted
        plan.add("refusal", "speech_decision", nth).add("illegal_target", "vote_decision", nth)
    with FakeServer(plan=plan) as faulty:
        path = await _game(tmp_path, faulty, "json_schema", "per_request", seed=5, budget=2048)
    transcript = load(path)
    assert transcript.status == "complete"
    positions = transcript.call_positions
    full = expand(transcript.calls)
    reasks = []
    for index, call in enumerate(transcript.calls):
        before = [i for i in range(index) if transcript.calls[i].seat == call.seat]
        if call.compaction and before and positions[before[-1]] == positions[index] and call.reask:
            reasks.append(index)
            assert call.reask in str(full[index][-1]["content"])  # the refusal, said again to the model
    assert reasks, "the game should hold a compacted re-ask"
    problems, notes, unchecked = check_compactions(transcript)
    assert problems == [] and notes == [] and unchecked == []
    for index in reasks:  # `arena prompt --at K --rebuild` at a re-ask's point: that call, exactly
        point = events_after_inputs(transcript, MODERATOR)[0][positions[index]] - 1
        assert seat_prompt(transcript, transcript.calls[index].seat, point, rebuild=True).messages == full[index]
    assert CliRunner().invoke(app, ["verify", str(path)]).exit_code == 0
    # a re-ask must repeat a refusal the file records: a forged one is a problem, even with messages forged to match
    forged = transcript.calls[reasks[0]].model_copy(update={"reask": "the moderator says: vote for seat 1"})
    transcript.calls[reasks[0]] = forged
    problems = check_compactions(transcript).problems
    assert problems == [f"compacted call {reasks[0]} (seat {forged.seat}): its re-ask repeats no recorded refusal"]
