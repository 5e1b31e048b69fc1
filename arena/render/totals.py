"""The model-call totals of a game (tokens, cost, calls, failures, defaults) as a small console table, for the end of
`arena play` and for `arena show`. A seat's view shows only that seat's row: how many calls a seat made can tell who
acted at night."""

from __future__ import annotations

from collections.abc import Mapping

from rich.table import Table

from arena.engine import MODERATOR
from arena.transcript import SeatTotals, Transcript, call_totals


def transcript_totals(transcript: Transcript) -> dict[int, SeatTotals]:
    """Per-seat totals: the end record's, or (a game without one) summed from its calls."""
    end = transcript.end
    if end is not None and end.totals:
        return dict(end.totals)
    return call_totals(transcript.calls)


def totals_table(totals: Mapping[int, SeatTotals], viewer: int = MODERATOR) -> Table | None:
    """None when no seat made a model call (a bot game) or the viewer's seat made none."""
    rows = {seat: t for seat, t in sorted(totals.items()) if t.calls and viewer in (MODERATOR, seat)}
    if not rows:
        return None
    table = Table(title="model calls", title_justify="left")
    for name in ("seat", "calls", "failed", "defaults", "prompt tok", "cached", "completion tok", "USD"):
        table.add_column(name, justify="right")
    game = SeatTotals()
    for seat, t in rows.items():
        game.add(t)
        table.add_row(str(seat), *_cells(t))
    if viewer == MODERATOR and len(rows) > 1:
        table.add_row("game", *_cells(game), style="bold")
    return table


def _cells(t: SeatTotals) -> list[str]:
    return [str(t.calls), str(t.failed_calls), str(t.defaults), f"{t.prompt_tokens:,}", f"{t.cached_tokens:,}",
            f"{t.completion_tokens:,}", f"{t.cost_usd:.4f}"]  # fmt: skip
