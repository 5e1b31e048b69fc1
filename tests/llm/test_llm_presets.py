"""Provider presets mean what they say: `openai:MODEL` is `agents/openai.toml` with another model, an agent with no
prices has an unknown cost (shown as unknown, never $0), and `arena tournament --budget` refuses to start with one."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from arena.agents import load_agent_file, priced, resolve_agent
from arena.cli import app
from arena.render.totals import totals_table
from arena.resources import example_agents_root
from arena.transcript import SeatTotals


def test_openai_short_form_is_the_openai_file_with_another_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    file = load_agent_file(example_agents_root() / "openai.toml")
    spec = resolve_agent("openai:gpt-4.1-mini")
    assert spec.model == "gpt-4.1-mini" and spec.name == "openai:gpt-4.1-mini"
    assert spec.max_tokens_param == "max_completion_tokens" == file.max_tokens_param
    assert spec.schema_style == "stable" and spec.prompt_cache_key
    assert spec.api_key_env == "OPENAI_API_KEY" and spec.structured == file.structured
    assert not priced(spec)  # the file's prices are its own model's: another model's are unknown
    same = resolve_agent(f"openai:{file.model}")
    assert priced(same) and same.price_input_per_m == file.price_input_per_m


def test_unpriced_agents_show_an_unknown_cost() -> None:
    shipped = {p.stem: load_agent_file(p) for p in example_agents_root().glob("*.toml")}
    assert priced(shipped["openai"]) and priced(shipped["local"]) and priced(shipped["local-fake"])
    totals = {1: SeatTotals(calls=3, prompt_tokens=100, cost_usd=0.0), 2: SeatTotals(calls=2, cost_usd=0.5)}
    table = totals_table(totals, unknown={1})
    assert table is not None
    console = Console(width=200, record=True)
    console.print(table)
    text = console.export_text()
    cells = [line.replace("│", " ").split() for line in text.splitlines()]
    rows = {c[0]: c[-1] for c in cells if c and c[0] in {"1", "2", "game"}}
    assert rows == {"1": "unknown", "2": "0.5000", "game": "unknown"}


def test_budget_refuses_an_agent_of_unknown_cost(tmp_path: Path) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    local = 'kind = "llm"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n'
    (agents / "paid.toml").write_text(local + "price_input_per_m = 1.0\n")
    (agents / "mystery.toml").write_text(local)
    spec = tmp_path / "t.toml"
    spec.write_text(
        'name = "t"\ngames = 2\nseed = 5\nfiller = "bot:heuristic"\n'
        '[[pool]]\nlabel = "paid"\nagent = "paid"\n[[pool]]\nlabel = "mystery"\nagent = "mystery"\n'
    )
    args = ["tournament", str(spec), "--agents-dir", str(agents), "--no-progress", "--out", str(tmp_path / "o")]
    result = CliRunner().invoke(app, [*args, "--budget", "5"])
    assert result.exit_code == 2, result.output
    assert "--budget: the cost of mystery is unknown" in result.output
    assert not (tmp_path / "o").exists()
