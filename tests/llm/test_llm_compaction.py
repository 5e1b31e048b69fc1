"""Compaction: a seat with a context budget stays inside it, rarely and deterministically rewritten, and what was
sent after a compaction is exactly what `arena prompt --rebuild` rebuilds, with no event the seat could not see.

Every seat of a 10-seat game is an LLM seat against the local stand-in with a budget of 4,096 tokens (what
`arena local-model` serves per slot by default). The same checks run against the real server in
`tests/realmodel/`.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from llmkit import llm_player, llm_spec, outside_quotes, play
from test_llm_leaks import _check_seat
from typer.testing import CliRunner

from arena.agents import resolve_agent
from arena.cli import app
from arena.cli.seats import build_players, prompt_hash
from arena.engine import MODERATOR, Event, EventType, Game, Kind, Request, RuleSet, SpeechKind, load_rules, view
from arena.llm.budget import max_tokens_for
from arena.llm.compaction import Budget
from arena.llm.conversation import Conversation
from arena.llm.injection import quote
from arena.llm.rebuild import check_compactions, events_after_inputs, rebuild_call, seat_prompt
from arena.llm.records import expand
from arena.orchestrator import run_game
from arena.players.base import Player
from arena.players.random_policy import random_decision
from arena.prompts import load_prompt_set
from arena.standin import FakeServer, FaultPlan
from arena.transcript import TranscriptWriter, load, make_header

sys.path.insert(0, str(Path(__file__).parents[1]))
from forgery import rechain

BUDGET = 4096
_LOG_LINE = re.compile(r"^\[#(\d+)\]", re.MULTILINE)


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


# ----- issue #31: a first turn is compacted too; the seat's own words survive; the notes are in game order -----


def _late_speech(rules: RuleSet, seed: int, day: int) -> tuple[Game, Request]:
    """A game played at random, every speech 100 words long, up to the first speech of `day`."""
    rng = random.Random(seed)
    game = Game(rules, seed)
    while not game.over:
        for request in game.pending():
            if request.kind is Kind.SPEECH and game.day >= day and request.speech is SpeechKind.REGULAR:
                return game, request
            decision = random_decision(rng, request)
            if request.kind is Kind.SPEECH:
                decision = decision.model_copy(update={"text": " ".join(["quiet"] * 100), "claim": None})
            game.submit(request.seat, decision)
    raise AssertionError(f"game {seed} ended before day {day}")


def _numbers(messages: list[dict[str, Any]]) -> list[int]:
    """The `[#n]` numbers of the moderator's log lines in the user turns, in the order they are sent."""
    return [int(n) for m in messages if m["role"] == "user" for n in _LOG_LINE.findall(outside_quotes(m["content"]))]


def test_a_first_turn_longer_than_the_window_is_compacted() -> None:
    """A seat's first turn is its whole view (a resumed game's seats start afresh): when it does not fit, it is
    compacted like any other, its oldest events into the notes, the rest verbatim, in game order, the status line
    last. Before, `fit` returned a first turn as it was, and the server refused it (HTTP 400, then the default)."""
    rules = load_rules("fiim")
    game, request = _late_speech(rules, seed=2, day=3)
    conversation = Conversation(load_prompt_set("default", "en"), rules, request.seat)
    conversation.budget = budget = Budget.of(3072, "en")
    assert budget is not None
    observation = view(game, request.seat)
    turn = conversation.turn(observation, request)
    max_tokens = max_tokens_for(request, 300, "en")
    assert not budget.fits(conversation.request_messages(turn), max_tokens)  # the whole view is too long
    fitted = conversation.fit(turn, observation, max_tokens)
    messages = conversation.request_messages(fitted)
    assert fitted.history is not None and budget.fits(messages, max_tokens)
    numbers = _numbers(messages)
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)  # each line once, in game order
    text = str(messages[-1]["content"])
    assert text.index("(end of your notes)") < text.index(f"Now: Day {game.day}")  # the status line last
    assert f'[#{numbers[-1]}]' in text[: text.index("Now: Day")]
    assert f'You: {json.dumps(" ".join(["quiet"] * 100))}' in text  # the seat's own last speech, in its words


async def test_every_compaction_keeps_the_seats_last_speech_in_game_order(
    tmp_path: Path, server: FakeServer, api_key: str
) -> None:
    """At 4,096 tokens: every compacted request holds the seat's last speech in its own words, its log lines run
    in game order across the whole request (the notes' status line no longer comes before the events it
    follows), and some compactions keep recent exchanges verbatim."""
    path = await _game(tmp_path, server, "json_schema", "per_request", seed=3)
    transcript = load(path)
    full = expand(transcript.calls)
    events_after, _ = events_after_inputs(transcript, MODERATOR)
    compacted = [i for i, c in enumerate(transcript.calls) if c.compaction]
    assert compacted
    kept = []
    for index in compacted:
        call, messages = transcript.calls[index], full[index]
        shown = events_after[min(transcript.call_positions[index], len(transcript.inputs))]
        said = [e.text for e in transcript.events[:shown] if e.type is EventType.SPEECH and e.seat == call.seat]
        if said and said[-1]:
            assert quote(said[-1]) in "\n".join(str(m["content"]) for m in messages), f"call {index}"
        numbers = _numbers(messages)
        assert numbers == sorted(numbers), f"call {index}: {numbers}"
        kept.append((len(messages) - 2) // 2)
    assert max(kept) >= 1, kept


def test_a_game_resumed_late_fits_a_small_window(tmp_path: Path, server: FakeServer, api_key: str) -> None:
    """A game of LLM seats cut at Day 4 and resumed with 3,072 tokens per seat: every seat's first turn after the
    resume (its whole view) is compacted to fit, every request fits the budget with its answer, and `arena verify`
    rebuilds each compacted call from the calls of its own run (a resumed seat starts afresh)."""
    agents = tmp_path / "agents"
    agents.mkdir()
    common = f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{server.base_url}"\nmax_tokens = 300\nfree = true\n'
    (agents / "fake.toml").write_text(common)
    (agents / "fake3k.toml").write_text(common + "context_tokens = 3072\n")
    rules = load_rules("fiim")
    seats = {s: resolve_agent("fake" if s in (2, 5, 9) else "bot:heuristic", agents) for s in range(1, 11)}
    players = build_players(seats, seed=1, rules=rules, lang="en", delay=0.0)
    path = tmp_path / "cut.jsonl"
    header = make_header(rules, 1, seats, lang="en", prompt_set_hash=prompt_hash(seats, "en"))
    writer = TranscriptWriter.create(path, header)

    class Cut(Exception):
        pass

    def cut(event: Event) -> None:
        if event.type is EventType.PHASE_STARTED and event.day == 4 and event.value == "day":
            raise Cut

    async def first_part() -> None:
        try:
            await run_game(Game(rules, 1), players, writer, on_event=cut)
        finally:
            writer.close()
            for player in players.values():
                await player.close()

    with pytest.raises(Cut):
        asyncio.run(first_part())
    before = load(path)
    assert before.status != "complete" and max(e.day for e in before.events) == 4
    resumed = CliRunner().invoke(app, ["resume", str(path), "--quiet", "--agents-dir", str(agents),
                                       "--seat", "2,5,9=fake3k"])  # fmt: skip
    assert resumed.exit_code == 0, resumed.output
    t = load(path)
    assert t.status == "complete"
    budget = Budget.of(3072, "en")
    assert budget is not None
    full = expand(t.calls)
    after = range(t.resume_calls[0], len(t.calls))
    first = {t.calls[i].seat: i for i in reversed(after)}
    for seat, index in first.items():  # each seat's first turn after the resume: its whole view, compacted
        assert t.calls[index].compaction == "budget", (seat, index)
    for index in after:
        call = t.calls[index]
        words = 150 if call.request_kind == "speech" else 0
        assert budget.tokens(full[index]) + 300 + math.ceil(words * 1.6) + (16 if words else 0) <= 3072, index
    verified = CliRunner().invoke(app, ["verify", str(path)])
    assert verified.exit_code == 0, verified.output
