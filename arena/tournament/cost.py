"""The cost estimate, before anything is spent: calls, prompt tokens (cached and uncached), completion tokens and USD
per configuration and in total.

The figures per seat-game come from calibration games played against a private local stand-in server
(`arena/llm/fakeserver.py`, started here on 127.0.0.1 and stopped after): the schedule's first seatings (more if a
configuration has not sat yet), every seat played as in the tournament, each LLM configuration with its own prompt
set, persona, language and structured mode, so its prompts are the real ones and only the answers are the
stand-in's. No request reaches the configured servers. The per-seat-game averages are then
multiplied by the seats each configuration holds in the schedule and priced with the agent's per-million prices.
Bots cost nothing; LangChain configurations are not estimated (shown as such).
"""

from __future__ import annotations

import asyncio
import io
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from arena.agents import AgentSpec
from arena.engine import Game
from arena.llm.usage import Prices, Usage
from arena.orchestrator import run_game
from arena.players.base import Player
from arena.players.factory import build_player
from arena.tournament.model import Config, Tournament
from arena.tournament.schedule import GamePlan
from arena.transcript import SeatTotals, TranscriptWriter, make_header

CALIBRATION_SEED = 1_000_003  # offset from the tournament's seeds: a calibration game never replays a scheduled one


@dataclass
class Figures:
    """Per seat-game averages (calibration) or sums (estimate)."""

    calls: float = 0.0
    prompt_tokens: float = 0.0
    cached_tokens: float = 0.0
    completion_tokens: float = 0.0
    usd: float = 0.0

    @property
    def uncached_tokens(self) -> float:
        return self.prompt_tokens - self.cached_tokens

    def scaled(self, factor: float) -> Figures:
        return Figures(*(value * factor for value in asdict(self).values()))

    def add(self, other: Figures) -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    def row(self) -> dict[str, float]:
        return {**{k: round(v, 6 if k == "usd" else 1) for k, v in asdict(self).items()},
                "uncached_tokens": round(self.uncached_tokens, 1)}  # fmt: skip


@dataclass
class Estimate:
    per_config: dict[str, Figures]
    per_game: list[float]  # USD per scheduled game
    total: Figures
    calibration_games: int
    not_estimated: list[str]

    def as_json(self) -> dict[str, object]:
        return {
            "per_config": {label: f.row() for label, f in self.per_config.items()},
            "total": self.total.row(),
            "calibration_games": self.calibration_games,
            "not_estimated": self.not_estimated,
        }


def _costed(configs: Sequence[Config]) -> list[Config]:
    return [c for c in configs if c.spec.kind == "llm"]


def _private(spec: AgentSpec, base_url: str) -> AgentSpec:
    """`spec` pointed at the private stand-in: an LLM seat keeps its prompts and mode; a LangChain seat (not
    estimated) is replaced by a random bot so the game can be played."""
    if spec.kind == "langchain":
        return AgentSpec(name=spec.name, kind="bot", bot="random")
    if spec.kind != "llm":
        return spec
    private = {"base_url": base_url, "api_key_env": None, "max_concurrent_requests": None}
    return spec.model_copy(update={**private, "requests_per_minute": None})


async def _calibrate_once(t: Tournament, plan: GamePlan, base_url: str, seed: int) -> list[tuple[str, Usage, int]]:
    """One scheduled seating (labels and roles) played against the stand-in; (label, usage, calls) per seat."""
    rules = t.rules
    specs = {seat: _private(t.config(label).spec, base_url) for seat, label in enumerate(plan.labels, start=1)}
    players: dict[int, Player] = {
        seat: build_player(spec, seat, seed=seed, rules=rules, lang=t.file.lang) for seat, spec in specs.items()
    }
    writer = TranscriptWriter.to_stream(io.StringIO(), make_header(rules, seed, specs))  # it sums the calls' usage
    try:
        await run_game(Game(rules, seed, roles=list(plan.roles)), players, writer, timeout_s=t.file.timeout_s,
                       max_reasks=t.file.max_reasks)  # fmt: skip
    finally:
        for player in players.values():
            await player.close()
    out = []
    for seat, label in enumerate(plan.labels, start=1):
        if specs[seat].kind == "llm":
            got = writer.totals.get(seat, SeatTotals())
            out.append((label, Usage(got.prompt_tokens, got.completion_tokens, got.cached_tokens), got.calls))
    return out


def calibration_plans(t: Tournament, plans: Sequence[GamePlan], games: int) -> list[GamePlan]:
    """The schedule's first `games` seatings, and more until every LLM configuration has sat at least once."""
    llm = {c.label for c in _costed([*t.configs, t.filler])}
    chosen: list[GamePlan] = []
    seen: set[str] = set()
    for plan in plans:
        if len(chosen) >= games and llm <= seen:
            break
        if len(chosen) < games or not set(plan.labels) <= seen:
            chosen.append(plan)
            seen.update(plan.labels)
    return chosen


def calibrate(t: Tournament, plans: Sequence[GamePlan], games: int = 3) -> dict[str, Figures]:
    """Per seat-game figures of every LLM configuration (filler included), from the schedule's first seatings played
    against a private stand-in (with other seeds than the tournament's, so bots play other games)."""
    llm = _costed([*t.configs, t.filler])
    if not llm:
        return {}
    from arena.llm.fakeserver import FakeServer

    samples: dict[str, list[tuple[Usage, int]]] = defaultdict(list)
    with FakeServer() as server:
        for plan in calibration_plans(t, plans, games):
            for label, usage, calls in asyncio.run(
                _calibrate_once(t, plan, server.base_url, plan.seed + CALIBRATION_SEED)
            ):
                samples[label].append((usage, calls))
    out: dict[str, Figures] = {}
    for config in llm:
        rows = samples[config.label]
        spec = config.spec
        prices = Prices(spec.price_input_per_m, spec.price_cached_per_m, spec.price_output_per_m)
        n = max(len(rows), 1)
        usage = Usage(
            sum(u.prompt_tokens for u, _ in rows), sum(u.completion_tokens for u, _ in rows),
            sum(u.cached_tokens for u, _ in rows),
        )  # fmt: skip
        out[config.label] = Figures(
            calls=sum(c for _, c in rows) / n,
            prompt_tokens=usage.prompt_tokens / n,
            cached_tokens=usage.cached_tokens / n,
            completion_tokens=usage.completion_tokens / n,
            usd=prices.cost(usage) / n,
        )
    return out


def estimate(t: Tournament, plans: Sequence[GamePlan], per_seat: dict[str, Figures], games: int) -> Estimate:
    """Scale the per seat-game figures to the schedule."""
    labels = [c.label for c in t.configs] + [t.filler.label]
    per_config = {label: Figures() for label in labels}
    per_game: list[float] = []
    for plan in plans:
        usd = 0.0
        for label in plan.labels:
            one = per_seat.get(label)
            if one is not None:
                per_config[label].add(one)
                usd += one.usd
        per_game.append(usd)
    total = Figures()
    for figures in per_config.values():
        total.add(figures)
    not_estimated = [c.label for c in [*t.configs, t.filler] if c.spec.kind == "langchain"]
    return Estimate(per_config, per_game, total, games, not_estimated)
