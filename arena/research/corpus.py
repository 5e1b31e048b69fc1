"""A folder of transcripts, read once into the facts every research measure needs: who played which seat (the
configuration is the seat's agent name in the header), the roles dealt, the winner and the per-seat counters.

Only finished games (`status: complete`) whose hash chain checks out count; others are skipped and listed, never
guessed at. So is a finished game in which more than `TRANSPORT_SHARE` of one model seat's decisions were transport
defaults (its model gave no answer, and the rule's default stood in): a result made of failures. The arena stops such
a game instead of finishing it (docs/llm.md); older files, or other tools', may hold them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.engine import Event, EventType, Role
from arena.players.base import ModelCall, transport_failure
from arena.safe_read import UnsafeFile, open_regular
from arena.transcript import SeatCounters, Transcript, TranscriptError, read_stream

BLACK_ROLES = frozenset({Role.MAFIA.value, Role.DON.value})
TRANSPORT_SHARE = 0.10  # more than this share of a model seat's decisions as transport defaults: not counted
TOWN = "town"
TAMPERED = "hash chain broken"
MAFIA = "mafia"


def side_of(role: str) -> str | None:
    """The side a role plays for in the two-sided ratings: mafia (black), town (red), or None (the maniac)."""
    if role in BLACK_ROLES:
        return MAFIA
    if role == Role.MANIAC.value:
        return None
    return TOWN


@dataclass
class GameData:
    """One finished game, as the measures read it."""

    path: str
    game_id: str
    rules: str  # the rule set's name: one side-advantage term each
    seed: int
    configs: dict[int, str]  # seat -> configuration (agent name)
    roles: dict[int, str]  # seat -> role dealt
    winner: str | None
    days: int
    events: list[Event]
    counters: dict[int, SeatCounters]
    calls: list[ModelCall]
    transcript: Transcript  # the whole record, for measures that replay it (decisions.csv)

    @property
    def players(self) -> int:
        return len(self.roles)

    def side(self, seat: int) -> str | None:
        return side_of(self.roles[seat])

    def black(self, seat: int) -> bool:
        return self.roles[seat] in BLACK_ROLES

    def won(self, seat: int) -> bool | None:
        """Whether `seat`'s side won (None: a draw, or a maniac game outcome for a two-sided seat)."""
        side = self.side(seat)
        if self.winner not in (TOWN, MAFIA):
            return None if self.winner == "draw" or side is not None else self.winner == "maniac"
        if side is None:
            return False
        return side == self.winner


def from_transcript(t: Transcript) -> GameData | None:
    if t.end is None or t.end.status != "complete":
        return None
    dealt = next((e for e in t.events if e.type is EventType.ROLES_DEALT), None)
    if dealt is None:
        return None
    roles = {i + 1: r for i, r in enumerate(dealt.roles)}
    return GameData(
        path=t.path,
        game_id=t.header.game_id,
        rules=str(t.header.rules.get("name", "custom")),
        seed=t.header.seed,
        configs={entry.seat: entry.agent.name for entry in t.header.seats},
        roles=roles,
        winner=t.end.winner,
        days=t.end.days,
        events=list(t.events),
        counters=dict(t.end.counters),
        calls=list(t.calls),
        transcript=t,
    )


def transport_defaults(t: Transcript) -> dict[int, tuple[int, int]]:
    """Per model seat (an `llm` or `langchain` agent at the start or after a resume): how many of its decisions were
    settled by a default after an attempt that got no answer from its model, and how many decisions it made."""
    entries = [*t.header.seats, *(entry for resume in t.resumes for entry in resume.seats)]
    model_seats = {entry.seat for entry in entries if entry.agent.kind in ("llm", "langchain")}
    out: dict[int, tuple[int, int]] = {}
    for item in t.inputs:
        if item.seat not in model_seats or item.op not in ("decide", "default"):
            continue
        failed, decisions = out.get(item.seat, (0, 0))
        out[item.seat] = (failed + (item.op == "default" and transport_failure(item)), decisions + 1)
    return out


def made_of_failures(t: Transcript) -> str | None:
    """Why a finished game is not counted as a result (a seat's decisions were transport defaults past the share),
    or None."""
    for seat, (failed, decisions) in sorted(transport_defaults(t).items()):
        if decisions and failed > TRANSPORT_SHARE * decisions:
            return (
                f"seat {seat}: {failed} of {decisions} decisions were transport defaults (its model gave no answer), "
                f"more than {TRANSPORT_SHARE:.0%}: a result made of failures is not counted"
            )
    return None


@dataclass
class Corpus:
    games: list[GameData]
    skipped: list[tuple[str, str]]  # (path, why)

    @property
    def configs(self) -> list[str]:
        return sorted({c for g in self.games for c in g.configs.values()})


Progress = Callable[[str, int, int], None]  # (what is being done, how many done, of how many): a progress bar


def load_folder(folder: str | Path, progress: Progress | None = None) -> Corpus:
    """Every `*.jsonl` under `folder` (recursively, never through a link), in name order. Unreadable, non-regular
    (a link, a FIFO), tampered (hash chain broken) or unfinished files, and games made of transport failures
    (`made_of_failures`), are skipped and listed with the reason. `progress` hears of each file read."""
    root = Path(folder)
    games: list[GameData] = []
    skipped: list[tuple[str, str]] = []
    paths = sorted(root.rglob("*.jsonl"))
    for done, path in enumerate(paths):
        if progress is not None:
            progress("reading transcripts", done, len(paths))
        try:  # never a link out of the folder, nor a FIFO or device that would block the read or never end
            with open_regular(path) as stream:
                t = read_stream(stream, str(path))
            t.path = str(path)
        except (UnsafeFile, TranscriptError) as exc:
            skipped.append((str(path), str(exc)))
            continue
        if t.chain == "broken":  # an edited file (a flipped winner, a removed line) is never counted
            skipped.append((str(path), f"{TAMPERED}: {t.chain_error}"))
            continue
        game = from_transcript(t)
        failures = made_of_failures(t) if game is not None else None
        if game is None:
            skipped.append((str(path), f"status {t.status}: not a finished game"))
        elif failures is not None:
            skipped.append((str(path), failures))
        else:
            games.append(game)
    return Corpus(games, skipped)
