"""What a transcript from someone else may decide: nothing that runs, connects or reads a secret.

A transcript header records who played (provenance). It is untrusted data: its author chose every field. So the
seats of `arena resume` come from the LOCAL agent definitions, looked up by the name the header records, and any
difference in the fields that decide where requests go, which key they carry, which templates render and which
code is imported stops the resume before anything runs. `--agents-from-header` (or `--seat N=SPEC`) is the only
way past, and even then a seat is played by one of YOUR definitions (in a folder you vouch for, `arena.agents`)
that matches what the header recorded: the same server, model and key variable, or the same LangChain factory.
Only provenance comes from the header (the agent's name, and a prompt set shipped or named with --prompt-folder);
`max_tokens`, `retries`, `persona` and every other field are the local definition's, and a planted `extra_body`
value is refused. An `openai:MODEL` name is no local definition (the name would pick the model). This
module also redacts what a header must not hold (credentials in a base URL, `extra_body` values).
`docs/security.md` is the user's view of the same rules.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from arena.agents import AgentError, AgentSpec, key_variable, list_agents, resolve_agent
from arena.resources import vouch_prompt_folder

# the fields that decide where a request goes, which key it carries, what renders and what is imported
TRUSTED = ("kind", "model", "base_url", "api_key_env", "prompt_set", "langchain_factory")
REDACTED = "<redacted>"
HEADER_CHOSEN = ("openai:",)  # short forms whose name, not a local file, sets the model


class TrustError(ValueError):
    """A header that asks for something local definitions do not allow; the message names the seat and field."""


# ----- redaction (the writer side) ------------------------------------------------------------------------------
def redact_url(url: str | None) -> str | None:
    """Credentials out of a base URL: userinfo (`http://user:pass@host/v1` → `http://<redacted>@host/v1`), every
    query value (`?api-key=s3cret` → `?api-key=<redacted>`, names kept) and the fragment. Path and host stay."""
    if url is None:
        return None
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
    query = "&".join(
        f"{name}={REDACTED}" if sep else REDACTED
        for name, sep, _ in (item.partition("=") for item in parts.query.split("&") if item)
    )
    fragment = REDACTED if parts.fragment else ""
    if (netloc, query, fragment) == (parts.netloc, parts.query, parts.fragment):
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


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
    """`default`, or a plain name of a set folder shipped in `prompts/` (never a path, never the language folders
    `en`/`ru` nor `bots`, which are parts of sets, not sets)."""
    from arena.prompts import shipped_set_dir

    return shipped_set_dir(name) is not None


def allowed_prompt_set(name: str, folders: Iterable[Path]) -> bool:
    """A shipped set, or exactly one of the folders the user gave on the command line (which is then vouched for,
    so that `arena.prompts` loads it)."""
    if shipped_prompt_set(name):
        return True
    try:
        wanted = Path(name).resolve()
    except (OSError, ValueError, RuntimeError):
        return False
    for folder in folders:
        if wanted == Path(folder).resolve():
            vouch_prompt_folder(folder)
            return True
    return False


# ----- resume ---------------------------------------------------------------------------------------------------
def _local_files(agents_dir: Path | None) -> list[AgentSpec]:
    """Every readable definition in the folders the user vouches for (`--agents-dir`, the user folder, the package's
    examples; not a bare `./agents`), in lookup order: what `--agents-from-header` may match a header's seat to."""
    out: list[AgentSpec] = []
    for found in list_agents(agents_dir):
        if found.shadowed_by is not None or not found.trusted:
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
    """`--agents-from-header`: the seat is played by one of your definitions that matches what the header recorded
    (same kind; an `llm` seat: the same server, model and key variable; a LangChain seat: the same factory). Only
    provenance comes from the header: the agent's name, and its prompt set when that is shipped or given with
    --prompt-folder. Everything else (max_tokens, retries, persona, temperature, timeouts, prices, extra_body) is
    the matched definition's, so a header can neither raise what your key pays for nor, keyless, send the game's
    prompts to a server that none of your definitions names."""
    where = f"seat {seat} ({spec.name})"
    if spec.kind in ("bot", "human"):  # nothing is sent anywhere: the built-in player, under the recorded name
        return AgentSpec(name=spec.name, kind=spec.kind, bot=spec.bot if spec.kind == "bot" else None)
    if spec.kind == "langchain":
        matches = [f for f in local_files if f.kind == "langchain" and f.langchain_factory == spec.langchain_factory]
        if not matches:
            raise TrustError(f"{where}: langchain_factory {spec.langchain_factory!r} is in no local agent file")
    else:
        variable = key_variable(spec)
        matches = [
            f
            for f in local_files
            if f.kind == "llm"
            and key_variable(f) == variable
            and redact_url(f.base_url) == spec.base_url
            and f.model == spec.model
        ]
        if not matches and variable is not None:
            raise TrustError(
                f"{where}: api_key_env {variable!r} with base_url {spec.base_url!r} and model {spec.model!r} matches "
                f"no local agent definition; a key is only sent where, and for the model, a local definition sends "
                f"it (give --seat {seat}=AGENT to choose)"
            )
        if not matches:
            raise TrustError(
                f"{where}: base_url {spec.base_url!r} with model {spec.model!r} matches no local agent definition; "
                f"the header alone never chooses where the game's prompts go (give --seat {seat}=AGENT to choose)"
            )
    if spec.extra_body and not _all_redacted(spec.extra_body):
        # the writer redacts every value, so a header can hold only redacted ones: anything else was planted
        raise TrustError(
            f"{where}: extra_body holds values a transcript never holds (the writer redacts them), so the file's "
            f"author put them there; nothing was sent. Give --seat {seat}=SPEC"
        )
    local = matches[0]
    prompt_set = local.prompt_set
    if spec.prompt_set != local.prompt_set:  # the set the game was played with, if you allow it
        if not allowed_prompt_set(spec.prompt_set, folders):
            raise TrustError(
                f"{where}: prompt_set {spec.prompt_set!r} is neither shipped in prompts/ nor a folder given with "
                "--prompt-folder"
            )
        prompt_set = spec.prompt_set
    return local.model_copy(update={"name": spec.name, "prompt_set": prompt_set})


def _all_redacted(value: Any) -> bool:
    if isinstance(value, dict):
        return bool(value) and all(_all_redacted(v) for v in value.values())
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
        local: AgentSpec | None = None
        if spec.name.startswith(HEADER_CHOSEN):
            # `openai:MODEL` is no local definition: the header's name alone would pick the model for your key
            missing = f"the name picks the model, so choose it: --seat {seat}={spec.name}"
        else:
            try:
                local, missing = resolve_agent(spec.name, agents_dir, check_env=False), ""
            except AgentError as exc:
                missing = str(exc)
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
