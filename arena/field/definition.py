"""A field version: its opponents, rules, deals and frozen ratings, read from `arena/field/fields/NAME.toml` (or a
file named by path), checked completely before any game.

```toml
name = "reference-v1"
description = "..."
[rules]
preset = "fiim"
fingerprint = "…"          # sha256 of the preset's rules as JSON: other rules are another field
[deals]
seed = 20261203            # deal i is the engine's deal of seed + i (both games of a deal share its cards)
count = 400                # the most deals a placement plays (the games cap: 2 × count)
games = 200                # a fixed placement's games (--games)
pilot = 12                 # the pilot deals of --until-width (Stein's first stage)
fingerprint = "…"          # sha256 of the roles dealt by every deal's seed: the engine must still deal them
[ratings]                  # frozen: the side term, then each member's skills below
h = -0.41
[[members]]
label = "random"
agent = "bot:random"
town = -1.2
mafia = -0.9
[behaviour]                # what the members did, decision by decision (not their words), in fixed games
games = 16
fingerprint = "…"
[calibration]              # how the ratings were made (provenance; not read by any computation)
```
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from arena.agents import BUILTIN, AgentSpec
from arena.engine import Game, Role, RulesError, RuleSet, Team, load_rules
from arena.engine.roles import base_team
from arena.tournament.model import Label

FIELDS_DIR = Path(__file__).parent / "fields"
NAME = re.compile(r"^[a-z0-9][a-z0-9.-]{0,39}$")


class FieldError(ValueError):
    """A field that cannot be used (unknown, malformed, or not what this install plays); the message says why."""


class RulesPart(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    preset: str
    fingerprint: str


class DealsPart(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = Field(ge=0)
    count: int = Field(ge=2, le=100_000)
    games: int = Field(ge=4)
    pilot: int = Field(ge=2)
    fingerprint: str

    @model_validator(mode="after")
    def _fits(self) -> DealsPart:
        if self.games % 2 or self.games // 2 > self.count:
            raise ValueError(f"games: {self.games} must be even and at most 2 × count ({2 * self.count})")
        if self.pilot > self.count:
            raise ValueError(f"pilot: {self.pilot} deals is more than count ({self.count})")
        return self


class Member(BaseModel):
    """One opponent: a built-in bot at a strength, and its frozen skills."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: Label
    agent: str
    noise: float | None = Field(None, gt=0, le=1)
    town: float
    mafia: float

    @field_validator("agent")
    @classmethod
    def _builtin(cls, value: str) -> str:
        if value not in BUILTIN or BUILTIN[value].kind != "bot":
            raise ValueError(f"{value!r} is not a built-in bot (a field's opponents are what every install has)")
        return value

    @property
    def combined(self) -> float:
        return (self.town + self.mafia) / 2

    def spec(self) -> AgentSpec:
        return BUILTIN[self.agent].model_copy(update={"name": self.label, "noise": self.noise})


class RatingsPart(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    h: float


class BehaviourPart(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    games: int = Field(ge=1)
    fingerprint: str  # every ordered pair of members, one game each
    members: dict[str, str] = Field(default_factory=dict)  # each member's game against itself


class FieldFile(BaseModel):
    """A field version as written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = ""
    rules: RulesPart
    deals: DealsPart
    ratings: RatingsPart
    members: list[Member] = Field(min_length=2)
    behaviour: BehaviourPart
    calibration: dict[str, Any] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME.match(value):
            raise ValueError("must be 1-40 lower-case letters, digits, . and -")
        return value

    @model_validator(mode="after")
    def _unique(self) -> FieldFile:
        labels = [m.label for m in self.members]
        if len(set(labels)) != len(labels):
            raise ValueError("members: labels must be unique")
        return self


class FieldVersion(BaseModel):
    """A loaded field: the file and the rules it names (checked against their fingerprint)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    file: FieldFile
    rules: RuleSet

    @property
    def name(self) -> str:
        return self.file.name

    @property
    def members(self) -> list[Member]:
        return list(self.file.members)

    @property
    def labels(self) -> list[str]:
        return [m.label for m in self.file.members]

    @property
    def fingerprint(self) -> str:
        """The whole definition, ratings included: a placement names the field it was placed on by this."""
        return digest(self.file.model_dump(mode="json"))

    def deal_seed(self, deal: int) -> int:
        return self.file.deals.seed + deal


def digest(data: object) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def rules_fingerprint(rules: RuleSet) -> str:
    return digest(rules.model_dump(mode="json"))


def two_sided(rules: RuleSet) -> None:
    """A field's rules deal only red and black cards: every seat is the entrant's or the member's side."""
    third = sorted(role.value for role in rules.roles if base_team(role) is Team.MANIAC)
    if third:
        raise FieldError(f"rules {rules.name!r} deal {', '.join(third)}: a field's games are two-sided (whole town "
                         "against whole mafia)")  # fmt: skip


def dealt(rules: RuleSet, seed: int) -> list[Role]:
    """The roles the engine deals from `seed`, seat 1 first (a throwaway game: the engine owns the deal)."""
    return list(Game(rules, seed).roles[1:])


def deals_fingerprint(rules: RuleSet, seed: int, count: int) -> str:
    return digest([[role.value for role in dealt(rules, seed + i)] for i in range(count)])


def field_names() -> list[str]:
    return sorted(p.stem for p in FIELDS_DIR.glob("*.toml"))


def field_path(name: str) -> Path:
    """A shipped field by name, or a file by path (a `.toml` that exists)."""
    if NAME.match(name) and (FIELDS_DIR / f"{name}.toml").is_file():
        return FIELDS_DIR / f"{name}.toml"
    path = Path(name)
    if path.suffix == ".toml" and path.is_file():
        return path
    raise FieldError(f"unknown field {name!r}: no {name}.toml among the shipped fields ({', '.join(field_names())})"
                     " and no such file")  # fmt: skip


def parse_field(path: Path) -> FieldFile:
    from arena.safe_read import UnsafeFile, load_toml, read_text

    try:
        data = load_toml(read_text(path))
    except UnsafeFile as exc:
        raise FieldError(f"{path}: {' '.join(str(exc).split())}") from None
    try:
        return FieldFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "file"
        raise FieldError(f"{path}: {where}: {str(first['msg']).removeprefix('Value error, ')}") from None


def load_field(name: str, *, check_deals: bool = True) -> FieldVersion:
    """A field by name or path, with its rules and deals checked against their fingerprints (`check_version`)."""
    path = field_path(name)
    return check_version(parse_field(path), str(path), check_deals=check_deals)


def check_version(file: FieldFile, path: str, *, check_deals: bool = True) -> FieldVersion:
    """A field file made a field: a field is fixed rules and fixed deals, so an install whose preset or dealing
    differs refuses it (the behaviour is checked by `arena.field.fingerprint.check_behaviour`, which plays games)."""
    try:
        rules = load_rules(file.rules.preset)
    except RulesError as exc:
        raise FieldError(f"{path}: rules: {exc}") from None
    try:
        two_sided(rules)
    except FieldError as exc:
        raise FieldError(f"{path}: {exc}") from None
    found = rules_fingerprint(rules)
    if found != file.rules.fingerprint:
        raise FieldError(
            f"field {file.name}: this install's {file.rules.preset!r} rules differ from the ones the field was frozen "
            f"with (fingerprint {found[:12]}, the field's {file.rules.fingerprint[:12]}): its ratings do not apply; "
            "a field under other rules is a new field version (docs/reference.md)"
        )
    if check_deals:
        found = deals_fingerprint(rules, file.deals.seed, file.deals.count)
        if found != file.deals.fingerprint:
            raise FieldError(
                f"field {file.name}: this install's engine deals other cards from the field's seeds (fingerprint "
                f"{found[:12]}, the field's {file.deals.fingerprint[:12]}): a field is fixed deals, so it cannot be "
                "played here (docs/reference.md)"
            )
    return FieldVersion(source=path, file=file, rules=rules)
