"""The fault path as a property, not an example: many games against the stand-in with every fault kind mixed at
random, and every one of them must end and verify (#30).

Each game has its own stand-in (`arena/standin/`, in this process, on the test's event loop, zero latency) whose
`FaultPlan.mixed` draws a fault for each request from the game's seed: 429 with and without Retry-After, 500, 503, a
hang past the client's timeout, a cut connection, a broken body, malformed JSON, the wrong schema, an answer the
engine refuses (a seat that is not at the table), a refusal, an empty or cut-off answer, and an overflow that forces a
compaction, on top of compactions forced by a small context budget. Half the games use the per-request schemas, half
the stable one, across the four structured modes. A game that stops on a model that gave no answer (an overflow
that the compacted attempt meets again: the server refused every attempt) is resumed, as `arena resume` does, until
it ends. Then `arena verify`'s checks run on it: the replay and every call record (`verify`), and every rewritten
prompt rebuilt exactly (`check_compactions`). One game verifying is an example; 200 across seeds is the property.
Each kind is also played alone, at a higher rate, in both schema styles.
On the code before #30's fix, a default whose last attempt failed differently from the refusal before it was
recorded with that refusal's reason, and `verify` rejected such games ("no model call record gave this answer").

`bench/fault_mix.py` plays more of them, with every seat a model.
"""

from __future__ import annotations

import asyncio
import gc
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from llmkit import llm_player, llm_spec

from arena.agents import AgentSpec, resolve_agent
from arena.engine import EventType, Game, load_rules
from arena.llm.compaction import Budget
from arena.llm.pool import use_aiohttp
from arena.llm.rebuild import check_compactions
from arena.orchestrator import GameStopped, RunStats, counters_from_inputs, run_game
from arena.players.base import Player
from arena.players.factory import build_player
from arena.prompts import load_prompt_set
from arena.standin import FAULTS, FakeServer, FaultPlan
from arena.transcript import TranscriptWriter, load, make_header, verify

# each request's chances; together 40 %: the other 60 % get a legal answer
MIX = {
    "rate_limit": 0.03, "rate_limit_bare": 0.02, "server_error": 0.03, "unavailable": 0.03, "timeout": 0.01,
    "cut_connection": 0.03, "bad_body": 0.02, "bad_json": 0.04, "wrong_schema": 0.04, "illegal_target": 0.05,
    "refusal": 0.02, "empty": 0.02, "cut_off": 0.03, "overflow": 0.03,
}  # fmt: skip
MODES = ("json_schema", "tools", "json_object", "prompt")
SCHEMAS = ("per_request", "stable")
BUDGET = 4096  # tokens: a small context (llama-server's default slot), so the seats are compacted in most games
CLIENT_TIMEOUT_S, HANG_S = 2.0, 2.5  # the `timeout` fault answers 0.5 s after the client gave up on it
MAX_RESUMES = 20


@dataclass
class Played:
    path: Path
    stops: int = 0
    injected: Counter[str] = field(default_factory=Counter)


def _seats(seed: int, llm_seats: int) -> list[int]:
    return sorted(random.Random(seed).sample(range(1, 11), llm_seats))


async def play_mixed(
    folder: Path, seed: int, schema: str, llm_seats: int, mix: dict[str, float] | None = None
) -> Played:
    """One game of `llm_seats` model seats (the rest heuristic bots) against its own faulty stand-in (`MIX`, or
    `mix`), resumed after every stop until it ends."""
    rules = load_rules("fiim")
    mode = MODES[seed % len(MODES)]
    server = FakeServer(plan=FaultPlan.mixed(mix or MIX, seed=seed, hang_s=HANG_S))
    serving = asyncio.create_task(server.serve())
    spec = llm_spec(server.base_url, mode, api_key_env="ARENA_TEST_KEY", schema=schema, context_tokens=BUDGET,
                    max_tokens=300)  # fmt: skip
    bot = resolve_agent("bot:heuristic")
    models = _seats(seed, llm_seats)
    specs: dict[int, AgentSpec] = {s: spec if s in models else bot for s in range(1, 11)}
    path = folder / f"mix-{seed}-{schema}.jsonl"
    played = Played(path)

    def seat_players() -> dict[int, Player]:
        players: dict[int, Player] = {}
        for seat, agent in specs.items():
            if agent is spec:
                player = llm_player(spec, seat, rules, timeout_s=CLIENT_TIMEOUT_S)
                player.conversation.budget = Budget.of(BUDGET, "en")
                player.base_tokens = 300  # as build_llm_player sets it from the spec
                players[seat] = player
            else:
                players[seat] = build_player(bot, seat, seed=seed, rules=rules, lang="en")
        return players

    header = make_header(rules, seed, specs, prompt_set_hash=load_prompt_set("default", "en").hash)
    writer = TranscriptWriter.create(path, header)
    game, stats = Game(rules, seed), RunStats()
    try:
        for _ in range(MAX_RESUMES + 1):
            players = seat_players()
            try:
                await run_game(game, players, writer, stats=stats)
                break
            except GameStopped:
                played.stops += 1
            finally:
                writer.close()
                for player in players.values():
                    await player.close()
            transcript = load(path, repair=True)  # as `arena resume` does: rebuild, append, fresh players
            game = transcript.rebuild()
            writer = TranscriptWriter.append_to(transcript)
            writer.resumed(specs)
            stats = RunStats(counters=counters_from_inputs(transcript.inputs, transcript.calls))
    finally:
        server.stop()
        await serving
    played.injected = Counter(fault for fault, _, _ in server.stats.injected)
    return played


def check_verifies(path: Path) -> list[str]:
    """What `arena verify` would refuse in the file at `path`: nothing, for every game the arena wrote."""
    transcript = load(path)
    verdict = verify(transcript)
    if not verdict.ok:
        return [verdict.message]
    if verdict.outcome != "complete":
        return [f"not complete: {verdict.message}"]
    found = check_compactions(transcript)
    return [*found.problems, *found.unchecked]


async def play_many(folder: Path, seeds: range, llm_seats: int, concurrency: int) -> list[Played]:
    """Every seed in both schema modes, `concurrency` games at a time on this loop."""
    use_aiohttp()  # as `arena play` and the tournament's workers call the models: plain JSON POSTs on aiohttp
    slots = asyncio.Semaphore(concurrency)

    async def one(seed: int, schema: str) -> Played:
        async with slots:
            return await play_mixed(folder, seed, schema, llm_seats)

    return list(await asyncio.gather(*(one(seed, schema) for seed in seeds for schema in SCHEMAS)))


GAMES = 200
LLM_SEATS = 4


async def test_every_game_under_mixed_faults_ends_and_verifies(tmp_path: Path, api_key: str) -> None:
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    played = await play_many(tmp_path, range(GAMES // len(SCHEMAS)), LLM_SEATS, concurrency=40)
    refused = {p.path.name: problems for p in played if (problems := check_verifies(p.path))}
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall  # printed, never asserted
    assert not refused, f"{len(refused)} of {len(played)} games do not verify: {dict(list(refused.items())[:5])}"

    injected = sum((p.injected for p in played), Counter())
    assert set(injected) == set(FAULTS) - {"server_error_usage", "overlong", "unauthorized", "huge_body",
                                           "huge_answer", "nested_body"}  # fmt: skip  # every kind of the mix
    transcripts = [load(p.path) for p in played]
    calls = [c for t in transcripts for c in t.calls]
    assert sum(c.compaction == "budget" for c in calls) > len(played)  # compactions forced by the small context
    assert sum(c.compaction == "overflow" for c in calls) > 0  # and by the server's overflow
    inputs = [i for t in transcripts for i in t.inputs]
    assert sum(i.op == "reject" for i in inputs) > len(played)  # re-asks after refusals and failed attempts
    assert sum(i.op == "default" for i in inputs) > 0
    assert any(e.type is EventType.ACTION_REJECTED for t in transcripts for e in t.events)
    print(f"\n{len(played)} games, {len(calls)} calls, {sum(injected.values())} faults, "
          f"{sum(p.stops for p in played)} stops resumed; played and verified: {cpu:.1f} s CPU, {wall:.1f} s")


ALONE = sorted(MIX)


@pytest.mark.parametrize("schema", SCHEMAS)
@pytest.mark.parametrize("fault", ALONE)
async def test_each_fault_kind_alone_ends_and_verifies(tmp_path: Path, api_key: str, fault: str, schema: str) -> None:
    """Each kind of the mix on its own, at 15 % of the requests (3 % for the two that make the client wait: a hang
    and a 429 with no Retry-After), in both schema styles: the game ends and verifies, and the fault was met."""
    use_aiohttp()
    seed = 1000 + ALONE.index(fault)
    chance = 0.03 if fault in ("timeout", "rate_limit_bare") else 0.15
    for attempt in range(5):  # the draw hashes each request's bytes, so a wording change moves it: a game that
        folder = tmp_path / str(attempt)  # met no such fault is followed by the next seed's, every one verified
        folder.mkdir()
        played = await play_mixed(folder, seed + 100 * attempt, schema, 10 if fault == "overflow" else LLM_SEATS,
                                  {fault: chance})  # fmt: skip
        assert check_verifies(played.path) == []
        if played.injected[fault]:
            break
    assert played.injected[fault] > 0 and set(played.injected) == {fault}
