"""The cost estimate, before anything is spent: calls, prompt tokens (cached and uncached), completion tokens and USD
per configuration and in total, with the estimate's standard error.

The figures per seat-game come from calibration games played against a private local stand-in server
(`arena/standin/server.py`, started here on 127.0.0.1 and stopped after): each LLM configuration with its own prompt
set, persona, language and structured mode, so its prompts are the real ones and only the answers are the
stand-in's. No request reaches the configured servers.

A game's cost varies a lot (about 4x between a short and a long game: the prompt grows with every day), so a few
games are a poor sample. The calibration is a sample of the tournament itself: the schedule's seatings in a
low-discrepancy order (any prefix spreads over the whole schedule, so seats, roles and sides come in their
tournament proportions), with other seeds, played several at once until the standard error of the mean per-game
cost is within `TARGET_RSE` of it (at least the games asked for, at least `MIN_GAMES`, at most `MAX_GAMES` or the
tournament's own length). The stand-in varies its answers to a repeated request, so a seating the schedule repeats
is played another way each time, as a sampling model would. The standard error is the stratified one: games are
grouped by seating (labels and roles: a seating's roles set much of its cost), each group weighted by its share of
the schedule. The per-seat-game averages are then multiplied by the seats each configuration holds in the schedule
and priced with the agent's per-million prices (cached tokens at the input price when the agent gives no cached
price: `AgentSpec.cached_price_assumed`, named under the table). Bots cost nothing; LangChain configurations
are not estimated (shown as such).
"""

from __future__ import annotations

import asyncio
import io
import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

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
TARGET_RSE = 0.04  # stop calibrating when the mean per-game cost's standard error is within 4 % of it
MIN_GAMES = 8  # fewer games give no usable standard error
MAX_GAMES = 64  # a dry run stays well under a minute on a laptop core
AT_ONCE = 8  # calibration games played concurrently (the stand-in answers at once; CPU is the limit)


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


class Calibration(dict[str, Figures]):
    """Per seat-game figures by configuration label, and the sample they come from: the games played and the
    stratified relative standard error of the mean per-game cost (USD, or tokens when nothing is priced)."""

    def __init__(self, figures: dict[str, Figures], games: int = 0, rse: float = 0.0) -> None:
        super().__init__(figures)
        self.games = games
        self.rse = rse


Seating = tuple[tuple[str, ...], tuple[str, ...]]


def seating(plan: GamePlan) -> Seating:
    return tuple(plan.labels), tuple(role.value for role in plan.roles)


def stratified_rse(values: Sequence[float], strata: Sequence[Seating], weights: dict[Seating, float]) -> float:
    """The relative standard error of the stratified mean of `values` (one per game, `strata` its seating): each
    seating sampled counts with its share of the schedule (`weights`, renormalised over the seatings sampled); a
    seating sampled once borrows the variance of all games."""
    if len(values) < 2:
        return 0.0
    groups: dict[Seating, list[float]] = defaultdict(list)
    for value, key in zip(values, strata, strict=True):
        groups[key].append(value)
    total_weight = sum(weights.get(key, 0.0) for key in groups) or 1.0
    pooled = statistics.variance(values)
    mean = variance = 0.0
    for key, group in groups.items():
        share = weights.get(key, 0.0) / total_weight
        mean += share * statistics.fmean(group)
        within = statistics.variance(group) if len(group) > 1 else pooled
        variance += share * share * within / len(group)
    return math.sqrt(variance) / mean if mean else 0.0

def relative_se(values: Sequence[float]) -> float:
    """The standard error of the mean of `values` over the mean (0 for fewer than two values or a zero mean)."""
    if len(values) < 2 or not statistics.fmean(values):
        return 0.0
    return statistics.stdev(values) / math.sqrt(len(values)) / statistics.fmean(values)


@dataclass
class Estimate:
    per_config: dict[str, Figures]
    per_game: list[float]  # USD per scheduled game
    total: Figures
    calibration_games: int
    not_estimated: list[str]
    rse: float = 0.0  # the calibration's relative standard error of the mean per-game cost
    cached_at_input: list[str] = field(default_factory=list)  # no cached price: cached tokens at the input price

    def as_json(self) -> dict[str, object]:
        return {
            "per_config": {label: f.row() for label, f in self.per_config.items()},
            "total": self.total.row(),
            "calibration_games": self.calibration_games,
            "relative_standard_error": round(self.rse, 4),
            "not_estimated": self.not_estimated,
            "cached_at_input_price": self.cached_at_input,
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


def spread(n: int) -> list[int]:
    """0 .. n-1 in van der Corput (bit-reversed) order: every prefix is spread evenly over the range."""
    bits = max(n - 1, 1).bit_length()
    order = (int(format(i, f"0{bits}b")[::-1], 2) for i in range(1 << bits))
    return [i for i in order if i < n]


def calibration_plans(plans: Sequence[GamePlan]) -> list[GamePlan]:
    """The schedule's games in the order calibration plays them: spread over the schedule, so any prefix holds its
    seatings (seats, roles, sides) in about the schedule's proportions, repeated seatings included. The private
    stand-in varies its answers to a repeated request, so a seating played twice is two games, as with a model."""
    return [plans[index] for index in spread(len(plans))]


Sample = list[tuple[str, Usage, int]]  # one calibration game: (label, usage, calls) per LLM seat


def _game_cost(game: Sample, prices: dict[str, Prices]) -> float:
    return sum(prices[label].cost(usage) for label, usage, _ in game)


def _game_tokens(game: Sample) -> float:
    return float(sum(usage.prompt_tokens + usage.completion_tokens for _, usage, _ in game))


async def _calibrate_until(
    t: Tournament,
    order: Sequence[GamePlan],
    base_url: str,
    least: int,
    prices: dict[str, Prices],
    weights: dict[Seating, float],
) -> list[Sample]:
    """Play `order`'s seatings, AT_ONCE at a time, until the per-game cost is known well enough (module doc)."""
    from arena.llm.pool import use_aiohttp

    use_aiohttp()  # many games on one loop: the tournament workers' HTTP path
    llm = set(prices)
    games: list[Sample] = []
    seen: set[str] = set()
    for start in range(0, min(len(order), MAX_GAMES), AT_ONCE):
        batch = order[start : min(start + AT_ONCE, MAX_GAMES)]
        games += await asyncio.gather(*(_calibrate_once(t, p, base_url, p.seed + CALIBRATION_SEED) for p in batch))
        seen.update(label for game in games for label, _, _ in game)
        if len(games) >= least and llm <= seen and _rse(games, order, weights, prices) <= TARGET_RSE:
            break
    return games


def _rse(
    games: list[Sample], order: Sequence[GamePlan], weights: dict[Seating, float], prices: dict[str, Prices]
) -> float:
    costs = [_game_cost(g, prices) for g in games]
    values = costs if any(costs) else [_game_tokens(g) for g in games]
    return stratified_rse(values, [seating(plan) for plan in order[: len(games)]], weights)


def calibrate(t: Tournament, plans: Sequence[GamePlan], games: int = 3) -> Calibration:
    """Per seat-game figures of every LLM configuration (filler included), from calibration games against a
    private stand-in (module doc): at least `games` (and MIN_GAMES), more until the standard error is small."""
    llm = _costed([*t.configs, t.filler])
    if not llm:
        return Calibration({})
    from arena.standin import FakeServer

    prices = {c.label: Prices.of(c.spec) for c in llm}
    weights: dict[Seating, float] = defaultdict(float)
    for plan in plans:
        weights[seating(plan)] += 1 / len(plans)
    order = calibration_plans(plans)
    with FakeServer(vary=True) as server:
        played = asyncio.run(_calibrate_until(t, order, server.base_url, max(games, MIN_GAMES), prices, weights))
    samples: dict[str, list[tuple[Usage, int]]] = defaultdict(list)
    for game in played:
        for label, usage, calls in game:
            samples[label].append((usage, calls))
    out: dict[str, Figures] = {}
    for config in llm:
        rows = samples[config.label]
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
            usd=prices[config.label].cost(usage) / n,
        )
    return Calibration(out, len(played), _rse(played, order, weights, prices))


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
    assumed = [c.label for c in [*t.configs, t.filler] if c.spec.cached_price_assumed and c.label in per_seat]
    if isinstance(per_seat, Calibration):  # the games actually played, and how well they pin the mean down
        return Estimate(per_config, per_game, total, per_seat.games, not_estimated, per_seat.rse, assumed)
    return Estimate(per_config, per_game, total, games, not_estimated, cached_at_input=assumed)
