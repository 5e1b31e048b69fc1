"""What the game commands (`arena play`, `arena resume`, `arena serve`) share: the one `error:` exit, the options
they declare alike, and the signing key read from the environment."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from arena.transcript import TranscriptError, sign_key_from_env


class Lang(StrEnum):
    EN = "en"
    RU = "ru"


def fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


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
