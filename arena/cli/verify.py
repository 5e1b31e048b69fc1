"""`arena verify`: is this file an untouched record of a complete game? One answer, one exit code for scripts.

Why a module of its own: verification is what makes a shared transcript worth citing, and its exit codes are a
contract (documented in docs/cli.md and docs/security.md):

    0  verified, and the game is complete
    1  tampered or inconsistent: a broken hash chain, a bad signature, an event or a call the replay disagrees with
    2  not a transcript (empty, foreign, not UTF-8, newer format, over the size limits, no such file)
    3  verified as far as it goes, but unfinished (no end record) or aborted; `--allow-unfinished` makes this 0
    4  not fully checked: a rewritten prompt (a compaction, a first turn) could not be rebuilt here, so the file is not
       vouched for (its prompt set is not here, or not the one the game used; `--prompt-set` names that set)
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
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


@dataclass
class Checked:
    """One file's verdict: its exit code, what goes to stdout (`said`) and to stderr (`notes`, the error)."""

    path: str
    code: int
    said: str = ""
    notes: list[str] = field(default_factory=list)


def check(file: Path, key: bytes | None, allow_unfinished: bool, prompt_set: str | None = None) -> Checked:
    """Verify one transcript (`arena.transcript.verify`, then every rewritten prompt's rebuild); never raises."""
    from arena.transcript import TranscriptError, load, verify

    try:
        transcript = load(file, repair=True)
    except TranscriptError as exc:
        return Checked(str(file), TAMPERED if exc.damaged else NOT_A_TRANSCRIPT, notes=[f"error: {exc}"])
    verdict = verify(transcript, key=key)
    notes = [f"note: {note}" for note in verdict.notes]
    if not verdict.ok:
        return Checked(str(file), TAMPERED, notes=[*notes, f"error: {file}: {verdict.message}"])
    from arena.llm.rebuild import check_compactions  # a compacted prompt must be exactly the one the rules give

    folders = [Path(prompt_set)] if prompt_set is not None and Path(prompt_set).is_dir() else []
    found = check_compactions(transcript, prompt_set=prompt_set, prompt_folders=folders)
    notes += [f"note: {note}" for note in found.notes]
    problems = found.problems
    if problems:
        extra = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return Checked(str(file), TAMPERED, notes=[*notes, f"error: {file}: {problems[0]}{extra}"])
    if found.unchecked:  # never passed: a prompt nobody here can rebuild is a prompt nobody checked
        notes += [f"not checked: {line}" for line in found.unchecked]
        why = (f"error: {file}: not verified: {len(found.unchecked)} group(s) of rewritten prompts could not be "
               "rebuilt here (see above); pass --prompt-set NAME|FOLDER with the prompt set the game used")  # fmt: skip
        return Checked(str(file), UNCHECKED, notes=[*notes, why])
    torn = f" (a torn last line of {len(transcript.torn)} characters left out)" if transcript.torn else ""
    if verdict.outcome == "complete":
        return Checked(str(file), VERIFIED, f"OK {file}: {verdict.message}", notes)
    label = "ABORTED" if verdict.outcome == "aborted" else "UNFINISHED"
    hint = "" if verdict.outcome == "aborted" else "; `arena resume` continues it"
    code = VERIFIED if allow_unfinished else UNFINISHED
    return Checked(str(file), code, f"{label} {file}: {verdict.message}{torn}{hint}", notes)


def _show(checked: Checked) -> None:
    for note in checked.notes:
        typer.echo(note, err=True)
    if checked.said:
        typer.echo(checked.said)


def folder_files(folder: Path) -> list[Path]:
    """Every `*.jsonl` under `folder`, in name order, never through a link (as `arena report` reads a folder)."""
    return sorted(p for p in folder.rglob("*.jsonl") if not p.is_symlink() and not any(
        parent.is_symlink() for parent in p.relative_to(folder).parents if parent != Path(".")))  # fmt: skip


WORST = (TAMPERED, NOT_A_TRANSCRIPT, UNCHECKED, UNFINISHED, VERIFIED)  # a folder's exit code: the first any file has


def verify_folder(
    folder: Path, key: bytes | None, allow_unfinished: bool, jobs: int, progress: bool, prompt_set: str | None = None
) -> int:
    """Verify every transcript under `folder` on `jobs` processes; each file's line, then one summary line. The
    exit code is the worst file's (tampered, then not a transcript, then unfinished), 2 for a folder with none."""
    files = folder_files(folder)
    if not files:
        _fail(f"{folder}: no transcripts (*.jsonl) in this folder", NOT_A_TRANSCRIPT)
    from rich.progress import Progress

    results: list[Checked] = []
    with Progress(transient=True, disable=not progress) as bar:
        task = bar.add_task(f"verifying {len(files)} transcripts", total=len(files))
        if jobs <= 1 or len(files) == 1:
            for path in files:
                results.append(check(path, key, allow_unfinished, prompt_set))
                bar.advance(task)
        else:
            with ProcessPoolExecutor(min(jobs, len(files))) as pool:
                pending = [pool.submit(check, path, key, allow_unfinished, prompt_set) for path in files]
                for future in as_completed(pending):
                    results.append(future.result())
                    bar.advance(task)
    results.sort(key=lambda r: r.path)
    for checked in results:
        _show(checked)
    counts = Counter(r.code for r in results)
    complete = sum(1 for r in results if r.said.startswith("OK "))
    unfinished = sum(1 for r in results if r.said.startswith(("UNFINISHED ", "ABORTED ")))
    unchecked = f"{counts[UNCHECKED]} not fully checked, " if counts[UNCHECKED] else ""
    typer.echo(f"{len(results)} transcripts: {complete} verified complete, {unfinished} unfinished or aborted, "
               f"{counts[TAMPERED]} tampered, {unchecked}{counts[NOT_A_TRANSCRIPT]} not transcripts")  # fmt: skip
    return next((code for code in WORST if counts[code]), VERIFIED)


def verify_cmd(
    file: Annotated[Path, typer.Argument(help="A transcript (.jsonl), or a folder: every transcript under it.")],
    key_env: Annotated[
        str | None,
        typer.Option("--key-env", help="Check the end record's HMAC signature with the key in this variable."),
    ] = None,
    allow_unfinished: Annotated[
        bool, typer.Option("--allow-unfinished", help="Exit 0 (not 3) for an unfinished or aborted game.")
    ] = False,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Files verified at once (a folder; default: the cores).")
    ] = None,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="No progress bar (a folder).")] = False,
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

    A folder: every transcript under it, in parallel, each file's line and then a summary line.
    Exit codes: 0 verified and complete, 1 tampered, 2 not a transcript, 3 unfinished (see --allow-unfinished),
    4 not fully checked (a rewritten prompt could not be rebuilt here; see --prompt-set); for a folder, the worst
    file's.
    """
    from arena.transcript import TranscriptError, sign_key_from_env

    key = None
    if key_env is not None:
        try:
            key = sign_key_from_env(key_env)
        except TranscriptError as exc:
            _fail(str(exc), NOT_A_TRANSCRIPT)
    if file.is_dir() and not file.is_symlink():
        workers = jobs if jobs is not None else (os.cpu_count() or 1)
        code = verify_folder(file, key, allow_unfinished, workers, not no_progress and sys.stderr.isatty(), prompt_set)
        raise typer.Exit(code)
    checked = check(file, key, allow_unfinished, prompt_set)
    _show(checked)
    if checked.code:
        raise typer.Exit(checked.code)


def register(app: typer.Typer) -> None:
    """Add `verify` to `app`."""
    app.command("verify")(verify_cmd)
