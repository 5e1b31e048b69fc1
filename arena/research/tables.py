"""The rows of `games.csv`, `seats.csv`, `days.csv` and `decisions.csv` (columns documented in docs/metrics.md).

Kept apart from the report's drawing so the data a researcher loads into pandas is defined in one place.
"""

from __future__ import annotations

import csv
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any, TextIO

from arena.engine import JUDGE_OPS, Failure, Game, Request
from arena.research.corpus import MAFIA, TOWN, GameData
from arena.research.metrics import Counts, GameMetrics, rates

COUNT_COLUMNS = [f.name for f in fields(Counts)]
RATE_COLUMNS = list(rates(Counts()))
GAME_COLUMNS = ["game_id", "path", "rules", "seed", "winner", "days", "players", "town_configs", "mafia_configs"]
SEAT_COLUMNS = [
    "game_id",
    "seat",
    "config",
    "role",
    "side",
    "won",
    "survived",
    "left_day",
    "reasks",
    "defaults",
    "timeouts",
    "errors",
]
DAY_COLUMNS = ["game_id", "day", "blacks_alive", "blacks_dealt"]
DECISION_COLUMNS = [
    "game_id",
    "index",
    "seat",
    "config",
    "role",
    "day",
    "phase",
    "kind",
    "options",
    "outcome",
    "reasks",
    "malformed",
    "timeouts",
    "errors",
    "calls",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "latency_ms",
]

Row = dict[str, Any]


def _cells(c: Counts) -> Row:
    row: Row = {name: getattr(c, name) for name in COUNT_COLUMNS}
    row.update(rates(c))
    return row


def game_row(m: GameMetrics) -> Row:
    g = m.game
    town = sorted({g.configs[s] for s in g.roles if g.side(s) == TOWN})
    mafia = sorted({g.configs[s] for s in g.roles if g.side(s) == MAFIA})
    row: Row = {
        "game_id": g.game_id,
        "path": g.path,
        "rules": g.rules,
        "seed": g.seed,
        "winner": g.winner or "",
        "days": g.days,
        "players": g.players,
        "town_configs": "|".join(town),
        "mafia_configs": "|".join(mafia),
    }
    return row | _cells(m.total)


def seat_rows(m: GameMetrics) -> list[Row]:
    g = m.game
    out: list[Row] = []
    for seat in sorted(g.roles):
        counters = g.counters.get(seat)
        won = g.won(seat)
        row: Row = {
            "game_id": g.game_id,
            "seat": seat,
            "config": g.configs.get(seat, ""),
            "role": g.roles[seat],
            "side": g.side(seat) or "maniac",
            "won": "" if won is None else int(won),
            "survived": int(seat in m.alive_at_end),
            "left_day": m.left_on_day.get(seat, ""),
            "reasks": counters.invalid if counters else 0,
            "defaults": counters.defaults if counters else 0,
            "timeouts": counters.timeouts if counters else 0,
            "errors": counters.errors if counters else 0,
        }
        out.append(row | _cells(m.seats.get(seat, Counts())))
    return out


def day_rows(m: GameMetrics) -> list[Row]:
    g = m.game
    dealt = sum(1 for s in g.roles if g.black(s))
    days = sorted(set(m.days) | set(m.blacks_alive))
    return [
        {"game_id": g.game_id, "day": d, "blacks_alive": m.blacks_alive.get(d, ""), "blacks_dealt": dealt}
        | _cells(m.days.get(d, Counts()))
        for d in days
        if d >= 1
    ]


@dataclass
class _Pending:
    reasks: int = 0
    malformed: int = 0
    timeouts: int = 0
    errors: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0


def decision_rows(g: GameData) -> list[Row]:
    """One row per settled decision (a legal answer or the default), with the re-asks and model calls that led
    to it. The request kind, day and phase come from replaying the inputs on a fresh engine."""
    return [row for row, _ in settled(g)]


def settled(g: GameData) -> list[tuple[Row, Request | None]]:
    """Each settled decision's row (see `decision_rows`) with the request it answered."""
    t = g.transcript
    game = Game(t.rules, t.header.seed, roles=t.header.roles)
    calls_at: dict[int, list[int]] = {}
    for i, position in enumerate(t.call_positions):
        calls_at.setdefault(position, []).append(i)
    pending: dict[int, _Pending] = {}
    out: list[tuple[Row, Request | None]] = []
    for index, item in enumerate(t.inputs):
        for ci in calls_at.get(index, []):
            call = t.calls[ci]
            p = pending.setdefault(call.seat, _Pending())
            p.calls += 1
            p.prompt_tokens += call.prompt_tokens
            p.completion_tokens += call.completion_tokens
            p.cost_usd += call.cost_usd
            p.latency_ms += call.latency_ms
        if item.op in JUDGE_OPS:
            game.replay([item])
            continue
        request = game.request_for(item.seat)
        p = pending.setdefault(item.seat, _Pending())
        if item.op in ("reject", "default"):  # what the attempt failed on: its code (an error is not the model's)
            if item.code is Failure.TIMEOUT:
                p.timeouts += 1
            elif item.code is Failure.ERROR:
                p.errors += 1
            elif item.code is Failure.MALFORMED:
                p.malformed += 1
            elif item.op == "reject":  # refused by the engine (or a caller's re-ask that said nothing of it)
                p.reasks += 1
        if item.op != "reject":
            out.append(
                (
                    {
                        "game_id": g.game_id,
                        "index": len(out),
                        "seat": item.seat,
                        "config": g.configs.get(item.seat, ""),
                        "role": g.roles.get(item.seat, ""),
                        "day": game.day,
                        "phase": game.phase.value,
                        "kind": request.kind.value if request is not None else "",
                        "options": len(request.options) if request is not None else 0,
                        "outcome": item.op,
                        "reasks": p.reasks,
                        "malformed": p.malformed,
                        "timeouts": p.timeouts,
                        "errors": p.errors,
                        "calls": p.calls,
                        "prompt_tokens": p.prompt_tokens,
                        "completion_tokens": p.completion_tokens,
                        "cost_usd": round(p.cost_usd, 8),
                        "latency_ms": round(p.latency_ms, 1),
                    },
                    request,
                )
            )
            pending.pop(item.seat, None)
        game.replay([item])
    return out


LEGAL, REASKED, INVALID, TRANSPORT = "legal", "reasked", "invalid", "transport"


def decision_outcome(row: Row) -> str:
    """How a settled decision went: `transport` (an attempt was lost to a timeout, an unreachable model or a crashed
    player: not the model's doing), `invalid` (the model never gave a legal answer and the rule's default was
    applied), `reasked` (legal after a refused or unreadable answer) or `legal` (the first answer was legal)."""
    if int(row["timeouts"]) or int(row["errors"]):
        return TRANSPORT
    if row["outcome"] == "default":
        return INVALID
    return REASKED if int(row["reasks"]) or int(row["malformed"]) else LEGAL


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet reads a cell starting so as a formula
# the same after a separator another program may split on (`;` in many locales, tab, `|`): `;=HYPERLINK(...)`
_SPLIT_FORMULA = re.compile(r"([,;\t|]\s*)(?=[=+\-@])")


def visible(text: str, keep: str = "") -> str:
    """Text from a transcript (an agent name, a path) with every character that is not shown as itself written out
    as `\\uXXXX`: bidi controls (U+202E would show a name backwards), zero-width and other format characters, control
    characters and line or paragraph separators. What a report shows is then what the file holds, in its order, and
    two names that differ only in such characters stay two names. Characters in `keep` stay as they are."""
    hidden = ("Cc", "Cf", "Zl", "Zp", "Co", "Cn")
    return "".join(ch if ch in keep or unicodedata.category(ch) not in hidden else f"\\u{ord(ch):04x}" for ch in text)


def _cell(value: Any) -> Any:
    """A cell as written: NaN empty, floats rounded, and text from a transcript (an agent name) kept text when the
    CSV is opened: a `'` goes before a formula's first character at the start and after any separator; characters
    that are not shown as themselves are written out (`visible`)."""
    if isinstance(value, float):
        return "" if math.isnan(value) else round(value, 6)
    if isinstance(value, str):
        value = _SPLIT_FORMULA.sub(r"\1'", visible(value, keep="\n\r\t"))
        if value.lstrip(" ").startswith(FORMULA_STARTS):
            return "'" + value
    return value


def write_rows(handle: TextIO, columns: Sequence[str], rows: Iterable[Row]) -> int:
    """Write `rows` with exactly `columns` (NaN as an empty cell) to a text stream; return the number of rows."""
    n = 0
    writer = csv.DictWriter(handle, fieldnames=list(columns), extrasaction="raise")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(row.get(k, "")) for k in columns})
        n += 1
    return n
