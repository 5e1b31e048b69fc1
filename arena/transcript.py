"""The JSONL transcript: the one record of a game (review, replay, verify, resume, golden files).

Line 1 is a header (format, version, rules, seed, seats). Every later line is one record, tagged by `kind`:
`event` (an engine event), `input` (an engine input: what replay feeds back), `call` (a model call) and, last,
`end`. Lines are written and flushed one at a time, so a crash loses at most the line being written; the reader
reports such a torn last line, and resume drops it. The writer only ever creates a new file or appends to one.
`docs/transcripts.md` documents the format.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import IO, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arena import __version__
from arena.agents import AgentSpec
from arena.engine import Event, Game, IllegalDecision, Input, Role, RuleSet
from arena.players.base import ModelCall

FORMAT: Final = "mafia-arena-transcript"
VERSION = 1

Status = Literal["started", "complete", "aborted"]


class TranscriptError(ValueError):
    """A file that cannot be read as a transcript; the message says which file, which line and why."""


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
    # model-call totals per seat and for the game; written when the game made model calls (bot games have none)
    totals: dict[int, SeatTotals] = Field(default_factory=dict)
    total: SeatTotals | None = None


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
        except ValidationError as exc:
            raise TranscriptError(f"{self.path}: the header's rules do not validate: {exc}") from None
        for index, item in enumerate(self.inputs):
            try:
                game.replay([item])
            except IllegalDecision as exc:
                raise TranscriptError(
                    f"{self.path}: input {index} ({item.op} seat {item.seat}) refused: {exc}"
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
        seats=[SeatEntry(seat=s, agent=seats[s]) for s in sorted(seats)],
        prompt_set_hash=prompt_set_hash,
        note=note,
    )


def default_path(out_dir: Path, header: Header) -> Path:
    """`<out>/<UTC time>_<id>.jsonl`, named from the header so the name sorts by start time."""
    stamp = header.started_at.replace("-", "").replace(":", "")
    return out_dir / f"{stamp}_{header.game_id}.jsonl"


def _line(kind: str, model: BaseModel) -> str:
    body = model.model_dump_json(exclude_defaults=True)
    return f'{{"kind":"{kind}"' + ("," + body[1:] if body != "{}" else "}")


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
    ) -> None:
        self._handle = handle
        self.path = path
        self.header = header
        self.events_written = events
        self.inputs_written = inputs
        self._fsync = fsync
        self._clock = clock
        self.closed = False
        self.totals: dict[int, SeatTotals] = {}  # model calls written so far, per seat

    @classmethod
    def create(cls, path: Path, header: Header, *, fsync: bool = False) -> TranscriptWriter:
        """Create `path` (exclusive: an existing file is an error) and write the header."""
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            handle = path.open("x", encoding="utf-8", newline="\n")
        except FileExistsError:
            raise TranscriptError(f"{path} already exists; a transcript is never overwritten") from None
        writer = cls(handle, path, header, fsync=fsync)
        writer._write(header.model_dump_json())
        return writer

    @classmethod
    def to_stream(cls, stream: IO[str], header: Header, *, clock: Callable[[], str] = utc_now) -> TranscriptWriter:
        writer = cls(stream, None, header, clock=clock)
        writer._write(header.model_dump_json())
        return writer

    @classmethod
    def append_to(cls, transcript: Transcript, *, fsync: bool = False) -> TranscriptWriter:
        """Continue `transcript`'s file: cut a torn last line, then append after the last complete line."""
        if not transcript.path:
            raise TranscriptError("this transcript was not loaded from a file")
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
        )
        writer.totals = call_totals(transcript.calls)
        return writer

    def _write(self, line: str) -> None:
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
        self._write(_line("call", call))
        totals = self.totals.get(call.seat)
        if totals is None:
            totals = self.totals[call.seat] = SeatTotals()
        totals.add_call(call)

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
        self._write(_line("end", record))

    def _totals_fields(self, counters: Mapping[int, SeatCounters]) -> dict[str, Any]:
        if not self.totals:
            return {}
        seats: dict[int, SeatTotals] = {}
        total = SeatTotals()
        for seat in sorted(set(self.totals) | set(counters)):
            one = replace(self.totals.get(seat, SeatTotals()))
            one.cost_usd = round(one.cost_usd, 8)
            one.defaults = counters[seat].defaults if seat in counters else 0
            seats[seat] = one
            total.add(one)
        total.cost_usd = round(total.cost_usd, 8)
        return {"totals": seats, "total": total}

    def abort(self, error: str) -> None:
        """Close a game that an internal error stopped (an engine bug): it stays verifiable, not resumable."""
        self._write(_line("end", End(status="aborted", error=error, finished_at=self._clock())))

    def close(self) -> None:
        if not self.closed and self.path is not None:
            self._handle.close()
        self.closed = True


# ----- reading --------------------------------------------------------------------------------------------------
def _parse_header(first: str, source: str) -> Header:
    try:
        data = json.loads(first)
    except json.JSONDecodeError:
        raise TranscriptError(f"{source}: not a Mafia Arena transcript (line 1 is not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TranscriptError(f"{source}: not a Mafia Arena transcript (line 1 has no format {FORMAT!r})")
    version = data.get("version")
    if not isinstance(version, int):
        raise TranscriptError(f"{source}: the header has no format version")
    if version > VERSION:
        raise TranscriptError(
            f"{source}: written in transcript format version {version}, newer than this arena reads ({VERSION}); "
            "upgrade mafia-arena to read it"
        )
    data.setdefault("kind", "header")
    try:
        return Header.model_validate(data)
    except ValidationError as exc:
        raise TranscriptError(f"{source}: bad header: {_errors(exc)}") from None


def _errors(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'record'}: {e['msg']}" for e in exc.errors()[:3])


_RECORDS: dict[str, type[BaseModel]] = {"event": Event, "input": Input, "call": ModelCall, "end": End}


def parse(text: str, source: str = "<text>", *, repair: bool = False) -> Transcript:
    """Parse a transcript's text. A torn (unterminated, unreadable) last line is an error unless `repair`, which
    drops it; an unterminated last line that reads as a whole record is kept."""
    if not text.strip():
        raise TranscriptError(f"{source}: empty file, not a transcript")
    lines = text.split("\n")
    tail = lines.pop()  # "" when the text ends with a newline, else the unterminated last line
    if tail:
        lines.append(tail)
    header = _parse_header(lines[0], source)
    out = Transcript(path="", header=header)
    good = len(lines[0].encode("utf-8")) + 1
    for number, line in enumerate(lines[1:], start=2):
        unterminated = bool(tail) and number == len(lines)
        try:
            data = json.loads(line)
            kind = data.pop("kind")
            model = _RECORDS[kind].model_validate(data)
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError, ValidationError) as exc:
            if unterminated:
                if not repair:
                    raise TranscriptError(
                        f"{source}: line {number} is truncated (the writer stopped mid-line); "
                        "`arena resume` drops it and goes on"
                    ) from None
                out.torn = line
                break
            why = _errors(exc) if isinstance(exc, ValidationError) else type(exc).__name__
            raise TranscriptError(f"{source}: line {number} is not a valid record ({why})") from None
        if out.end is not None:
            raise TranscriptError(f"{source}: line {number} follows the end record")
        if isinstance(model, Event):
            if model.seq != len(out.events):
                raise TranscriptError(f"{source}: line {number}: event seq {model.seq}, expected {len(out.events)}")
            out.events.append(model)
        elif isinstance(model, Input):
            out.inputs.append(model)
        elif isinstance(model, ModelCall):
            out.calls.append(model)
            out.call_positions.append(len(out.inputs))
        elif isinstance(model, End):
            out.end = model
        good += len(line.encode("utf-8")) + (0 if unterminated else 1)
        out.unterminated = unterminated
    out.good_bytes = good
    return out


def load(path: str | Path, *, repair: bool = False) -> Transcript:
    """Read a transcript file. Raises TranscriptError for an empty or foreign file, a newer format version, a bad
    record, or (unless `repair`) a torn last line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TranscriptError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise TranscriptError(f"{path}: not a Mafia Arena transcript (not UTF-8 text)") from None
    except OSError as exc:
        raise TranscriptError(f"{path}: cannot read: {exc.strerror}") from None
    transcript = parse(text, str(path), repair=repair)
    transcript.path = str(path)
    return transcript


# ----- verifying ------------------------------------------------------------------------------------------------
class Verdict(BaseModel):
    """The result of replaying a transcript: `ok`, and if not, the first disagreement."""

    ok: bool
    message: str
    events: int = 0
    inputs: int = 0
    seq: int | None = None  # the first event that differs


def _diff(recorded: Event, regenerated: Event) -> str:
    a, b = recorded.model_dump(mode="json"), regenerated.model_dump(mode="json")
    fields = [k for k in a if a[k] != b[k]]
    return ", ".join(f"{k}: recorded {a[k]!r}, replay {b[k]!r}" for k in fields)


def verify(transcript: Transcript) -> Verdict:
    """Replay the inputs through the engine and check that every recorded event is the one the engine emits, and
    that a finished game ends as its end record says."""
    n_in = len(transcript.inputs)
    try:
        game = transcript.rebuild()
    except TranscriptError as exc:
        return Verdict(ok=False, message=str(exc), inputs=n_in)
    recorded, regenerated = transcript.events, game.events
    for a, b in zip(recorded, regenerated, strict=False):
        if a != b:
            return Verdict(ok=False, message=f"event seq {a.seq} ({a.type.value}) differs: {_diff(a, b)}", seq=a.seq)
    if len(recorded) > len(regenerated):
        extra = recorded[len(regenerated)]
        return Verdict(
            ok=False, message=f"event seq {extra.seq} ({extra.type.value}) is not produced by the replay", seq=extra.seq
        )
    end = transcript.end
    if end is not None and end.status == "complete":
        if len(regenerated) != len(recorded):
            seq = len(recorded)
            return Verdict(ok=False, message=f"the replay goes on past the recorded end (event seq {seq})", seq=seq)
        if not game.over or game.winner != end.winner:
            return Verdict(ok=False, message=f"the end record says {end.winner!r}, the replay gives {game.winner!r}")
    state = "complete" if game.over else "unfinished"
    result = f"; {game.winner} wins" if game.winner and game.winner != "draw" else ("; a draw" if game.over else "")
    return Verdict(
        ok=True,
        message=f"{len(recorded)} events and {n_in} inputs replay identically ({state}{result})",
        events=len(recorded),
        inputs=n_in,
    )
