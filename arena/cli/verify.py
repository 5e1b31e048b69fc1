"""`arena verify`: is this file an untouched record of a complete game? One answer, one exit code for scripts.

Why a module of its own: verification is what makes a shared transcript worth citing, and its exit codes are a
contract (documented in docs/cli.md and docs/security.md):

    0  verified, and the game is complete
    1  tampered or inconsistent: a broken hash chain, a bad signature, an event or a call the replay disagrees with
    2  not a transcript (empty, foreign, not UTF-8, newer format, over the size limits, no such file)
    3  verified as far as it goes, but unfinished (no end record) or aborted; `--allow-unfinished` makes this 0
    4  not fully checked: a rewritten prompt (a compaction) could not be rebuilt here, so the file is not vouched for
       (its prompt set is not here or changed since; `--prompt-set` names the set the game used)
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer

VERIFIED = 0
TAMPERED = 1
NOT_A_TRANSCRIPT = 2
UNFINISHED = 3
UNCHECKED = 4


def _fail(message: str, code: int) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def verify_cmd(
    file: Annotated[Path, typer.Argument(help="A transcript (.jsonl).")],
    key_env: Annotated[
        str | None,
        typer.Option("--key-env", help="Check the end record's HMAC signature with the key in this variable."),
    ] = None,
    allow_unfinished: Annotated[
        bool, typer.Option("--allow-unfinished", help="Exit 0 (not 3) for an unfinished or aborted game.")
    ] = False,
    prompt_set: Annotated[
        str | None,
        typer.Option(
            "--prompt-set",
            help="Rebuild the rewritten prompts with this prompt set (a shipped name or a folder you trust): the one "
            "the game used, when it is not shipped here.",
        ),
    ] = None,
) -> None:
    """Check a transcript's hash chain, replay it through the engine and check every event, model call and rewritten
    prompt.

    Exit codes: 0 verified and complete, 1 tampered, 2 not a transcript, 3 unfinished (see --allow-unfinished),
    4 not fully checked (a rewritten prompt could not be rebuilt here; see --prompt-set).
    """
    from arena.transcript import TranscriptError, load, sign_key_from_env, verify

    key = None
    if key_env is not None:
        try:
            key = sign_key_from_env(key_env)
        except TranscriptError as exc:
            _fail(str(exc), NOT_A_TRANSCRIPT)
    try:
        transcript = load(file, repair=True)
    except TranscriptError as exc:
        _fail(str(exc), TAMPERED if exc.damaged else NOT_A_TRANSCRIPT)
    verdict = verify(transcript, key=key)
    for note in verdict.notes:
        typer.echo(f"note: {note}", err=True)
    if not verdict.ok:
        _fail(f"{file}: {verdict.message}", TAMPERED)
    from arena.llm.rebuild import check_compactions  # a compacted prompt must be exactly the one the rules give

    folders = [Path(prompt_set)] if prompt_set is not None and Path(prompt_set).is_dir() else []
    found = check_compactions(transcript, prompt_set=prompt_set, prompt_folders=folders)
    for note in found.notes:
        typer.echo(f"note: {note}", err=True)
    problems = found.problems
    if problems:
        _fail(f"{file}: {problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""), TAMPERED)
    if found.unchecked:
        for line in found.unchecked:
            typer.echo(f"not checked: {line}", err=True)
        _fail(
            f"{file}: not verified: {len(found.unchecked)} group(s) of rewritten prompts could not be rebuilt here "
            "(see above); pass --prompt-set NAME|FOLDER with the prompt set the game used",
            UNCHECKED,
        )
    torn = f" (a torn last line of {len(transcript.torn)} characters left out)" if transcript.torn else ""
    if verdict.outcome == "complete":
        typer.echo(f"OK {file}: {verdict.message}")
        return
    label = "ABORTED" if verdict.outcome == "aborted" else "UNFINISHED"
    hint = "" if verdict.outcome == "aborted" else "; `arena resume` continues it"
    typer.echo(f"{label} {file}: {verdict.message}{torn}{hint}")
    if not allow_unfinished:
        raise typer.Exit(UNFINISHED)


def register(app: typer.Typer) -> None:
    """Add `verify` to `app`."""
    app.command("verify")(verify_cmd)
