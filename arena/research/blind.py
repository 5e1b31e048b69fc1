"""Human-likeness from blinded tables (`arena serve --blind`): how human each configuration seemed to the people.

At the end of a blinded game every person rates every other seat: their confidence, 0 to 1, that it was not a
person (`<game>.blind.json` beside the transcript, written by the table). A configuration's human-likeness is the
mean of 1 − that confidence over every rating of its seats: 1 is "surely a person", 0 "surely not". People rated
by people give the baseline (`human`). The ratings of one game are not independent (the same people, the same
table), so the interval is counted per game (`intervals.proportion`: Wilson on the cluster-robust effective
sample size); `tests/test_blind.py` checks its coverage in simulation under game effects and unbalanced
designs the interval does not model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from arena.research.intervals import Interval, proportion

HUMAN = "human"


@dataclass(frozen=True)
class Rating:
    """One person's rating of one seat in one game: `likeness` = 1 − P(not human)."""

    game: str
    config: str
    likeness: float


@dataclass(frozen=True)
class Likeness:
    config: str
    score: Interval
    ratings: int
    games: int


class BlindError(ValueError):
    """A `.blind.json` file that cannot be read; the message names it."""


def read_ratings(folder: Path) -> list[Rating]:
    """Every rating in the `*.blind.json` files under `folder` (a person's rating of their own seat never exists)."""
    out: list[Rating] = []
    for path in sorted(folder.rglob("*.blind.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            seats = {int(k): (v["agent"] if v["kind"] != HUMAN else HUMAN) for k, v in data["seats"].items()}
            game = str(data["game_id"])
            for guess in data["guesses"]:
                for seat, p in guess["p_not_human"].items():
                    value = float(p)
                    if not 0 <= value <= 1:
                        raise ValueError(f"confidence {value} is not in 0..1")
                    out.append(Rating(game, str(seats[int(seat)]), 1.0 - value))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise BlindError(f"{path}: {exc}") from None
    return out


def human_likeness(ratings: list[Rating]) -> list[Likeness]:
    """Per configuration (people first), the mean human-likeness with its 95 % interval counted per game."""
    out: list[Likeness] = []
    configs = sorted({r.config for r in ratings}, key=lambda c: (c != HUMAN, c))
    for config in configs:
        mine = [r for r in ratings if r.config == config]
        games = sorted({r.game for r in mine})
        index = {g: i for i, g in enumerate(games)}
        sums = [0.0] * len(games)
        counts = [0.0] * len(games)
        for r in mine:
            sums[index[r.game]] += r.likeness
            counts[index[r.game]] += 1
        score = proportion(sums, counts, list(range(len(games))))
        out.append(Likeness(config, score, len(mine), len(games)))
    return out


def table_md(rows: list[Likeness]) -> str:
    lines = [
        "| configuration | human-likeness | 95 % interval | ratings | games |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        s = row.score
        lines.append(f"| {row.config} | {s.value:.2f} | {s.low:.2f}–{s.high:.2f} | {row.ratings} | {row.games} |")
    return "\n".join(lines) + "\n"


def table_csv(rows: list[Likeness]) -> str:
    out = ["config,human_likeness,low,high,ratings,games"]
    for row in rows:
        s = row.score
        out.append(f"{row.config},{s.value:.4f},{s.low:.4f},{s.high:.4f},{row.ratings},{row.games}")
    return "\n".join(out) + "\n"
