"""Full fiim games with every seat an LLM seat, against a local OpenAI-compatible server with a fixed latency.

    python bench/llm_game.py [--games 3] [--latency 0.1] [--mode json_schema] [--schema stable|per_request]

The server (`arena.standin`, in its own process so it does not compete for this one's GIL) answers every
request after exactly `latency` seconds with a legal decision drawn from the request's schema. The figures:

- wall time against the critical path: the batches that must run one after another (a speech, a vote round, the
  night actors) times the latency; target (issue #11) wall <= 1.05 x critical path at the default 100 ms;
- calls per game (one per decision when nothing is re-asked);
- prompt and completion tokens per game, and per seat per day (tokens as the local server counts them: words and
  punctuation, roughly what a BPE tokenizer gives for English);
- the share of each seat's prompt tokens that repeat its previous call's prompt as a prefix, i.e. what a prefix cache
  (OpenAI, vLLM, llama.cpp) can serve; target >= 85 %. Also shown: the share if the schema sent with each request is
  cached as the prompt's first part, as OpenAI does for `response_format` and tools.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, cast

from arena.agents import AgentSpec
from arena.engine import Game, Observation, Request, load_rules
from arena.llm.pool import use_aiohttp
from arena.llm.preflight import preflight
from arena.orchestrator import RunStats, run_game
from arena.players.base import Answer, Player
from arena.players.llm import build_llm_player
from arena.players.wrapper import Wrapper


class Tap(Wrapper):
    """Passes decisions through and notes each call's day, for the per-seat-per-day figures."""

    def __init__(self, inner: Player, log: list[tuple[int, int, int, int, int]]) -> None:
        super().__init__(inner)
        self.log = log  # (seat, day, prompt tokens, completion tokens, cached tokens)

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        answer = await self.inner.decide(observation, request, problem)
        for call in answer.calls:
            self.log.append(
                (self.seat, observation.day, call.prompt_tokens, call.completion_tokens, call.cached_tokens)
            )
        return answer


@dataclass
class GameFigures:
    wall_s: float
    cpu_s: float  # CPU time of this process (the seats, prompts, HTTP client, orchestrator, engine)
    batches: int
    calls: int
    decisions: int
    days: int
    prompt: int
    completion: int
    cached: int
    per_seat_share: dict[int, float] = field(default_factory=dict)
    per_seat_day: list[tuple[int, int]] = field(default_factory=list)  # (prompt, completion) per seat per day


def _server(latency: float) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.standin", "--port", "0", "--latency", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def _stats(base_url: str) -> dict[str, float]:
    with urllib.request.urlopen(f"{base_url}/stats", timeout=5) as response:  # the local server only
        data: dict[str, float] = json.load(response)
    return data


async def _one_game(base_url: str, seed: int, mode: str, schema: str) -> GameFigures:
    rules = load_rules("fiim")
    spec = AgentSpec(  # a cache key per seat: the server then draws the same decisions for both request shapes
        name="bench",
        kind="llm",
        model="fake-model",
        base_url=base_url,
        structured=cast(Any, mode),  # one of the Literal's values, from the command line
        schema_style=cast(Any, schema),
        prompt_cache_key=True,
    )
    await preflight({1: spec})  # as `arena play` does before a game: the probe call also warms the HTTP stack
    use_aiohttp()  # as `arena play` does at the start of its game's loop: the direct path if aiohttp is installed
    log: list[tuple[int, int, int, int, int]] = []
    players: dict[int, Player] = {
        s: Tap(build_llm_player(spec, s, rules=rules, lang="en"), log) for s in range(1, rules.players + 1)
    }
    game = Game(rules, seed)
    stats = RunStats()
    started, cpu = time.perf_counter(), time.process_time()
    await run_game(game, players, stats=stats, timeout_s=120)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    for player in players.values():
        await player.close()
    share: dict[int, float] = {}
    per_day: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    for seat in players:
        mine = [r for r in log if r[0] == seat]
        prompt = sum(r[2] for r in mine)
        share[seat] = sum(r[4] for r in mine) / prompt if prompt else 0.0
    for seat, day, p, c, _ in log:
        per_day[(seat, day)][0] += p
        per_day[(seat, day)][1] += c
    return GameFigures(
        wall_s=wall,
        cpu_s=cpu,
        batches=stats.batches,
        calls=len(log),
        decisions=stats.decisions,
        days=game.day,
        prompt=sum(r[2] for r in log),
        completion=sum(r[3] for r in log),
        cached=sum(r[4] for r in log),
        per_seat_share=share,
        per_seat_day=[(p, c) for p, c in per_day.values()],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds the server takes per answer")
    parser.add_argument("--mode", default="json_schema", choices=["json_schema", "tools", "json_object", "prompt"])
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game; the others follow")
    parser.add_argument("--schema", default="stable", choices=["stable", "per_request"], help="request shape")
    args = parser.parse_args()
    process, base_url = _server(args.latency)
    try:
        figures = [asyncio.run(_one_game(base_url, args.seed + i, args.mode, args.schema)) for i in range(args.games)]
        server = _stats(base_url)
    finally:
        process.terminate()
        process.wait(timeout=10)
    load = os.getloadavg()[0]
    print(f"fiim, 10 LLM seats ({args.mode}, schema {args.schema}), server latency L = {args.latency * 1000:.0f} ms, "
          f"{args.games} games, "
          f"{os.cpu_count()} CPUs, load average {load:.1f} at the end")  # fmt: skip
    print(f"{'game':>4} {'days':>4} {'batches':>7} {'calls':>5} {'critical s':>10} {'wall s':>7} {'wall/crit':>9} "
          f"{'client CPU s':>12}")  # fmt: skip
    for i, f in enumerate(figures, start=1):
        critical = f.batches * args.latency
        row = f"{i:>4} {f.days:>4} {f.batches:>7} {f.calls:>5} {critical:>10.2f} {f.wall_s:>7.2f}"
        print(f"{row} {f.wall_s / critical:>9.3f} {f.cpu_s:>12.2f}")
    batches = sum(f.batches for f in figures)
    walls = sum(f.wall_s for f in figures)
    print(f"wall / critical path, all games: {walls / (batches * args.latency):.3f} (target <= 1.05); "
          f"{(walls - batches * args.latency) * 1000 / batches:.1f} ms over L per sequential step")  # fmt: skip
    calls = statistics.mean(f.calls for f in figures)
    print(f"calls per game: {calls:.0f} (decisions {statistics.mean(f.decisions for f in figures):.0f})")
    prompt = statistics.mean(f.prompt for f in figures)
    completion = statistics.mean(f.completion for f in figures)
    print(f"tokens per game: prompt {prompt:,.0f}, completion {completion:,.0f}")
    seat_days = [pc for f in figures for pc in f.per_seat_day]
    day_prompt = statistics.mean(p for p, _ in seat_days)
    day_completion = statistics.mean(c for _, c in seat_days)
    print(f"tokens per seat per day: prompt {day_prompt:,.0f} (max {max(p for p, _ in seat_days):,}), "
          f"completion {day_completion:,.0f}")  # fmt: skip
    shares = [s for f in figures for s in f.per_seat_share.values()]
    overall = sum(f.cached for f in figures) / sum(f.prompt for f in figures)
    print(f"prompt tokens repeating the seat's previous prefix: {overall:.1%} overall (target >= 85 %); "
          f"per seat min {min(shares):.1%}, median {statistics.median(shares):.1%}")  # fmt: skip
    schema_first = server["cached_schema_first"] / (server["prompt_tokens"] + server["schema_tokens"])
    print(f"  the same if each request's schema is cached as the prompt's first part (OpenAI): {schema_first:.1%}")


if __name__ == "__main__":
    main()
