"""An Inspect AI task: the model under evaluation plays Mafia seats against a fixed field (extra `inspect`).

    inspect eval arena/inspect_task.py --model openai/MODEL -T games=20 -T field=bot:heuristic

Each sample is one game. The evaluated model plays the chosen seats (`seats`: `alternate` gives it one town seat
in even samples and one black seat in odd ones, the same deal twice; or a comma list of seat numbers), every other
seat is the `field` (a bot, or an agent definition from `agents/`). The model is reached through Inspect's
`get_model().generate` with the same prompts and strict answer schema an arena LLM seat gets, and its answers go
through the same engine checks, re-asks and defaults. Scores: the win rate per side, the invalid-action rate
(re-asks, timeouts and errors per decision of the evaluated seats) and the Brier score of its daily belief probes.
Each game's arena transcript is written beside Inspect's log (`<log dir>/arena-transcripts/`, or `transcripts`),
and its path is kept in the sample's metadata.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any, Literal

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    ResponseSchema,
    get_model,
)
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import JSONSchema

from arena.agents import AgentSpec, resolve_agent
from arena.engine import Game, Observation, Request, Role, RuleSet, load_rules
from arena.llm.budget import max_tokens_for
from arena.llm.conversation import Conversation, Message
from arena.llm.modes import Completion, Mode
from arena.llm.seat import ConversationSeat
from arena.llm.usage import Usage
from arena.orchestrator import RunStats, run_game
from arena.players.base import Answer, Player
from arena.players.factory import build_player
from arena.prompts import load_prompt_set
from arena.research.corpus import from_transcript
from arena.research.metrics import measure
from arena.transcript import TranscriptWriter, default_path, load, make_header

BLACK = frozenset({Role.MAFIA, Role.DON})
_STOP = {"stop": "stop", "max_tokens": "length", "model_length": "length", "content_filter": "content_filter"}


def _inspect_messages(messages: list[Message]) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for m in messages:
        content = str(m.get("content", ""))
        if m["role"] == "system":
            out.append(ChatMessageSystem(content=content))
        elif m["role"] == "assistant":
            out.append(ChatMessageAssistant(content=content))
        else:
            out.append(ChatMessageUser(content=content))
    return out


class InspectSeat(ConversationSeat):
    """An arena seat whose model is Inspect's: one `generate` per decision with the request's strict schema."""

    def __init__(self, seat: int, model: Model, conversation: Conversation, lang: str = "en") -> None:
        super().__init__(seat, conversation)
        self.model = model
        self.lang = lang

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        turn = self.conversation.turn(observation, request, self.clean_problem(problem))
        messages = self.conversation.request_messages(turn)
        max_tokens = max_tokens_for(request, None, self.lang)
        schema = ResponseSchema(name=turn.name, json_schema=JSONSchema.model_validate(turn.schema), strict=True)
        started = time.perf_counter()
        try:
            output = await self.model.generate(
                _inspect_messages(messages), config=GenerateConfig(max_tokens=max_tokens, response_schema=schema)
            )
        except Exception as exc:  # the provider failed every retry: a failed attempt, re-asked, then the default
            latency = (time.perf_counter() - started) * 1000
            raise self.fail_transport(messages, request, f"{type(exc).__name__}: {exc}", latency, 1) from None
        usage = output.usage
        completion = Completion(
            raw=output.completion,
            finish_reason=_STOP.get(output.stop_reason, output.stop_reason),
            refusal=None,
            model=output.model,
            usage=Usage(
                prompt_tokens=usage.input_tokens if usage else 0,
                completion_tokens=usage.output_tokens if usage else 0,
                cached_tokens=(usage.input_tokens_cache_read or 0) if usage else 0,
            ),
            latency_ms=(time.perf_counter() - started) * 1000,
        )
        return await self.conclude(turn, messages, request, completion, 1, max_tokens)


def seat_list(seats: str | int | list[int]) -> str:
    """`-T seats=...` as Inspect parses it (a string, a number or a list), as the one text form used here."""
    if isinstance(seats, list):
        return ",".join(str(s) for s in seats)
    return str(seats).strip()


def evaluated_seats(rules: RuleSet, seed: int, index: int, seats: str) -> list[int]:
    """The seats the model plays in sample `index`: `alternate` (a town seat, then a black seat of the same deal),
    or an explicit comma list."""
    if seats != "alternate":
        try:
            chosen = [int(s) for s in seats.split(",") if s.strip()]
        except ValueError:
            chosen = []
        if not chosen or any(not 1 <= s <= rules.players for s in chosen):
            raise ValueError(f"seats: give seat numbers from 1 to {rules.players}, or 'alternate'")
        return chosen
    roles = Game(rules, seed).roles[1:]
    town = [s for s, r in enumerate(roles, 1) if r not in BLACK and r is not Role.MANIAC]
    black = [s for s, r in enumerate(roles, 1) if r in BLACK]
    pool = town if index % 2 == 0 else black
    return [pool[(index // 2) % len(pool)]]


def transcripts_folder(explicit: str) -> Path:
    """Beside Inspect's own log: `<log dir>/arena-transcripts/<log name>/`, unless a folder is given."""
    if explicit:
        return Path(explicit)
    try:  # the running sample knows its log file (not a public API: fall back to the log dir's default)
        from inspect_ai.log._samples import sample_active

        active = sample_active()
        if active is not None and active.log_location:
            log = Path(active.log_location)
            return log.parent / "arena-transcripts" / log.name.split(".")[0]
    except (ImportError, AttributeError):
        pass
    return Path(os.environ.get("INSPECT_LOG_DIR", "logs")) / "arena-transcripts"


@solver
def play_mafia(field: str, preset: str, probes: bool, transcripts: str, lang: str) -> Solver:
    """Play the sample's game: the evaluated model in its seats, the field everywhere else."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        rules = load_rules(preset, overrides=["probes.daily=true"] if probes else None)
        seed = int(state.metadata["seed"])
        mine = [int(s) for s in state.metadata["seats"]]
        model = get_model()
        field_spec = resolve_agent(field)
        model_spec = AgentSpec(name=f"inspect:{model}", kind="llm", model=str(model))
        agents = {s: (model_spec if s in mine else field_spec) for s in range(1, rules.players + 1)}
        players: dict[int, Player] = {}
        language: Literal["en", "ru"] = "ru" if lang == "ru" else "en"
        prompts = load_prompt_set("default", language)
        for s in range(1, rules.players + 1):
            if s in mine:
                conversation = Conversation(prompts, rules, s, Mode.JSON_SCHEMA)
                players[s] = InspectSeat(s, model, conversation, language)
            else:
                players[s] = build_player(field_spec, s, seed=seed, rules=rules, lang=language)
        header = make_header(rules, seed, agents, lang=language, note=f"inspect sample {state.sample_id}")
        folder = transcripts_folder(transcripts)
        path = default_path(folder, header)
        writer = TranscriptWriter.create(path, header)
        stats = RunStats()
        try:
            game = await run_game(Game(rules, seed), players, writer, stats=stats)
        finally:
            writer.close()
        state.metadata["transcript"] = str(path)
        state.output = ModelOutput.from_content(model=str(model), content=f"winner: {game.winner}")
        state.completed = True
        return state

    return solve


def _score_of(path: str, mine: list[int]) -> dict[str, Any]:
    game = from_transcript(load(path))
    if game is None:
        raise ValueError(f"{path}: the game did not finish")
    m = measure(game)
    decisions = sum(game.counters[s].decisions for s in mine if s in game.counters)
    failed = sum(game.counters[s].invalid + game.counters[s].timeouts + game.counters[s].errors
                 for s in mine if s in game.counters)  # fmt: skip
    pairs = sum(m.seats[s].probe_pairs for s in mine)
    brier = sum(m.seats[s].probe_brier_sum for s in mine)
    side = game.side(mine[0]) or "maniac"
    won = game.won(mine[0])
    return {  # numbers only: Inspect's reducers turn every value of a dict score into a float
        "town": 1.0 if side == "town" else 0.0,
        "mafia": 1.0 if side == "mafia" else 0.0,
        "won": 1.0 if won else 0.0,
        "decisions": float(decisions),
        "invalid": float(failed),
        "probe_pairs": float(pairs),
        "probe_brier_sum": brier,
    }


def _values(scores: list[SampleScore]) -> list[dict[str, Any]]:
    out = []
    for s in scores:
        value = s.score.value
        if isinstance(value, dict):
            out.append(value)
    return out


def _pooled(numerator: str, denominator: str) -> Metric:
    """A ratio pooled over games: the sum of `numerator` over the sum of `denominator` (NaN when that is 0)."""

    def compute(scores: list[SampleScore]) -> float:
        values = _values(scores)
        total = sum(float(v[denominator]) for v in values)
        return sum(float(v[numerator]) for v in values) / total if total else math.nan

    return compute


def _win_rate(side: str) -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        games = [v for v in _values(scores) if float(v.get(side, 0.0)) == 1.0]
        return sum(float(v["won"]) for v in games) / len(games) if games else math.nan

    return compute


@metric
def town_win_rate() -> Metric:
    """Share of the games won when the evaluated model played a town (red) seat."""
    return _win_rate("town")


@metric
def mafia_win_rate() -> Metric:
    """Share of the games won when the evaluated model played a black seat."""
    return _win_rate("mafia")


@metric
def invalid_action_rate() -> Metric:
    """Re-asks, timeouts and errors per decision of the evaluated seats (pooled over games)."""

    return _pooled("invalid", "decisions")


@metric
def probe_brier() -> Metric:
    """Brier score of the evaluated seats' belief probes (pooled over every probability they gave)."""

    return _pooled("probe_brier_sum", "probe_pairs")


@scorer(metrics=[town_win_rate(), mafia_win_rate(), invalid_action_rate(), probe_brier()])
def mafia_scores() -> Scorer:
    """Read the finished game's transcript and score the evaluated seats."""

    async def score(state: TaskState, target: Target) -> Score:
        mine = [int(s) for s in state.metadata["seats"]]
        value = _score_of(str(state.metadata["transcript"]), mine)
        return Score(value=value, answer=state.output.completion, metadata={"transcript": state.metadata["transcript"]})

    return score


@task
def mafia(
    games: int = 4,
    seats: str | int | list[int] = "alternate",
    field: str = "bot:heuristic",
    preset: str = "fiim",
    probes: bool = True,
    seed: int = 1,
    transcripts: str = "",
    lang: str = "en",
) -> Task:
    """`games` games of `preset` with the evaluated model in `seats` against the `field`."""
    rules = load_rules(preset)
    which = seat_list(seats)
    samples = []
    for index in range(games):
        game_seed = seed + index // 2 if which == "alternate" else seed + index
        chosen = evaluated_seats(rules, game_seed, index, which)
        samples.append(
            Sample(
                id=index + 1,
                input=f"Play Mafia ({preset}, seed {game_seed}) in seat(s) {', '.join(map(str, chosen))}.",
                metadata={"seed": game_seed, "seats": chosen},
            )
        )
    return Task(
        dataset=samples,
        solver=play_mafia(field, preset, probes, transcripts, lang),
        scorer=mafia_scores(),
    )
