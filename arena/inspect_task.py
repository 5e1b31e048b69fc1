"""An Inspect AI task: the model under evaluation plays Mafia seats against a fixed field (extra `inspect`).

    inspect eval mafia_arena/mafia --model openai/MODEL -T games=20 -T field=bot:heuristic

(`mafia_arena/mafia` is the package's Inspect entry point, so it runs from any folder; `inspect eval
arena/inspect_task.py` works inside a checkout.) Each sample is one game. The evaluated model plays the chosen seats
(`seats`: `alternate` gives it one town seat in even samples and one black seat in odd ones, the same deal twice; or a
comma list of seat numbers), every other seat is the `field` (a bot, or an agent definition from `agents/`). The
model is reached through Inspect's `get_model().generate` with the same prompts and strict answer schema an arena LLM
seat gets, and its answers go through the same engine checks, re-asks and defaults. The sample's messages are the
game as each evaluated seat saw it and answered it.

Before the first game the model is asked once (a preflight): a server that cannot answer (a 404 from an
OpenAI-compatible server that has no Responses API, a dead port, a bad key) stops the run with a message saying
what to change, before any game is played. A game in which the model could not be reached for a decision (Inspect's
own retries spent on the last attempt) stops unsealed: the sample is an error, never a score made of defaults.

Scores (`TASK_VERSION` names this scoring): per sample only what the game measured (won, drawn, the rates of its
decisions and probes); the counts behind them are the score's metadata. Over samples: `won` and `drawn` with
Inspect's own clustered standard error (`stderr(cluster="seed")`: the samples of one deal are not independent); the
win rate per side, the invalid-action rates, transport failures and the probes' Brier score, rank AUC and answered
share as ratios of sums over samples, each with its standard error clustered by deal. At 0 % or 100 % a clustered
error has no spread to measure and would read 0; there the error is that of a proportion at (½ / (deals + 1)), each
deal counted as one trial, never 0. A probe the model did not answer is missing: not in the AUC (a missing ranking is
not a wrong one), scored 1 (the worst) in the Brier score, and counted by the answered share. With
`--model mockllm/model` it runs offline (token counts are estimated locally instead of by tiktoken, which would
download its encoding). Each game's arena transcript is written beside Inspect's log
(`<log dir>/arena-transcripts/`, or `transcripts`), and its path is kept in the sample's metadata.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, NamedTuple

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
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import JSONSchema

from arena.agents import AgentSpec, resolve_agent
from arena.engine import Game, Kind, Observation, Request, Role, RuleSet, load_rules
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
from arena.research.metrics import Counts, measure
from arena.transcript import TranscriptWriter, default_path, load, make_header

TASK_VERSION = 1  # the scoring of `mafia_scores`: bump when a score's meaning changes
BLACK = frozenset({Role.MAFIA, Role.DON})
MAX_REASKS = 2  # the orchestrator's re-asks after a first attempt (run_game's default)
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


class ModelUnreachable(KeyboardInterrupt):
    """The model could not be reached on a decision's last attempt: the game stops here, unsealed (as at Ctrl-C, the
    orchestrator's one way to stop a game from a seat), so no result is made of the rule's defaults."""

    def __init__(self, seat: int, error: str) -> None:
        super().__init__(f"seat {seat}: the model could not be reached on the last attempt at a decision ({error})")
        self.seat = seat
        self.error = error


class InspectSeat(ConversationSeat):
    """An arena seat whose model is Inspect's: one `generate` per decision with the request's strict schema."""

    def __init__(self, seat: int, model: Model, conversation: Conversation, lang: str = "en",
                 attempts: int = MAX_REASKS + 1) -> None:  # fmt: skip
        super().__init__(seat, conversation, lang=lang)
        self.model = model
        self.attempts = attempts  # per decision, as the orchestrator asks
        self._attempt = 0

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        self._attempt = 1 if problem is None else self._attempt + 1  # a re-ask always carries its problem
        turn = self.conversation.turn(observation, request, self.asked(problem))
        messages = self.conversation.request_messages(turn)
        max_tokens = self.max_tokens(request)
        schema = ResponseSchema(name=turn.name, json_schema=JSONSchema.model_validate(turn.schema), strict=True)
        started = time.perf_counter()
        try:
            output = await self.model.generate(
                _inspect_messages(messages), config=GenerateConfig(max_tokens=max_tokens, response_schema=schema)
            )
        except Exception as exc:  # the provider failed every retry of Inspect's: a failed attempt, re-asked
            latency = (time.perf_counter() - started) * 1000
            error = f"{type(exc).__name__}: {exc}"
            failure = self.fail_transport(messages, request, error, latency, 1)
            if self._attempt >= self.attempts:  # the default would stand for an answer never asked: stop
                raise ModelUnreachable(self.seat, error) from None
            raise failure from None
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


RESPONSES_HINT = (
    "Inspect's openai provider sends this model to OpenAI's Responses API (/v1/responses), which OpenAI-compatible "
    "servers (vLLM, Ollama, llama.cpp, the arena's stand-in) may not serve: add -M responses_api=false to use the "
    "chat completions API"
)


class PreflightError(RuntimeError):
    """The model did not answer the one call made before any game; the message says what to change."""


def _uses_responses_api(model: Model) -> bool:
    return bool(getattr(model.api, "responses_api", False)) and "responses_api" not in model.model_args


async def _probe(model: Model) -> None:
    config = GenerateConfig(max_tokens=16, max_retries=2, timeout=120)
    await model.generate([ChatMessageUser(content="Reply with the word: ready")], config=config)


def preflight(model: Model) -> None:
    """Ask `model` once, on a fresh instance in a thread of its own (its client never touches the eval's loop);
    PreflightError with the fix when it cannot answer. Mock models are not asked (they answer offline, and a test's
    mock counts its calls)."""
    if str(model).startswith("mockllm/"):
        return
    fresh = get_model(str(model), config=model.config, base_url=getattr(model.api, "base_url", None),
                      api_key=getattr(model.api, "api_key", None), memoize=False, **model.model_args)  # fmt: skip
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        try:
            pool.submit(asyncio.run, _probe(fresh)).result()
        except Exception as exc:
            where = getattr(model.api, "base_url", None) or os.environ.get("OPENAI_BASE_URL") or "its default server"
            hint = f"; {RESPONSES_HINT}" if _uses_responses_api(model) else ""
            raise PreflightError(f"{model} at {where} did not answer a first call ({type(exc).__name__}: {exc})"
                                 f"{hint}. No game was played.") from None  # fmt: skip


def active_model() -> Model | None:
    """The model of the running `inspect eval`, or None when the task is built before one is chosen (a script that
    builds the task and passes `model=` to `eval`)."""
    try:
        return get_model()
    except ValueError:
        return None


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


def _conversation(players: dict[int, Player], mine: list[int]) -> list[ChatMessage]:
    """The game as the evaluated seats saw it and answered it: each seat's conversation (a seat's heading first when
    the model plays several)."""
    out: list[ChatMessage] = []
    for s in mine:
        seat = players[s]
        if not isinstance(seat, InspectSeat):
            continue
        if len(mine) > 1:
            out.append(ChatMessageUser(content=f"(seat {s}'s conversation)"))
        out += _inspect_messages(seat.conversation.messages)
    return out


_CHECKED: set[str] = set()  # models asked once in this process (the programmatic path: see `mafia`)


@solver
def play_mafia(field: str, preset: str, probes: bool, transcripts: str, lang: str) -> Solver:
    """Play the sample's game: the evaluated model in its seats, the field everywhere else."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        rules = load_rules(preset, overrides=["probes.daily=true"] if probes else None)
        seed = int(state.metadata["seed"])
        mine = [int(s) for s in state.metadata["seats"]]
        model = get_model()
        if str(model) not in _CHECKED:
            await asyncio.to_thread(preflight, model)
            _CHECKED.add(str(model))
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
        state.metadata["transcript"] = str(path)
        try:  # no time limit of the arena's per decision: Inspect's own (--timeout, retries) bound each call
            game = await run_game(Game(rules, seed), players, writer, stats=stats, timeout_s=None,
                                  max_reasks=MAX_REASKS)  # fmt: skip
        except ModelUnreachable as stop:
            hint = f"; {RESPONSES_HINT}" if _uses_responses_api(model) else ""
            raise RuntimeError(f"{stop} after Inspect's own retries: the game stopped unsealed at {path} and is "
                               f"no result{hint}") from None  # fmt: skip
        finally:
            writer.close()
            for player in players.values():
                await player.close()
        state.messages = _conversation(players, mine) or state.messages
        state.output = ModelOutput.from_content(model=str(model), content=f"winner: {game.winner}")
        state.completed = True
        return state

    return solve


MISSING_BRIER = 1.0  # a probability the model did not give scores as the worst answer: never better than any answer


def _score_of(path: str, mine: list[int]) -> tuple[dict[str, float], dict[str, float]]:
    """(the sample's scores, the counts behind them) for the evaluated seats of one game: every seat counted, on
    its own side. Every decision is classified once (`tables.decision_outcome`). A probe the model did not answer
    legally is missing: each probability it owed scores 1 in the Brier score (failing to answer never beats
    answering), and its pairs are left out of the AUC (a missing ranking is no misordered one)."""
    game = from_transcript(load(path))
    if game is None:
        raise ValueError(f"{path}: the game did not finish")
    m = measure(game)
    probe = Counts()
    for s in mine:
        probe.add(m.seats[s])
    outcome = {kind: 0.0 for kind in (tables.LEGAL, tables.REASKED, tables.INVALID, tables.TRANSPORT)}
    requested = 0.0
    for row, request in tables.settled(game):
        if int(row["seat"]) not in mine:
            continue
        outcome[tables.decision_outcome(row)] += 1
        if request is not None and request.kind is Kind.PROBE:
            requested += len(request.options)
    sides = {s: game.side(s) or "maniac" for s in mine}
    won = {s: 1.0 if game.won(s) else 0.0 for s in mine}
    decisions = sum(outcome.values())
    given = float(probe.probe_pairs)
    counts = {
        "seats": float(len(mine)),
        "won": sum(won.values()),
        "town": float(sum(1 for side in sides.values() if side == "town")),
        "town_won": sum(won[s] for s in mine if sides[s] == "town"),
        "mafia": float(sum(1 for side in sides.values() if side == "mafia")),
        "mafia_won": sum(won[s] for s in mine if sides[s] == "mafia"),
        "drawn": 1.0 if game.winner == "draw" else 0.0,
        "one": 1.0,
        "decisions": decisions,
        "reached": decisions - outcome[tables.TRANSPORT],  # decisions the model was reached for
        "invalid": outcome[tables.INVALID],
        "first_invalid": outcome[tables.INVALID] + outcome[tables.REASKED],
        "transport": outcome[tables.TRANSPORT],
        "probe_requested": requested,
        "probe_given": given,
        "probe_score_sum": probe.probe_brier_sum + MISSING_BRIER * (requested - given),
        "auc_pairs": float(probe.probe_auc_pairs),
        "auc_concordant": probe.probe_auc_concordant,
    }
    scores = {
        "won": counts["won"] / len(mine),  # the share of its seats whose side won
        "drawn": counts["drawn"],
        **{name: _ratio(counts, r.numerator, r.denominator) for name, r in RATIOS.items()},
    }
    return scores, counts


def _ratio(counts: dict[str, float], numerator: str, denominator: str) -> float:
    return counts[numerator] / counts[denominator] if counts[denominator] > 0 else math.nan


class Ratio(NamedTuple):
    numerator: str  # of the sample's counts
    denominator: str
    meaning: str  # what the metric measures (its metric type's docstring)


# the ratio scores: per sample, and pooled over samples (a ratio of sums) by the metric of the same name
RATIOS = {
    "town_win_rate": Ratio(
        "town_won", "town",
        "Share of the evaluated town seats whose side won; a draw is not a win (see `drawn`).",
    ),
    "mafia_win_rate": Ratio(
        "mafia_won", "mafia",
        "Share of the evaluated black seats whose side won; a draw is not a win.",
    ),
    "invalid_action_rate": Ratio(
        "invalid", "reached",
        "Share of the decisions the model was reached for that it never answered legally (the rule's default was "
        "applied): a rate in [0, 1]. Decisions lost to a timeout or a connection error are not counted here.",
    ),
    "first_answer_invalid_rate": Ratio(
        "first_invalid", "reached",
        "Share of those decisions whose first answer was refused (re-asked, or never legal).",
    ),
    "transport_failure_rate": Ratio(
        "transport", "decisions",
        "Share of all decisions in which an attempt failed in transport (timeout, connection error) and a re-ask "
        "reached the model (a decision never reached stops the game: the sample is an error).",
    ),
    "probe_brier": Ratio(
        "probe_score_sum", "probe_requested",
        "Brier score of the belief probes over every probability asked for, a missing one scored 1 (the worst).",
    ),
    "probe_answered_rate": Ratio(
        "probe_given", "probe_requested",
        "Share of the probabilities asked for that the model gave.",
    ),
    "probe_auc": Ratio(
        "auc_concordant", "auc_pairs",
        "Rank AUC of the probes the model answered: of the (black, red) target pairs of each, the share in which the "
        "black target was rated higher (a tie counts a half). A missing probe is missing, not misordered: NaN when the "
        "model answered none (see `probe_answered_rate`).",
    ),
}  # fmt: skip


def _counts(scores: list[SampleScore]) -> list[tuple[object, dict[str, float]]]:
    """(deal, counts) of each scored sample: the deal from the sample's metadata, the counts from the score's."""
    out = []
    for s in scores:
        counts = (s.score.metadata or {}).get("counts")
        if isinstance(counts, dict):
            out.append(((s.sample_metadata or {}).get("seed", s.sample_id), {k: float(v) for k, v in counts.items()}))
    return out


def boundary_se(estimate: float, clusters: int) -> float:
    """The standard error at 0 % or 100 %, where a clustered error has no spread to measure: that of a proportion
    at ½ / (clusters + 1) from `clusters` trials (each deal counted once, the cautious choice), never 0."""
    p = 0.5 / (clusters + 1)
    return math.sqrt(p * (1 - p) / max(clusters, 1))


def pooled(rows: list[tuple[object, dict[str, float]]], numerator: str, denominator: str) -> tuple[float, float]:
    """(ratio of sums, its standard error) over samples, clustered by deal: the samples of one deal (a town seat
    and a black seat of the same cards) are not independent. NaN when nothing was counted; for the error, NaN with
    fewer than two deals, and `boundary_se` at 0 or 1."""
    kept = [(deal, c) for deal, c in rows if c.get(denominator, 0.0) > 0]
    if not kept:
        return math.nan, math.nan
    ids = [str(deal) for deal, _ in kept]
    _, inverse = np.unique(np.asarray(ids), return_inverse=True)
    num = np.asarray([c[numerator] for _, c in kept])
    den = np.asarray([c[denominator] for _, c in kept])
    sums = [np.asarray(np.bincount(inverse, weights=x), dtype=np.float64) for x in (num, den)]
    r, var = ratio_variance(sums[0], sums[1])
    clusters = len(sums[0])
    if clusters >= 2 and r in (0.0, 1.0):
        return r, boundary_se(r, clusters)
    return r, math.sqrt(var) if math.isfinite(var) else math.nan


def _ratio_metric(name: str) -> Callable[[], Metric]:
    """The Inspect metric `name` of `RATIOS`: the ratio of sums over the samples, with its clustered error."""
    numerator, denominator, meaning = RATIOS[name]

    def ratio_metric() -> Metric:
        def compute(scores: list[SampleScore]) -> dict[str, float]:
            value, se = pooled(_counts(scores), numerator, denominator)
            return {name: value, f"{name}_stderr": se}

        return compute

    ratio_metric.__doc__ = meaning
    return metric(name=name)(ratio_metric)


RATIO_METRICS = {name: _ratio_metric(name) for name in RATIOS}


@metric
def clustered_stderr() -> Metric:
    """Inspect's own `stderr(cluster="seed")` of a per-sample score's mean, except at 0 or 1, where it would read 0
    (no spread to measure): there `boundary_se` over the deals."""
    inner = stderr(cluster="seed")

    def compute(scores: list[SampleScore]) -> float:
        values = [float(s.score.as_float()) for s in scores]
        deals = len({str((s.sample_metadata or {}).get("seed", s.sample_id)) for s in scores})
        average = sum(values) / len(values) if values else math.nan
        if deals < 2:  # one deal measures no spread between deals (Inspect would say 0)
            return math.nan
        if average in (0.0, 1.0):
            return boundary_se(average, deals)
        return float(inner(scores))  # type: ignore[arg-type]

    return compute


METRICS: list[Any] = [
    *(make() for make in RATIO_METRICS.values()),
    {"won": [mean(), clustered_stderr()], "drawn": [mean(), clustered_stderr()]},
]


@scorer(metrics=METRICS)
def mafia_scores() -> Scorer:
    """Read the finished game's transcript and score every evaluated seat."""

    async def score(state: TaskState, target: Target) -> Score:
        mine = [int(s) for s in state.metadata["seats"]]
        values, counts = _score_of(str(state.metadata["transcript"]), mine)
        return Score(value=values, answer=state.output.completion,
                     metadata={"transcript": state.metadata["transcript"], "counts": counts})  # fmt: skip

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
    check: bool = True,
) -> Task:
    """`games` games of `preset` with the evaluated model in `seats` against the `field`. Run by `inspect eval`, the
    model is asked once before any game (`preflight`; `-T preflight=false` skips it): a model that cannot answer
    stops the run with a clear message and a non-zero exit."""
    rules = load_rules(preset)
    model = active_model() if check else None
    if model is not None:
        preflight(model)
        _CHECKED.add(str(model))
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
        version=TASK_VERSION,
    )
