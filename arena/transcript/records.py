"""The JSONL transcript: the one record of a game (review, replay, verify, resume, golden files).

Line 1 is a header (format, version, rules, seed, seats). Every later line is one record, tagged by `kind`:
`event` (an engine event), `input` (an engine input: what replay feeds back), `call` (a model call) and, last,
`end`. Lines are written and flushed one at a time, so a crash loses at most the line being written; the reader
reports such a torn last line, and resume drops it. The writer only ever creates a new file (mode 0600) or appends
to one. Since version 2 every line carries `hash`, SHA-256 over the previous line's hash and the canonical JSON of
the line without it, so an edit, insertion or removal breaks the chain; the end record seals it and, when a key is
given, carries `sig`, an HMAC of its hash. The chain is generic: it covers any record, whatever its fields. Files
are read as a stream, line by line, with a size limit per line and per file. `docs/transcripts.md` documents the
format; `docs/security.md` the threat model.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import operator
import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import IO, Any, BinaryIO, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_serializer

from arena import __version__
from arena.agents import AgentSpec
from arena.engine import Event, Game, IllegalDecision, Input, Role, RuleSet
from arena.engine.record import PlainRecord
from arena.players.base import ModelCall
from arena.trust import redacted

FORMAT: Final = "mafia-arena-transcript"
VERSION = 2  # 2: every line carries `hash` (the chain); version-1 files are still read, with no chain to check
GENESIS: Final = "0" * 64  # the "previous hash" of line 1
MIB: Final = 1024 * 1024
MAX_LINE_BYTES = 16 * MIB  # one record; a longer line is an error, read no further
MAX_FILE_BYTES = 512 * MIB  # a whole transcript (`load` keeps every record in memory)

Status = Literal["started", "complete", "aborted"]
Chain = Literal["ok", "broken", "none"]  # none: a version-1 file, written before the chain existed


class TranscriptError(ValueError):
    """A file that cannot be read as a transcript; the message says which file, which line and why.

    `damaged` is set when the file starts as a transcript but a later line is broken (a corrupt or edited file),
    as opposed to a file that is not a transcript at all."""

    def __init__(self, message: str, *, damaged: bool = False) -> None:
        super().__init__(message)
        self.damaged = damaged


def canonical(record: Mapping[str, Any]) -> bytes:
    """The bytes a line's hash covers: its JSON with sorted keys, no spaces, UTF-8 (the `hash`/`sig` fields out)."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def chain_hash(previous: str, record: Mapping[str, Any]) -> str:
    """hex SHA-256(previous hash as ASCII hex + canonical(record))."""
    return hashlib.sha256(previous.encode("ascii") + canonical(record)).hexdigest()


def signature(key: bytes, end_hash: str) -> str:
    """The end record's `sig`: hex HMAC-SHA256 of its hash (which covers every line before it) under `key`."""
    return hmac.new(key, end_hash.encode("ascii"), hashlib.sha256).hexdigest()


def sign_key_from_env(variable: str) -> bytes:
    """The signing key held by environment variable `variable` (never a file, never the header)."""
    value = os.environ.get(variable)
    if not value:
        raise TranscriptError(f"the environment variable {variable} (the signing key) is not set or empty")
    return value.encode("utf-8")


class SeatEntry(BaseModel):
    """One seat of the header: who plays it, as an AgentSpec that can rebuild the player."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seat: int
    agent: AgentSpec


class Header(BaseModel):
    """Line 1. `status` is `started` when written; the `end` record carries the final status."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["mafia-arena-transcript"] = FORMAT
    version: int = VERSION
    kind: Literal["header"] = "header"
    status: Status = "started"
    game_id: str
    started_at: str
    package_version: str
    seed: int
    lang: Literal["en", "ru"] = "en"
    rules: dict[str, Any]
    roles: list[Role] | None = None  # fixed seating (scenarios); None means dealt from the seed
    seats: list[SeatEntry]
    prompt_set_hash: str | None = None
    note: str = ""
    signed: bool = False  # the writer held a signing key: the end record carries `sig`

    def ruleset(self) -> RuleSet:
        return RuleSet.model_validate(self.rules)


@dataclass
class SeatCounters:
    """Per-seat discipline of one game, as counted by the orchestrator (a plain dataclass: it is bumped at every
    decision, and pydantic still validates and serialises it inside the end record)."""

    decisions: int = 0  # requests answered (legally or by default)
    attempts: int = 0  # times the player was asked
    invalid: int = 0  # answers the engine refused (each one a re-ask or, past the bound, a default)
    timeouts: int = 0
    errors: int = 0  # exceptions raised by the player
    defaults: int = 0  # requests settled by the rule's default
    player_s: float = 0.0  # wall time spent inside the player; not written to golden files
    prompt_tokens: int = 0  # model calls: prompt tokens the servers reported
    cached_tokens: int = 0  # of which served from the provider's prompt cache (as reported)

    @property
    def cache_hit(self) -> float:
        """The share of prompt tokens the servers reported as cached (0 when no tokens were reported)."""
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0


@dataclass
class SeatTotals:
    """Model-call totals of one seat (or, summed, of the game): what the calls cost and how many failed."""

    calls: int = 0
    failed_calls: int = 0  # calls with an error (no answer, or an unusable one)
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    defaults: int = 0  # requests settled by the rule's default

    def add_call(self, call: ModelCall) -> None:
        self.calls += 1
        self.failed_calls += call.error is not None and call.parsed is None
        self.prompt_tokens += call.prompt_tokens
        self.cached_tokens += call.cached_tokens
        self.completion_tokens += call.completion_tokens
        self.cost_usd += call.cost_usd

    def add(self, other: SeatTotals) -> None:
        for name in ("calls", "failed_calls", "prompt_tokens", "cached_tokens", "completion_tokens", "defaults"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.cost_usd += other.cost_usd


def call_totals(calls: Iterable[ModelCall]) -> dict[int, SeatTotals]:
    """Per-seat totals of recorded calls (resume starts from these; `arena show` reads them from old files)."""
    out: dict[int, SeatTotals] = {}
    for call in calls:
        out.setdefault(call.seat, SeatTotals()).add_call(call)
    return out


class End(BaseModel):
    """The last line of a finished game."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["end"] = "end"
    status: Status  # required, so the end record always spells it out
    winner: str | None = None
    reason: str = ""
    days: int = 0
    events: int = 0
    inputs: int = 0
    finished_at: str = ""
    counters: dict[int, SeatCounters] = Field(default_factory=dict)
    error: str | None = None  # status aborted: what stopped the game
    # model-call totals per seat and for the game, in every game written since they exist (zeros for bot seats and
    # bot games); older files may lack them (then `arena show` sums the calls)
    totals: dict[int, SeatTotals] = Field(default_factory=dict)
    total: SeatTotals | None = None

    @field_serializer("total")
    def _spelled_out(self, total: SeatTotals | None) -> dict[str, Any] | None:
        """The game's total with every field, zeros included (the line format leaves zeros out elsewhere), so the
        end record of every game says what it cost, a bot game's $0 too."""
        return asdict(total) if total is not None else None


class Resume(BaseModel):
    """Written by `arena resume` where it starts appending: when, and who plays each seat from here on (local
    definitions, or the user's `--seat` choices), so the record says who made every later decision."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["resume"] = "resume"
    at: str = ""
    seats: list[SeatEntry] = Field(default_factory=list)


class Transcript(BaseModel):
    """A loaded transcript. `status` is the end record's status, or `started` for a game that has not ended."""

    model_config = ConfigDict(extra="forbid")

    path: str = ""
    header: Header
    events: list[Event] = Field(default_factory=list)
    inputs: list[Input] = Field(default_factory=list)
    calls: list[ModelCall] = Field(default_factory=list)
    call_positions: list[int] = Field(default_factory=list)  # per call: how many inputs precede it in the file
    end: End | None = None
    torn: str | None = None  # the torn last line dropped by `load(..., repair=True)`
    good_bytes: int = 0  # length of the file up to the end of its last whole record
    unterminated: bool = False  # the last whole record lacks its newline (resume adds it)
    chain: Chain = "none"  # whether every line's hash checked out (version 2+)
    chain_error: str | None = None  # the first line that breaks the chain, and how
    last_hash: str = GENESIS  # the hash of the last whole line (resume continues the chain from it)
    sig: str | None = None  # the end record's signature, if any
    resumes: list[Resume] = Field(default_factory=list)
    resume_positions: list[int] = Field(default_factory=list)  # per resume record: how many inputs precede it
    resume_calls: list[int] = Field(default_factory=list)  # per resume record: how many call records precede it

    @property
    def status(self) -> Status:
        return self.end.status if self.end is not None else "started"

    @property
    def rules(self) -> RuleSet:
        return self.header.ruleset()

    def rebuild(self) -> Game:
        """A new Game with the header's rules, seed (and fixed roles), fed every recorded input."""
        try:
            game = Game(self.rules, self.header.seed, roles=self.header.roles)
        except Exception as exc:  # a crafted header: one line, never a traceback
            raise TranscriptError(
                f"{self.path}: the header's rules or roles do not make a game: {type(exc).__name__}: {exc}",
                damaged=True,
            ) from None
        for index, item in enumerate(self.inputs):
            try:
                game.replay([item])
            except IllegalDecision as exc:
                raise TranscriptError(
                    f"{self.path}: input {index} ({item.op} seat {item.seat}) refused: {exc}", damaged=True
                ) from None
            except Exception as exc:  # a crafted input the engine cannot take: one line, never a traceback
                raise TranscriptError(
                    f"{self.path}: input {index} ({item.op} seat {item.seat}) cannot be replayed: "
                    f"{type(exc).__name__}: {exc}",
                    damaged=True,
                ) from None
        return game


# ----- writing --------------------------------------------------------------------------------------------------
def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def package_version() -> str:
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
    body = model.model_dump_json(exclude_defaults=True)
    return f'{{"kind":"{kind}"' + ("," + body[1:] if body != "{}" else "}")


CUT_MARK: Final = "…[cut by the transcript writer: {n:,} more characters]"


def _fitted(call: ModelCall) -> str:
    """A call record's line, under the line limit: its longest message texts are cut, with a marker saying how
    much was left out, until it fits. Messages are what a call was sent, for audit; `raw`, `parsed` and the
    counts, which verify checks, are never cut (the client caps an answer at 256 KiB)."""
    line = _line("call", call)
    budget = MAX_LINE_BYTES - 4096  # room for the hash, the signature and the markers
    excess = len(line.encode("utf-8")) - budget
    if excess <= 0:
        return line
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
    return _line("call", call.model_copy(update={"messages": messages}))


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
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise TranscriptError(f"{path} already exists; a transcript is never overwritten") from None
        handle = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
        header = cls._signed(header, sign_key)
        writer = cls(handle, path, header, fsync=fsync, sign_key=sign_key)
        writer._write(header.model_dump_json())
        return writer

    @classmethod
    def to_stream(
        cls,
        stream: IO[str],
        header: Header,
        *,
        clock: Callable[[], str] = utc_now,
        sign_key: bytes | None = None,
    ) -> TranscriptWriter:
        header = cls._signed(header, sign_key)
        writer = cls(stream, None, header, clock=clock, sign_key=sign_key)
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
        with path.open("r+b") as raw:
            raw.truncate(transcript.good_bytes)
        handle = path.open("a", encoding="utf-8", newline="\n")
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

    def _write(self, line: str, *, seal: bool = False) -> None:
        # a line the reader would refuse is never written: the chain and the file stay as they were (resumable)
        if len(line) * 4 + 200 > MAX_LINE_BYTES and len(line.encode("utf-8")) + 200 > MAX_LINE_BYTES:
            kind = line[9:30].split('"')[0] if line.startswith('{"kind":"') else "header"
            raise TranscriptError(
                f"a {kind} record of {len(line.encode('utf-8')):,} bytes is over the {MAX_LINE_BYTES:,}-byte line "
                "limit; it was not written (the file holds every record before it)"
            )
        if self._chained:  # hash what a reader will parse, so both sides hash the same canonical form
            digest = chain_hash(self.last_hash, json.loads(line))
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
        self._write(_line("event", event))
        self.events_written += 1

    def input(self, item: Input) -> None:
        self._write(_line("input", item))
        self.inputs_written += 1

    def call(self, call: ModelCall) -> None:
        self._write(_fitted(call))
        totals = self.totals.get(call.seat)
        if totals is None:
            totals = self.totals[call.seat] = SeatTotals()
        totals.add_call(call)

    def resumed(self, seats: Mapping[int, AgentSpec]) -> None:
        """Mark where a resume starts appending, with the seats as they are played from here (redacted)."""
        entries = [SeatEntry(seat=s, agent=redacted(seats[s])) for s in sorted(seats)]
        self._write(_line("resume", Resume(at=self._clock(), seats=entries)))

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
            reason=game.end_reason,
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
        record = End(status="aborted", error=error, finished_at=self._clock(), **self._totals_fields({}))
        self._write(_line("end", record), seal=True)

    def close(self) -> None:
        if not self.closed and self.path is not None:
            self._handle.close()
        self.closed = True


# ----- reading --------------------------------------------------------------------------------------------------
class DuplicateKey(ValueError):
    """A JSON object that names one key twice: a writer never does, and the chain would hash only the last value."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        keys = [k for k, _ in pairs]
        twice = next(k for k in keys if keys.count(k) > 1)
        raise DuplicateKey(f"the key {twice[:40]!r} appears twice in one object")
    return out


def _json(text: str) -> Any:
    """json.loads, with a deeply nested or absurd value (RecursionError, a 5,000-digit int) as a ValueError, and
    an object with a duplicate key refused (DuplicateKey)."""
    try:
        return json.loads(text, object_pairs_hook=_pairs)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _parse_header(first: str, source: str) -> tuple[Header, dict[str, Any]]:
    """The header model, and the line's JSON object as read (for its hash)."""
    try:
        data = _json(first)
    except DuplicateKey as exc:
        raise TranscriptError(f"{source}: not a Mafia Arena transcript (line 1: {exc})") from None
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


def _check_link(out: Transcript, number: int, data: dict[str, Any], previous: str) -> str:
    """Check one line's `hash` against the chain; note the first break. Returns the hash to chain on from."""
    recorded = data.pop("hash", None)
    if out.chain_error is None:
        if not isinstance(recorded, str):
            out.chain_error = f"line {number} has no hash: the chain is broken (a line was added or edited)"
        elif not hmac.compare_digest(recorded, chain_hash(previous, data)):
            out.chain_error = (
                f"line {number} does not match its hash: the file was edited at or before this line "
                "(a changed, inserted or removed line)"
            )
    return recorded if isinstance(recorded, str) else ""


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
    if chained:
        previous = _check_link(out, 1, raw_header, GENESIS)
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
            link = _check_link(out, number, record, previous) if chained else ""
            kind = record.pop("kind")
            model = _RECORDS[kind].model_validate(record)
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            if isinstance(exc, DuplicateKey):  # whole JSON, so not torn: a crafted line, even without its newline
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
            out.resume_positions.append(len(out.inputs))
            out.resume_calls.append(len(out.calls))
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


def load(path: str | Path, *, repair: bool = False, max_bytes: int = MAX_FILE_BYTES) -> Transcript:
    """Read a transcript file as a stream. Raises TranscriptError for an empty or foreign file, a newer format
    version, a bad record, a line or file over the size limits, or (unless `repair`) a torn last line."""
    path = Path(path)
    if path.is_dir():
        raise TranscriptError(f"{path}: is a directory, not a transcript")
    try:
        with path.open("rb") as stream:
            transcript = read_stream(stream, str(path), repair=repair, max_bytes=max_bytes)
    except FileNotFoundError:
        raise TranscriptError(f"{path}: no such file") from None
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read: {exc.strerror}") from None
    transcript.path = str(path)
    return transcript


# ----- verifying ------------------------------------------------------------------------------------------------
Outcome = Literal["complete", "unfinished", "aborted", "tampered"]


class Verdict(BaseModel):
    """The result of checking a transcript: `ok` (nothing wrong found), the `outcome`, and a message; for a
    mismatch, the first event that differs."""

    ok: bool
    message: str
    outcome: Outcome = "tampered"
    events: int = 0
    inputs: int = 0
    seq: int | None = None  # the first event that differs
    notes: list[str] = Field(default_factory=list)  # what was not (or could not be) checked


def _diff(recorded: Event, regenerated: Event) -> str:
    a, b = recorded.model_dump(mode="json"), regenerated.model_dump(mode="json")
    fields = [k for k in a if a[k] != b[k]]
    return ", ".join(f"{k}: recorded {a[k]!r}, replay {b[k]!r}" for k in fields)


def _fields(a: BaseModel, b: BaseModel) -> str:
    x, y = a.model_dump(mode="json"), b.model_dump(mode="json")
    return ", ".join(sorted(k for k in x if x[k] != y.get(k)))


class _CallCheck:
    """Pairs every answered model call with the input its answer became, in file order, and compares them.

    A seat's calls are written just before its inputs: each answer that yielded a Decision is either refused (a
    `reject`, or the final `default`, with the engine's reason) or accepted (the `decide`). The decision read from
    the call's `raw` text must be its `parsed` answer, and `parsed`, read for the request pending at that input,
    must be the recorded decision. So an edited speech or reasoning fails even where the replay cannot see it.
    """

    def __init__(self, transcript: Transcript) -> None:
        from arena.orchestrator import ERROR_PREFIX, TIMEOUT_PREFIX  # late: the orchestrator imports this module

        self.failures = (ERROR_PREFIX, TIMEOUT_PREFIX)
        self.calls = transcript.calls
        self.positions = transcript.call_positions
        self.models = self._models(transcript.header.seats)
        self.resumes = list(
            zip(transcript.resume_positions, transcript.resume_calls, transcript.resumes, strict=True)
        )
        self.queue: dict[int, list[int]] = {}
        self.next_call = 0

    @staticmethod
    def _models(seats: list[SeatEntry]) -> set[int]:
        return {e.seat for e in seats if e.agent.kind in ("llm", "langchain")}

    def before_input(self, index: int) -> str | None:
        """Queue the answered calls written before input `index`; check each one's raw text against `parsed`."""
        while self.resumes and self.resumes[0][0] <= index:
            _, calls_before, resume = self.resumes.pop(0)
            error = self._queue_calls(partial(operator.gt, calls_before))  # the calls written before the resume
            if error:
                return error
            # answers of the batch the crash cut short never became inputs: resume asks those seats again
            self.queue.clear()
            self.models = self._models(resume.seats)  # a resume may seat other agents from here on
        return self._queue_calls(lambda n: self.positions[n] <= index)

    def _queue_calls(self, wanted: Callable[[int], bool]) -> str | None:
        """Queue the next calls while `wanted(number)`, checking each answered one's raw text against `parsed`."""
        from arena.llm.extract import NoJSON, extract_object

        while self.next_call < len(self.calls) and wanted(self.next_call):
            number, call = self.next_call, self.calls[self.next_call]
            self.next_call += 1
            if call.parsed is None:
                continue
            try:
                read = extract_object(call.raw, truncated=call.finish_reason == "length").value
            except (NoJSON, ValueError, RecursionError):
                read = None
            if read != call.parsed:
                return f"call record {number} (seat {call.seat}): its parsed answer is not what its raw text says"
            self.queue.setdefault(call.seat, []).append(number)
        return None

    def at_input(self, index: int, item: Input, game: Game) -> str | None:
        """Check input `index` against the seat's queued answers (before the engine takes it). The answer goes
        through the engine's own check, as the orchestrator's did, so what the engine normalises is compared
        as it was recorded."""
        from arena.llm.schema import ShapeError, to_decision, to_decision_stable

        if item.op not in ("decide", "reject", "default"):
            return None
        queue = self.queue.setdefault(item.seat, [])
        answered = item.op == "decide" or not item.reason.startswith(self.failures)
        if not answered:
            return None
        if not queue:
            if item.seat in self.models:
                return f"input {index} (seat {item.seat}, {item.op}): no model call record gave this answer"
            return None
        number = queue.pop(0)
        request = game.request_for(item.seat)
        if item.op == "decide" and item.decision is not None and request is not None:
            call = self.calls[number]
            assert call.parsed is not None
            try:
                # a stable-shape answer nests its fields under `decision` (no per-request field has that name)
                read = to_decision_stable if isinstance(call.parsed.get("decision"), dict) else to_decision
                decision = read(request, dict(call.parsed), partial=call.finish_reason == "length")
                decision = game.check(item.seat, decision)
            except (ShapeError, IllegalDecision) as exc:
                return f"call record {number} (seat {item.seat}) does not give the recorded decision: {exc}"
            if decision != item.decision:
                return (
                    f"input {index} (seat {item.seat}) differs from the answer of call record {number}: "
                    f"{_fields(item.decision, decision)}"
                )
        if item.op in ("decide", "default") and queue:
            return f"call record {queue[0]} (seat {item.seat}): an answer that no input used"
        return None

    def at_end(self, finished: bool) -> str | None:
        error = self.before_input(len(self.positions) + 2**62)  # every call left
        if error or not finished:
            return error  # an unfinished file may end between a batch's calls and its inputs
        left = sorted(n for queue in self.queue.values() for n in queue)
        return f"call record {left[0]}: an answer that no input used" if left else None


def verify(transcript: Transcript, *, key: bytes | None = None) -> Verdict:
    """Check a transcript: its hash chain (and, with `key`, the end record's signature); then replay its inputs
    and check that every recorded event is the one the engine emits, that every model call's answer is the input
    it produced, and that a finished game ends as its end record says. `outcome` is `complete`, `unfinished` (no
    end record), `aborted` (an internal error stopped the game) or `tampered` (any check failed)."""
    n_in = len(transcript.inputs)
    notes: list[str] = []

    def bad(message: str, seq: int | None = None) -> Verdict:
        return Verdict(ok=False, message=message, seq=seq, inputs=n_in, notes=notes)

    if transcript.chain == "broken":
        return bad(f"tampered: {transcript.chain_error}")
    if transcript.chain == "none":
        notes.append(
            f"a version-{transcript.header.version} file has no hash chain to check: only the replay and the "
            "call records were checked"
        )
    end = transcript.end
    if key is not None:
        if transcript.chain != "ok":
            return bad("no signature to check: a version-1 file is never signed")
        if end is not None:
            if transcript.sig is None:
                return bad("not signed: the end record carries no signature")
            if not hmac.compare_digest(transcript.sig, signature(key, transcript.last_hash)):
                return bad("the signature does not match: not signed with this key, or edited and re-hashed")
            notes.append("signature: valid for this key")
        else:
            notes.append("signature: none yet (an unfinished file is signed when it ends)")
    elif transcript.sig is not None:
        notes.append("signed: pass --key-env VAR to check the signature")
    if transcript.header.signed and end is not None and transcript.sig is None:
        return bad("the header says this file was signed, but its end record carries no signature")
    try:
        game = Game(transcript.rules, transcript.header.seed, roles=transcript.header.roles)
    except Exception as exc:  # a crafted header: one line
        return bad(f"the header's rules or roles do not make a game: {type(exc).__name__}: {exc}")
    calls = _CallCheck(transcript)
    for index, item in enumerate(transcript.inputs):
        problem = calls.before_input(index) or calls.at_input(index, item, game)
        if problem:
            return bad(problem)
        try:
            game.replay([item])
        except IllegalDecision as exc:
            return bad(f"input {index} ({item.op} seat {item.seat}) refused: {exc}")
        except Exception as exc:  # a crafted input the engine cannot take
            return bad(f"input {index} ({item.op} seat {item.seat}) cannot be replayed: {type(exc).__name__}: {exc}")
    recorded, regenerated = transcript.events, game.events
    for a, b in zip(recorded, regenerated, strict=False):
        if a != b:
            return bad(f"event seq {a.seq} ({a.type.value}) differs: {_diff(a, b)}", a.seq)
    if len(recorded) > len(regenerated):
        extra = recorded[len(regenerated)]
        return bad(f"event seq {extra.seq} ({extra.type.value}) is not produced by the replay", extra.seq)
    finished = end is not None and end.status == "complete"
    problem = calls.at_end(finished)
    if problem:
        return bad(problem)
    if end is not None and end.status == "complete":
        if len(regenerated) != len(recorded):
            seq = len(recorded)
            return bad(f"the replay goes on past the recorded end (event seq {seq})", seq)
        if not game.over or game.winner != end.winner:
            return bad(f"the end record says {end.winner!r}, the replay gives {game.winner!r}")
        if (end.events, end.inputs, end.days, end.reason) != (len(recorded), n_in, game.day, game.end_reason):
            return bad(
                f"the end record says {end.events} events, {end.inputs} inputs, {end.days} days ({end.reason!r}); "
                f"the replay gives {len(recorded)}, {n_in}, {game.day} ({game.end_reason!r})"
            )
    if end is not None and end.status == "aborted":
        outcome: Outcome = "aborted"
        state = f"aborted by an internal error: {end.error}"
    elif finished:
        outcome, state = "complete", "complete"
    else:
        outcome = "unfinished"
        state = "unfinished: no end record" + ("; the game is over" if game.over else "")
    result = f"; {game.winner} wins" if game.winner and game.winner != "draw" else ("; a draw" if game.over else "")
    chain = "; hash chain intact" if transcript.chain == "ok" else ""
    return Verdict(
        ok=True,
        outcome=outcome,
        message=f"{len(recorded)} events and {n_in} inputs replay identically ({state}{result}{chain})",
        events=len(recorded),
        inputs=n_in,
        notes=notes,
    )
