"""Writing a transcript: the header of a new game, and `TranscriptWriter`, which appends records a line at a time.

Lines are written and flushed one at a time, so a crash loses at most the line being written. The writer only ever
creates a new file (mode 0600) or appends to one (resume), links every line into the hash chain (`chain.py`), and
never writes a line the reader would refuse (over the line limit; a call record's longest messages are cut to fit).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import fields, replace
from datetime import UTC, datetime
from functools import cache
from importlib import metadata
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from pathlib import Path
from typing import IO, Any, Final, Literal

from pydantic import BaseModel

from arena.agents import AgentSpec
from arena.engine import Event, Game, Input, Role, RuleSet
from arena.engine.record import COMPACT_JSON, PlainRecord
from arena.engine.text import scrubbed
from arena.players.base import ModelCall
from arena.remote.protocol import Exchange
from arena.safe_write import UnsafePath, open_append
from arena.transcript.chain import chain_hash_of, signature
from arena.transcript.counters import SeatCounters, SeatTotals, call_totals
from arena.transcript.records import (
    GENESIS,
    MAX_LINE_BYTES,
    End,
    Header,
    Resume,
    SeatEntry,
    Stop,
    Transcript,
    TranscriptError,
)
from arena.trust import redacted
from arena.version import __version__


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@cache
def package_version() -> str:
    """This process's version of the package (read once: the code running does not change with the install)."""
    try:
        return metadata.version("mafia-arena")
    except metadata.PackageNotFoundError:
        return __version__


def new_game_id() -> str:
    return uuid.uuid4().hex[:8]


def make_header(
    rules: RuleSet,
    seed: int,
    seats: Mapping[int, AgentSpec],
    *,
    lang: Literal["en", "ru"] = "en",
    roles: Iterable[Role] | None = None,
    game_id: str | None = None,
    started_at: str | None = None,
    version: str | None = None,
    prompt_set_hash: str | None = None,
    note: str = "",
) -> Header:
    """A header for a new game; the varying fields (id, time, version) may be fixed, e.g. for golden files."""
    return Header(
        game_id=game_id or new_game_id(),
        started_at=started_at or utc_now(),
        package_version=version or package_version(),
        seed=seed,
        lang=lang,
        rules=rules.model_dump(mode="json"),
        roles=list(roles) if roles is not None else None,
        seats=[SeatEntry(seat=s, agent=redacted(seats[s])) for s in sorted(seats)],  # no credentials in files
        prompt_set_hash=prompt_set_hash,
        note=note,
    )


def default_path(out_dir: Path, header: Header) -> Path:
    """`<out>/<UTC time>_<id>.jsonl`, named from the header so the name sorts by start time."""
    stamp = header.started_at.replace("-", "").replace(":", "")
    return out_dir / f"{stamp}_{header.game_id}.jsonl"


def _line(kind: str, model: BaseModel | PlainRecord) -> str:
    return _joined(kind, model.model_dump_json(exclude_defaults=True))


def _joined(kind: str, body: str) -> str:
    """A record's line: `kind` first, then the fields of its JSON `body`."""
    return f'{{"kind":"{kind}"' + ("," + body[1:] if body != "{}" else "}")


# `COMPACT_JSON.encode` (a plain record's `model_dump_json`) as the C encoder it builds per call, without its check
# for cycles: for a plain record of no dict field, whose JSON values `_jsonable` builds afresh from scalars, enums,
# tuples, lists and records (none holds a cycle)
_COMPACT_C: Callable[[Any, int], Sequence[str]] | None = (
    c_make_encoder(None, COMPACT_JSON.default, encode_basestring, None, ":", ",", False, False, True)
    if c_make_encoder is not None
    else None
)
_PLAIN_JSON: dict[type, bool] = {}  # per plain record class: no field that may hold a dict (whose keys JSON turns)


def _plain_json(cls: type[PlainRecord]) -> bool:
    found = _PLAIN_JSON.get(cls)
    if found is None:
        kinds = " ".join(str(f.type) for f in fields(cls))  # type: ignore[arg-type]
        found = _PLAIN_JSON[cls] = not any(word in kinds for word in ("dict", "Mapping", "Any", "object"))
    return found


def _record(kind: str, model: BaseModel | PlainRecord) -> tuple[str, dict[str, Any] | None]:
    """`_line(kind, model)`, and the record as JSON values, what parsing that line gives back (for the chain's
    hash, without the parse): a plain record's dump is the very dict its line is encoded from; a pydantic model's
    JSON-mode dump has the same values (string keys; NaN and infinities, which its line writes as null, send the
    chain back to parsing the line). None: parse the line (a plain record with a field that may hold a dict, whose
    keys its dump leaves as they are)."""
    if isinstance(model, PlainRecord):
        values = model.model_dump(mode="json", exclude_defaults=True)
        if _plain_json(type(model)):
            body = "".join(_COMPACT_C(values, 0)) if _COMPACT_C is not None else COMPACT_JSON.encode(values)
            parsed: dict[str, Any] | None = {"kind": kind, **values}
        else:
            body, parsed = COMPACT_JSON.encode(values), None  # what `model_dump_json` returns, built from `values`
    else:
        body = model.model_dump_json(exclude_defaults=True)
        parsed = {"kind": kind, **model.model_dump(mode="json", exclude_defaults=True)}
    return _joined(kind, body), parsed


CUT_MARK: Final = "…[cut by the transcript writer: {n:,} more characters]"


def _fitted(call: ModelCall) -> tuple[str, dict[str, Any] | None]:
    """A call record's line and its values (`_record`), under the line limit: its longest message texts are cut,
    with a marker saying how much was left out, until it fits. Messages are what a call was sent, for audit; `raw`,
    `parsed` and the counts, which verify checks, are never cut (the client caps an answer at 256 KiB)."""
    line, parsed = _record("call", call)
    budget = MAX_LINE_BYTES - 4096  # room for the hash, the signature and the markers
    if len(line) * 4 <= budget:  # UTF-8 takes at most 4 bytes a character: it fits, without encoding it to count
        return line, parsed
    excess = len(line.encode("utf-8")) - budget
    if excess <= 0:
        return line, parsed
    messages = [dict(m) for m in call.messages]
    texts = [
        (len(str(m["content"]).encode("utf-8")), i) for i, m in enumerate(messages) if isinstance(m.get("content"), str)
    ]
    texts.sort(reverse=True)
    for size, index in texts:
        if excess <= 0:
            break
        content = str(messages[index]["content"])
        keep = max(size - excess - 200, 0)
        kept = content.encode("utf-8")[:keep].decode("utf-8", "ignore")
        cut = kept + CUT_MARK.format(n=len(content) - len(kept))
        messages[index]["content"] = cut
        excess -= size - len(cut.encode("utf-8"))
    return _record("call", call.model_copy(update={"messages": messages}))


class TranscriptWriter:
    """Appends records to one transcript file, a line at a time, flushed as written.

    `create` makes a new file (never overwriting one); `append_to` continues a loaded transcript (resume). The
    writer remembers how many events and inputs the file holds, so `sync(game)` writes exactly the missing ones.
    With `stream` set it writes to that text stream instead of a file (golden files are built in memory).
    """

    def __init__(
        self,
        handle: IO[str],
        path: Path | None,
        header: Header,
        *,
        events: int = 0,
        inputs: int = 0,
        fsync: bool = False,
        clock: Callable[[], str] = utc_now,
        sign_key: bytes | None = None,
        last_hash: str = GENESIS,
    ) -> None:
        self._handle = handle
        self.path = path
        self.header = header
        self.events_written = events
        self.inputs_written = inputs
        self._fsync = fsync
        self._clock = clock
        self._chained = header.version >= 2  # a version-1 file being resumed stays version 1
        self._sign_key = sign_key
        self.last_hash = last_hash
        self.closed = False
        self.totals: dict[int, SeatTotals] = {}  # model calls written so far, per seat

    @staticmethod
    def _signed(header: Header, sign_key: bytes | None) -> Header:
        return header.model_copy(update={"signed": True}) if sign_key is not None else header

    @classmethod
    def create(
        cls, path: Path, header: Header, *, fsync: bool = False, sign_key: bytes | None = None
    ) -> TranscriptWriter:
        """Create `path` (exclusive: an existing file is an error; mode 0600, only its owner reads it) and write
        the header. With `sign_key` the end record is signed."""
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)  # never through a link
        except FileExistsError:
            raise TranscriptError(f"{path} already exists; a transcript is never overwritten") from None
        handle = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
        return cls._begin(handle, path, header, sign_key, fsync=fsync)

    @classmethod
    def to_stream(
        cls,
        stream: IO[str],
        header: Header,
        *,
        clock: Callable[[], str] = utc_now,
        sign_key: bytes | None = None,
    ) -> TranscriptWriter:
        return cls._begin(stream, None, header, sign_key, clock=clock)

    @classmethod
    def _begin(
        cls,
        handle: IO[str],
        path: Path | None,
        header: Header,
        sign_key: bytes | None,
        *,
        fsync: bool = False,
        clock: Callable[[], str] = utc_now,
    ) -> TranscriptWriter:
        """A new transcript on `handle`: its header written first (marked signed when there is a key)."""
        header = cls._signed(header, sign_key)
        writer = cls(handle, path, header, fsync=fsync, clock=clock, sign_key=sign_key)
        writer._write(header.model_dump_json())
        return writer

    @classmethod
    def append_to(
        cls, transcript: Transcript, *, fsync: bool = False, sign_key: bytes | None = None
    ) -> TranscriptWriter:
        """Continue `transcript`'s file: cut a torn last line, then append after the last complete line, going on
        with its hash chain. A file whose chain is broken is not continued."""
        if not transcript.path:
            raise TranscriptError("this transcript was not loaded from a file")
        if transcript.chain == "broken":
            raise TranscriptError(f"{transcript.path}: {transcript.chain_error}; it is not continued", damaged=True)
        path = Path(transcript.path)
        try:  # never through a link: a planted `game-0001.jsonl -> ~/.bashrc` is not appended to
            handle = open_append(path, truncate_at=transcript.good_bytes)
        except UnsafePath as exc:
            raise TranscriptError(f"{exc}; it is not continued") from None
        if transcript.unterminated:
            handle.write("\n")
        writer = cls(
            handle,
            path,
            transcript.header,
            events=len(transcript.events),
            inputs=len(transcript.inputs),
            fsync=fsync,
            sign_key=sign_key,
            last_hash=transcript.last_hash,
        )
        writer.totals = call_totals(transcript.calls)
        return writer

    def _write(self, line: str, *, seal: bool = False, parsed: dict[str, Any] | None = None) -> None:
        # a line the reader would refuse is never written: the chain and the file stay as they were (resumable)
        if len(line) * 4 + 200 > MAX_LINE_BYTES and len(line.encode("utf-8")) + 200 > MAX_LINE_BYTES:
            kind = line[9:30].split('"')[0] if line.startswith('{"kind":"') else "header"
            raise TranscriptError(
                f"a {kind} record of {len(line.encode('utf-8')):,} bytes is over the {MAX_LINE_BYTES:,}-byte line "
                "limit; it was not written (the file holds every record before it)"
            )
        if self._chained:  # hash what a reader will parse, so both sides hash the same canonical form
            digest = chain_hash_of(self.last_hash, line, parsed)  # `parsed`: the line's values (`_record`)
            extra = f',"hash":"{digest}"'
            if seal and self._sign_key is not None:
                extra += f',"sig":"{signature(self._sign_key, digest)}"'
            line = line[:-1] + extra + "}"
            self.last_hash = digest
        self._handle.write(line + "\n")
        self._handle.flush()
        if self._fsync:
            os.fsync(self._handle.fileno())

    def event(self, event: Event) -> None:
        line, parsed = _record("event", event)
        self._write(line, parsed=parsed)
        self.events_written += 1

    def input(self, item: Input) -> None:
        line, parsed = _record("input", item)
        self._write(line, parsed=parsed)
        self.inputs_written += 1

    def call(self, call: ModelCall) -> None:
        line, parsed = _fitted(call)
        self._write(line, parsed=parsed)
        totals = self.totals.get(call.seat)
        if totals is None:
            totals = self.totals[call.seat] = SeatTotals()
        totals.add_call(call)

    def exchange(self, exchange: Exchange) -> None:
        """One turn of a remote seat (docs/remote.md), written when it closes, before the inputs it became."""
        self._write(_line("exchange", exchange))

    def resumed(self, seats: Mapping[int, AgentSpec]) -> None:
        """Mark where a resume starts appending, with the seats as they are played from here (redacted)."""
        entries = [SeatEntry(seat=s, agent=redacted(seats[s])) for s in sorted(seats)]
        self._write(_line("resume", Resume(at=self._clock(), seats=entries)))

    def stop(self, seat: int, reason: str, fix: str = "") -> None:
        """Mark where the game stopped because `seat`'s model gave no answer (see `records.Stop`); the file stays
        unfinished, and `arena resume` continues it."""
        self._write(_line("stop", Stop(at=self._clock(), seat=seat, reason=scrubbed(reason), fix=scrubbed(fix))))

    def sync_events(self, game: Game) -> None:
        """Write the game's events that the file does not hold yet, in order."""
        events = game.events
        for index in range(self.events_written, len(events)):
            self.event(events[index])

    def end(self, game: Game, counters: Mapping[int, SeatCounters], *, timing: bool = True) -> None:
        """The closing record. `timing=False` leaves wall times out (golden files must not depend on the clock)."""
        kept = {s: replace(c, player_s=round(c.player_s, 4) if timing else 0.0) for s, c in sorted(counters.items())}
        record = End(
            status="complete",
            winner=game.winner,
            reason=game.outcome.termination.value if game.outcome is not None else "",
            days=game.day,
            events=len(game.events),
            inputs=self.inputs_written,
            finished_at=self._clock(),
            counters=kept,
            **self._totals_fields(counters),
        )
        self._write(_line("end", record), seal=True)

    def _totals_fields(self, counters: Mapping[int, SeatCounters]) -> dict[str, Any]:
        """Totals of every seat of the table (zeros for a seat that made no model call) and of the game."""
        seats: dict[int, SeatTotals] = {}
        total = SeatTotals()
        for seat in sorted({entry.seat for entry in self.header.seats} | set(self.totals) | set(counters)):
            one = replace(self.totals.get(seat, SeatTotals()))
            one.cost_usd = round(one.cost_usd, 8)
            one.defaults = counters[seat].defaults if seat in counters else 0
            seats[seat] = one
            total.add(one)
        total.cost_usd = round(total.cost_usd, 8)
        return {"totals": seats, "total": total}

    def abort(self, error: str) -> None:
        """Close a game that an internal error stopped (an engine bug): it stays verifiable, not resumable."""
        record = End(status="aborted", error=scrubbed(error), finished_at=self._clock(), **self._totals_fields({}))
        self._write(_line("end", record), seal=True)

    def close(self) -> None:
        if not self.closed and self.path is not None:
            self._handle.close()
        self.closed = True
