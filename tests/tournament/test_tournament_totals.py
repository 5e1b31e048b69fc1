"""Totals in every game: the end record carries token and cost totals per seat and per game, `arena play` prints
them at the end, `arena show` shows them (a seat's view: only that seat's row), and `arena resume` counts the calls
made before the crash."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app
from arena.standin import FakeServer
from arena.transcript import load


def test_play_prints_and_show_shows_the_totals(tmp_path: Path) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    with FakeServer() as server:
        (agents / "fake.toml").write_text(
            f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{server.base_url}"\n'
            "price_input_per_m = 2.0\nprice_cached_per_m = 1.0\nprice_output_per_m = 8.0\n"
        )
        args = ["play", "--seed", "3", "--out", str(tmp_path / "out"), "--seat", "1-3=fake"]
        result = CliRunner().invoke(app, [*args, "--agents-dir", str(agents)])
    assert result.exit_code == 0, result.output
    path = next((tmp_path / "out").glob("*.jsonl"))
    end = load(path).end
    assert end is not None and end.total is not None
    assert {s for s, t in end.totals.items() if t.calls} == {1, 2, 3}  # the LLM seats; bots make no calls
    assert sorted(end.totals) == list(range(1, 11))  # and the bot seats are there, with zeros
    calls = load(path).calls
    assert end.total.calls == len(calls)
    assert end.total.cost_usd > 0
    assert "model calls" in result.output and f"{end.total.prompt_tokens:,}" in result.output
    shown = CliRunner().invoke(app, ["show", str(path)])
    assert shown.exit_code == 0, shown.output
    assert "model calls" in shown.output and f"{end.total.cost_usd:.4f}" in shown.output
    seat_view = CliRunner().invoke(app, ["show", str(path), "--seat", "2"])
    assert seat_view.exit_code == 0
    rows = [line for line in seat_view.output.splitlines() if re.match(r"^│\s+\d+\s+│", line)]
    assert len(rows) == 1 and f"{end.totals[2].prompt_tokens:,}" in rows[0]  # another seat's row stays hidden
    bots = CliRunner().invoke(app, ["play", "--seed", "3", "--quiet", "--out", str(tmp_path / "bots")])
    bot_end = load(next((tmp_path / "bots").glob("*.jsonl"))).end
    assert bots.exit_code == 0 and bot_end is not None and bot_end.total is not None
    assert bot_end.total.calls == 0 and bot_end.total.cost_usd == 0.0  # a bot game: zeros, but spelled out
    assert sorted(bot_end.totals) == list(range(1, 11))  # every seat of the table
    assert all(t.calls == t.prompt_tokens == t.completion_tokens == 0 for t in bot_end.totals.values())
    assert bot_end.total.defaults == sum(c.defaults for c in bot_end.counters.values())
    assert "model calls" not in bots.output  # nothing to print for a game without model calls


def test_a_file_written_before_bot_games_had_totals_still_reads() -> None:
    """tests/tournament/data/pre-totals-fiim.jsonl is the fiim golden game as written before every end record
    carried totals (a bot game's end record then had none)."""
    path = Path(__file__).parent / "data" / "pre-totals-fiim.jsonl"
    transcript = load(path)
    assert transcript.end is not None and transcript.end.total is None and transcript.end.totals == {}
    verified = CliRunner().invoke(app, ["verify", str(path)])
    assert verified.exit_code == 0, verified.output
    shown = CliRunner().invoke(app, ["show", str(path)])
    assert shown.exit_code == 0 and "model calls" not in shown.output
