"""Scenario files: load them (errors name the file and the field), play them through the engine, check them.

The runner behind `arena scenario run` and tests/test_scenarios.py; the format is documented in docs/scenarios.md.
A file holds one scenario, or a base plus `cases` that each change part of it; every case is its own game. The
format is parsed in `format`, played by `driver` and compared by `check` (this package).
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

from arena.engine import Game, Role, RulesError, RuleSet, load_rules
from arena.scenario.check import Mismatch, check
from arena.scenario.driver import Driver, ScenarioRunError
from arena.scenario.format import DayScript, NightScript, Scenario
from arena.scenario.notation import PRESET_SEATING, PhaseRef, is_phase_key, parse_phase, parse_seating

SUFFIXES = (".yaml", ".yml")


class ScenarioError(ValueError):
    """A scenario file that cannot be read or does not validate. The message names the file and the field."""


@dataclass
class CaseResult:
    path: Path
    name: str
    mismatches: list[Mismatch] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None  # the case could not be built or played
    game: Game | None = None

    def ok(self, strict: bool = False) -> bool:
        return self.error is None and not self.mismatches and not (strict and self.warnings)


@dataclass
class FileResult:
    path: Path
    cases: list[CaseResult] = field(default_factory=list)
    error: str | None = None  # the file is malformed: no case was run

    def ok(self, strict: bool = False) -> bool:
        return self.error is None and all(c.ok(strict) for c in self.cases)


# ----- loading -------------------------------------------------------------------------------------------------------


def _deep_merge(base: Mapping[str, Any], over: Mapping[str, Any], patch: bool = False) -> dict[str, Any]:
    """Mappings merge key by key; anything else replaces. With `patch` (a case over its base, as in a JSON merge
    patch) a null deletes the key, so a case can drop a phase, an expectation or one seat's decision."""
    out = dict(base)
    for key, value in over.items():
        if patch and value is None:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _deep_merge(out[key], value, patch)
        else:
            out[key] = value
    return out


def _normalise_phase_keys(data: dict[str, Any]) -> dict[str, Any]:
    """'Day 1', 'day1' and 'day 1' are one key, so that a case merges into its base."""
    return {str(parse_phase(k)) if is_phase_key(k) else k: v for k, v in data.items()}


def _where(loc: tuple[int | str, ...]) -> str:
    parts = list(loc)
    if len(parts) >= 2 and parts[0] in ("days", "nights"):
        parts = [f"{'day' if parts[0] == 'days' else 'night'} {parts[1]}", *parts[2:]]
    return " › ".join(str(p) for p in parts) or "(top level)"


_UNION_TAG = re.compile(r"^(constrained-\w+|list\[.*|dict\[.*|literal\[.*|int|str|bool|function-.*)$")


def _model_at(loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The model a location points into, so that an unknown key can be answered with the allowed ones."""
    current: Any = Scenario
    for part in loc:
        if isinstance(current, type) and issubclass(current, BaseModel):
            if not isinstance(part, str) or part not in current.model_fields:
                return None
            current = current.model_fields[part].annotation
        else:
            args = [a for a in get_args(current) if a is not type(None)]
            if get_origin(current) is dict and len(args) == 2:
                current = args[1]
            elif get_origin(current) is list and args:
                current = args[0]
            else:
                models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
                if not models:
                    return None
                current = models[0]
    while not (isinstance(current, type) and issubclass(current, BaseModel)):
        models = [a for a in get_args(current) if isinstance(a, type) and issubclass(a, BaseModel)]
        if not models:
            return None
        current = models[0]
    return current


def _validation_message(exc: ValidationError) -> str:
    merged: dict[tuple[int | str, ...], list[str]] = {}
    for e in exc.errors():
        loc = tuple(p for p in e["loc"] if not (isinstance(p, str) and _UNION_TAG.match(p)))
        msg = e["msg"].removeprefix("Value error, ")
        got = e.get("input")
        if e["type"] == "extra_forbidden":
            model = _model_at(loc[:-1])
            allowed = [f for f in model.model_fields if f not in ("days", "nights")] if model else []
            if model is Scenario:
                allowed += ["day N", "night N", "cases"]
            msg = "unknown key" + (f"; allowed here: {', '.join(allowed)}" if allowed else "")
        elif e["type"] != "value_error" and not isinstance(got, dict | list):
            msg += f"; got {got!r}"
        if msg not in merged.setdefault(loc, []):
            merged[loc].append(msg)
    return "\n".join(f"  {_where(loc)}: {' | '.join(msgs)}" for loc, msgs in merged.items())


def load_cases(path: Path) -> list[tuple[str, Scenario]]:
    """Every case of one file, validated: (case label, scenario). Raises ScenarioError naming the file and field."""
    from arena.safe_read import UnsafeFile, load_yaml, read_text

    try:  # a hostile file (huge, binary, nested, an alias bomb) is one clear message
        data: Any = load_yaml(read_text(path))
    except UnsafeFile as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: a scenario file holds a mapping (name:, rules:, seating:, day 1:, …)")
    data = _normalise_phase_keys(data)
    raw_cases = data.pop("cases", None)
    if raw_cases is None:
        variants: list[tuple[str, dict[str, Any]]] = [("", data)]
    elif not isinstance(raw_cases, list) or not raw_cases:
        raise ScenarioError(f"{path}: cases: a list of mappings, each changing part of the scenario")
    else:
        variants = []
        for i, case in enumerate(raw_cases):
            if not isinstance(case, dict):
                raise ScenarioError(f"{path}: cases › {i}: a mapping, e.g. {{case: b, night 1: {{shoot: 4}}}}")
            case = _normalise_phase_keys(case)
            label = str(case.pop("case", i + 1))
            variants.append((label, _deep_merge(data, case, patch=True)))
    out = []
    for label, raw in variants:
        try:
            scenario = Scenario.model_validate(raw)
        except ValidationError as exc:
            where = f"{path}" + (f" [case {label}]" if label else "")
            raise ScenarioError(f"{where}: invalid scenario:\n{_validation_message(exc)}") from None
        except ValueError as exc:  # raised by a before-validator outside a field
            raise ScenarioError(f"{path}: invalid scenario: {exc}") from None
        prepare(scenario, path, label)  # fail on rules and seating before anything is played
        out.append((label, scenario))
    return out


def _nested(overrides: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in overrides.items():
        nested: Any = value
        for part in reversed(str(key).split(".")):
            nested = {part: nested}
        out = _deep_merge(out, nested)
    return out


def prepare(sc: Scenario, path: Path | None = None, label: str = "") -> tuple[RuleSet, list[Role]]:
    """The rules and the seating of a scenario, checked against each other and against the scripted seats."""
    where = f"{path or sc.name or 'scenario'}" + (f" [case {label}]" if label else "")
    try:
        rules = load_rules(sc.rules.preset, overrides=_nested(sc.rules.overrides) or None)
    except RulesError as exc:
        raise ScenarioError(f"{where}: rules: {exc}") from None
    spec = sc.seating if sc.seating is not None else PRESET_SEATING.get(sc.rules.preset)
    if spec is None:
        raise ScenarioError(f"{where}: seating: required for preset {sc.rules.preset!r}")
    roles = parse_seating(spec)
    want = {r: rules.count(r) for r in Role if rules.count(r)}
    got = {r: roles.count(r) for r in Role if roles.count(r)}
    if len(roles) != rules.players or want != got:
        named = ", ".join(f"{r.value} {n}" for r, n in got.items())
        deal = ", ".join(f"{r.value} {n}" for r, n in want.items())
        raise ScenarioError(f"{where}: seating: {len(roles)} seats ({named}) but the rules deal {deal}")
    bad = sorted(s for s in _scripted_seats(sc) if s > rules.players)
    if bad:
        raise ScenarioError(f"{where}: seat {bad[0]} does not exist: the table has {rules.players} seats")
    return rules, roles


def _scripted_seats(sc: Scenario) -> Iterable[int]:
    start = sc.start
    yield from (start.alive or []) + (start.removed or []) + list(start.fouls)
    for day in sc.days.values():
        yield from _day_seats(day)
    for night in sc.nights.values():
        yield from _night_seats(night)


def _day_seats(day: DayScript) -> Iterable[int]:
    for seat, targets in day.nominate.items():
        yield seat
        yield from targets if isinstance(targets, list) else [targets]
    yield from day.extra + day.lift + day.acquittal + day.threshold
    for rnd in day.votes:
        for nominee, voters in rnd.items():
            yield nominee
            yield from voters if isinstance(voters, list) else []
    yield from (a.seat for a in day.judge)


def _night_seats(night: NightScript) -> Iterable[int]:
    singles = (night.visit, night.don_check, night.sheriff_check, night.sheriff_shoot, night.maniac_kill, night.heal)
    yield from (s for s in singles if s is not None)
    if isinstance(night.shoot, int):
        yield night.shoot
    elif isinstance(night.shoot, dict):
        for shooter, target in night.shoot.items():
            yield shooter
            if target is not None:
                yield target
    yield from (night.best_move or []) + night.kill_order + list(night.meeting)
    yield from (a.seat for a in night.judge)


# ----- running -------------------------------------------------------------------------------------------------------


def stop_phase(sc: Scenario) -> PhaseRef | None:
    """Where a run stops: `until`, else the end of the game when a winner is expected, else the last phase the
    scenario mentions. None means: play to the end."""
    if sc.until is not None:
        return None if sc.until == "end" else parse_phase(sc.until)
    if sc.expect.winner not in (None, "continues"):
        return None
    refs = [*sc.phases(), sc.start.phase]
    refs += [parse_phase(x) for x in [sc.expect.ends] if x]
    refs += [parse_phase(d.when) for d in sc.expect.leaves or [] if d.when]
    return max(refs)


def run_case(sc: Scenario, path: Path, label: str = "") -> CaseResult:
    name = (sc.name or path.stem) + (f" [{label}]" if label else "")
    result = CaseResult(path, name)
    try:
        rules, roles = prepare(sc, path, label)
        game = Game(rules, sc.seed, roles=roles)
        result.game = game
        played = Driver(sc, game).play(stop_phase(sc))
    except (ScenarioError, ScenarioRunError) as exc:
        result.error = str(exc)
        return result
    except Exception as exc:  # an engine crash is a finding, reported with its place
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        result.error = f"engine error {type(exc).__name__}: {exc} (at {frame.filename}:{frame.lineno})"
        return result
    result.mismatches, result.warnings = check(sc, game, played)
    return result


def run_file(path: Path) -> FileResult:
    try:
        cases = load_cases(path)
    except ScenarioError as exc:
        return FileResult(path, error=str(exc))
    return FileResult(path, [run_case(sc, path, label) for label, sc in cases])


def scenario_files(paths: Iterable[Path]) -> list[Path]:
    """The scenario files named, and those under the folders named (recursively), in a stable order."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES and f.is_file())
        else:
            out.append(p)
    return out
