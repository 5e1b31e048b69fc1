"""Agent definitions: what plays a seat. `agents/*.toml` (one configuration per file, referenced by name) and the
short forms `bot:heuristic`, `bot:random`, `human`, `openai:MODEL` resolve to an AgentSpec."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


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
