"""A model seat's decision deadline comes from its agent (issue #31): `timeout_s` per attempt times its attempts,
unless `--timeout` says otherwise; seats without a model keep 60 s. Before, every seat had `--timeout`'s 60 s, and a
local model on a busy 2-core machine lost whole vote rounds to it (all 10 first calls after a resume)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.agents import load_agent_file
from arena.cli import app
from arena.cli.play import BOT_TIMEOUT, decision_timeouts
from arena.resources import example_agents_root
from arena.standin import FakeServer


def test_a_model_seats_deadline_is_its_agents() -> None:
    local = load_agent_file(example_agents_root() / "local.toml")
    bot = load_agent_file(example_agents_root() / "local.toml").model_copy(update={"kind": "bot", "name": "b"})
    seats = {1: local, 2: bot}
    assert decision_timeouts(seats, None) == (BOT_TIMEOUT, {1: local.timeout_s * (local.retries + 1)})
    assert decision_timeouts(seats, None)[1][1] == 1800  # agents/local.toml: 600 s an attempt, 3 attempts
    assert decision_timeouts(seats, 5.0) == (5.0, {})  # --timeout: every seat


@pytest.mark.parametrize(("option", "expected"), [([], {1: 14.0, 2: 14.0}), (["--timeout", "5"], {})])
def test_play_passes_each_model_seat_its_deadline(
    tmp_path: Path, server: FakeServer, api_key: str, monkeypatch: pytest.MonkeyPatch, option: list[str],
    expected: dict[int, float],
) -> None:  # fmt: skip
    import arena.cli.game as game_module

    seen: dict[str, Any] = {}
    real = game_module.run_game

    async def spy(*args: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        return await real(*args, **kwargs)

    monkeypatch.setattr(game_module, "run_game", spy)
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "slow.toml").write_text(
        f'kind = "llm"\nmodel = "m"\nbase_url = "{server.base_url}"\ntimeout_s = 7\nretries = 1\nfree = true\n'
    )
    result = CliRunner().invoke(app, ["play", "--agents-dir", str(agents), "--seat", "1,2=slow", "--seed", "1",
                                      "--out", str(tmp_path / "out"), "--quiet", *option])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert {s: t for s, t in seen["timeouts"].items() if t is not None} == expected
    assert seen["timeout_s"] == (5.0 if option else BOT_TIMEOUT)
