"""The Inspect AI task (issue 9): the model under evaluation plays seats against a fixed field, scored on win rate
per side, invalid actions and probe Brier; run with Inspect's mockllm model and with the local stand-in server."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage, get_model

from arena.engine import Game, Role, load_rules
from arena.inspect_task import evaluated_seats, mafia, seat_list
from arena.standin import FakeServer, valid_answer
from arena.transcript import load, verify

ROOT = Path(__file__).resolve().parents[1]


def schema_following(seed: int = 0) -> Any:
    """A mock model that answers every request with a random answer of the requested schema (usage given, so
    mockllm never counts tokens itself)."""
    rng = random.Random(seed)

    def answer(messages: Any, tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        schema = config.response_schema.json_schema.model_dump(exclude_none=True) if config.response_schema else {}
        out = ModelOutput.from_content(model="mockllm", content=json.dumps(valid_answer(schema, rng)))
        out.usage = ModelUsage(input_tokens=100, output_tokens=20, total_tokens=120)
        return out

    return answer


def not_json(messages: Any, tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
    out = ModelOutput.from_content(model="mockllm", content="I would rather chat about the weather.")
    out.usage = ModelUsage(input_tokens=50, output_tokens=8, total_tokens=58)
    return out


def scores(log: EvalLog) -> dict[str, float]:
    assert log.status == "success", log.error
    assert log.results is not None
    values = {k: float(v.value) for s in log.results.scores for k, v in s.metrics.items()}
    print(f"inspect scores ({log.eval.model}): {values}")
    return values


def transcripts_of(log: EvalLog) -> list[Path]:
    assert log.samples is not None
    return [Path(str(s.metadata["transcript"])) for s in log.samples]


def test_mockllm_plays_and_is_scored(tmp_path: Path) -> None:
    model = get_model("mockllm/model", custom_outputs=schema_following())
    [log] = inspect_eval(mafia(games=4), model=model, log_dir=str(tmp_path), display="none")
    values = scores(log)
    assert set(values) == {"town_win_rate", "mafia_win_rate", "invalid_action_rate", "probe_brier"}
    assert values["invalid_action_rate"] == 0.0  # every answer had the schema's shape and legal values
    assert 0.0 <= values["town_win_rate"] <= 1.0 and 0.0 <= values["mafia_win_rate"] <= 1.0
    assert 0.0 < values["probe_brier"] < 1.0
    paths = transcripts_of(log)
    assert len(paths) == 4
    for path in paths:
        assert path.parent.parent.name == "arena-transcripts" and path.parent.parent.parent == tmp_path
        t = load(path)
        assert verify(t).ok
        mine = [e.seat for e in t.header.seats if e.agent.name.startswith("inspect:")]
        assert len(mine) == 1 and t.calls and {c.seat for c in t.calls} == set(mine)  # only the evaluated seat


def test_a_model_that_never_answers_in_shape_scores_its_invalid_actions(tmp_path: Path) -> None:
    model = get_model("mockllm/model", custom_outputs=not_json)
    [log] = inspect_eval(mafia(games=2, seats=[1]), model=model, log_dir=str(tmp_path), display="none")
    values = scores(log)
    assert values["invalid_action_rate"] == 3.0  # each decision: the answer and two re-asks, all unusable
    assert math.isnan(values["probe_brier"])  # its probes all fell to the default: no probability given


def test_seat_choices() -> None:
    rules = load_rules("fiim")
    assert seat_list([3, 7]) == "3,7" and seat_list(4) == "4"  # as Inspect may parse `-T seats=...`
    assert evaluated_seats(rules, 1, 0, "3,7") == [3, 7]
    roles = Game(rules, 1).roles
    town, black = evaluated_seats(rules, 1, 0, "alternate"), evaluated_seats(rules, 1, 1, "alternate")
    assert roles[town[0]] not in (Role.MAFIA, Role.DON) and roles[black[0]] in (Role.MAFIA, Role.DON)
    with pytest.raises(ValueError):
        evaluated_seats(rules, 1, 0, "11")


def test_against_the_local_stand_in_server(tmp_path: Path) -> None:
    with FakeServer() as server:
        model = get_model("openai/stand-in", base_url=server.base_url, api_key="test-key", responses_api=False)
        [log] = inspect_eval(mafia(games=2), model=model, log_dir=str(tmp_path), display="none")
        stats = server.stats
    values = scores(log)
    assert stats.requests > 0 and stats.by_schema["probe_decision"] > 0
    assert values["invalid_action_rate"] == 0.0
    assert all(verify(load(p)).ok for p in transcripts_of(log))


def test_inspect_eval_command_with_mockllm(tmp_path: Path) -> None:
    """`inspect eval arena/inspect_task.py --model mockllm/model`, as a researcher runs it: prints the scores."""
    env = {**os.environ, "INSPECT_DISPLAY": "plain", "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "arena/inspect_task.py", "--model", "mockllm/model",
         "-T", "games=2", "--log-dir", str(tmp_path), "--display", "plain"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    print(done.stdout[-1500:])
    assert done.returncode == 0, done.stderr[-2000:]
    for name in ("town_win_rate", "mafia_win_rate", "invalid_action_rate", "probe_brier"):
        assert name in done.stdout
    assert list(tmp_path.glob("*.eval")) and list((tmp_path / "arena-transcripts").rglob("*.jsonl"))
