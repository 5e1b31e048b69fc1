"""A game result that came back from a cluster is data from the network: it is checked before it is written or
counted.

A Dask task answers with plain data only (a list of dicts of strings and numbers, read by the driver with msgpack,
never unpickled): per game, the transcript's text (or, with a shared folder, nothing: the file is there) and a few
advisory figures for the bench. The driver then treats the transcript as `arena verify` does: the hash chain, the
header against the planned game (seed, roles, seating, the seats' configurations, rules), and a replay of every
input through the engine that must give every recorded event and the recorded end. Who won, how many days and what
it cost are read from the verified transcript, never from the task's word. A result that fails any check is
refused: nothing is written, nothing counted, and the game is played again under a new task key. A game that stopped
on a model that gave no answer (its last record a `stop`) comes back paused: written, never counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.tournament.play import GameResult, GameTask, differences, result_of, stopped_provider
from arena.transcript import Transcript, TranscriptError, load, parse, verify


class Refused(ValueError):
    """A result that is not the planned game played by the rules; the message says what is wrong."""


def _int(item: Mapping[str, Any], name: str) -> int:
    value = item.get(name, 0)
    if type(value) is not int or value < 0:
        raise Refused(f"{name} is not a count: {type(value).__name__}")
    return value


def _ints(item: Mapping[str, Any], name: str) -> list[int]:
    value = item.get(name, ())
    if not isinstance(value, (list, tuple)) or any(type(v) is not int or v < 0 for v in value):
        raise Refused(f"{name} is not a list of counts")
    return list(value)


def _text(item: Mapping[str, Any], name: str) -> str | None:
    value = item.get(name)
    if value is not None and type(value) is not str:
        raise Refused(f"{name} is not text: {type(value).__name__}")
    return value


def accept(task: GameTask, item: Any, *, shared: bool) -> GameResult:
    """The checked result of `task` from one entry of a batch's answer; raises `Refused`."""
    if not isinstance(item, Mapping):
        raise Refused(f"the answer is a {type(item).__name__}, not a record")
    if item.get("index") != task.index:
        raise Refused(f"the answer is for game {item.get('index')!r}, not game {task.index + 1}")
    text, error = _text(item, "text"), _text(item, "error")
    stats = {"batches": _int(item, "batches"), "call_rounds": _int(item, "call_rounds"),
             "batch_calls": _ints(item, "batch_calls")}  # fmt: skip
    if shared:
        if task.path is None or not Path(task.path).exists():
            if error:  # the worker could not even open the file: reported as that game's failure
                return GameResult(task.index, "failed", error=error)
            raise Refused("no transcript in the shared folder")
        try:
            transcript = load(task.path, repair=True)
        except TranscriptError as exc:
            raise Refused(str(exc)) from None
    else:
        if text is None:
            if error:
                return GameResult(task.index, "failed", error=error)
            raise Refused("no transcript came back")
        try:
            transcript = parse(text, f"game {task.index + 1} from the cluster")
        except TranscriptError as exc:
            raise Refused(str(exc)) from None
    check(transcript, task)
    result = result_of(transcript, task.index, resumed=bool(transcript.resumes), **stats)
    result.text = None if shared else text
    return result


def check(transcript: Transcript, task: GameTask) -> None:
    """Refuse a transcript that is not the planned game, not intact, not what the engine replays, or unfinished."""
    found = differences(transcript, task)
    if found:
        raise Refused("not the planned game: " + "; ".join(found))
    verdict = verify(transcript)
    if not verdict.ok:
        raise Refused(verdict.message)
    if transcript.end is None and not stopped_provider(transcript):  # a stopped game is paused, resumed later
        raise Refused("the game has no end record")
