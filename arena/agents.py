"""Agent definitions: what plays a seat. `agents/*.toml` (one configuration per file, referenced by name) and the
short forms `bot:heuristic`, `bot:random`, `human`, `openai:MODEL` resolve to an AgentSpec.

A definition is checked completely when it is resolved, before any game starts: unknown or ill-typed fields, an
`llm` agent without a model, a base URL that is not http(s), a key pasted where the *name* of its environment
variable belongs, and a key variable that is not set all fail with a message naming the file and the field. An
AgentSpec never holds a key, only the variable's name, because specs are written into transcript headers.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
NO_KEY = "no-key"  # sent to servers that need none (vLLM, Ollama, llama.cpp) so the SDK does not complain


class AgentSpec(BaseModel):
    """Everything needed to rebuild a seat's player, e.g. on resume. Holds the name of the key variable, never a key."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    kind: Literal["llm", "langchain", "bot", "human"]
    bot: Literal["random", "heuristic"] | None = None
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
    price_cached_per_m: float = Field(0.0, ge=0)
    price_output_per_m: float = Field(0.0, ge=0)
    timeout_s: float = Field(60.0, gt=0)  # per HTTP attempt
    retries: int = Field(4, ge=0, le=10)  # transport retries per call (429, 5xx, timeouts, connection errors)
    extra_body: dict[str, Any] = Field(default_factory=dict)  # provider-specific request fields
    langchain_factory: str | None = None  # "package.module:function" returning a BaseChatModel
    # per-provider limits, shared by every seat of every game in a process (arena/llm/limits.py); unset: no limit
    max_concurrent_requests: int | None = Field(None, ge=1, exclude_if=lambda value: value is None)
    requests_per_minute: float | None = Field(None, gt=0, exclude_if=lambda value: value is None)
    # filled before the game by `arena.llm.preflight`: the model name the server reports; left out of files when unset
    reported_model: str | None = Field(None, exclude_if=lambda value: value is None)

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
        if self.langchain_factory is not None and ":" not in self.langchain_factory:
            raise ValueError("langchain_factory must look like 'package.module:function'")
        return self


class AgentError(ValueError):
    """An agent definition that cannot be used; the message names the file and the field."""


BUILTIN = {
    "bot:heuristic": AgentSpec(name="bot:heuristic", kind="bot", bot="heuristic"),
    "bot:random": AgentSpec(name="bot:random", kind="bot", bot="random"),
    "human": AgentSpec(name="human", kind="human"),
}


def api_key_for(spec: AgentSpec) -> str | None:
    """The key an `llm` agent sends, read from the environment now.

    With `api_key_env` set, that variable must hold the key. Without it, an agent with its own `base_url` (a local
    server) sends a placeholder, never a key meant for another provider; an agent without one leaves the key to the
    SDK, which reads OPENAI_API_KEY (and OPENAI_BASE_URL) as it always does.
    """
    if spec.api_key_env:
        key = os.environ.get(spec.api_key_env)
        if not key:
            raise AgentError(f"agent {spec.name}: the environment variable {spec.api_key_env} (api_key_env) is not set")
        return key
    if spec.base_url:
        return NO_KEY
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


def _fields_message(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'definition'}: {e['msg']}" for e in exc.errors())


def resolve_agent(text: str, agents_dir: Path | None = None, *, check_env: bool = True) -> AgentSpec:
    """Turn a seat spec (`bot:heuristic`, `human`, `openai:MODEL`, or the name of a file in agents/) into a spec.

    With `check_env` (the default) an `llm` agent's key variable must be set, so a game never starts without it.
    """
    if text in BUILTIN:
        return BUILTIN[text]
    if text.startswith("openai:") and len(text) > len("openai:"):
        model = text.split(":", 1)[1]
        spec = AgentSpec(name=text, kind="llm", model=model, api_key_env="OPENAI_API_KEY")
    else:
        spec = _load_file(text, agents_dir or Path("agents"))
    if check_env:
        check_ready(spec)
    return spec


def _load_file(name: str, folder: Path) -> AgentSpec:
    path = folder / f"{name}.toml"
    if not path.is_file():
        known = sorted([*BUILTIN, "openai:MODEL", *(p.stem for p in folder.glob("*.toml"))])
        raise AgentError(f"unknown agent {name!r}: no file {path}; known: {', '.join(known)}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise AgentError(f"{path}: not valid TOML: {exc}") from exc
    data.setdefault("name", name)
    try:
        return AgentSpec.model_validate(data)
    except ValidationError as exc:
        raise AgentError(f"{path}: {_fields_message(exc)}") from None
