"""The Inspect AI task: the model under evaluation plays seats against a fixed field. The scores are checked for
their values against mock models whose right and wrong answers are known: the mock counts what it did, and the
scores must equal those counts. Runs offline (mockllm never reaches for a tokenizer download), with Inspect's
`mockllm` model, with the `inspect eval` command, and against the local stand-in server."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import SampleScore, Score

from arena.engine import Failed, Failure, Game, Kind, Request, Role, load_rules
from arena.inspect_task import (
    METRICS,
    TASK_VERSION,
    InspectSeat,
    _score_of,
    boundary_se,
    clustered_stderr,
    evaluated_seats,
    mafia,
    pooled,
    seat_list,
)
from arena.llm.conversation import Conversation
from arena.llm.modes import Mode
from arena.llm.seat import ConversationSeat, NoUsableAnswer
from arena.orchestrator import failed_attempt
from arena.prompts import load_prompt_set
from arena.standin import FakeServer, valid_answer
from arena.transcript import load, verify

ROOT = Path(__file__).resolve().parents[1]
BLACK = (Role.MAFIA, Role.DON)
METRIC_NAMES = {"town_win_rate", "mafia_win_rate", "invalid_action_rate", "first_answer_invalid_rate",
                "transport_failure_rate", "probe_brier", "probe_answered_rate"}  # fmt: skip


def output(content: str) -> ModelOutput:
    out = ModelOutput.from_content(model="mockllm", content=content)
    out.usage = ModelUsage(input_tokens=100, output_tokens=20, total_tokens=120)
    return out


@dataclass
class KnownMock:
    """A mock whose every answer is decided by rule, and counted:

    - every probe is answered with prose (never legal, so every probe falls to the default: a missing probe);
    - other requests: every 4th first attempt is prose (unreadable: re-asked), every 7th raises a connection error
      (a transport failure), the rest and every re-ask get a legal answer of the request's schema;
    - `oracle`: legal everywhere, probes answered with the true colours of the deal of `seed`.
    """

    oracle: bool = False
    seed: int = 1
    retry: bool = False  # the next call re-asks the decision whose first attempt failed
    probe_calls: int = 0
    first: int = 0  # non-probe first attempts
    prose: int = 0
    raised: int = 0
    rng: random.Random = field(default_factory=lambda: random.Random(0))

    def __call__(self, messages: Any, tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        schema = config.response_schema.json_schema.model_dump(exclude_none=True) if config.response_schema else {}
        name = config.response_schema.name if config.response_schema else ""
        if name.startswith("probe"):
            if self.oracle:
                roles = Game(load_rules("fiim"), self.seed).roles
                seats = schema["properties"]["beliefs"]["properties"]
                return output(json.dumps({"beliefs": {s: 1.0 if roles[int(s)] in BLACK else 0.0 for s in seats}}))
            self.probe_calls += 1
            return output("I would rather not say who is black.")
        if self.retry or self.oracle:
            self.retry = False
            return output(json.dumps(valid_answer(schema, self.rng)))
        self.first += 1
        if self.first % 7 == 0:
            self.raised += 1
            self.retry = True
            raise ConnectionError("connection reset by the mock")
        if self.first % 4 == 0:
            self.prose += 1
            self.retry = True
            return output("Let me think about that for a moment.")
        return output(json.dumps(valid_answer(schema, self.rng)))


def scores(log: EvalLog) -> dict[str, float]:
    assert log.status == "success", log.error
    assert log.results is not None
    values = {k if s.name == "mafia_scores" else f"{s.name}_{k}": float(v.value)
              for s in log.results.scores for k, v in s.metrics.items()}  # fmt: skip
    print(f"inspect scores ({log.eval.model}): {values}")
    return values


def transcripts_of(log: EvalLog) -> list[Path]:
    assert log.samples is not None
    return [Path(str(s.metadata["transcript"])) for s in log.samples]


def run(tmp_path: Path, mock: Any, **task: Any) -> dict[str, float]:
    model = get_model("mockllm/model", custom_outputs=mock)
    [log] = inspect_eval(mafia(**task), model=model, log_dir=str(tmp_path), display="none", max_samples=1)
    return scores(log)


def test_scores_equal_what_a_mock_with_known_mistakes_did(tmp_path: Path) -> None:
    mock = KnownMock()
    values = run(tmp_path, mock, games=4)
    assert mock.probe_calls % 3 == 0 and mock.raised and mock.prose  # each probe: the answer and two re-asks
    probes = mock.probe_calls // 3
    decisions = mock.first + probes
    reached = decisions - mock.raised  # a transport failure is not the model's doing
    assert values["invalid_action_rate"] == pytest.approx(probes / reached)  # only the probes were never legal
    assert values["first_answer_invalid_rate"] == pytest.approx((probes + mock.prose) / reached)
    assert values["transport_failure_rate"] == pytest.approx(mock.raised / decisions)
    assert values["probe_brier"] == 1.0  # every probability missing: each scored the worst, never NaN
    assert values["probe_answered_rate"] == 0.0
    assert math.isnan(values["probe_auc"])  # no probe answered: no ranking to judge (it once read 0, "misordered")
    for name in METRIC_NAMES:  # every score has its standard error (4 games: 2 deals), none a false 0 at 0 or 1
        assert math.isfinite(values[f"{name}_stderr"]) and values[f"{name}_stderr"] > 0, name
    assert math.isfinite(values["won_clustered_stderr"]) and values["drawn_mean"] in (0.0, 0.25, 0.5, 0.75, 1.0)


def test_scores_of_a_mock_that_knows_every_colour(tmp_path: Path) -> None:
    values = run(tmp_path, KnownMock(oracle=True, seed=1), games=2)  # both samples are the deal of seed 1
    assert values["probe_brier"] == 0.0 and values["probe_auc"] == 1.0 and values["probe_answered_rate"] == 1.0
    assert values["invalid_action_rate"] == 0.0 and values["transport_failure_rate"] == 0.0


def sample(seed: int, **counts: float) -> SampleScore:
    keys = ("seats", "won", "town", "town_won", "mafia", "mafia_won", "drawn", "decisions", "reached", "invalid",
            "first_invalid", "transport", "probe_requested", "probe_given", "probe_score_sum", "auc_pairs",
            "auc_concordant")  # fmt: skip
    base = {"one": 1.0} | dict.fromkeys(keys, 0.0) | {"seats": 1.0}
    value = {"won": counts.get("won", 0.0), "drawn": counts.get("drawn", 0.0)}
    return SampleScore(score=Score(value=value, metadata={"counts": base | counts}), sample_id=seed,  # type: ignore[arg-type]
                       sample_metadata={"seed": seed})  # fmt: skip


def computed(games: list[SampleScore]) -> dict[str, float]:
    by_name: dict[str, float] = {}
    for m in METRICS:
        if not isinstance(m, dict):
            by_name |= m(games)
    return by_name


def test_wins_per_side_and_errors_clustered_by_deal() -> None:
    games = [sample(1, town=1, town_won=1, won=1), sample(1, mafia=1, drawn=1), sample(2, town=1),
             sample(2, mafia=1, mafia_won=1, won=1), sample(3, town=1, drawn=1), sample(3, mafia=1)]  # fmt: skip
    by_name = computed(games)
    assert by_name["town_win_rate"] == pytest.approx(1 / 3)  # a drawn town game is not won
    assert by_name["mafia_win_rate"] == pytest.approx(1 / 3)
    # clustered by seed (deal): per-deal sums of town wins (1, 0, 0 of 1 each): r = 1/3, u = (1 − 1/3, −1/3, −1/3) / 3
    u = [(1 - 1 / 3) / 3, (0 - 1 / 3) / 3, (0 - 1 / 3) / 3]
    assert by_name["town_win_rate_stderr"] == pytest.approx(math.sqrt(3 / 2 * sum(x * x for x in u)))
    rows = [((s.sample_metadata or {})["seed"], s.score.metadata["counts"]) for s in games]  # type: ignore[index]
    assert math.isnan(pooled(rows, "won", "nobody")[0])  # nothing counted: NaN, not 0
    drawn = clustered_stderr()(
        [
            SampleScore(
                score=Score(value=s.score.value["drawn"]),  # type: ignore[index]
                sample_id=s.sample_id,
                sample_metadata=s.sample_metadata,
            )
            for s in games
        ]
    )
    per_deal = [1, 0, 1]  # draws per deal of 2 samples: Inspect's clustered error of the mean 1/3
    dev = [d - 2 / 3 for d in per_deal]
    assert drawn == pytest.approx(math.sqrt(sum(x * x for x in dev) * 3 / 2) / 6)


def test_no_standard_error_is_zero_at_zero_or_all() -> None:
    """0 wins in 3 deals once printed a standard error of 0.000: certainty from three games."""
    games = [sample(seed, town=1) for seed in (1, 2, 3)]
    by_name = computed(games)
    assert by_name["town_win_rate"] == 0.0
    assert by_name["town_win_rate_stderr"] == pytest.approx(boundary_se(0.0, 3)) and boundary_se(0.0, 3) > 0.1
    won = [SampleScore(score=Score(value=1.0), sample_id=seed, sample_metadata={"seed": seed}) for seed in (1, 2, 3)]
    assert clustered_stderr()(won) == pytest.approx(boundary_se(1.0, 3))  # Inspect's own would say 0
    assert math.isnan(clustered_stderr()(won[:1]))  # one deal: no spread to measure, not 0


def test_a_missing_probe_is_missing_not_misordered() -> None:
    answered = sample(1, auc_pairs=21, auc_concordant=21, probe_requested=9, probe_given=9)
    silent = sample(2, probe_requested=9, probe_score_sum=9)  # a probe never answered: 9 probabilities owed
    by_name = computed([answered, silent])
    assert by_name["probe_auc"] == 1.0  # the one ranking given was right; the silent probe does not make it 0.5
    assert by_name["probe_answered_rate"] == pytest.approx(0.5) and by_name["probe_brier"] == pytest.approx(0.5)


def test_the_failure_codes_the_report_counts_are_the_llm_seats() -> None:
    """The report tells an unreachable model (an error, not reached: transport) from an unreadable answer (the
    model's: malformed) by the codes the orchestrator records for the LLM seat's own failures: pin them to the seat."""
    rules = load_rules("fiim")
    conversation = Conversation(load_prompt_set("default", "en"), rules, 1, Mode.JSON_SCHEMA)
    seat = InspectSeat(1, get_model("mockllm/model"), conversation)  # the LLM seat of the task: a ConversationSeat
    exc = seat.fail_transport([], Request(seat=1, kind=Kind.PROBE, options=(2, 3)), "ConnectionError: reset", 1.0, 1)
    assert failed_attempt(exc).data == Failed(Failure.ERROR, reached=False)
    assert failed_attempt(NoUsableAnswer("no JSON object found")).data == Failed(Failure.MALFORMED)
    assert ConversationSeat.clean_problem(failed_attempt(NoUsableAnswer("no JSON")).reason) == "no JSON"


def test_seat_choices() -> None:
    rules = load_rules("fiim")
    assert seat_list([3, 7]) == "3,7" and seat_list(4) == "4"  # as Inspect may parse `-T seats=...`
    assert evaluated_seats(rules, 1, 0, "3,7") == [3, 7]
    roles = Game(rules, 1).roles
    town, black = evaluated_seats(rules, 1, 0, "alternate"), evaluated_seats(rules, 1, 1, "alternate")
    assert roles[town[0]] not in BLACK and roles[black[0]] in BLACK
    with pytest.raises(ValueError):
        evaluated_seats(rules, 1, 0, "11")


def test_against_the_local_stand_in_server(tmp_path: Path) -> None:
    with FakeServer() as server:
        model = get_model("openai/stand-in", base_url=server.base_url, api_key="test-key", responses_api=False)
        [log] = inspect_eval(mafia(games=2), model=model, log_dir=str(tmp_path), display="none")
        stats = server.stats
    values = scores(log)
    assert log.eval.task_version == TASK_VERSION
    assert stats.requests > 0 and stats.by_schema["probe_decision"] > 0
    assert values["invalid_action_rate"] == 0.0 and values["transport_failure_rate"] == 0.0
    paths = transcripts_of(log)
    assert all(verify(load(p)).ok for p in paths)
    assert log.samples is not None
    for path, done in zip(paths, log.samples, strict=True):
        assert path.parent.parent.name == "arena-transcripts" and path.parent.parent.parent == tmp_path
        t = load(path)
        mine = [e.seat for e in t.header.seats if e.agent.name.startswith("inspect:")]
        assert len(mine) == 1 and t.calls and {c.seat for c in t.calls} == set(mine)  # only the evaluated seat
        # the sample's messages are the game as the seat saw and answered it: the system prompt, then every turn
        roles = [m.role for m in done.messages]
        assert roles[0] == "system" and roles.count("assistant") == sum(1 for c in t.calls if c.parsed is not None)
        answers = [m.text for m in done.messages if m.role == "assistant"]
        assert answers == [c.raw for c in t.calls if c.parsed is not None]
        assert done.scores is not None and set(done.scores["mafia_scores"].value) >= {"won", "drawn"}  # type: ignore[arg-type]
        assert "seed" not in done.scores["mafia_scores"].value  # type: ignore[operator]  # bookkeeping is metadata


def test_every_seat_of_a_sample_is_scored(tmp_path: Path) -> None:
    """A sample with a town seat and a black seat once counted only its first seat's side and win."""
    roles = Game(load_rules("fiim"), 1).roles
    town = next(s for s in range(1, 11) if roles[s] not in BLACK)
    black = next(s for s in range(1, 11) if roles[s] in BLACK)
    model = get_model("mockllm/model", custom_outputs=KnownMock(oracle=True, seed=1))
    [log] = inspect_eval(mafia(games=1, seats=f"{town},{black}"), model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.samples is not None
    [path] = transcripts_of(log)
    values, counts = _score_of(str(path), [town, black])
    assert counts["seats"] == 2 and counts["town"] == 1 and counts["mafia"] == 1
    assert counts["town_won"] + counts["mafia_won"] == counts["won"] == (0 if values["drawn"] else 1)
    assert values["won"] == counts["won"] / 2
    headings = [m.text for m in log.samples[0].messages if m.text.startswith("(seat ")]
    assert headings == [f"(seat {town}'s conversation)", f"(seat {black}'s conversation)"]


@dataclass
class DiesAfter:
    """Answers legally `calls` times, then every call fails in transport (a server that went away)."""

    calls: int
    made: int = 0
    rng: random.Random = field(default_factory=lambda: random.Random(0))

    def __call__(self, messages: Any, tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        self.made += 1
        if self.made > self.calls:
            raise ConnectionError("connection refused by the mock")
        schema = config.response_schema.json_schema.model_dump(exclude_none=True) if config.response_schema else {}
        return output(json.dumps(valid_answer(schema, self.rng)))


def test_a_model_that_cannot_be_reached_is_an_error_not_a_score(tmp_path: Path) -> None:
    """A decision the model was never reached for once fell to the rule's default and the game was scored."""
    model = get_model("mockllm/model", custom_outputs=DiesAfter(calls=5))
    [log] = inspect_eval(mafia(games=1), model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "error" and log.error is not None
    assert "could not be reached on the last attempt" in log.error.message and "no result" in log.error.message
    [path] = list((tmp_path / "arena-transcripts").rglob("*.jsonl"))
    t = load(path)
    assert t.end is None and verify(t).ok  # stopped unsealed, resumable, and it verifies


STAND_IN_CLI = [sys.executable, "-m", "inspect_ai", "eval", "mafia_arena/mafia", "--model", "openai/stand-in",
                "-T", "games=2", "--display", "plain"]  # fmt: skip


def _outside(tmp_path: Path, *extra: str, base_url: str) -> subprocess.CompletedProcess[str]:
    """`inspect eval mafia_arena/mafia` run from a folder outside the checkout, against `base_url`."""
    folder = tmp_path / "elsewhere"
    folder.mkdir(exist_ok=True)
    env = {**os.environ, "INSPECT_DISPLAY": "plain", "NO_COLOR": "1", "OPENAI_BASE_URL": base_url,
           "OPENAI_API_KEY": "test-key", "COLUMNS": "200"}  # fmt: skip
    return subprocess.run([*STAND_IN_CLI, "--log-dir", str(tmp_path / "logs"), *extra], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600, check=False)  # fmt: skip


def test_inspect_eval_against_the_stand_in_from_outside_the_checkout(tmp_path: Path) -> None:
    """`--model openai/stand-in` alone: Inspect sends an unknown model name to the Responses API, which the stand-in
    (like vLLM, Ollama) lacks. Every call was a 404 and the run still exited 0 with scores; now it stops before any
    game with the fix, and with the fix it scores."""
    with FakeServer() as server:
        refused = _outside(tmp_path, base_url=server.base_url)
        games_before = list((tmp_path / "logs").rglob("*.jsonl"))
        done = _outside(tmp_path, "-M", "responses_api=false", base_url=server.base_url)
    said = refused.stdout + refused.stderr
    assert refused.returncode != 0, said[-2000:]
    assert "-M responses_api=false" in said and "No game was played" in said
    assert not games_before  # no game, no transcript
    print(done.stdout[-3000:])
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    printed = {row[0]: row[1] for row in (line.split() for line in done.stdout.splitlines()) if len(row) >= 2}
    assert printed["invalid_action_rate"] == "0.000" and printed["transport_failure_rate"] == "0.000"
    assert printed["probe_answered_rate"] == "1.000"
    assert len(list((tmp_path / "logs" / "arena-transcripts").rglob("*.jsonl"))) == 2


def test_inspect_eval_command_with_mockllm_offline(tmp_path: Path) -> None:
    """`inspect eval arena/inspect_task.py --model mockllm/model` inside the checkout, as a researcher runs it, with
    every outside connection refused (a proxy on a closed local port): mockllm's default answer is prose, so every
    decision of the evaluated seat falls to the default: invalid_action_rate 1, no transport failure (a tokenizer
    download would have been one on every call)."""
    env = {**os.environ, "INSPECT_DISPLAY": "plain", "NO_COLOR": "1", "HTTPS_PROXY": "http://127.0.0.1:9",
           "HTTP_PROXY": "http://127.0.0.1:9", "TIKTOKEN_CACHE_DIR": str(tmp_path / "no-cache"),
           "COLUMNS": "200"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "arena/inspect_task.py", "--model", "mockllm/model",
         "-T", "games=4", "--log-dir", str(tmp_path), "--display", "plain"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    print(done.stdout[-3000:])
    assert done.returncode == 0, done.stderr[-2000:]
    printed = {row[0]: row[1] for row in (line.split() for line in done.stdout.splitlines()) if len(row) >= 2}
    assert printed["invalid_action_rate"] == "1.000" and printed["transport_failure_rate"] == "0.000"
    assert printed["probe_brier"] == "1.000" and printed["probe_answered_rate"] == "0.000"
    assert all(f"{name}_stderr" in printed for name in METRIC_NAMES)
    assert list(tmp_path.glob("*.eval")) and list((tmp_path / "arena-transcripts").rglob("*.jsonl"))
