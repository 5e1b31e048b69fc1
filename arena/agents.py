"""Agent definitions: what plays a seat. `agents/*.toml` (one configuration per file, referenced by name) and the
short forms `bot:heuristic`, `bot:random`, `human`, `openai:MODEL` resolve to an AgentSpec."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError


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
    max_tokens: int | None = Field(None, ge=1)
    structured: Literal["json_schema", "tools", "json_object", "prompt"] = "json_schema"
    prompt_set: str = "default"
    language: Literal["en", "ru"] = "en"
    persona: str | None = None
    price_input_per_m: float = Field(0.0, ge=0)
    price_cached_per_m: float = Field(0.0, ge=0)
    price_output_per_m: float = Field(0.0, ge=0)
    langchain_factory: str | None = None  # "package.module:function" returning a BaseChatModel


class AgentError(ValueError):
    """An agent definition that cannot be used; the message names the file and the field."""


BUILTIN = {
    "bot:heuristic": AgentSpec(name="bot:heuristic", kind="bot", bot="heuristic"),
    "bot:random": AgentSpec(name="bot:random", kind="bot", bot="random"),
    "human": AgentSpec(name="human", kind="human"),
}


def resolve_agent(text: str, agents_dir: Path | None = None) -> AgentSpec:
    """Turn a seat spec (`bot:heuristic`, `human`, `openai:MODEL`, or the name of a file in agents/) into a spec."""
    if text in BUILTIN:
        return BUILTIN[text]
    if text.startswith("openai:") and len(text) > len("openai:"):
        model = text.split(":", 1)[1]
        return AgentSpec(name=text, kind="llm", model=model, api_key_env="OPENAI_API_KEY")
    folder = agents_dir or Path("agents")
    path = folder / f"{text}.toml"
    if not path.is_file():
        known = sorted([*BUILTIN, "openai:MODEL", *(p.stem for p in folder.glob("*.toml"))])
        raise AgentError(f"unknown agent {text!r}: no file {path}; known: {', '.join(known)}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise AgentError(f"{path}: not valid TOML: {exc}") from exc
    data.setdefault("name", text)
    try:
        return AgentSpec.model_validate(data)
    except ValidationError as exc:
        fields = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise AgentError(f"{path}: {fields}") from None
