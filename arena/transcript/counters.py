"""What a game counted per seat: its discipline (`SeatCounters`, bumped by the orchestrator at every decision) and
its model calls' totals (`SeatTotals`: calls, failures, tokens, cost), which the end record carries per seat and for
the game."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from arena.players.base import ModelCall


@dataclass
class SeatCounters:
    """Per-seat discipline of one game, as counted by the orchestrator (a plain dataclass: it is bumped at every
    decision, and pydantic still validates and serialises it inside the end record)."""

    decisions: int = 0  # requests answered (legally or by default)
    attempts: int = 0  # times the player was asked
    invalid: int = 0  # answers the engine refused (each one a re-ask or, past the bound, a default)
    timeouts: int = 0
    errors: int = 0  # exceptions raised by the player
    defaults: int = 0  # requests settled by the rule's default
    player_s: float = 0.0  # wall time spent inside the player; not written to golden files
    prompt_tokens: int = 0  # model calls: prompt tokens the servers reported
    cached_tokens: int = 0  # of which served from the provider's prompt cache (as reported)

    @property
    def cache_hit(self) -> float:
        """The share of prompt tokens the servers reported as cached (0 when no tokens were reported)."""
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0


@dataclass
class SeatTotals:
    """Model-call totals of one seat (or, summed, of the game): what the calls cost and how many failed."""

    calls: int = 0
    failed_calls: int = 0  # calls with an error (no answer, or an unusable one)
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    defaults: int = 0  # requests settled by the rule's default

    def add_call(self, call: ModelCall) -> None:
        self.calls += 1
        self.failed_calls += call.error is not None and call.parsed is None
        self.prompt_tokens += call.prompt_tokens
        self.cached_tokens += call.cached_tokens
        self.completion_tokens += call.completion_tokens
        self.cost_usd += call.cost_usd

    def add(self, other: SeatTotals) -> None:
        for name in ("calls", "failed_calls", "prompt_tokens", "cached_tokens", "completion_tokens", "defaults"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.cost_usd += other.cost_usd


def call_totals(calls: Iterable[ModelCall]) -> dict[int, SeatTotals]:
    """Per-seat totals of recorded calls (resume starts from these; `arena show` reads them from old files)."""
    out: dict[int, SeatTotals] = {}
    for call in calls:
        out.setdefault(call.seat, SeatTotals()).add_call(call)
    return out
