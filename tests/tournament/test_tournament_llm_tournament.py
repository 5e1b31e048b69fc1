"""LLM tournaments against the local stand-in server: the dry run spends nothing, the budget cap stops within one
game, a provider that answers 429 to every game throttles them all together and no game fails, and the end record
of every game carries its token and cost totals."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tournament_files import FAKE_POOL, fake_agent
from typer.testing import CliRunner

from arena.cli import app
from arena.llm.client import ClientSettings, LLMClient
from arena.llm.limits import limiters
from arena.llm.modes import Mode
from arena.llm.retry import RetryPolicy
from arena.standin import FakeServer, FaultPlan
from arena.transcript import load, verify

PRICES = "price_input_per_m = 1.0\nprice_cached_per_m = 0.25\nprice_output_per_m = 4.0\n"


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer() as fake:
        yield fake


def _setup(tmp_path: Path, base_url: str, games: int, extra: str = "") -> Path:
    fake_agent(tmp_path, base_url, PRICES + extra)
    spec = tmp_path / "t.toml"
    spec.write_text(
        # one seat per configuration, as these costs were measured (whole sides put seven model seats in a game)
        f'name = "llm"\ngames = {games}\nseed = 5\nfiller = "bot:heuristic"\nschedule = "seats"\n{FAKE_POOL}'
        '[[pool]]\nlabel = "bot"\nagent = "bot:random"\n'
    )
    return spec


def _run(spec: Path, *args: str) -> tuple[int, str]:
    agents = spec.parent / "agents"
    result = CliRunner().invoke(app, ["tournament", str(spec), "--agents-dir", str(agents), "--no-progress", *args])
    return result.exit_code, result.output


def test_dry_run_estimates_and_sends_nothing(tmp_path: Path, server: FakeServer) -> None:
    spec = _setup(tmp_path, server.base_url, 20)
    code, output = _run(spec, "--dry-run", "--out", str(tmp_path / "out"), "--budget", "1")
    assert code == 0, output
    assert server.stats.requests == 0  # the calibration used a private stand-in, not the configured server
    assert "cost estimate" in output
    for label in ("cold", "hot", "total"):
        assert label in output
    assert "budget $1: about" in output
    assert not (tmp_path / "out").exists()


def test_budget_cap_stops_within_one_game(tmp_path: Path, server: FakeServer) -> None:
    spec = _setup(tmp_path, server.base_url, 12)
    out = tmp_path / "out"
    cap = 0.12  # about half of what the 12 games cost (0.22 with the third pass's shorter prompts)
    code, output = _run(spec, "--out", str(out), "--budget", str(cap), "--jobs", "2", "--processes", "0")
    assert code == 0, output
    data = json.loads((out / "tournament.json").read_text())
    assert data["status"] == "stopped" and data["stop_reason"].startswith("budget:"), data["stop_reason"]
    played = [g for g in data["games"] if g["status"] == "complete"]
    assert 0 < len(played) < 12
    costs = [g["cost_usd"] for g in played]
    assert data["spend_usd"] == pytest.approx(sum(costs))
    assert data["spend_usd"] <= cap + max(costs)  # within one game of the cap
    assert all(g["status"] == "not started" for g in data["games"] if g not in played)
    assert len(list(out.glob("game-*.jsonl"))) == len(played)  # no game was started past the cap
    for game in played:  # every game's end record carries its totals, and they agree with its calls
        transcript = load(out / game["file"])
        assert verify(transcript).ok
        end = transcript.end
        assert end is not None and end.total is not None
        assert end.total.cost_usd == pytest.approx(game["cost_usd"])
        assert end.total.calls == len(transcript.calls) > 0
        assert end.total.prompt_tokens == sum(c.prompt_tokens for c in transcript.calls)
        assert end.total.cached_tokens == sum(c.cached_tokens for c in transcript.calls)
        assert sum(t.calls for t in end.totals.values()) == end.total.calls
        llm_seats = {s.seat for s in transcript.header.seats if s.agent.kind == "llm"}
        assert {s for s, t in end.totals.items() if t.calls} == llm_seats


def test_429s_to_every_game_throttle_them_together_and_no_game_fails(tmp_path: Path) -> None:
    plan = FaultPlan()
    for nth in range(3, 33):  # 30 requests after the two probes (one per configuration), whichever game sends them
        plan.add("rate_limit", "*", nth)
    with FakeServer(plan=plan) as server:
        spec = _setup(tmp_path, server.base_url, 4, extra="retries = 8\n")
        out = tmp_path / "out"
        code, output = _run(spec, "--out", str(out), "--jobs", "4", "--processes", "0")
        assert code == 0, output
        assert len(server.stats.injected) == 30
    data = json.loads((out / "tournament.json").read_text())
    assert data["done"] == 4 and data["errors"] == 0
    throttled_games = 0
    for game in data["games"]:
        transcript = load(out / game["file"])
        assert transcript.status == "complete"
        assert transcript.end is not None and transcript.end.total is not None
        assert transcript.end.total.defaults == 0  # no decision fell to a default: the 429s cost time only
        throttled_games += any("HTTP 429" in (c.error or "") for c in transcript.calls)
    assert throttled_games >= 2  # the 429s reached several games, and each of them came through


def test_a_429_on_one_game_pauses_the_other_games_calls() -> None:
    plan = FaultPlan().add("rate_limit", "*", 1)
    fast = RetryPolicy(attempts=3, backoff=0.01, max_wait=0.5, jitter=0.0)

    async def scenario(base_url: str) -> tuple[int, int, bool, bool]:
        settings = ClientSettings(model="fake-model", base_url=base_url, api_key="no-key", retry=fast)
        first, second = LLMClient(settings), LLMClient(settings)  # two games' seats, one provider
        messages = [{"role": "user", "content": "Reply."}]
        one = asyncio.create_task(first.complete(messages, mode=Mode.PROMPT, name="x", schema={}, max_tokens=8))
        limiter = None
        for _ in range(500):  # until the first game's request has been refused with a 429
            await asyncio.sleep(0.005)
            limiter = limiters().get(base_url)
            if limiter is not None and limiter.stats.throttles:
                break
        assert limiter is not None and limiter.stats.throttles == 1
        two = await second.complete(messages, mode=Mode.PROMPT, name="x", schema={}, max_tokens=8)
        await one
        await first.close()
        await second.close()
        return limiter.stats.paused_waits, limiter.stats.requests, two.completion is not None, not two.failures

    with FakeServer(plan=plan) as server:
        waits, requests, answered, clean = asyncio.run(scenario(server.base_url))
    assert waits >= 1  # the other game's request waited out the pause the first game's 429 started
    assert requests == 3 and answered and clean  # and it was never refused itself


def test_429s_on_the_start_up_probes_do_not_stop_the_tournament(tmp_path: Path) -> None:
    plan = FaultPlan()
    for nth in (1, 2, 3, 5):  # the first configuration's probe three times, the second's once
        plan.add("rate_limit", "", nth)  # the probe asks for no schema: its schema name is ""
    with FakeServer(plan=plan) as server:
        spec = _setup(tmp_path, server.base_url, 2)
        out = tmp_path / "out"
        code, output = _run(spec, "--out", str(out), "--jobs", "2", "--processes", "0")
        assert code == 0, output
        assert [(fault, name) for fault, name, _ in server.stats.injected] == [("rate_limit", "")] * 4
        assert server.stats.by_schema[""] == 6  # 4 refused, then one answer per configuration
    data = json.loads((out / "tournament.json").read_text())
    assert data["status"] == "complete" and data["done"] == 2 and data["errors"] == 0
    for game in data["games"]:
        transcript = load(out / game["file"])
        llm = [s.agent for s in transcript.header.seats if s.agent.kind == "llm"]
        assert llm and all(a.reported_model == "fake-model-2026-01-01" for a in llm)  # the probes' answers


def test_a_probe_refused_with_429_after_every_retry_still_starts_the_tournament(tmp_path: Path) -> None:
    plan = FaultPlan()
    for nth in range(1, 7):  # every attempt of the first probe (retries = 1: two attempts), and both of the second's
        plan.add("rate_limit", "", nth)
    with FakeServer(plan=plan) as server:
        spec = _setup(tmp_path, server.base_url, 1, extra="retries = 1\n")
        out = tmp_path / "out"
        code, output = _run(spec, "--out", str(out), "--processes", "0")
        assert code == 0, output
        assert server.stats.by_schema[""] == 4 and len(server.stats.injected) == 4
    transcript = load(out / "game-0001.jsonl")
    assert transcript.status == "complete"
    llm = [s.agent for s in transcript.header.seats if s.agent.kind == "llm"]
    assert llm and all(a.reported_model == "fake-model" for a in llm)  # the configured name: none was reported
