"""Reading a transcript as a stream, line by line, with a size limit per line and per file (`load`, `parse`,
`read_stream`).

A torn last line (a crash mid-write) is reported, or dropped with `repair=True` (resume does); a line that names a key
twice, a record of an unknown kind, a line after the end record or a file over the limits is an error that says which
line and why. Every line's link in the hash chain is checked as it is read; what a broken chain stops is the caller's
choice (verify reports it, resume refuses to continue the file, the web replay refuses to show it).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel, ValidationError

from arena.engine import Event, Input
from arena.engine.record import PlainRecord
from arena.engine.text import lone_surrogate
from arena.players.base import ModelCall
from arena.remote.protocol import Exchange
from arena.safe_read import UnsafeFile, open_regular
from arena.transcript.chain import check_link
from arena.transcript.legacy import legacy_sentences_as_data
from arena.transcript.records import (
    FORMAT,
    GENESIS,
    MAX_FILE_BYTES,
    MAX_LINE_BYTES,
    VERSION,
    End,
    Header,
    Resume,
    Stop,
    Transcript,
    TranscriptError,
    model_seats,
)


class DuplicateKey(ValueError):
    """A JSON object that names one key twice: a writer never does, and the chain would hash only the last value."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        keys = [k for k, _ in pairs]
        twice = next(k for k in keys if keys.count(k) > 1)
        raise DuplicateKey(f"the key {twice[:40]!r} appears twice in one object")
    return out


class NotText(ValueError):
    """A string escaping a surrogate code point (`"\\ud800"`): no writer writes one, and no file, page or terminal
    could hold the text, so it is refused here, as one error line, instead of failing every command that shows it."""


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # a line decoded as strict UTF-8 holds one only so


def _json(text: str) -> Any:
    """json.loads, with a deeply nested or absurd value (RecursionError, a 5,000-digit int) as a ValueError, an
    object with a duplicate key refused (DuplicateKey), and a surrogate code point refused (NotText)."""
    try:
        value = json.loads(text, object_pairs_hook=_pairs)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    if _ESCAPED_SURROGATE.search(text):  # a pair escaped as two halves is one character: only the parse tells
        bad = lone_surrogate(json.dumps(value, ensure_ascii=False))
        if bad is not None:
            raise NotText(f"it escapes {bad}, half of a surrogate pair, which no writer writes")
    return value


def _parse_header(first: str, source: str) -> tuple[Header, dict[str, Any]]:
    """The header model, and the line's JSON object as read (for its hash)."""
    try:
        data = _json(first)
    except DuplicateKey as exc:
        raise TranscriptError(f"{source}: not a Mafia Arena transcript (line 1: {exc})") from None
    except NotText as exc:
        raise TranscriptError(f"{source}: bad header: {exc}") from None
    except ValueError:
        raise TranscriptError(f"{source}: not a Mafia Arena transcript (line 1 is not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TranscriptError(f"{source}: not a Mafia Arena transcript (line 1 has no format {FORMAT!r})")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise TranscriptError(f"{source}: the header has no format version")
    if version > VERSION:
        raise TranscriptError(
            f"{source}: written in transcript format version {version}, newer than this arena reads ({VERSION}); "
            "upgrade mafia-arena to read it"
        )
    raw = dict(data)
    if version >= 2:
        data.pop("hash", None)
    data.setdefault("kind", "header")
    try:
        return Header.model_validate(data), raw
    except (ValidationError, RecursionError) as exc:
        why = _errors(exc) if isinstance(exc, ValidationError) else "nested too deeply"
        raise TranscriptError(f"{source}: bad header: {why}") from None


def _errors(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'record'}: {e['msg']}" for e in exc.errors()[:3])


_RECORDS: dict[str, type[BaseModel] | type[PlainRecord]] = {
    "event": Event,
    "input": Input,
    "call": ModelCall,
    "end": End,
    "resume": Resume,
    "stop": Stop,
    "exchange": Exchange,
}


def _lines(stream: BinaryIO, source: str, max_line: int, max_bytes: int) -> Iterator[tuple[int, str, bool, int]]:
    """(number, text, terminated, bytes) per line, read as a stream: memory never holds more than one line."""
    total = 0
    number = 0
    while True:
        raw = stream.readline(max_line + 1)
        if not raw:
            return
        number += 1
        total += len(raw)
        terminated = raw.endswith(b"\n")
        if len(raw) > max_line and not terminated:
            raise TranscriptError(
                f"{source}: line {number} is longer than {max_line:,} bytes, the limit for one record; "
                "not a transcript this arena reads",
                damaged=number > 1,
            )
        if total > max_bytes:
            raise TranscriptError(
                f"{source}: larger than {max_bytes:,} bytes, the limit for one transcript", damaged=number > 1
            )
        try:
            text = (raw[:-1] if terminated else raw).decode("utf-8")
        except UnicodeDecodeError:
            if number == 1:
                raise TranscriptError(f"{source}: not a Mafia Arena transcript (not UTF-8 text)") from None
            raise TranscriptError(f"{source}: line {number} is not UTF-8 text", damaged=True) from None
        yield number, text, terminated, len(raw)


def read_stream(
    stream: BinaryIO,
    source: str = "<stream>",
    *,
    repair: bool = False,
    max_line: int = MAX_LINE_BYTES,
    max_bytes: int = MAX_FILE_BYTES,
) -> Transcript:
    """Read a transcript from a binary stream, one bounded line at a time.

    A torn (unterminated, unreadable) last line is an error unless `repair`, which drops it; an unterminated last
    line that reads as a whole record is kept. Version 2+ files have their hash chain checked: the result says
    `chain` ok or broken (with `chain_error`); it is the caller's choice what a broken chain stops.
    """
    lines = _lines(stream, source, max_line, max_bytes)
    first = next(lines, None)
    if first is None or (not first[1].strip() and not first[2]):
        raise TranscriptError(f"{source}: empty file, not a transcript")
    header, raw_header = _parse_header(first[1], source)
    out = Transcript(path="", header=header)
    chained = header.version >= 2
    previous = GENESIS
    models = model_seats(header.seats)  # the seats a model plays (an older file's time-outs: its model's silence)
    if chained:
        previous = check_link(out, 1, raw_header, GENESIS)
    good = first[3]
    out.unterminated = not first[2]
    for number, line, terminated, size in lines:
        if out.end is not None:  # even a torn line: nothing a writer wrote follows the seal
            raise TranscriptError(f"{source}: line {number} follows the end record", damaged=True)
        try:
            data = _json(line)
            if not isinstance(data, dict):
                raise TypeError("not an object")
            record = dict(data)
            signed = record.pop("sig", None) if chained else None
            link = check_link(out, number, record, previous) if chained else ""
            kind = record.pop("kind")
            model = _RECORDS[kind].model_validate(record)
            if header.version < VERSION:  # the one place an older file's sentences become data
                model = legacy_sentences_as_data(model, header.version, models)
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            if isinstance(exc, DuplicateKey | NotText):  # whole JSON, so not torn: crafted, even without its newline
                raise TranscriptError(f"{source}: line {number} is not a valid record ({exc})", damaged=True) from None
            if not terminated:
                if not repair:
                    raise TranscriptError(
                        f"{source}: line {number} is truncated (the writer stopped mid-line); "
                        "`arena resume` drops it and goes on",
                        damaged=True,
                    ) from None
                out.torn = line
                if out.chain_error is not None and out.chain_error.startswith(f"line {number} "):
                    out.chain_error = None  # the torn line is dropped; its link is not part of the file
                break
            why = _errors(exc) if isinstance(exc, ValidationError) else type(exc).__name__
            raise TranscriptError(f"{source}: line {number} is not a valid record ({why})", damaged=True) from None
        if signed is not None and not isinstance(model, End) and out.chain_error is None:
            out.chain_error = f"line {number} carries a signature, which only the end record may"
        if isinstance(model, Event):
            if model.seq != len(out.events):
                raise TranscriptError(
                    f"{source}: line {number}: event seq {model.seq}, expected {len(out.events)}", damaged=True
                )
            out.events.append(model)
        elif isinstance(model, Input):
            out.inputs.append(model)
        elif isinstance(model, ModelCall):
            out.calls.append(model)
            out.call_positions.append(len(out.inputs))
        elif isinstance(model, Resume):
            out.resumes.append(model)
            models = model_seats(model.seats)
            out.resume_positions.append(len(out.inputs))
            out.resume_calls.append(len(out.calls))
            out.resume_exchanges.append(len(out.exchanges))
        elif isinstance(model, Stop):
            out.stops.append(model)
        elif isinstance(model, Exchange):
            out.exchanges.append(model)
            out.exchange_positions.append(len(out.inputs))
        elif isinstance(model, End):
            out.end = model
            out.sig = signed if isinstance(signed, str) else None
        previous = link
        good += size
        out.unterminated = not terminated
    if chained:
        out.chain = "broken" if out.chain_error is not None else "ok"
        out.last_hash = previous
    out.good_bytes = good
    return out


def parse(text: str, source: str = "<text>", *, repair: bool = False) -> Transcript:
    """Parse a transcript's text (see `read_stream`)."""
    return read_stream(io.BytesIO(text.encode("utf-8")), source, repair=repair)


def load(
    path: str | Path, *, repair: bool = False, max_bytes: int = MAX_FILE_BYTES, follow_links: bool = True
) -> Transcript:
    """Read a transcript file as a stream. Raises TranscriptError for an empty or foreign file, a newer format
    version, a bad record, a line or file over the size limits, or (unless `repair`) a torn last line; and for
    anything but a regular file (a FIFO named `*.jsonl` would block the reader, and no signal ends that wait).
    `follow_links=False` for a file found in a folder (someone else's links are not followed)."""
    path = Path(path)
    if path.is_dir():
        raise TranscriptError(f"{path}: is a directory, not a transcript")
    if not path.exists() and not path.is_symlink():
        raise TranscriptError(f"{path}: no such file")
    try:
        with open_regular(path, follow_links=follow_links) as stream:
            transcript = read_stream(stream, str(path), repair=repair, max_bytes=max_bytes)
    except UnsafeFile as exc:
        raise TranscriptError(f"{path}: {exc}") from None
    except FileNotFoundError:
        raise TranscriptError(f"{path}: no such file") from None
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read: {exc.strerror}") from None
    transcript.path = str(path)
    return transcript
