"""What a transcript from someone else may decide: nothing that runs, connects or reads a secret.

A transcript header records who played (provenance). It is untrusted data: its author chose every field. So the
seats of `arena resume` come from the LOCAL agent definitions, looked up by the name the header records, and any
difference in the fields that decide where requests go, which key they carry, which templates render and which
code is imported stops the resume before anything runs. `--agents-from-header` (or `--seat N=SPEC`) is the only
way past, and even then a prompt set must be shipped or named on the command line, a LangChain factory and a key
variable must come from a local agent file. This module also redacts what a header must not hold (credentials in a
base URL, `extra_body` values). `docs/security.md` is the user's view of the same rules.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from arena.agents import AgentError, AgentSpec, list_agents, resolve_agent

# the fields that decide where a request goes, which key it carries, what renders and what is imported
TRUSTED = ("kind", "model", "base_url", "api_key_env", "prompt_set", "langchain_factory")
REDACTED = "<redacted>"
_SET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


class TrustError(ValueError):
    """A header that asks for something local definitions do not allow; the message names the seat and field."""


# ----- redaction (the writer side) ------------------------------------------------------------------------------
def redact_url(url: str | None) -> str | None:
    """`http://user:pass@host/v1` → `http://<redacted>@host/v1`; a URL without userinfo is unchanged."""
    if url is None:
        return None
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit((parts.scheme, f"{REDACTED}@{host}", parts.path, parts.query, parts.fragment))


def _redact_values(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _redact_values(item) for key, item in value.items()}
    return REDACTED


def redacted(spec: AgentSpec) -> AgentSpec:
    """The spec as a header may hold it: base URL credentials and every `extra_body` value replaced (keys kept)."""
    url = redact_url(spec.base_url)
    body = _redact_values(spec.extra_body) if spec.extra_body else {}
    if url == spec.base_url and body == spec.extra_body:
        return spec
    return spec.model_copy(update={"base_url": url, "extra_body": body})


# ----- prompt sets ----------------------------------------------------------------------------------------------
def shipped_prompt_set(name: str) -> bool:
    """`default`, or a plain name of a set folder shipped in `prompts/` (never a path)."""
    if name == "default":
        return True
    if not _SET_NAME.match(name) or name == "bots":
        return False
    from arena.prompts import PROMPTS_DIR

    return (PROMPTS_DIR / name).is_dir()


def allowed_prompt_set(name: str, folders: Iterable[Path]) -> bool:
    """A shipped set, or exactly one of the folders the user gave on the command line."""
    if shipped_prompt_set(name):
        return True
    try:
        wanted = Path(name).resolve()
    except (OSError, ValueError):
        return False
    return any(wanted == Path(folder).resolve() for folder in folders)


# ----- resume ---------------------------------------------------------------------------------------------------
def _local_files(agents_dir: Path | None) -> list[AgentSpec]:
    """Every readable local definition the lookup finds (for the key variable and factory allow-lists)."""
    out: list[AgentSpec] = []
    for found in list_agents(agents_dir):
        if found.shadowed_by is not None:
            continue
        try:
            out.append(resolve_agent(found.name, agents_dir, check_env=False))
        except (AgentError, tomllib.TOMLDecodeError):
            continue
    return out


def differences(recorded: AgentSpec, local: AgentSpec) -> list[str]:
    """The trusted fields in which the header's spec differs from the local one (base URLs compared redacted)."""
    mine = redacted(local)
    out = []
    for field in TRUSTED:
        a, b = getattr(recorded, field), getattr(mine, field)
        if a != b:
            out.append(f"{field}: header {a!r}, local {b!r}")
    return out


def _check_header_spec(seat: int, spec: AgentSpec, local_files: list[AgentSpec], folders: list[Path]) -> AgentSpec:
    """`--agents-from-header`: the header's spec, within the limits that still hold."""
    where = f"seat {seat} ({spec.name})"
    if spec.kind in ("llm", "langchain") and not allowed_prompt_set(spec.prompt_set, folders):
        raise TrustError(
            f"{where}: prompt_set {spec.prompt_set!r} is neither shipped in prompts/ nor a folder given with "
            "--prompt-folder"
        )
    if spec.langchain_factory is not None and spec.langchain_factory not in {
        f.langchain_factory for f in local_files if f.langchain_factory
    }:
        raise TrustError(f"{where}: langchain_factory {spec.langchain_factory!r} is in no local agent file")
    if spec.api_key_env is not None:
        # the variable must be one a local definition uses, and only towards that definition's server
        matches = [
            f for f in local_files if f.api_key_env == spec.api_key_env and redact_url(f.base_url) == spec.base_url
        ]
        builtin = spec.api_key_env == "OPENAI_API_KEY" and spec.base_url is None
        if not matches and not builtin:
            raise TrustError(
                f"{where}: api_key_env {spec.api_key_env!r} with base_url {spec.base_url!r} matches no local agent "
                "definition; a key is only sent where a local definition sends it"
            )
        if matches:
            spec = spec.model_copy(update={"base_url": matches[0].base_url})
    if spec.base_url is not None and REDACTED in spec.base_url:
        raise TrustError(f"{where}: the base_url's credentials were redacted; give --seat {seat}=SPEC")
    if any(_has_redacted(v) for v in spec.extra_body.values()):
        raise TrustError(f"{where}: extra_body values were redacted in the header; give --seat {seat}=SPEC")
    return spec


def _has_redacted(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_redacted(v) for v in value.values())
    return bool(value == REDACTED)


def parse_overrides(specs: Iterable[str], players: int, agents_dir: Path | None) -> dict[int, AgentSpec]:
    """`--seat N=SPEC` (also `all=`, `2,5=`, `4-6=`) resolved from local definitions only."""
    out: dict[int, AgentSpec] = {}
    for text in sorted(specs, key=lambda s: not s.startswith("all=")):
        key, sep, name = text.partition("=")
        key, name = key.strip().lower(), name.strip()
        if not sep or not name or not re.match(r"^(all|\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*)$", key):
            raise TrustError(f"bad --seat {text!r}: use N=AGENT, N,M-K=AGENT or all=AGENT")
        try:
            spec = resolve_agent(name, agents_dir)
        except AgentError as exc:
            raise TrustError(str(exc)) from None
        if key == "all":
            targets = list(range(1, players + 1))
        else:
            targets = []
            for part in key.split(","):
                low, _, high = part.partition("-")
                targets.extend(range(int(low), int(high or low) + 1))
        for seat in targets:
            if not 1 <= seat <= players:
                raise TrustError(f"bad --seat {text!r}: seat {seat} does not exist (seats are 1 to {players})")
            out[seat] = spec
    return out


def resume_seats(
    recorded: Mapping[int, AgentSpec],
    agents_dir: Path | None,
    *,
    overrides: Mapping[int, AgentSpec] | None = None,
    from_header: bool = False,
    prompt_folders: Iterable[Path] = (),
) -> dict[int, AgentSpec]:
    """The spec each seat is rebuilt from on resume: a local definition, never the header's word.

    A seat given with `--seat` uses that local spec. Otherwise the header's agent name is resolved locally; a
    missing definition or a difference in a trusted field is collected, and all of them are reported at once (no
    player is built, no request sent). With `from_header`, such a seat uses the header's spec within the limits
    of `_check_header_spec`; a seat whose local definition matches still uses the local one.
    """
    overrides = dict(overrides or {})
    folders = list(prompt_folders)
    local_files = _local_files(agents_dir)
    out: dict[int, AgentSpec] = {}
    problems: list[str] = []
    for seat, spec in sorted(recorded.items()):
        if seat in overrides:
            out[seat] = overrides[seat]
            continue
        try:
            local: AgentSpec | None = resolve_agent(spec.name, agents_dir, check_env=False)
            missing = ""
        except AgentError as exc:
            local, missing = None, str(exc)
        diff = differences(spec, local) if local is not None else []
        if local is not None and not diff:
            out[seat] = local  # the local definition, with its real credentials and extra_body
        elif from_header:
            out[seat] = _check_header_spec(seat, spec, local_files, folders)
        elif local is None:
            problems.append(f"seat {seat}: no local definition of agent {spec.name!r} ({missing})")
        else:
            problems.append(f"seat {seat} ({spec.name}): the local definition differs: {'; '.join(diff)}")
    if problems:
        raise TrustError(
            "the transcript's seats do not match the local agent definitions, so nothing was run:\n  "
            + "\n  ".join(problems)
            + "\n  resume with --seat N=AGENT to choose a seat's agent, or --agents-from-header to use the header's"
        )
    return out
