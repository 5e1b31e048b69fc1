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


def unknown_cost_seats(transcript: Transcript) -> set[int]:
    """The seats whose agent has no prices (and is not a free local server): their cost is unknown, not $0."""
    from arena.agents import priced

    return {entry.seat for entry in transcript.header.seats if not priced(entry.agent)}


_WORDS = {  # the table's title, its columns, the game's row and an unknown cost
    "en": ("model calls", ("seat", "calls", "failed", "defaults", "prompt tok", "cached", "completion tok", "USD"),
           "game", "unknown"),
    "ru": ("вызовы модели", ("место", "вызовы", "сбои", "по умолчанию", "токены запроса", "из кэша", "токены ответа",
                             "USD"), "игра", "неизвестно"),
}  # fmt: skip


def totals_table(
    totals: Mapping[int, SeatTotals],
    viewer: int = MODERATOR,
    unknown: set[int] | frozenset[int] = frozenset(),
    lang: str = "en",
) -> Table | None:
    """None when no seat made a model call (a bot game) or the viewer's seat made none. The USD of the seats in
    `unknown` (no prices) reads "unknown", and so does the game's if any of them made calls. In `lang` (en, ru)."""
    rows = {seat: t for seat, t in sorted(totals.items()) if t.calls and viewer in (MODERATOR, seat)}
    if not rows:
        return None
    title, columns, whole, nobody_knows = _WORDS.get(lang, _WORDS["en"])
    table = Table(title=title, title_justify="left")
    for name in columns:
        table.add_column(name, justify="right")
    game = SeatTotals()
    for seat, t in rows.items():
        game.add(t)
        table.add_row(str(seat), *_cells(t, seat in unknown, nobody_knows))
    if viewer == MODERATOR and len(rows) > 1:
        table.add_row(whole, *_cells(game, bool(unknown & rows.keys()), nobody_knows), style="bold")
    return table


def _cells(t: SeatTotals, unknown: bool = False, unknown_word: str = "unknown") -> list[str]:
    usd = unknown_word if unknown else f"{t.cost_usd:.4f}"
    return [str(t.calls), str(t.failed_calls), str(t.defaults), f"{t.prompt_tokens:,}", f"{t.cached_tokens:,}",
            f"{t.completion_tokens:,}", usd]  # fmt: skip
