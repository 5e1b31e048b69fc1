"""What the commands share: the one `error:` exit (and its research-command cases), the options `arena play`,
`arena resume` and `arena serve` declare alike, the signing key read from the environment, and the probe of a
tournament's model configurations (`arena tournament`, `arena field`)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from arena.transcript import TranscriptError, sign_key_from_env

if TYPE_CHECKING:
    from arena.agents import AgentSpec
    from arena.tournament.model import Tournament


class Lang(StrEnum):
    EN = "en"
    RU = "ru"


def fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def need_transcripts(folder: Path) -> None:
    """The folder a research command reads, or one `error:` line."""
    if not folder.is_dir():
        fail(f"{folder}: not a folder of transcripts")


def no_research(command: str, exc: ImportError) -> NoReturn:
    """A research command on a bare install: one `error:` line that says what to install, not a traceback."""
    fail(f"{command} needs the research extra: pip install 'mafia-arena[research]' ({exc})")


# Options that `play`, `resume` (and `serve`) share, declared once.
AgentsDir = Annotated[
    Path | None,
    typer.Option(
        help="A folder of agent definitions searched first (then ./agents, the user folder, the package examples)."
    ),
]
SignKeyEnv = Annotated[
    str | None,
    typer.Option(
        "--sign-key-env", envvar="ARENA_SIGN_KEY_ENV", help="Sign the transcript with the key in this variable."
    ),
]
AllowPipedHuman = Annotated[bool, typer.Option(help="Let a human seat read its answers from a pipe (tests, scripts).")]
HumanTimeout = Annotated[
    float | None, typer.Option(help="Seconds a human seat has for one decision (default: no limit).", min=1)
]


def read_sign_key(variable: str | None) -> bytes | None:
    """The HMAC key for signing, read from the named environment variable (never from a file or the header)."""
    if variable is None:
        return None
    try:
        return sign_key_from_env(variable)
    except TranscriptError as exc:
        fail(str(exc))


def preflight_configs(t: Tournament) -> dict[str, AgentSpec]:
    """Probe each LLM configuration of a tournament once (server up, key accepted) and record the model it reports
    (`arena tournament`, and `arena field` for its entrant); one `error:` line if one fails."""
    import asyncio

    from arena.agents import AgentError

    specs = {c.label: c.spec for c in [*t.configs, t.filler]}
    if not any(spec.kind == "llm" for spec in specs.values()):
        return specs
    from arena.llm.preflight import preflight

    labels = list(specs)
    try:
        probed = asyncio.run(preflight(dict(enumerate(specs.values()))))
    except AgentError as exc:
        fail(str(exc))
    return {labels[i]: spec for i, spec in probed.items()}
