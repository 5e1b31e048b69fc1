"""A scoring system as a validated data file: its groups, its matters (what a seat did, what it earns, where the rule
comes from) and how a table of players is ranked.

The built-in systems are TOML files in `systems/` (`fiim`, `mwc`), read like the rule presets; a user's own file is
read as hostile data (`arena.safe_read`) and validated field by field, so a typo is an error and never a silent zero.
docs/scoring.md documents the format.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from arena.scoring.facts import COUNTS, FLAGS

SYSTEMS = ("fiim", "mwc")
ROLES = ("civilian", "sheriff", "doctor", "lover", "maniac", "mafia", "don")
TIE_KEYS = ("wins", "special_role_wins", "killed_first_night")  # counts a tie-break may use beside group points


class ScoringError(ValueError):
    """A scoring system that cannot be used; the message says which file and field, and why."""


class Compensation(BaseModel):
    """mafiaratings' first-night compensation (Ci): max(min(k × per_kill / round(games × share), cap), 0), where k is
    how often the player was killed on the first night as a red player and `games` how many games he played, both
    counted over the event (one game alone: k over round(0.4) = 0, which mafiaratings' evaluator takes as the cap)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    per_kill: float = Field(gt=0)
    share: float = Field(gt=0, le=1)
    cap: float = Field(gt=0)


class Matter(BaseModel):
    """One thing a seat can earn or lose points for: when every fact in `when` holds and none in `unless`, for a seat
    whose role is in `roles` (any role when empty), it adds `points` to `group`. `points` is a number, or `"bonus"`
    for the judge's extra points; `times` multiplies it by a count (yellow cards); `compensation` replaces it by
    the first-night compensation. `rule` cites the game rule, `source` where the scoring comes from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]{0,40}$")
    group: str
    when: tuple[str, ...] = Field(min_length=1)
    unless: tuple[str, ...] = ()
    roles: tuple[Literal["civilian", "sheriff", "doctor", "lover", "maniac", "mafia", "don"], ...] = ()
    points: float | Literal["bonus"] = 0.0
    times: Literal["yellow_cards"] | None = None
    compensation: Compensation | None = None
    rule: str = Field(min_length=1)
    source: str = Field(min_length=1)
    note: str = ""

    @model_validator(mode="after")
    def _known_facts(self) -> Matter:
        unknown = [f for f in (*self.when, *self.unless) if f not in FLAGS]
        if unknown:
            raise ValueError(f"unknown fact(s) {', '.join(unknown)}; allowed: {', '.join(FLAGS)}")
        if self.compensation is not None and self.points != 0.0:
            raise ValueError("a compensation gives its own points: leave `points` out")
        if self.compensation is None and self.points == 0.0:
            raise ValueError("a matter must give points (a number, 'bonus', or a compensation)")
        return self


class ScoringSystem(BaseModel):
    """A whole scoring system. `rank` orders a table by total points (`total`, mafiaratings) or points per game
    (`per_game`, the Maf World Cup); `tie_breaks` then apply in order, each the sum of the named groups' points or
    one of the counts `wins`, `special_role_wins`, `killed_first_night`, higher first. `stages` weigh a game's
    points by the stage it was played in (1 when not given)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]{0,40}$")
    title: str
    description: str = ""
    source: str
    groups: tuple[str, ...] = Field(min_length=1)
    rank: Literal["total", "per_game"] = "total"
    tie_breaks: tuple[tuple[str, ...], ...] = ()
    stages: dict[str, float] = Field(default_factory=dict)
    matters: tuple[Matter, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> ScoringSystem:
        if len(set(self.groups)) != len(self.groups):
            raise ValueError("groups are listed twice")
        ids = [m.id for m in self.matters]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ValueError(f"matter id(s) used twice: {', '.join(twice)}")
        for m in self.matters:
            if m.group not in self.groups:
                raise ValueError(f"matter {m.id}: group {m.group!r} is not one of the groups {list(self.groups)}")
        for keys in self.tie_breaks:
            bad = [k for k in keys if k not in self.groups and k not in TIE_KEYS]
            if not keys or bad:
                raise ValueError(f"tie-break {list(keys)}: each key is a group or one of {', '.join(TIE_KEYS)}")
        for stage, weight in self.stages.items():
            if not weight > 0:
                raise ValueError(f"stage {stage!r}: a weight must be positive")
        return self

    def weight(self, stage: str | None) -> float:
        if stage is None or stage == "":
            return 1.0
        if stage not in self.stages:
            raise ScoringError(f"scoring {self.name}: unknown stage {stage!r}; allowed: {', '.join(self.stages)}")
        return self.stages[stage]


def _format(exc: ValidationError, source: str) -> str:
    lines = [f"invalid scoring system in {source}:"]
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "(top level)"
        lines.append(f"  {where}: {error['msg']}")
    return "\n".join(lines)


def validate(data: dict[str, Any], source: str) -> ScoringSystem:
    try:
        return ScoringSystem.model_validate(data)
    except ValidationError as exc:
        raise ScoringError(_format(exc, source)) from None


def load_system(name_or_path: str | Path) -> ScoringSystem:
    """A built-in system by name (`fiim`, `mwc`), or a TOML file of the same format (read as hostile data)."""
    if isinstance(name_or_path, str) and name_or_path in SYSTEMS:
        text = resources.files("arena.scoring").joinpath(f"systems/{name_or_path}.toml").read_text(encoding="utf-8")
        return validate(tomllib.loads(text), f"built-in system {name_or_path}")
    path = Path(name_or_path)
    if path.suffix != ".toml":
        allowed = ", ".join(SYSTEMS)
        raise ScoringError(f"unknown scoring system {str(name_or_path)!r}; allowed: {allowed} or a .toml file")
    from arena.safe_read import UnsafeFile, load_toml, read_text

    try:
        data = load_toml(read_text(path))
    except UnsafeFile as exc:
        raise ScoringError(f"cannot read scoring system {path}: {exc}") from None
    return validate(data, str(path))


__all__ = ["COUNTS", "SYSTEMS", "Compensation", "Matter", "ScoringError", "ScoringSystem", "load_system", "validate"]
