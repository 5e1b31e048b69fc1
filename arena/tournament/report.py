"""The dry run's tables: the schedule's balance (per configuration: games, sides, roles, seats) and the cost
estimate (per configuration and in total)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from arena.tournament.cost import Estimate
from arena.tournament.model import Tournament
from arena.tournament.schedule import GamePlan, balance, spread


def balance_table(t: Tournament, plans: Sequence[GamePlan]) -> Table:
    labels = [c.label for c in t.configs]
    table_data = balance(plans, labels)
    worst = spread(table_data)
    sides = sorted(k for k in worst if k.startswith("side:"))
    roles = sorted(k for k in worst if k.startswith("role:"))
    seats = sorted((k for k in worst if k.startswith("seat:")), key=lambda k: int(k.split(":")[1]))
    table = Table(
        title=f"{t.file.name}: {len(plans)} games of {t.rules.name} ({t.players} seats), {len(labels)} configurations"
        + (f", filler {t.filler.agent}" if len(labels) < t.players else ""),
        title_justify="left",
        show_edge=False,  # without its two edges nine columns fit 80 (a label was cut "heurist…")
    )
    table.add_column("config", no_wrap=True)
    table.add_column("seat\ngames", justify="right")  # whole sides: seven or three seats a game; two lines fit 80
    for key in [*sides, *roles]:
        table.add_column(key.split(":")[1], justify="right")
    table.add_column("per\nseat", justify="right")
    for label in labels:
        counts = table_data[label]
        per_seat = [counts[k] for k in seats]
        row = [label, str(counts["games"]), *(str(counts[k]) for k in [*sides, *roles])]
        row.append(f"{min(per_seat)}-{max(per_seat)}" if per_seat else "-")
        table.add_row(*row)
    largest = max(worst.values(), default=0)
    table.caption = f"largest difference between two configurations on any count: {largest}"
    return table


def estimate_table(estimate: Estimate, budget: float | None) -> Table:
    margin = f", ±{1.96 * estimate.rse:.0%} at 95 %" if estimate.rse else ""
    table = Table(title=f"cost estimate (from {estimate.calibration_games} calibration games against a private local "
                        f"stand-in{margin})", title_justify="left")  # fmt: skip
    for name in ("config", "calls", "prompt tok", "cached", "uncached", "completion tok", "USD"):
        table.add_column(name, justify="left" if name == "config" else "right")
    rows = [(label, f) for label, f in estimate.per_config.items() if f.calls or f.usd]
    for label, f in [*rows, ("total", estimate.total)]:
        table.add_row(label, f"{f.calls:,.0f}", f"{f.prompt_tokens:,.0f}", f"{f.cached_tokens:,.0f}",
                      f"{f.uncached_tokens:,.0f}", f"{f.completion_tokens:,.0f}", f"{f.usd:.4f}")  # fmt: skip
    notes = []
    if not rows:
        notes.append("no configuration makes model calls: nothing to spend")
    if estimate.not_estimated:
        notes.append(f"not estimated (LangChain): {', '.join(estimate.not_estimated)}")
    if estimate.cached_at_input:
        assumed = ", ".join(estimate.cached_at_input)
        notes.append(f"cached tokens billed at the input price (no price_cached_per_m): {assumed}")
    if budget is not None:
        notes.append(f"budget ${budget:g}: about {_games_within(estimate, budget)} of {len(estimate.per_game)} games")
    table.caption = "; ".join(notes) or None
    return table


def _games_within(estimate: Estimate, budget: float) -> int:
    spent = 0.0
    for count, usd in enumerate(estimate.per_game):
        if spent + usd > budget:
            return count
        spent += usd
    return len(estimate.per_game)
