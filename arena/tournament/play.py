"""One game of a tournament: everything a stateless worker needs travels in a picklable `GameTask`, and the answer
is a `GameResult` (who won, what it cost, and the transcript's text when it streams back to the writer).

A game is a pure function of (rules, seating, seed): the header records the fixed roles (`roles`), the seats'
AgentSpecs and the seed, so `arena verify` and `arena resume` work on every tournament transcript. When the
transcript already exists, a finished game is read, not played; a started one is resumed from its inputs through the
same path as `arena resume` (rebuild, check the recorded events, append).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from arena.agents import AgentSpec
from arena.engine import Game, Role, RuleSet
from arena.orchestrator import GameStopped, RunStats, counters_from_inputs, run_game
from arena.players.base import Player
from arena.players.delayed import DelayedPlayer
from arena.players.factory import build_player
from arena.resources import shipped_set_dir, vouch_prompt_folder
from arena.transcript import SeatTotals, Transcript, TranscriptError, TranscriptWriter, load, make_header
from arena.transcript.figures import figures_problem


@dataclass(frozen=True)
class GameTask:
    """One scheduled game, as plain data (a process pool or a Dask worker unpickles it)."""

    index: int
    seed: int
    rules: dict[str, Any]
    roles: list[str]
    seats: dict[int, dict[str, Any]]  # seat -> AgentSpec as JSON data
    game_id: str
    lang: Literal["en", "ru"] = "en"
    note: str = ""
    timeout_s: float = 120.0
    max_reasks: int = 2
    path: str | None = None  # write the transcript here; None: return its text (Dask streaming)
    delay: float = 0.0  # seconds each seat waits before answering (tests that kill a run mid-game)


@dataclass
class GameResult:
    index: int
    status: str  # complete | aborted | failed | paused (a seat's model gave no answer: stopped, resumable, not counted)
    winner: str | None = None
    days: int = 0
    total: dict[str, float] = field(default_factory=dict)  # SeatTotals of the game, as a dict
    error: str | None = None
    resumed: bool = False
    skipped: bool = False  # already complete on disk
    text: str | None = None  # the transcript, when it streams back
    batches: int = 0  # rounds of requests played here (one round waits for its slowest seat)
    call_rounds: int = 0  # the game's critical path in model round trips (orchestrator.RunStats.call_rounds)
    batch_calls: list[int] = field(default_factory=list)  # model calls per batch (RunStats.batch_calls)
    provider: str = ""  # status paused: the provider whose model gave no answer (`provider_of`)

    @property
    def cost_usd(self) -> float:
        return float(self.total.get("cost_usd", 0.0))


def _game_total(transcript: Transcript) -> dict[str, float]:
    """The game's totals summed from its call records and inputs: the end record's own totals decide no money
    (a forged `total.cost_usd = -1000000` would lift `--budget`)."""
    total = SeatTotals()
    for call in transcript.calls:
        total.add_call(call)
    total.defaults = sum(1 for item in transcript.inputs if item.op == "default")
    return asdict(total)


def provider_of(spec: AgentSpec) -> str:
    """Which provider a seat's calls go to: its server's address (the hosted OpenAI API when none is set), or a
    LangChain agent's factory; "" for a bot or a person. A stopped game pauses every game of its provider."""
    if spec.kind == "llm":
        return spec.base_url or "https://api.openai.com/v1"
    if spec.kind == "langchain":
        return f"langchain:{spec.langchain_factory}"
    return ""


def stopped_provider(transcript: Transcript) -> str:
    """The provider of the seat on which an unfinished game last stopped ("" if it never stopped)."""
    if not transcript.stops or transcript.end is not None:
        return ""
    seat = transcript.stops[-1].seat
    seats = transcript.resumes[-1].seats if transcript.resumes else transcript.header.seats
    spec = next((entry.agent for entry in seats if entry.seat == seat), None)
    return provider_of(spec) if spec is not None else ""


def result_of(transcript: Transcript, index: int, **extra: Any) -> GameResult:
    end = transcript.end
    if end is None:
        provider = stopped_provider(transcript)
        if provider:
            stop = transcript.stops[-1]
            return GameResult(index, "paused", error=f"seat {stop.seat}: {stop.reason}", provider=provider, **extra)
        return GameResult(index, "started", **extra)
    return GameResult(
        index, end.status, winner=end.winner, days=end.days, total=_game_total(transcript), error=end.error, **extra
    )


def differences(transcript: Transcript, task: GameTask) -> list[str]:
    """What makes an existing game file not the planned game: a chain that does not check out, or a header whose
    seed, fixed roles, seating, seats' configurations, rules, language or game id differ from the task."""
    from arena.trust import redacted

    out: list[str] = []
    if transcript.chain == "broken":
        out.append(f"hash chain broken ({transcript.chain_error})")
    elif transcript.chain != "ok":
        out.append("no hash chain to check (a version-1 file)")
    problem = figures_problem(transcript)
    if problem:
        out.append(f"tampered figures ({problem})")
    header = transcript.header
    if header.game_id != task.game_id:
        out.append(f"game id {header.game_id!r}, planned {task.game_id!r}")
    if header.seed != task.seed:
        out.append(f"seed {header.seed}, planned {task.seed}")
    roles = [role.value for role in header.roles] if header.roles is not None else None
    if roles != task.roles:
        out.append(f"roles {roles}, planned {task.roles}")
    if header.lang != task.lang:
        out.append(f"language {header.lang!r}, planned {task.lang!r}")
    try:
        rules = RuleSet.model_validate(header.rules).model_dump(mode="json")
    except ValueError:
        rules = None
    if rules != RuleSet.model_validate(task.rules).model_dump(mode="json"):
        out.append("rules differ from the tournament's")
    recorded = {entry.seat: entry.agent for entry in header.seats}
    if sorted(recorded) != sorted(int(seat) for seat in task.seats):
        out.append(f"seats {sorted(recorded)}, planned {sorted(int(seat) for seat in task.seats)}")
    for seat, data in sorted((int(k), v) for k, v in task.seats.items()):
        planned = redacted(AgentSpec.model_validate(data))
        agent = recorded.get(seat)
        if agent is None:
            continue
        if agent.name != planned.name:
            out.append(f"seat {seat} is {agent.name!r}, planned {planned.name!r}")
        elif agent != planned:
            was, now = agent.model_dump(mode="json"), planned.model_dump(mode="json")
            fields = ", ".join(sorted(k for k in was.keys() | now.keys() if was.get(k) != now.get(k)))
            out.append(f"seat {seat} ({planned.name!r}) has another configuration than the plan's ({fields})")
    return out


def check_existing(transcript: Transcript, task: GameTask) -> None:
    """Refuse an existing game file that is not the planned game (see `differences`): counting it would put
    another game's (or an edited) result into the standings, and continuing it would build on it."""
    found = differences(transcript, task)
    if found:
        raise TranscriptError(
            f"{transcript.path or task.path}: not the planned game {task.index + 1}: {'; '.join(found)}; "
            "move the file away to replay this game from scratch",
            damaged=True,
        )


def _players(task: GameTask, rules: RuleSet, seats: dict[int, AgentSpec]) -> dict[int, Player]:
    for spec in seats.values():  # the driver checked the game's prompt folders (`load_tournament`): this process
        if spec.kind in ("llm", "langchain") and shipped_set_dir(spec.prompt_set) is None:  # loads them too
            vouch_prompt_folder(spec.prompt_set)
    players = {s: build_player(spec, s, seed=task.seed, rules=rules, lang=task.lang) for s, spec in seats.items()}
    if task.delay > 0:
        return {seat: DelayedPlayer(player, task.delay) for seat, player in players.items()}
    return players


def _open(task: GameTask, rules: RuleSet, seats: dict[int, AgentSpec]) -> tuple[Game, TranscriptWriter, RunStats, bool]:
    """A new game and its writer, or the started game of an existing transcript, rebuilt to resume."""
    roles = [Role(r) for r in task.roles]
    path = Path(task.path) if task.path else None
    if path is not None and path.exists():
        transcript = load(path, repair=True)
        game = transcript.rebuild()
        for recorded, replayed in zip(transcript.events, game.events, strict=False):
            if recorded != replayed:
                raise TranscriptError(f"{path}: event seq {recorded.seq} disagrees with the replay")
        stats = RunStats(counters=counters_from_inputs(transcript.inputs))
        writer = TranscriptWriter.append_to(transcript)
        writer.resumed(seats)  # where this process took over, as `arena resume` marks it
        return game, writer, stats, True
    header = make_header(rules, task.seed, seats, lang=task.lang, roles=roles, game_id=task.game_id, note=task.note)
    game = Game(rules, task.seed, roles=roles)
    if path is None:
        return game, TranscriptWriter.to_stream(io.StringIO(), header), RunStats(), False
    return game, TranscriptWriter.create(path, header), RunStats(), False


async def play_task(task: GameTask) -> GameResult:
    """Play (or finish, or just read) one game of the schedule."""
    rules = RuleSet.model_validate(task.rules)
    seats = {int(seat): AgentSpec.model_validate(data) for seat, data in task.seats.items()}
    if task.path and Path(task.path).exists():
        existing = load(Path(task.path), repair=True)
        check_existing(existing, task)
        if existing.status != "started":
            return result_of(existing, task.index, skipped=True)
    game, writer, stats, resumed = _open(task, rules, seats)
    players = _players(task, rules, seats)
    try:
        await run_game(game, players, writer, timeout_s=task.timeout_s, max_reasks=task.max_reasks, stats=stats)
    except GameStopped as exc:  # a seat's model gave no answer: paused, never counted, resumed by the next run
        text = _streamed(writer)
        writer.close()
        provider = provider_of(seats[exc.stop.seat]) if exc.stop.seat in seats else ""
        return GameResult(task.index, "paused", error=str(exc), resumed=resumed, text=text, provider=provider)
    except Exception as exc:  # an engine or orchestrator bug: the transcript says so, the tournament goes on
        writer.abort(f"{type(exc).__name__}: {exc}")
        text = _streamed(writer)
        writer.close()
        return GameResult(task.index, "aborted", error=f"{type(exc).__name__}: {exc}", resumed=resumed, text=text)
    finally:
        for player in players.values():
            with contextlib.suppress(Exception):  # closing is best effort
                await player.close()
    text = _streamed(writer)
    writer.close()
    total = SeatTotals()
    for one in writer.totals.values():
        total.add(one)
    total.defaults = sum(c.defaults for c in stats.counters.values())
    return GameResult(
        task.index,
        "complete",
        winner=game.winner,
        days=game.day,
        total=asdict(total),
        resumed=resumed,
        text=text,
        batches=stats.batches,
        call_rounds=stats.call_rounds,
        batch_calls=stats.batch_calls,
    )


def _streamed(writer: TranscriptWriter) -> str | None:
    """The transcript's text when it was written to memory (`to_stream`), else None."""
    if writer.path is not None:
        return None
    stream = writer._handle  # the in-memory stream of `to_stream`
    return stream.getvalue() if isinstance(stream, io.StringIO) else None


def run_task(task: GameTask) -> GameResult:
    """The synchronous entry point (a Dask task): one game on its own event loop."""
    return asyncio.run(play_task(task))
