"""A placement run: the entrant against the field on the field's deals, played as a tournament of its own (resumable,
on any executor, with a budget), then fitted with the field fixed and written as `placement.json`.

Deal d (the engine's deal of the field's seed + d) is played twice, with the same cards: game 2d seats the entrant
on the whole town against member d mod k on the whole mafia, game 2d + 1 the same member on the town against the
entrant on the mafia. The deal's luck then falls on both of the entrant's skills alike, and the members take turns,
so any prefix of deals meets every member about as often.

`placement.json` is a pure function of the games' results: no clock, no path, no machine, floats rounded to 1e-4,
so two machines that play the same games (a deterministic entrant, such as a bot) write the same bytes.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.agents import AgentError, AgentSpec, resolve_agent
from arena.field.definition import FieldError, FieldVersion, dealt
from arena.field.fingerprint import whole_sides
from arena.field.place import COMBINED, MAFIA, TOWN, Frozen, Outcome, Placement, place, stein_interval, stein_plan
from arena.safe_write import write_file
from arena.tournament import manifest
from arena.tournament.model import Config, PoolEntry, RulesRef, Tournament, TournamentFile, load_tournament
from arena.tournament.schedule import GamePlan

PLACEMENT = "placement.json"
FORMAT = "mafia-arena-placement"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.+-]")


@dataclass(frozen=True)
class Entrant:
    """What is placed: a label (the seat's agent name in every transcript), the agent as named, and its spec."""

    label: str
    agent: str
    entry: PoolEntry
    spec: AgentSpec


def label_for(agent: str) -> str:
    """A configuration label from an agent name (`bot:heuristic` → `bot-heuristic`): 1-24 safe characters."""
    text = _UNSAFE.sub("-", agent).strip("-._+") or "entrant"
    return text[:24]


def resolve_entrant(
    text: str,
    field: FieldVersion,
    agents_dir: Path | None = None,
    *,
    label: str | None = None,
    check_env: bool = True,
    prompt_folders: Sequence[Path] = (),
) -> Entrant:
    """`--entrant`: an agent name (`bot:heuristic`, `openai:MODEL`, a definition's name), or `FILE.toml:LABEL`, the
    configuration of that tournament file's pool entry (its overrides included, checked as the tournament checks
    them)."""
    file, sep, pool_label = text.rpartition(":")
    if sep and file.endswith(".toml"):
        from arena.tournament.model import TournamentError

        try:
            t = load_tournament(Path(file), agents_dir, check_env=check_env, prompt_folders=prompt_folders)
        except TournamentError as exc:
            raise FieldError(f"--entrant: {exc}") from None
        config = next((c for c in t.configs if c.label == pool_label), None)
        if config is None:
            raise FieldError(f"--entrant: {file} has no pool entry labelled {pool_label!r} "
                             f"(labels: {', '.join(c.label for c in t.configs)})")  # fmt: skip
        entry = next(e for e in t.file.pool if e.label == pool_label)
        name = label or config.label
        spec = config.spec.model_copy(update={"name": name})
        return Entrant(name, text, entry.model_copy(update={"label": name}), spec)
    try:
        spec = resolve_agent(text, agents_dir, check_env=check_env)
    except AgentError as exc:
        raise FieldError(f"--entrant: {exc}") from None
    if spec.kind in ("human", "remote"):
        raise FieldError(f"--entrant: a placement is many games run as a tournament; a {spec.kind} seat plays in "
                         "`arena play`, not there")  # fmt: skip
    name = label or label_for(text)
    try:
        entry = PoolEntry(label=name, agent=text)
    except ValueError:
        raise FieldError(f"--label: {name!r} must be 1-24 letters, digits, and _ . + - (not first)") from None
    if name in field.labels:
        raise FieldError(f"--entrant: the label {name!r} is a member of {field.name}; give another with --label")
    return Entrant(name, text, entry, spec.model_copy(update={"name": name}))


def cap_deals(field: FieldVersion, max_games: int | None) -> int:
    deals = field.file.deals.count
    return min(deals, max_games // 2) if max_games is not None else deals


def tournament(field: FieldVersion, entrant: Entrant, cap: int) -> Tournament:
    """The placement as a tournament: the entrant and the members, `cap` deals at most. Its fingerprint names the
    field, the entrant's configuration and the cap, so a folder holding another placement is refused."""
    pool = [entrant.entry, *(PoolEntry(label=m.label, agent=m.agent) for m in field.members)]
    file = TournamentFile(name=f"{field.name} placement of {entrant.label}", games=2 * cap,
                          seed=field.file.deals.seed, rules=RulesRef(preset=field.file.rules.preset),
                          schedule="sides", pool=pool)  # fmt: skip
    configs = [Config(label=entrant.label, agent=entrant.agent, spec=entrant.spec)]
    configs += [Config(label=m.label, agent=m.agent, spec=m.spec()) for m in field.members]
    filler = Config(label="filler", agent="bot:random", spec=field.members[0].spec().model_copy(
        update={"name": "filler"}), filler=True)  # fmt: skip  # never seated: whole sides fill every seat
    return Tournament(source=field.source, file=file, rules=field.rules, configs=configs, filler=filler)


def member_of(field: FieldVersion, deal: int) -> str:
    return field.labels[deal % len(field.labels)]


def plans(field: FieldVersion, entrant: str, deals: int) -> list[GamePlan]:
    """The first `deals` deals' games, two per deal (the entrant on the town, then on the mafia)."""
    out = []
    for d in range(deals):
        seed = field.deal_seed(d)
        roles = dealt(field.rules, seed)
        member = member_of(field, d)
        out.append(GamePlan(2 * d, seed, whole_sides(roles, entrant, member), tuple(roles)))
        out.append(GamePlan(2 * d + 1, seed, whole_sides(roles, member, entrant), tuple(roles)))
    return out


def frozen(field: FieldVersion) -> Frozen:
    return Frozen(field.file.ratings.h, {m.label: m.town for m in field.members},
                  {m.label: m.mafia for m in field.members})  # fmt: skip


@dataclass
class Played:
    """The placement games counted, and the planned ones that were not (with why)."""

    outcomes: list[tuple[str, Outcome]]  # (game file, outcome)
    skipped: list[tuple[str, str]]  # (game file, why)


def read_games(out: Path, field: FieldVersion, entrant: str, deals: int) -> Played:
    """The planned games of the first `deals` deals, read from their transcripts with the report's rules (a broken
    chain, an unfinished game, a result made of transport failures are not counted; a draw or a maniac win is
    not two-sided)."""
    from arena.research.corpus import load_folder

    corpus = load_folder(out)
    by_file = {Path(g.path).name: g for g in corpus.games}
    why = {Path(path).name: reason for path, reason in corpus.skipped}
    played = Played([], [])
    for plan in plans(field, entrant, deals):
        name = manifest.game_file(plan.index)
        game = by_file.get(name)
        if game is None:
            played.skipped.append((name, why.get(name, "not played")))
            continue
        side = TOWN if plan.index % 2 == 0 else MAFIA  # `plans`: the entrant holds the town in a deal's first game
        if [game.configs[s] for s in sorted(game.configs)] != list(plan.labels):
            played.skipped.append((name, "its seats are not the planned seating"))
            continue
        if game.winner not in (TOWN, MAFIA):
            played.skipped.append((name, f"no two-sided result ({game.winner or 'draw'})"))
            continue
        member = member_of(field, plan.index // 2)
        played.outcomes.append((name, Outcome(plan.index // 2, member, side, game.winner == side)))
    return played


IDENTIFIES = (
    "The entrant's town skill and mafia skill, each a one-parameter fit with every rating of {field} fixed (the side "
    "term and the members' skills as frozen), and their mean, the combined skill, on the field's scale (members' "
    "skills centred at 0 when the field was frozen): the values at which the frozen model predicts the entrant's "
    "results against these opponents, under these rules, on these deals. Adding an entrant never moves the field "
    "or any other entrant."
)


def _r(x: float) -> float | None:
    return None if not math.isfinite(x) else round(x, 4) + 0.0  # + 0.0: never "-0.0"


@dataclass(frozen=True)
class Design:
    """How many games a placement plays: fixed deals, or Stein's two stages to a width within a cap."""

    kind: str  # fixed | stein
    deals: int  # fixed: the deals planned; stein: the deals the second stage planned (known after the pilot)
    cap: int  # the most deals
    pilot: int = 0  # stein: the first stage's deals
    width: float | None = None  # stein: the width asked for

    def data(self) -> dict[str, Any]:
        return {"kind": self.kind, "deals": self.deals, "cap": self.cap, "pilot": self.pilot, "width": self.width}


def placement_data(
    field: FieldVersion, entrant: Entrant, played: Played, result: Placement, design: Design
) -> dict[str, Any]:
    members = [{"label": m.label, "agent": m.agent, "noise": m.noise, "town": _r(m.town), "mafia": _r(m.mafia),
                "combined": _r(m.combined)} for m in field.members]  # fmt: skip
    estimates = {kind: {"value": _r(e.value), "low": _r(e.low), "high": _r(e.high), "se": _r(e.se), "games": e.games,
                        "deals": e.deals} for kind, e in result.estimates.items()}  # fmt: skip
    return {
        "format": FORMAT,
        "version": 1,
        "field": {"name": field.name, "fingerprint": field.fingerprint, "rules": field.rules.name,
                  "h": _r(field.file.ratings.h), "members": members},
        "entrant": {"label": entrant.label, "agent": entrant.agent,
                    "spec": entrant.spec.model_dump(mode="json", exclude={"reported_model"})},
        "identifies": IDENTIFIES.format(field=field.name),
        "design": design.data(),
        "rule": result.rule,
        "deals": result.deals,
        "games": result.games,
        "critical": _r(result.critical),
        "notes": result.notes,
        "estimates": {k: estimates[k] for k in (TOWN, MAFIA, COMBINED) if k in estimates},
        "played": [{"file": name, "deal": o.deal, "member": o.member, "side": o.side, "won": o.won}
                   for name, o in played.outcomes],
        "not_counted": [{"file": name, "why": why} for name, why in played.skipped],
    }


FIELD_COPY = "field.toml"


def write_placement(out: Path, data: dict[str, Any], field: FieldVersion) -> Path:
    """`placement.json`, and beside it a copy of the field definition it was placed on (a site re-derives the
    placement from the games and this copy, checked against the fingerprint the placement records)."""
    write_file(out / FIELD_COPY, Path(field.source).read_text(encoding="utf-8"))
    path = out / PLACEMENT
    write_file(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def field_of(folder: Path, data: dict[str, Any]) -> tuple[FieldVersion, str]:
    """The field a placement folder was placed on, from its copy, checked: rules and deals as this install plays
    them, and the definition the placement names by fingerprint."""
    from arena.field.definition import check_version, parse_field

    path = folder / FIELD_COPY
    text = path.read_text(encoding="utf-8")
    version = check_version(parse_field(path), str(path))
    recorded = str(data.get("field", {}).get("fingerprint", ""))
    if version.fingerprint != recorded:
        raise FieldError(f"{path}: not the field the placement was made on (fingerprint {version.fingerprint[:12]}, "
                         f"placement.json names {recorded[:12]})")  # fmt: skip
    return version, text


PlayFn = Callable[[list[GamePlan]], None]  # plays the given plans into the folder (the command's executor)


def run_placement(
    field: FieldVersion,
    entrant: Entrant,
    out: Path,
    play: PlayFn,
    *,
    games: int | None = None,
    width: float | None = None,
    max_games: int | None = None,
) -> dict[str, Any]:
    """Play and fit a placement; write and return `placement.json`'s data. Fixed games (`games`, else the field's
    default), or Stein's two-stage procedure to an interval at most `width` wide within `max_games`."""
    cap = cap_deals(field, max_games)
    if width is None:
        design = Design("fixed", min((games or field.file.deals.games) // 2, cap), cap)
        play(plans(field, entrant.label, design.deals))
    else:
        pilot = min(field.file.deals.pilot, cap)
        play(plans(field, entrant.label, pilot))
        design = stein_design(out, field, entrant.label, pilot, width, cap)
        if design.deals > pilot:
            play(plans(field, entrant.label, design.deals))
    played, result = fit_folder(out, field, entrant.label, design)
    data = placement_data(field, entrant, played, result, design)
    write_placement(out, data, field)
    return data


def stein_design(out: Path, field: FieldVersion, entrant: str, pilot: int, width: float, cap: int) -> Design:
    """Stein's second stage from the pilot's games in `out`: the deals to play in all."""
    plan = stein_plan(_fit(read_games(out, field, entrant, pilot), field), width, cap)
    return Design("stein", plan.deals, cap, pilot, width)


def fit_folder(out: Path, field: FieldVersion, entrant: str, design: Design) -> tuple[Played, Placement]:
    """The placement of the games in `out` under `design`, re-derived from the transcripts alone (the site's check
    calls this too): fixed deals are fitted as they are; Stein's pilot is refitted to recompute its plan, which
    must give the deals the design recorded."""
    if design.kind == "fixed":
        played = read_games(out, field, entrant, design.deals)
        return played, _fit(played, field)
    assert design.width is not None
    pilot = _fit(read_games(out, field, entrant, design.pilot), field)
    plan = stein_plan(pilot, design.width, design.cap)
    if plan.deals != design.deals:
        raise FieldError(f"{out}: the pilot's games give a plan of {plan.deals} deals, the placement recorded "
                         f"{design.deals}: the pilot's games are not the ones it was planned from")  # fmt: skip
    played = read_games(out, field, entrant, plan.deals)
    return played, stein_interval(_fit(played, field), plan)


def _fit(played: Played, field: FieldVersion) -> Placement:
    if not played.outcomes:
        reasons = sorted({why for _, why in played.skipped})
        raise FieldError(f"no placement game was counted ({'; '.join(reasons[:3])})")
    return place([o for _, o in played.outcomes], frozen(field))
