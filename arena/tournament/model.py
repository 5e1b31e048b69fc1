"""The tournament file: a pool of configurations, the rules, how many games, the base seed, and the output folder.

```toml
name = "bots"
games = 200
seed = 1                     # optional: else 128 random bits, drawn at the start and kept in the manifest
filler = "bot:random"        # fills the seats the pool leaves empty
[rules]
preset = "fiim"              # or file = "my-rules.toml"; overrides = ["voting.protocol=ballot"]
[[pool]]
label = "heur"
agent = "bot:heuristic"
[[pool]]
label = "gpt-hot"
agent = "openai"             # agents/openai.toml
temperature = 1.2            # optional overrides: temperature, prompt_set, persona, language, max_tokens
```

Everything is checked when the file is loaded, before any game starts; an error names the field
(`pool[2].label: duplicate label 'a'`). `load_tournament` resolves the agents (with their keys' variables checked
unless `check_env` is off, as for a dry run) and the rules.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from arena.agents import AgentError, AgentSpec, key_variable, resolve_agent
from arena.engine import RulesError, RuleSet, load_rules
from arena.llm.budget import DEFAULT_BASE_TOKENS
from arena.trust import allowed_prompt_set, shipped_prompt_set

_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,23}$")
# the name is printed on the terminal (progress, standings): no escape sequences, no Rich markup brackets
_NAME = re.compile(r"^[^\W_][\w .,:;+()#/@-]{0,79}$")
RULES_SUFFIXES = (".toml", ".yaml", ".yml")
OVERRIDES = ("temperature", "prompt_set", "persona", "language", "max_tokens")
MANIFEST = "tournament.json"  # the output folder's record of the run (`manifest.py`)
MAX_MANIFEST_BYTES = 256 * 1024 * 1024  # an index of games: large tournaments stay far below this


def _short(value: str) -> str:
    if not _LABEL.match(value):
        raise ValueError("must be 1-24 characters: letters, digits, and _ . + - (not first)")
    return value


# A configuration's label, the seat's agent name in every transcript: a pool entry's, and a field member's (a field
# placement plays its members as pool entries)
Label = Annotated[str, AfterValidator(_short)]


class TournamentError(ValueError):
    """A tournament that cannot run; the message names the file and the field."""


class PoolEntry(BaseModel):
    """One configuration: an agent definition by name, optional overrides, and a short unique label."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: Label
    agent: str
    temperature: float | None = Field(None, ge=0, le=2)
    prompt_set: str | None = None
    persona: str | None = None
    language: Literal["en", "ru"] | None = None
    max_tokens: int | None = Field(None, ge=1)

    def overrides(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in OVERRIDES if getattr(self, name) is not None}


class RulesRef(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    preset: str | None = None
    file: str | None = None
    overrides: list[str] = Field(default_factory=list)


class TournamentFile(BaseModel):
    """The file as written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "tournament"
    games: int = Field(gt=0)
    # None: drawn (`arena.seeds`, 128 bits) when the tournament starts, kept in its manifest for a resume; a seed
    # chosen here reproduces the schedule and the bots' play, and a small one can be found by search
    seed: int | None = Field(None, ge=0)
    out: str | None = None  # the output folder; `--out` overrides it
    rules: RulesRef = Field(default_factory=RulesRef)
    seats: int | None = Field(None, ge=1)  # optional check: must not exceed the rules' players
    filler: str = "bot:random"
    lang: Literal["en", "ru"] = "en"
    timeout_s: float = Field(120.0, gt=0)
    max_reasks: int = Field(2, ge=0)
    # arena/tournament/schedule.py: `sides` (whole sides) rates both skills; `seats` (one seat each) only a combination
    schedule: Literal["sides", "seats"] = "sides"
    pool: list[PoolEntry] = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _printable(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError(
                "must be 1-80 letters, digits, spaces or _ . , : ; + - ( ) # / @, starting with a letter or digit "
                "(it is printed on the terminal)"
            )
        return value

    @model_validator(mode="after")
    def _unique(self) -> TournamentFile:
        seen: set[str] = set()
        for index, entry in enumerate(self.pool):
            if entry.label in seen:
                raise ValueError(f"pool[{index}].label: duplicate label {entry.label!r}")
            seen.add(entry.label)
        return self


class Config(BaseModel):
    """A resolved configuration: its label and the AgentSpec its seats get (named by the label)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str
    agent: str
    spec: AgentSpec
    filler: bool = False


class Tournament(BaseModel):
    """A loaded, checked tournament."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    file: TournamentFile
    rules: RuleSet
    configs: list[Config]
    filler: Config

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def fingerprint(self) -> str:
        """What makes two runs the same tournament: the file's content, the rules and the agents, not the paths."""
        data: dict[str, Any] = {
            "file": self.file.model_dump(mode="json", exclude={"out"}),
            "rules": self.rules.model_dump(mode="json"),
            "configs": [c.spec.model_dump(mode="json", exclude={"reported_model"}) for c in self.configs],
            "filler": self.filler.spec.model_dump(mode="json", exclude={"reported_model"}),
        }
        if self.file.schedule == "seats":  # its seatings are drawn per block since issue 32: other games than before
            data["seating"] = 2
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    @property
    def seed(self) -> int:
        """The base seed (game i's is `seed + i`), settled when the file was loaded (`load_tournament`)."""
        assert self.file.seed is not None, "load_tournament settles the seed"
        return self.file.seed

    def config(self, label: str) -> Config:
        if label == self.filler.label:
            return self.filler
        return next(c for c in self.configs if c.label == label)


def _field_errors(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        loc = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in error["loc"]).replace(".[", "[")
        message = str(error["msg"]).removeprefix("Value error, ")
        if not loc and message.startswith("pool["):
            parts.append(message)
        else:
            parts.append(f"{loc or 'file'}: {message}")
    return "; ".join(parts)


def parse_file(path: Path) -> TournamentFile:
    from arena.safe_read import UnsafeFile, load_toml, read_text

    if not path.exists():
        raise TournamentError(f"cannot read {path}: No such file or directory")
    try:  # a hostile file (huge, a device, not UTF-8, nested thousands deep) is one clear message
        data = load_toml(read_text(path))
    except UnsafeFile as exc:
        raise TournamentError(f"{path}: {' '.join(str(exc).split())}") from None
    try:
        return TournamentFile.model_validate(data)
    except ValidationError as exc:
        raise TournamentError(f"{path}: {_field_errors(exc)}") from None


def _resolve(
    entry: PoolEntry,
    where: str,
    agents_dir: Path | None,
    check_env: bool,
    base: Path,
    prompt_folders: Sequence[Path],
) -> AgentSpec:
    try:
        spec = resolve_agent(entry.agent, agents_dir, check_env=check_env)
    except AgentError as exc:
        raise TournamentError(f"{where}.agent: {exc}") from None
    overrides = entry.overrides()
    if overrides and spec.kind not in ("llm", "langchain"):
        raise TournamentError(f"{where}: {', '.join(overrides)} only apply to LLM agents, not {entry.agent!r}")
    overrides = _safe_overrides(spec, overrides, where, base, prompt_folders)
    try:
        return AgentSpec.model_validate({**spec.model_dump(), **overrides, "name": entry.label})
    except ValidationError as exc:
        raise TournamentError(f"{where}: {_field_errors(exc)}") from None


def _safe_overrides(
    spec: AgentSpec, overrides: dict[str, Any], where: str, base: Path, prompt_folders: Sequence[Path]
) -> dict[str, Any]:
    """What a tournament file may change of one of your agents. A tournament file may be someone else's, so it
    changes only the documented safe fields (docs/tournaments.md, "Overrides"):
    - `temperature` and `language`, of any agent;
    - `prompt_set`: a set shipped in `prompts/`, or a folder you name with --prompt-folder (never a folder of the
      file's choosing: its templates could read your files); a path is read from the tournament file's folder and
      recorded as that folder's real path;
    - of an agent that sends a key (`api_key_env`, the OpenAI default, or a LangChain factory, which reads its own):
      `max_tokens` only at or below the definition's own budget, and no other persona than the definition's, since
      both go out with your key; an agent without a key (a local server) takes any `max_tokens` and `persona`."""
    out = dict(overrides)
    name = out.get("prompt_set")
    if name is not None and name != spec.prompt_set and not shipped_prompt_set(name):
        folder = base / name  # a path in the file is read from the file's folder, as its rules file is
        if not allowed_prompt_set(str(folder), prompt_folders):
            raise TournamentError(
                f"{where}.prompt_set: {name!r} is neither a set shipped in prompts/ nor a folder given with "
                "--prompt-folder; a tournament file never chooses the templates your agents render"
            )
        out["prompt_set"] = str(folder.resolve())
    if spec.kind == "langchain" or key_variable(spec) is not None:
        sends = "reads its own keys" if spec.kind == "langchain" else f"sends your key ({key_variable(spec)})"
        budget = spec.max_tokens or DEFAULT_BASE_TOKENS
        if out.get("max_tokens") is not None and out["max_tokens"] > budget:
            raise TournamentError(
                f"{where}.max_tokens: {out['max_tokens']} is over the {budget} of agent {spec.name!r}, which {sends}; "
                "a tournament file may lower what your key pays for, never raise it (raise it in the agent's own "
                "definition)"
            )
        if out.get("persona") is not None and out["persona"] != spec.persona:
            raise TournamentError(
                f"{where}.persona: agent {spec.name!r} {sends}, so a tournament file does not give it another "
                "persona (the text goes out with your key); put the persona in an agent definition of yours"
            )
    return out


def _rules_file(path: Path, name: str) -> Path:
    """The rules file a tournament names: a TOML or YAML file inside the tournament file's folder (a file from
    someone else must not make the command read, and echo in its errors, `/etc/shadow` or `../../.ssh/config`)."""
    base = path.parent.resolve()
    target = (path.parent / name).resolve()
    if Path(name).is_absolute() or not target.is_relative_to(base) or target.suffix not in RULES_SUFFIXES:
        raise TournamentError(
            f"{path}: rules.file: {name!r} must be a .toml or .yaml file inside the tournament file's folder "
            f"({path.parent})"
        )
    return target


def _settled_seed(file: TournamentFile, out: Path | None) -> TournamentFile:
    """The file with its base seed settled: its own if it names one; else the seed recorded in the output folder's
    manifest (a resume plays the same schedule); else a fresh one of 128 random bits (`arena.seeds`), which no seat
    can search for, as it could a small number. The manifest records it."""
    if file.seed is not None:
        return file
    from arena.seeds import draw_seed

    folder = out if out is not None else (Path(file.out) if file.out else None)
    recorded = _recorded_seed(folder) if folder is not None else None
    return file.model_copy(update={"seed": recorded if recorded is not None else draw_seed()})


def _recorded_seed(out: Path) -> int | None:
    """The base seed in `out`'s manifest, if it holds a readable one (the folder check reports any other problem)."""
    from arena.safe_read import UnsafeFile, open_regular

    try:
        with open_regular(out / MANIFEST) as handle:  # never through a link, never a FIFO
            data = json.loads(handle.read(MAX_MANIFEST_BYTES + 1).decode("utf-8"))
    except (OSError, UnsafeFile, ValueError, RecursionError):
        return None
    seed = data.get("seed") if isinstance(data, dict) else None
    return seed if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 else None


def load_tournament(
    path: Path,
    agents_dir: Path | None = None,
    *,
    check_env: bool = True,
    out: Path | None = None,
    prompt_folders: Sequence[Path] = (),
) -> Tournament:
    """Read and check a tournament file; every error names the file and the field. A file that names no seed gets
    the one recorded in the output folder (`out`, else the file's `out`), or a fresh one. A pool entry's overrides
    are checked by `_safe_overrides` (`prompt_folders`: the folders given with --prompt-folder)."""
    file = _settled_seed(parse_file(path), out)
    try:
        rules_file = _rules_file(path, file.rules.file) if file.rules.file else None
        rules = load_rules(file.rules.preset, rules_file, file.rules.overrides or None)
    except RulesError as exc:
        raise TournamentError(f"{path}: rules: {exc}") from None
    if file.seats is not None and file.seats > rules.players:
        raise TournamentError(f"{path}: seats: {file.seats} seats, but the rules {rules.name!r} seat {rules.players}")
    configs = [
        Config(
            label=e.label,
            agent=e.agent,
            spec=_resolve(e, f"{path}: pool[{i}]", agents_dir, check_env, path.parent, prompt_folders),
        )
        for i, e in enumerate(file.pool)
    ]
    if any(c.spec.kind == "human" for c in configs):
        raise TournamentError(f"{path}: pool: a human cannot play a tournament seat")
    if any(c.spec.kind == "remote" for c in configs):  # its games run in workers, many at once (docs/remote.md)
        raise TournamentError(f"{path}: pool: a remote agent plays in `arena play`, not yet in a tournament")
    try:
        filler_spec = resolve_agent(file.filler, agents_dir, check_env=check_env)
    except AgentError as exc:
        raise TournamentError(f"{path}: filler: {exc}") from None
    if filler_spec.kind in ("human", "remote"):
        raise TournamentError(f"{path}: filler: a {filler_spec.kind} agent cannot fill tournament seats")
    label = "filler"
    if label in {c.label for c in configs}:
        raise TournamentError(f"{path}: pool: the label 'filler' is kept for the filler")
    filler = Config(label=label, agent=file.filler, spec=filler_spec.model_copy(update={"name": label}), filler=True)
    return Tournament(source=str(path), file=file, rules=rules, configs=configs, filler=filler)
