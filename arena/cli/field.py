"""`arena field`: the frozen reference fields (list, show, check a field's behaviour, freeze a new version), and the
placement that `arena tournament --field NAME --entrant AGENT` runs (docs/reference.md).

Heavy modules are imported inside the commands; bad input is one `error:` line and exit 2.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.options import fail, no_research, preflight_configs

if TYPE_CHECKING:
    from arena.field.definition import FieldVersion
    from arena.tournament.schedule import GamePlan

field_app = typer.Typer(
    name="field",
    help="Frozen reference fields: list them, show one, check its opponents' behaviour, freeze a new version.",
    no_args_is_help=True,
)


def need_research(command: str) -> None:
    """The fits need the research extra (numpy, scipy, matplotlib): one `error:` line before anything is played,
    where a bare install (`pip install -e .`) would otherwise play a whole placement or calibration and fail at its
    fit with a traceback."""
    try:
        import matplotlib  # noqa: F401
        import numpy  # noqa: F401
        import scipy  # noqa: F401
    except ImportError as exc:
        no_research(command, exc)


def _load(name: str, *, behaviour: bool) -> FieldVersion:
    from arena.field.definition import FieldError, load_field
    from arena.field.fingerprint import check_behaviour

    try:
        field = load_field(name)
        if behaviour:
            check_behaviour(field)
    except FieldError as exc:
        fail(str(exc))
    return field


@field_app.command("list")
def list_fields() -> None:
    """The shipped fields, with their members and rules."""
    from arena.field.definition import field_names

    for name in field_names():
        field = _load(name, behaviour=False)
        members = ", ".join(f"{m.label} {m.combined:+.2f}" for m in field.members)
        typer.echo(f"{name}: {field.file.rules.preset}, {field.file.deals.count} deals; {members}")


@field_app.command("show")
def show(name: Annotated[str, typer.Argument(help="A shipped field (reference-v1) or a field file.")]) -> None:
    """A field's members and frozen ratings, rules, deals and fingerprints."""
    field = _load(name, behaviour=False)
    f = field.file
    typer.echo(f"{f.name}: {f.description}".rstrip(": "))
    typer.echo(f"rules {f.rules.preset} (fingerprint {f.rules.fingerprint[:12]}); deals from seed {f.deals.seed}, "
               f"{f.deals.count} at most, {f.deals.games} games a fixed placement, a pilot of {f.deals.pilot} deals")
    typer.echo(f"side term h = {f.ratings.h:+.3f}")
    typer.echo(f"{'member':<16} {'agent':<14} {'noise':>5} {'town':>7} {'mafia':>7} {'combined':>8}")
    for m in f.members:
        typer.echo(f"{m.label:<16} {m.agent:<14} {m.noise or 0:>5.2f} {m.town:>+7.3f} {m.mafia:>+7.3f} "
                   f"{m.combined:>+8.3f}")  # fmt: skip
    typer.echo(f"behaviour fingerprint {f.behaviour.fingerprint[:12]} over {f.behaviour.games} games; field "
               f"fingerprint {field.fingerprint[:12]}")  # fmt: skip


@field_app.command("check")
def check(name: Annotated[str, typer.Argument(help="A shipped field (reference-v1) or a field file.")]) -> None:
    """Play the field's fingerprint games and check that its opponents still play as when it was frozen."""
    field = _load(name, behaviour=True)
    typer.echo(f"{field.name}: rules, deals and behaviour ({field.file.behaviour.games} games) as frozen")


@field_app.command("freeze")
def freeze(
    draft: Annotated[Path, typer.Argument(help="The draft: members, rules, deals, calibration games (no ratings).")],
    out: Annotated[Path, typer.Option("--out", help="The calibration tournament's folder; the field file too.")],
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Games at once.", min=1)] = 8,
    processes: Annotated[
        int | None, typer.Option(help="Worker processes (default: CPUs, at most --jobs; 0: this one).", min=0)
    ] = None,
    boot: Annotated[int, typer.Option("--boot", min=0, help="Bootstrap resamples for the members' intervals.")] = 200,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No live progress.")] = False,
) -> None:
    """Play a draft's calibration tournament (resumable), fit it once and write the frozen field file into --out."""
    need_research("arena field freeze")
    import tomllib

    from pydantic import ValidationError

    from arena.engine import load_rules
    from arena.field.calibrate import Draft, calibration_plans
    from arena.field.calibrate import freeze as freeze_field
    from arena.field.definition import FieldError
    from arena.safe_read import UnsafeFile, load_toml, read_text
    from arena.tournament.model import Config, PoolEntry, RulesRef, Tournament, TournamentFile

    try:
        spec = Draft.model_validate(load_toml(read_text(draft)))
    except (OSError, UnsafeFile, tomllib.TOMLDecodeError, ValidationError) as exc:
        fail(f"{draft}: {' '.join(str(exc).split())}")
    rules = load_rules(spec.preset)
    from arena.agents import BUILTIN

    configs = [Config(label=m.label, agent=m.agent, spec=BUILTIN[m.agent].model_copy(
        update={"name": m.label, "noise": m.noise})) for m in spec.members]  # fmt: skip
    file = TournamentFile(name=f"{spec.name} calibration", games=spec.calibration_games,
                          seed=spec.deals.seed, rules=RulesRef(preset=spec.preset), schedule="sides",
                          pool=[PoolEntry(label=m.label, agent=m.agent) for m in spec.members])  # fmt: skip
    filler = Config(label="filler", agent="bot:random", spec=BUILTIN["bot:random"].model_copy(
        update={"name": "filler"}), filler=True)  # fmt: skip
    t = Tournament(source=str(draft), file=file, rules=rules, configs=configs, filler=filler)
    play_plans(t, calibration_plans(spec, rules), out, jobs=jobs, progress=not no_progress, processes=processes)
    try:
        frozen, lines = freeze_field(spec, str(out), boot=boot)
    except FieldError as exc:
        fail(str(exc))
    path = out / f"{spec.name}.toml"
    write_field(path, frozen.model_dump(mode="json"))
    for line in lines:
        typer.echo(line)
    for m in frozen.members:
        typer.echo(f"  {m.label:<16} town {m.town:+.3f}  mafia {m.mafia:+.3f}  combined {m.combined:+.3f}")
    typer.echo(f"  side term h = {frozen.ratings.h:+.3f}")
    typer.echo(f"frozen field: {path} (copy it into arena/field/fields/ to ship it)")


def write_field(path: Path, data: dict[str, Any]) -> None:
    """A field file as TOML, written in a fixed order (the calibration's provenance last)."""
    from arena.safe_write import write_file

    lines = [f"name = {_toml(data['name'])}", f"description = {_toml(data['description'])}", ""]
    for part in ("rules", "deals", "ratings"):
        lines += [f"[{part}]", *(f"{k} = {_toml(v)}" for k, v in data[part].items()), ""]
    for m in data["members"]:
        lines += ["[[members]]", *(f"{k} = {_toml(v)}" for k, v in m.items() if v is not None), ""]
    behaviour = data["behaviour"]
    lines += ["[behaviour]", f"games = {behaviour['games']}", f"fingerprint = {_toml(behaviour['fingerprint'])}", "",
              "[behaviour.members]", *(f"{_toml(k)} = {_toml(v)}" for k, v in behaviour["members"].items()), ""]
    calibration = data["calibration"]
    lines += ["[calibration]", *(f"{k} = {_toml(v)}" for k, v in calibration.items() if not isinstance(v, dict)), ""]
    for k, v in calibration.items():
        if isinstance(v, dict):
            lines += [f"[calibration.{k}]", *(f"{_toml(a)} = {_toml(b)}" for a, b in v.items()), ""]
    write_file(path, "\n".join(lines))


def _toml(value: Any) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float | int):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {value!r}")


def play_plans(t: Any, plans: list[GamePlan], out: Path, *, jobs: int = 8, progress: bool = True,
               processes: int | None = None, budget: float | None = None) -> None:  # fmt: skip
    """Play `plans` of tournament `t` into `out` on the local executor (resumable: finished games are read)."""
    import os

    from rich.console import Console

    from arena.tournament.executors import LocalExecutor
    from arena.tournament.manifest import check_folder
    from arena.tournament.model import TournamentError
    from arena.tournament.run import RunOptions, run_tournament

    try:
        check_folder(out, t.fingerprint, t.file.name)
    except TournamentError as exc:
        fail(str(exc))
    count = min(os.cpu_count() or 1, jobs) if processes is None else processes
    specs = {c.label: c.spec for c in [*t.configs, t.filler]}
    options = RunOptions(out=out, jobs=jobs, budget=budget, progress=progress)
    try:
        state = run_tournament(t, plans, specs, lambda: LocalExecutor(count, math.ceil(jobs / max(count, 1))), options,
                               Console(highlight=False, stderr=not progress))  # fmt: skip
    except TournamentError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        typer.echo(f"\ninterrupted; run the same command again to resume ({out})", err=True)
        raise typer.Exit(130) from None
    if state.errors:
        typer.echo(f"note: {state.errors} game(s) did not finish; they are not counted", err=True)


def place_entrant(
    *,
    field_name: str,
    entrant: str | None,
    label: str | None,
    out: Path | None,
    games: int | None,
    until_width: float | None,
    max_games: int | None,
    agents_dir: Path | None,
    prompt_folders: list[Path],
    jobs: int,
    processes: int | None,
    no_progress: bool,
    budget: float | None,
    dry_run: bool = False,
) -> None:
    """`arena tournament --field NAME --entrant AGENT --out DIR`: play and fit a placement."""
    if entrant is None:
        fail("--field: name the agent to place with --entrant (e.g. --entrant bot:heuristic)")
    if out is None and not dry_run:
        fail("--field: give the placement's folder with --out DIR")
    if games is not None and until_width is not None:
        fail("--games and --until-width: choose one (fixed games, or until the interval is narrow enough)")
    if games is not None and (games < 4 or games % 2):
        fail(f"--games: {games} must be even and at least 4 (each deal is played twice, once per side)")
    if until_width is not None and not (math.isfinite(until_width) and until_width > 0):
        fail(f"--until-width: {until_width} must be a positive width in logits, e.g. --until-width 1.0")
    if max_games is not None and (max_games < 4 or max_games % 2):
        fail(f"--max-games: {max_games} must be even and at least 4")
    need_research("arena tournament --field")
    from arena.field.definition import FieldError
    from arena.field.run import cap_deals, resolve_entrant, run_placement, tournament

    field = _load(field_name, behaviour=True)
    try:
        who = resolve_entrant(entrant, field, agents_dir, label=label, prompt_folders=prompt_folders)
    except FieldError as exc:
        fail(str(exc))
    cap = cap_deals(field, max_games)
    if games is not None and games // 2 > cap:
        fail(f"--games: {games} is more than the field's {2 * cap} (its {field.file.deals.count} deals, twice each)")
    t = tournament(field, who, cap)
    if dry_run or out is None:
        for line in plan_lines(field, who.label, games, until_width, cap):
            typer.echo(line)
        return
    specs = preflight_configs(t)
    t = t.model_copy(update={"configs": [c.model_copy(update={"spec": specs[c.label]}) for c in t.configs]})

    def play(plans: list[GamePlan]) -> None:
        play_plans(t, plans, out, jobs=jobs, progress=not no_progress, processes=processes, budget=budget)

    try:
        data = run_placement(field, who, out, play, games=games, width=until_width, max_games=max_games)
    except FieldError as exc:
        fail(str(exc))
    for line in summary(data):
        typer.echo(line)
    typer.echo(f"placement: {out / 'placement.json'}")


def plan_lines(field: Any, label: str, games: int | None, width: float | None, cap: int) -> list[str]:
    """What a placement would play (`--dry-run`): nothing is played or written."""
    from arena.field.run import IDENTIFIES

    f = field.file
    members = ", ".join(f"{m.label} {m.combined:+.2f}" for m in sorted(field.members, key=lambda m: m.combined))
    if width is None:
        deals = min((games or f.deals.games) // 2, cap)
        design = f"{2 * deals} games on {deals} deals (each deal once per side)"
    else:
        pilot = min(f.deals.pilot, cap)
        design = (f"Stein's two stages to a width of {width:g}: a pilot of {pilot} deals, then as many as the "
                  f"pilot's spread needs, at most {2 * cap} games")  # fmt: skip
    return [f"{label} on {field.name} ({f.rules.preset}; members {members}): {design}; the members take turns, "
            f"member d mod {len(field.members)} on deal d", IDENTIFIES.format(field=field.name)]  # fmt: skip


def summary(data: dict[str, Any]) -> list[str]:
    """The placement in a few lines: the combined skill first, then each side, then what it identifies."""
    f, e = data["field"], data["estimates"]
    lines = [f"{data['entrant']['label']} on {f['name']} ({f['rules']}): {data['games']} games on {data['deals']} "
             f"deals; {data['rule']}"]  # fmt: skip
    for kind in ("combined", "town", "mafia"):
        if kind in e:
            x = e[kind]
            lines.append(f"  {kind:<8} {x['value']:+.2f} [{x['low']:+.2f}, {x['high']:+.2f}] (95 %, n = {x['games']} "
                         f"games, {x['deals']} deals)")  # fmt: skip
    members = sorted(f["members"], key=lambda m: m["combined"])
    lines.append("  field:   " + ", ".join(f"{m['label']} {m['combined']:+.2f}" for m in members))
    lines += [f"  note: {note}" for note in data["notes"]]
    if data["not_counted"]:
        lines.append(f"  {len(data['not_counted'])} planned game(s) not counted (placement.json lists why)")
    return lines


def register(app: typer.Typer) -> None:
    app.add_typer(field_app)
