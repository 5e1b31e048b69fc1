"""The transcript's records: the header, the end and resume records, the loaded `Transcript` (which rebuilds its
game), the format's constants and `TranscriptError`.

The other parts of the package (`writer`, `reader`, `chain`, `verify`) read and write these; this module imports only
`counters` of them. `docs/transcripts.md` documents the fields.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer

from arena.agents import AgentSpec
from arena.engine import Event, Game, IllegalDecision, Input, Role, RuleSet
from arena.players.base import ModelCall
from arena.remote.protocol import Exchange
from arena.transcript.counters import SeatCounters, SeatTotals

FORMAT: Final = "mafia-arena-transcript"
# 2: every line carries `hash` (the chain); version-1 files are still read, with no chain to check. 3: the game's end
# as data (`game_ended`'s `code`, the end record's `reason` a code). 4: a failed attempt as data (a reject or
# default input's `code`, `limit_ms`, `reached`, `rule`; its event's `code` and `count`). Older files' sentences are
# read as codes in one place (legacy.py)
VERSION = 4
GENESIS: Final = "0" * 64  # the "previous hash" of line 1
MIB: Final = 1024 * 1024
MAX_LINE_BYTES = 16 * MIB  # one record; a longer line is an error, read no further
MAX_FILE_BYTES = 512 * MIB  # a whole transcript (`load` keeps every record in memory)

Status = Literal["started", "complete", "aborted"]
Ended = Literal["complete", "aborted"]  # an end record's status: `started` there would let resume append past the seal
GAME_ID = r"^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,79}$"  # an id names files and rows: never a path, a command or markup
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


MODEL_KINDS: Final = ("llm", "langchain")  # the agent kinds whose decisions come from a model


def model_seats(seats: Iterable[SeatEntry]) -> frozenset[int]:
    """The seats of `seats` a model plays."""
    return frozenset(entry.seat for entry in seats if entry.agent.kind in MODEL_KINDS)


class Header(BaseModel):
    """Line 1. `status` is `started` when written; the `end` record carries the final status."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["mafia-arena-transcript"] = FORMAT
    version: int = VERSION
    kind: Literal["header"] = "header"
    status: Status = "started"
    game_id: str = Field(pattern=GAME_ID)
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


class End(BaseModel):
    """The last line of a finished game."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["end"] = "end"
    status: Ended  # required, so the end record always spells it out
    winner: str | None = None
    reason: str = ""  # the termination's code (arena.engine.Termination), empty when aborted
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


class Stop(BaseModel):
    """Written where a game stopped because a seat's model gave no answer to a decision's last attempt (the
    orchestrator's `GameStopped`): when, which seat, why, and what to do about it. Nothing of that decision's batch
    was applied (its calls are written before this record, as unused); `arena resume` asks the batch again."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["stop"] = "stop"
    at: str = ""
    seat: int = 0
    reason: str = ""
    fix: str = ""


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
    stops: list[Stop] = Field(default_factory=list)  # where the game stopped on a model that gave no answer
    exchanges: list[Exchange] = Field(default_factory=list)  # a remote seat's turns (docs/remote.md)
    exchange_positions: list[int] = Field(default_factory=list)  # per exchange: how many inputs precede it
    resume_exchanges: list[int] = Field(default_factory=list)  # per resume record: how many exchanges precede it

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
