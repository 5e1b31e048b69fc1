"""Making a field version: a draft (the members, rules and deals, no ratings) is played as a calibration tournament
among its members, fitted once with the side-aware model, and frozen into a field file with the fingerprints that
pin its rules, its deals and its members' behaviour (`arena field freeze DRAFT.toml --out DIR`; docs/reference.md).

The calibration plays every ordered pair of members, whole sides (one member holds the town, one the mafia, self
pairs included), each game on a deal of its own drawn from seeds apart from the placement deals, so every member's
town skill, mafia skill and the side term are identified (docs/ratings.md, `schedule = "sides"`). Skills are
centred over the members; that origin is the field's scale.

A later version is put on an earlier one's scale through **anchors**: members of both whose behaviour did not change
(the same self-play fingerprint). After its own fit the new version is shifted, town and mafia skills apart, so that
its anchors' mean skills equal the earlier version's (the side term moves the other way, so no prediction changes):
mean-mean linking, with the anchors' differences printed as the link's check.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from arena.field.definition import (
    BehaviourPart,
    DealsPart,
    FieldError,
    FieldFile,
    FieldVersion,
    Member,
    RatingsPart,
    RulesPart,
    deals_fingerprint,
    dealt,
    load_field,
    rules_fingerprint,
    two_sided,
)
from arena.field.fingerprint import behaviour, self_play, whole_sides
from arena.tournament.schedule import GamePlan, side_pairs

CALIBRATION_SEEDS = 1_000_000  # calibration deal d is seed + this + d: never a placement deal


class DraftMember(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str
    agent: str
    noise: float | None = Field(None, gt=0, le=1)


class DraftDeals(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = Field(ge=0)
    count: int = Field(ge=2)
    games: int = Field(ge=4)
    pilot: int = Field(ge=2)


class Link(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str  # the earlier version, by name
    anchors: list[str] = Field(min_length=1)  # labels present in both, whose behaviour is unchanged


class Draft(BaseModel):
    """A field version before it is frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str = ""
    preset: str = "fiim"
    deals: DraftDeals
    members: list[DraftMember] = Field(min_length=2)
    calibration_games: int = Field(ge=4)
    link: Link | None = None


def calibration_plans(draft: Draft, rules: Any) -> list[GamePlan]:
    two_sided(rules)
    labels = [m.label for m in draft.members]
    pairs = side_pairs(len(labels))
    out = []
    for g in range(draft.calibration_games):
        seed = draft.deals.seed + CALIBRATION_SEEDS + g
        roles = dealt(rules, seed)
        town, mafia = pairs[g % len(pairs)]
        out.append(GamePlan(g, seed, whole_sides(roles, labels[town], labels[mafia]), tuple(roles)))
    return out


def _members(draft: Draft, town: dict[str, float], mafia: dict[str, float]) -> list[Member]:
    return [Member(label=m.label, agent=m.agent, noise=m.noise, town=round(town[m.label], 4),
                   mafia=round(mafia[m.label], 4)) for m in draft.members]  # fmt: skip


def freeze(draft: Draft, games_folder: str, *, boot: int = 200) -> tuple[FieldFile, list[str]]:
    """The frozen field from the calibration games in `games_folder` (played by the command from
    `calibration_plans`), and lines describing the fit."""
    from arena.engine import load_rules
    from arena.research.corpus import load_folder
    from arena.research.ratings import fit
    from arena.research.records import from_games, matches

    rules = load_rules(draft.preset)
    corpus = load_folder(games_folder)
    games = matches(from_games(corpus.games))
    if not games:
        raise FieldError(f"{games_folder}: no two-sided calibration game to fit")
    f = fit(games, boot=boot)
    side = f.side.get(rules.name)
    labels = [m.label for m in draft.members]
    missing = [c for c in labels if f.estimate(c, "town") is None or f.estimate(c, "mafia") is None]
    if side is None or missing:
        raise FieldError(f"the calibration does not identify every member's skills ({', '.join(missing) or 'h'})")
    town = {c: _value(f, c, "town") for c in labels}
    mafia = {c: _value(f, c, "mafia") for c in labels}
    h = side.interval.value
    lines = [f"{len(games)} two-sided calibration games on {f.clusters} deals ({len(corpus.skipped)} not counted)"]
    deals = DealsPart(**draft.deals.model_dump(), fingerprint=deals_fingerprint(rules, draft.deals.seed,
                                                                                draft.deals.count))  # fmt: skip
    provisional = FieldFile(name=draft.name, rules=RulesPart(preset=draft.preset, fingerprint=rules_fingerprint(rules)),
                            deals=deals, ratings=RatingsPart(h=0.0), members=_members(draft, town, mafia),
                            behaviour=BehaviourPart(games=1, fingerprint="-"))  # fmt: skip
    version = FieldVersion(source="(draft)", file=provisional, rules=rules)
    alone = self_play(version)
    if draft.link is not None:
        h, link_lines = _link(draft.link, town, mafia, h, alone)
        lines += link_lines
    calibration: dict[str, Any] = {
        "games": len(games),
        "skipped": len(corpus.skipped),
        "seeds": f"{draft.deals.seed + CALIBRATION_SEEDS} + game",
        "schedule": "every ordered pair of members, whole sides, one game per deal",
        "model": "side-aware Bradley-Terry (docs/ratings.md), skills centred over the members",
        "intervals": {c: {kind: [round(e.interval.low, 4), round(e.interval.high, 4)]
                          for kind in ("town", "mafia") if (e := f.estimate(c, kind)) is not None}
                      for c in labels},
    }
    if draft.link is not None:
        calibration["link"] = draft.link.model_dump(mode="json")
    file = FieldFile(name=draft.name, description=draft.description,
                     rules=RulesPart(preset=draft.preset, fingerprint=rules_fingerprint(rules)), deals=deals,
                     ratings=RatingsPart(h=round(h, 4)), members=_members(draft, town, mafia),
                     behaviour=BehaviourPart(games=1, fingerprint="-"), calibration=calibration)  # fmt: skip
    played, fingerprint = behaviour(version)
    file = file.model_copy(update={"behaviour": BehaviourPart(games=played, fingerprint=fingerprint,
                                                              members=alone)})  # fmt: skip
    return file, lines


def _value(f: Any, config: str, kind: str) -> float:
    e = f.estimate(config, kind)
    assert e is not None
    return float(e.interval.value)


def _link(
    link: Link, town: dict[str, float], mafia: dict[str, float], h: float, alone: dict[str, str]
) -> tuple[float, list[str]]:
    """Shift a new version's skills onto an earlier version's scale through anchors whose behaviour is unchanged."""
    old = load_field(link.field)
    by_label = {m.label: m for m in old.members}
    unknown = [a for a in link.anchors if a not in by_label or a not in town]
    if unknown:
        raise FieldError(f"link: anchors {', '.join(unknown)} are not members of both versions")
    changed = [a for a in link.anchors if old.file.behaviour.members.get(a) != alone[a]]
    if changed:
        raise FieldError(f"link: anchors {', '.join(changed)} no longer play as they did in {old.name} (their "
                         "self-play fingerprints differ): an anchor must be unchanged")  # fmt: skip
    shift_t = sum(by_label[a].town - town[a] for a in link.anchors) / len(link.anchors)
    shift_m = sum(by_label[a].mafia - mafia[a] for a in link.anchors) / len(link.anchors)
    for c in town:
        town[c] += shift_t
        mafia[c] += shift_m
    lines = [f"linked to {old.name} through {', '.join(link.anchors)}: town {shift_t:+.3f}, mafia {shift_m:+.3f}"]
    lines += [f"  {a}: town {town[a] - by_label[a].town:+.3f}, mafia {mafia[a] - by_label[a].mafia:+.3f} from "
              f"{old.name}'s" for a in link.anchors]  # fmt: skip
    if not all(math.isfinite(x) for x in (shift_t, shift_m)):
        raise FieldError("link: the shift is not finite")
    return h - shift_t + shift_m, lines
