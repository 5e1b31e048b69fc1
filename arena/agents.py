"""Agent definitions: what plays a seat. `NAME.toml` files (one configuration per file, referenced by name) and the
short forms `bot:heuristic`, `bot:random`, `human`, `remote`, `openai:MODEL` resolve to an AgentSpec (`remote`: an
external program plays the seat over HTTP, docs/remote.md).

A name is looked up by `find_agent`, the one lookup every command uses: the `--agents-dir` folder if given, then
`./agents`, then the user's folder (`~/.config/mafia-arena/agents`, or under `$XDG_CONFIG_HOME`), then the examples
shipped with the package. The first folder holding `NAME.toml` wins. A name is a name, never a path.

Your folders decide where a key goes, not a folder that came with someone else's files: `./agents` is whatever the
working directory holds (a shared tournament folder may ship one), so a definition found there that would send a
key, or import code (a LangChain factory), is refused with a message saying how to vouch for it (`--agents-dir`
names a folder as yours; the user folder and the package's examples are yours). Keyless definitions there work.

A definition is checked completely when it is resolved, before any game starts: unknown or ill-typed fields, an
`llm` agent without a model, a base URL that is not http(s), a key pasted where the *name* of its environment
variable belongs, and a key variable that is not set all fail with a message naming the file and the field. An
AgentSpec never holds a key, only the variable's name, because specs are written into transcript headers.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from arena.resources import example_agents_root, shipped_set_dir, vouch_prompt_folder

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
AGENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")  # a file stem: no path separators, no leading dot
NO_KEY = "no-key"  # sent to servers that need none (vLLM, Ollama, llama.cpp) so the SDK does not complain


class AgentSpec(BaseModel):
    """Everything needed to rebuild a seat's player, e.g. on resume. Holds the name of the key variable, never a key."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_by_name=True, serialize_by_alias=True)

    name: str
    kind: Literal["llm", "langchain", "bot", "human", "remote"]  # remote: an external program (docs/remote.md)
    bot: Literal["random", "heuristic"] | None = None
    # a bot at a lower strength: each act (not its words) drawn at random with this chance (arena/players/noisy.py)
    noise: float | None = Field(None, gt=0, le=1, exclude_if=lambda value: value is None)
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=1)  # budget for reasoning and fields; a speech adds its word limit
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    structured: Literal["json_schema", "tools", "json_object", "prompt"] = "json_schema"
    prompt_set: str = "default"
    language: Literal["en", "ru"] | None = None  # None: the game's language (`arena play --lang`)
    persona: str | None = None
    price_input_per_m: float = Field(0.0, ge=0)
    # a file that gives no cached price bills cached tokens at the input price (never at $0), and says so:
    # `cached_price_assumed` marks it (`_cached_price`)
    price_cached_per_m: float = Field(0.0, ge=0)
    price_output_per_m: float = Field(0.0, ge=0)
    cached_price_assumed: bool = Field(False, exclude_if=lambda value: not value)
    # tokens written to the provider's cache (Anthropic: 1.25x the input price); unset: the input price
    price_cache_write_per_m: float | None = Field(None, ge=0, exclude_if=lambda value: value is None)
    timeout_s: float = Field(60.0, gt=0)  # a deadline per HTTP attempt, headers and body together
    # the context budget in tokens (prompt and answer); unset: llama.cpp's per-slot n_ctx where the server reports
    # it (filled in by preflight), else no budget. A conversation about to pass it is compacted (compaction.py)
    context_tokens: int | None = Field(None, ge=256, exclude_if=lambda value: value is None)
    free: bool = Field(False, exclude_if=lambda value: not value)  # a local server: calls cost $0, not "unknown"
    # llama.cpp: send `json_schema` as a grammar with no free whitespace (arena/llm/grammar.py), not response_format
    grammar: bool = Field(False, exclude_if=lambda value: not value)
    # filled by preflight from llama.cpp's /props: its slots; with one per seat, each seat is pinned to its own
    server_slots: int | None = Field(None, ge=1, exclude_if=lambda value: value is None)
    retries: int = Field(4, ge=0, le=10)  # transport retries per call (429, 5xx, timeouts, connection errors)
    extra_body: dict[str, Any] = Field(default_factory=dict)  # provider-specific request fields
    # `stable`: one schema per game and seat on every request (provider prompt caches put it before the messages);
    # `per_request`: a strict schema of each request's legal options (vLLM's and llama.cpp's prefix caches skip it)
    schema_style: Literal["per_request", "stable"] = Field(
        "per_request", alias="schema", exclude_if=lambda value: value == "per_request"
    )
    prompt_cache_key: bool = Field(False, exclude_if=lambda value: not value)  # send one per seat (OpenAI)
    # ask for the provider's prompt cache on every request: the last message marked `cache_control: ephemeral`
    # (Anthropic's breakpoint, through LiteLLM; a cache that must be asked for)
    cache_control: bool = Field(False, exclude_if=lambda value: not value)
    langchain_factory: str | None = None  # "package.module:function" returning a BaseChatModel
    # per-provider limits, shared by every seat of every game in a process (arena/llm/limits.py); unset: no limit
    max_concurrent_requests: int | None = Field(None, ge=1, exclude_if=lambda value: value is None)
    requests_per_minute: float | None = Field(None, gt=0, exclude_if=lambda value: value is None)
    # filled before the game by `arena.llm.preflight`: the model name the server reports; left out of files when unset
    reported_model: str | None = Field(None, exclude_if=lambda value: value is None)

    @model_validator(mode="before")
    @classmethod
    def _cached_price(cls, data: Any) -> Any:
        """A model agent whose file leaves out `price_cached_per_m` pays the input price for cached tokens: a
        provider that discounts them says by how much, and billing them at $0 would let `--budget` run over."""
        if not isinstance(data, dict) or data.get("kind") not in ("llm", "langchain"):
            return data
        price = data.get("price_input_per_m")
        if data.get("price_cached_per_m") is None and isinstance(price, int | float) and price > 0:
            data = {**data, "price_cached_per_m": price, "cached_price_assumed": True}
        return data

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^https?://[^\s/]+", value):
            raise ValueError(f"must be an http:// or https:// URL, got {value!r}")
        return value

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if value.startswith(("sk-", "Bearer ")) or not _ENV_NAME.match(value):
            raise ValueError(
                "must be the NAME of an environment variable holding the key (e.g. OPENAI_API_KEY), "
                "never the key itself"
            )
        return value

    @model_validator(mode="after")
    def _complete(self) -> AgentSpec:
        if self.kind == "llm" and not self.model:
            raise ValueError("kind 'llm' needs a model")
        if self.kind == "langchain" and not self.langchain_factory:
            raise ValueError("kind 'langchain' needs langchain_factory = 'package.module:function'")
        if self.noise is not None and self.kind != "bot":
            raise ValueError("noise applies to bots only")
        if self.langchain_factory is not None and ":" not in self.langchain_factory:
            raise ValueError("langchain_factory must look like 'package.module:function'")
        return self


class AgentError(ValueError):
    """An agent definition that cannot be used; the message names the file and the field."""


BUILTIN = {
    "bot:heuristic": AgentSpec(name="bot:heuristic", kind="bot", bot="heuristic"),
    "bot:random": AgentSpec(name="bot:random", kind="bot", bot="random"),
    "human": AgentSpec(name="human", kind="human"),
    "remote": AgentSpec(name="remote", kind="remote"),
}


# keys handed to this process in memory by a tournament driver (a Dask worker: arena/tournament/dask_worker.py),
# by variable name; they are looked up before the environment and never written into it
_HANDED: dict[str, str] = {}


def hand_keys(keys: dict[str, str]) -> None:
    """Hold `keys` (variable name -> key) in this process's memory for `api_key_for`."""
    _HANDED.update(keys)


def withdraw_keys(names: Iterable[str]) -> None:
    for name in names:
        _HANDED.pop(name, None)


def api_key_for(spec: AgentSpec) -> str | None:
    """The key an `llm` agent sends, read now: a key handed to this process (`hand_keys`), else the environment.

    With `api_key_env` set, that variable must hold the key. Without it, an agent with its own `base_url` (a local
    server) sends the per-run key of `arena local-model` on that port if there is one, else a placeholder, never a
    key meant for another provider; an agent without one leaves the key to the
    SDK, which reads OPENAI_API_KEY (and OPENAI_BASE_URL) as it always does.
    """
    if spec.api_key_env:
        key = _HANDED.get(spec.api_key_env) or os.environ.get(spec.api_key_env)
        if not key:
            raise AgentError(f"agent {spec.name}: the environment variable {spec.api_key_env} (api_key_env) is not set")
        return key
    if spec.base_url:  # a local model server started by `arena local-model` has this run's key (arena/local/key.py)
        from arena.local.key import local_key

        return local_key(spec.base_url) or NO_KEY
    if _HANDED.get("OPENAI_API_KEY"):
        return _HANDED["OPENAI_API_KEY"]
    if not os.environ.get("OPENAI_API_KEY"):
        raise AgentError(
            f"agent {spec.name}: no api_key_env and no base_url, so the OpenAI SDK needs OPENAI_API_KEY, "
            "which is not set"
        )
    return None


def check_ready(spec: AgentSpec) -> None:
    """Fail now, not mid-game, if the agent cannot be used in this environment (e.g. its key variable is unset)."""
    if spec.kind == "llm":
        api_key_for(spec)


def _secret(where: str, error_type: str) -> bool:
    """Never echo what may be a pasted key: the key-variable field and unknown fields (e.g. `api_key = "sk-..."`)."""
    return where == "api_key_env" or error_type == "extra_forbidden"


@dataclass(frozen=True)
class AgentFolder:
    """One place agent definitions are looked up, with how the user would name it. `trusted`: the user vouched for
    it (named it with --agents-dir, or it is the user folder or the package's examples), so its definitions may
    send keys; `./agents` alone is not, since the working directory may be a folder from someone else."""

    where: str  # e.g. "--agents-dir", "./agents", "user folder", "package examples"
    path: Path
    trusted: bool = True


@dataclass(frozen=True)
class AgentFile:
    """A definition file found by the lookup; `shadowed_by` names the earlier folder that wins, if any."""

    name: str
    path: Path
    where: str
    shadowed_by: str | None = None
    trusted: bool = True


def user_agents_dir() -> Path:
    """`$XDG_CONFIG_HOME/mafia-arena/agents`, by default `~/.config/mafia-arena/agents`."""
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "mafia-arena" / "agents"


def agent_folders(agents_dir: Path | None = None) -> list[AgentFolder]:
    """The folders searched for `NAME.toml`, first match wins; the same folder reached twice is listed once."""
    candidates = [
        *([AgentFolder("--agents-dir", agents_dir)] if agents_dir is not None else []),
        AgentFolder("./agents", Path("agents"), trusted=False),
        AgentFolder("user folder", user_agents_dir()),
        AgentFolder("package examples", example_agents_root()),
    ]
    folders: dict[Path, AgentFolder] = {}
    for folder in candidates:
        key = folder.path.resolve()
        if key in folders:  # e.g. ./agents in a checkout is the examples folder too: say so once
            first = folders[key]
            folders[key] = AgentFolder(f"{first.where} = {folder.where}", first.path, first.trusted or folder.trusted)
        else:
            folders[key] = folder
    return list(folders.values())


def check_agent_name(name: str) -> None:
    """AgentError unless `name` can be a definition's file stem (a name, never a path)."""
    if not AGENT_NAME.match(name):
        raise AgentError(
            f"bad agent name {name!r}: a name is a file stem of letters, digits, '.', '_' or '-' "
            "(no path separators); put the file in an agents folder (see `arena agents`)"
        )


def find_agent(name: str, agents_dir: Path | None = None) -> AgentFile | None:
    """The file that defines agent `name`: the first folder of `agent_folders` holding `NAME.toml`."""
    check_agent_name(name)
    for folder in agent_folders(agents_dir):
        path = folder.path / f"{name}.toml"
        if path.is_file():
            return AgentFile(name, path, folder.where, trusted=folder.trusted)
    return None


def list_agents(agents_dir: Path | None = None) -> list[AgentFile]:
    """Every definition in every folder, in lookup order; a name also found in an earlier folder is shadowed."""
    found: list[AgentFile] = []
    first: dict[str, str] = {}
    for folder in agent_folders(agents_dir):
        if not folder.path.is_dir():
            continue
        for path in sorted(folder.path.glob("*.toml")):
            name = path.stem
            if not AGENT_NAME.match(name):
                continue
            found.append(AgentFile(name, path, folder.where, first.get(name), trusted=folder.trusted))
            first.setdefault(name, folder.where)
    return found


def resolve_agent(text: str, agents_dir: Path | None = None, *, check_env: bool = True) -> AgentSpec:
    """Turn a seat spec (`bot:heuristic`, `human`, `openai:MODEL`, or an agent name) into a spec.

    A name is found by `find_agent` (`--agents-dir`, ./agents, the user folder, the package examples).

    With `check_env` (the default) an `llm` agent's key variable must be set, so a game never starts without it.
    """
    if text in BUILTIN:
        return BUILTIN[text]
    if text.startswith("openai:") and len(text) > len("openai:"):
        spec = _openai_with(text.split(":", 1)[1], text, agents_dir)
    else:
        spec = _load_file(text, agents_dir)
    if check_env:
        check_ready(spec)
    return spec


def _openai_with(model: str, name: str, agents_dir: Path | None) -> AgentSpec:
    """`openai:MODEL`: the `openai` definition (found as any name is) with another model. Its prices are the file's
    model's, so another model's are unknown (cost shown as unknown; `--budget` refuses it) until a file gives them."""
    base = _load_file("openai", agents_dir)
    update: dict[str, Any] = {"name": name, "model": model}
    if model != base.model:
        update.update(price_input_per_m=0.0, price_cached_per_m=0.0, price_output_per_m=0.0)
    return base.model_copy(update=update)


def _load_file(name: str, agents_dir: Path | None) -> AgentSpec:
    found = find_agent(name, agents_dir)
    if found is None:
        known = sorted({*BUILTIN, "openai:MODEL", *(a.name for a in list_agents(agents_dir))})
        searched = ", ".join(str(f.path) for f in agent_folders(agents_dir))
        raise AgentError(f"unknown agent {name!r}: no {name}.toml in {searched}; known: {', '.join(known)}")
    spec = load_agent_file(found.path, name)
    risk = needs_trust(spec)
    if risk is not None and not found.trusted:
        raise AgentError(
            f"agent {name!r} ({found.path}) was found in {found.where}, the working directory's folder, and it "
            f"{risk}. A folder you did not name may have come with someone else's files, so it never decides where "
            f"your key goes, what code runs or which templates read your game. If the file is yours, name its "
            f"folder: --agents-dir {found.path.parent}, or move it to {user_agents_dir()}"
        )
    if _prompt_folder(spec):  # a folder a definition you vouch for names: yours, found beside the definition
        folder = vouch_prompt_folder(found.path.parent / spec.prompt_set)
        spec = spec.model_copy(update={"prompt_set": str(folder)})
    return spec


def _prompt_folder(spec: AgentSpec) -> bool:
    """Whether the spec's prompt set is a folder (a path), not a set shipped in `prompts/`."""
    return spec.kind in ("llm", "langchain") and shipped_set_dir(spec.prompt_set) is None


def key_variable(spec: AgentSpec) -> str | None:
    """The variable whose key an `llm` seat sends: its api_key_env, or OPENAI_API_KEY, which the SDK reads itself
    when a spec names neither a variable nor a server."""
    if spec.kind != "llm":
        return spec.api_key_env
    if spec.api_key_env is None and spec.base_url is None:
        return "OPENAI_API_KEY"
    return spec.api_key_env


def needs_trust(spec: AgentSpec) -> str | None:
    """What a definition does that only a folder the user vouches for may decide (a key sent, code imported), or
    None for a keyless server or a bot."""
    if spec.kind == "langchain":
        return f"imports and runs langchain_factory {spec.langchain_factory!r}"
    variable = key_variable(spec)
    if variable is not None:
        return f"would send the key in {variable} to {spec.base_url or 'the OpenAI API (or OPENAI_BASE_URL)'}"
    if _prompt_folder(spec):
        return f"renders the templates of the folder {spec.prompt_set!r} (prompt_set), which could read your files"
    return None


def load_agent_file(path: Path, name: str | None = None) -> AgentSpec:
    """The spec defined by one file (its stem is the name unless it sets `name`); AgentError naming the file."""
    name = name or path.stem
    from arena.safe_read import UnsafeFile, field_errors, load_toml, read_text

    try:  # a hostile file (huge, binary, nested) is one clear message
        data = load_toml(read_text(path, 1024 * 1024))
    except UnsafeFile as exc:
        sep = " is " if str(exc).startswith("not ") else ": "  # "… is not valid TOML: …", "…: larger than …"
        raise AgentError(f"agent file {path}{sep}{exc}") from None
    data.setdefault("name", name)
    try:
        return AgentSpec.model_validate(data)
    except ValidationError as exc:
        heading = f"invalid agent in {path}:"
        raise AgentError(field_errors(exc, heading, lambda _: list(AgentSpec.model_fields), _secret)) from None


def priced(spec: AgentSpec) -> bool:
    """False for a model agent whose cost is unknown: no price set, and not marked `free` (a local server). Its
    cost is shown as unknown, never as $0, and `arena tournament --budget` refuses to start with it."""
    if spec.kind not in ("llm", "langchain"):
        return True
    prices = (spec.price_input_per_m, spec.price_cached_per_m, spec.price_output_per_m)
    return spec.free or any(p > 0 for p in prices)


def unpriced(specs: Iterable[tuple[str, AgentSpec]]) -> list[str]:
    """The labels of the (label, spec) pairs whose cost is unknown (`priced`)."""
    return [label for label, spec in specs if not priced(spec)]
