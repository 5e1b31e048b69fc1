"""An Inspect AI task: the model under evaluation plays Mafia seats against a fixed field (extra `inspect`).

    inspect eval arena/inspect_task.py --model openai/MODEL -T games=20 -T field=bot:heuristic

Each sample is one game. The evaluated model plays the chosen seats (`seats`: `alternate` gives it one town seat
in even samples and one black seat in odd ones, the same deal twice; or a comma list of seat numbers), every other
seat is the `field` (a bot, or an agent definition from `agents/`). The model is reached through Inspect's
`get_model().generate` with the same prompts and strict answer schema an arena LLM seat gets, and its answers go
through the same engine checks, re-asks and defaults. Scores, each with its standard error (clustered by deal): the
win rate per side and the draw rate apart; the invalid-action rate (the share, in [0, 1], of the decisions the model
was reached for that it never answered legally) and the first-answer invalid rate; transport failures (timeouts,
connection errors) apart; the Brier score and rank AUC of its daily belief probes, a probe it did not answer scored
as the worst answer, and the share it answered. With `--model mockllm/model` it runs offline (token counts are
estimated locally instead of by tiktoken, which would download its encoding).
Each game's arena transcript is written beside Inspect's log (`<log dir>/arena-transcripts/`, or `transcripts`),
and its path is kept in the sample's metadata.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Literal

import numpy as np
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
from arena.engine import Game, Kind, Observation, Request, Role, RuleSet, load_rules
from arena.llm.budget import max_tokens_for
from arena.llm.conversation import Conversation, Message
from arena.llm.modes import Completion, Mode
from arena.llm.seat import ConversationSeat
from arena.llm.usage import Usage
from arena.orchestrator import RunStats, run_game
from arena.players.base import Answer, Player
from arena.players.factory import build_player
from arena.prompts import load_prompt_set
from arena.research import tables
from arena.research.corpus import from_transcript
from arena.research.intervals import ratio_variance
from arena.research.metrics import Counts, auc_counts, measure
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
        turn = self.conversation.turn(observation, request, self.asked(problem))
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


def offline_token_counts(model: Model) -> None:
    """Inspect's mockllm fills in a usage record it was not given by counting tokens with tiktoken, whose encoding
    tiktoken downloads on first use: offline, every call of `--model mockllm/model` failed (and was scored as the
    model's failure). The mock gets a local estimate instead, about four characters a token; a real provider
    reports its own usage and is left alone."""
    if not str(model).startswith("mockllm/"):
        return

    async def estimate(text: str) -> int:
        return max(1, len(text) // 4)

    setattr(model.api, "count_text_tokens", estimate)  # noqa: B010  (an instance override of ModelAPI's hook)


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
        offline_token_counts(model)
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


MISSING_BRIER = 1.0  # a probability the model did not give scores as the worst answer: never better than any answer


def _score_of(path: str, mine: list[int], seed: int) -> dict[str, float]:
    """The evaluated seats' numbers in one game (numbers only: Inspect's reducers turn a dict score's values into
    floats). Every decision is classified once (`tables.decision_outcome`); a probe the model did not answer
    legally still counts, each of its probabilities scored as the worst one (Brier 1, every pair of a black and
    a red target misordered), so failing to answer never beats answering."""
    game = from_transcript(load(path))
    if game is None:
        raise ValueError(f"{path}: the game did not finish")
    m = measure(game)
    counts = Counts()
    for s in mine:
        counts.add(m.seats[s])
    outcome = {kind: 0.0 for kind in (tables.LEGAL, tables.REASKED, tables.INVALID, tables.TRANSPORT)}
    requested = missing_pairs = 0.0
    for row, request in tables.settled(game):
        if int(row["seat"]) not in mine:
            continue
        kind = tables.decision_outcome(row)
        outcome[kind] += 1
        if request is not None and request.kind is Kind.PROBE:
            requested += len(request.options)
            if row["outcome"] == "default":
                targets = [(0.0, game.black(t)) for t in request.options]
                missing_pairs += auc_counts(targets)[0]
    given = float(counts.probe_pairs)
    side = game.side(mine[0]) or "maniac"
    won = game.won(mine[0])
    decisions = sum(outcome.values())
    return {
        "seed": float(seed),
        "town": 1.0 if side == "town" else 0.0,
        "mafia": 1.0 if side == "mafia" else 0.0,
        "won": 1.0 if won else 0.0,
        "drawn": 1.0 if game.winner == "draw" else 0.0,
        "decisions": decisions,
        "reached": decisions - outcome[tables.TRANSPORT],  # decisions the model was reached for
        "invalid": outcome[tables.INVALID],
        "first_invalid": outcome[tables.INVALID] + outcome[tables.REASKED],
        "transport": outcome[tables.TRANSPORT],
        "probe_requested": requested,
        "probe_given": given,
        "probe_score_sum": counts.probe_brier_sum + MISSING_BRIER * (requested - given),
        "auc_pairs": counts.probe_auc_pairs + missing_pairs,
        "auc_concordant": counts.probe_auc_concordant,
    }


def _values(scores: list[SampleScore]) -> list[dict[str, float]]:
    return [{k: float(v) for k, v in s.score.value.items()} for s in scores if isinstance(s.score.value, dict)]


def pooled(values: list[dict[str, float]], numerator: str, denominator: str, where: str = "") -> tuple[float, float]:
    """(ratio of sums, its standard error) over samples, clustered by seed: the samples of one deal (a town seat
    and a black seat of the same cards) are not independent. NaN when nothing was counted (or, for the error,
    fewer than two deals)."""
    rows = [v for v in values if not where or v.get(where, 0.0) == 1.0]
    ids = np.asarray([v["seed"] for v in rows])
    num = np.asarray([v[numerator] for v in rows])
    den = np.asarray([v[denominator] for v in rows])
    if not len(rows) or float(den.sum()) <= 0:
        return math.nan, math.nan
    _, inverse = np.unique(ids, return_inverse=True)
    sums = [np.asarray(np.bincount(inverse, weights=x), dtype=np.float64) for x in (num, den)]
    r, var = ratio_variance(sums[0], sums[1])
    return r, math.sqrt(var) if math.isfinite(var) else math.nan


def _metric(name: str, numerator: str, denominator: str, where: str = "") -> Metric:
    def compute(scores: list[SampleScore]) -> dict[str, float]:
        value, se = pooled(_values(scores), numerator, denominator, where)
        return {name: value, f"{name}_stderr": se}

    return compute


@metric
def town_win_rate() -> Metric:
    """Share of the town games (the model on a red seat) its side won; a draw is not a win (see draw_rate)."""
    return _metric("town_win_rate", "won", "town", where="town")


@metric
def mafia_win_rate() -> Metric:
    """Share of the black games its side won; a draw is not a win."""
    return _metric("mafia_win_rate", "won", "mafia", where="mafia")


@metric
def draw_rate() -> Metric:
    """Share of the games drawn (neither side won): its own outcome, neither a win nor a loss."""
    return _metric("draw_rate", "drawn", "one")


@metric
def invalid_action_rate() -> Metric:
    """Share of the decisions the model was reached for that it never answered legally (the rule's default was
    applied): a rate in [0, 1]. Decisions lost to a timeout or a connection error are not counted here."""
    return _metric("invalid_action_rate", "invalid", "reached")


@metric
def first_answer_invalid_rate() -> Metric:
    """Share of those decisions whose first answer was refused (re-asked, or never legal)."""
    return _metric("first_answer_invalid_rate", "first_invalid", "reached")


@metric
def transport_failure_rate() -> Metric:
    """Share of all decisions in which an attempt failed in transport (timeout, connection error)."""
    return _metric("transport_failure_rate", "transport", "decisions")


@metric
def probe_brier() -> Metric:
    """Brier score of the belief probes over every probability asked for, a missing one scored 1 (the worst)."""
    return _metric("probe_brier", "probe_score_sum", "probe_requested")


@metric
def probe_answered_rate() -> Metric:
    """Share of the probabilities asked for that the model gave."""
    return _metric("probe_answered_rate", "probe_given", "probe_requested")


@metric
def probe_auc() -> Metric:
    """Rank AUC of the probes: of the (black, red) target pairs of each probe, the share in which the black target
    was rated higher (a tie counts a half; the pairs of a missing probe count as misordered)."""
    return _metric("probe_auc", "auc_concordant", "auc_pairs")


METRICS = [town_win_rate(), mafia_win_rate(), draw_rate(), invalid_action_rate(), first_answer_invalid_rate(),
           transport_failure_rate(), probe_brier(), probe_answered_rate(), probe_auc()]  # fmt: skip


@scorer(metrics=METRICS)
def mafia_scores() -> Scorer:
    """Read the finished game's transcript and score the evaluated seats."""

    async def score(state: TaskState, target: Target) -> Score:
        mine = [int(s) for s in state.metadata["seats"]]
        value = _score_of(str(state.metadata["transcript"]), mine, int(state.metadata["seed"]))
        value["one"] = 1.0
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
