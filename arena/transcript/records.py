"""The transcript's records: the header, the end and resume records, the per-seat counters and totals, the loaded
`Transcript` (which rebuilds its game), the format's constants and `TranscriptError`.

The other parts of the package (`writer`, `reader`, `chain`, `verify`) read and write these; this module imports none
of them. `docs/transcripts.md` documents the fields.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer

from arena.agents import AgentSpec
from arena.engine import Event, Game, IllegalDecision, Input, Role, RuleSet
from arena.players.base import ModelCall

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
