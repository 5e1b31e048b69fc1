"""`arena play` with LLM seats against a local OpenAI-compatible server, and agent definitions that fail early.

`--seat all=NAME` with an agent file pointing at the server plays a full game; so does `--seat all=openai:MODEL`
with OPENAI_BASE_URL set, as the SDK honours it. A definition with a bad field, or whose key variable is unset,
stops `arena play` before the game starts (no transcript is created) with a message naming the field or variable.
The shipped examples in agents/ all validate.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.agents import AgentError, AgentSpec, api_key_for, resolve_agent
from arena.cli import app
from arena.prompts import load_prompt_set
from arena.standin import FakeServer
from arena.transcript import load

AGENTS = Path(__file__).resolve().parents[2] / "agents"


def _play(args: list[str], out: Path) -> tuple[int, str, Path | None]:
    result = CliRunner().invoke(app, ["play", "--quiet", "--seed", "4", "--out", str(out), *args])
    files = sorted(out.glob("*.jsonl")) if out.exists() else []
    return result.exit_code, result.output, files[0] if files else None


def test_play_all_seats_with_an_agent_file(tmp_path: Path, server: FakeServer, api_key: str) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "local.toml").write_text(
        f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{server.base_url}"\napi_key_env = "ARENA_TEST_KEY"\n'
        "price_input_per_m = 1.0\nprice_cached_per_m = 0.5\nprice_output_per_m = 2.0\n"
    )
    code, output, path = _play(["--seat", "all=local", "--agents-dir", str(agents)], tmp_path / "out")
    assert code == 0, output
    assert path is not None and f"transcript: {path}" in output
    transcript = load(path)
    assert transcript.status == "complete"
    assert {entry.agent.name for entry in transcript.header.seats} == {"local"}
    # the preflight probe recorded the model the server reports, and the header names the prompt set
    assert {entry.agent.reported_model for entry in transcript.header.seats} == {"fake-model-2026-01-01"}
    assert transcript.header.prompt_set_hash == load_prompt_set("default", "en").hash
    assert {c.seat for c in transcript.calls} == set(range(1, 11))
    assert all(c.cost_usd > 0 for c in transcript.calls)
    assert server.stats.requests == len(transcript.calls) + 1  # every call, plus the one probe
    assert api_key not in path.read_text(encoding="utf-8")
    assert server.stats.authorization_seen == {f"Bearer {api_key}"}  # the key went to the server, and only there


def test_play_openai_short_form_honours_openai_base_url(
    tmp_path: Path, server: FakeServer, api_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    code, output, path = _play(["--seat", "all=openai:gpt-test", "--seat", "3=bot:random"], tmp_path / "out")
    assert code == 0, output
    assert path is not None
    transcript = load(path)
    assert transcript.status == "complete"
    assert {c.model for c in transcript.calls} == {"gpt-test-2026-01-01"}
    assert 3 not in {c.seat for c in transcript.calls}


def test_a_missing_key_variable_stops_before_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_ARENA_KEY", raising=False)
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "keyless.toml").write_text('kind = "llm"\nmodel = "m"\napi_key_env = "NO_SUCH_ARENA_KEY"\n')
    code, output, path = _play(["--seat", "2=keyless", "--agents-dir", str(agents)], tmp_path / "out")
    assert code == 2
    assert "NO_SUCH_ARENA_KEY" in output and "keyless" in output
    assert path is None  # nothing was started


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ('kind = "llm"\nmodel = "m"\ntemperature = "hot"\n', "temperature"),
        ('kind = "llm"\nmodel = "m"\nstructured = "xml"\n', "structured"),
        ('kind = "llm"\nmodel = "m"\nmodle = "typo"\n', "modle"),
        ('kind = "llm"\n', "needs a model"),
        ('kind = "llm"\nmodel = "m"\nbase_url = "localhost:8000"\n', "base_url"),
        ('kind = "llm"\nmodel = "m"\napi_key_env = "sk-abcdefghijklmnopqrstuvwxyz"\n', "api_key_env"),
    ],
)
def test_a_bad_field_stops_before_the_game(tmp_path: Path, body: str, named: str) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "bad.toml").write_text(body)
    code, output, path = _play(["--seat", "1=bad", "--agents-dir", str(agents)], tmp_path / "out")
    assert code == 2
    assert "bad.toml" in output and named in output
    assert path is None
    assert "sk-abcdefghijklmnopqrstuvwxyz" not in output  # a key pasted by mistake is not echoed back


@pytest.mark.parametrize("name", sorted(p.stem for p in AGENTS.glob("*.toml")))
def test_shipped_agent_examples_validate(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = resolve_agent(name, AGENTS, check_env=False)
    assert spec.kind == "llm" and spec.model
    if spec.api_key_env:
        monkeypatch.delenv(spec.api_key_env, raising=False)
        with pytest.raises(AgentError, match=spec.api_key_env):
            api_key_for(spec)
        monkeypatch.setenv(spec.api_key_env, "sk-test")
        assert api_key_for(spec) == "sk-test"
    else:
        assert spec.base_url  # a local server: a placeholder key, never another provider's
        monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-be-sent")
        assert api_key_for(spec) == "no-key"


def test_examples_cover_the_supported_servers() -> None:
    urls = {resolve_agent(p.stem, AGENTS, check_env=False).base_url for p in AGENTS.glob("*.toml")}
    assert None in urls  # OpenAI itself
    assert {"http://localhost:8000/v1", "http://localhost:11434/v1", "http://localhost:8080/v1"} <= urls
    assert "https://openrouter.ai/api/v1" in urls


def test_a_resolved_spec_never_holds_the_key(api_key: str) -> None:
    """Specs go into transcript headers: resolving reads the key to check it is there, and keeps only its name."""
    spec = resolve_agent("openai", AGENTS)
    assert spec.api_key_env == "OPENAI_API_KEY"
    assert api_key not in spec.model_dump_json()


async def test_preflight_records_the_reported_model_and_fails_early(server: FakeServer, api_key: str) -> None:
    from arena.llm.preflight import preflight
    from arena.prompts import prompt_set_hash_for

    local = AgentSpec(name="local", kind="llm", model="fake-model", base_url=server.base_url)
    bot = resolve_agent("bot:random")
    seats = await preflight({1: local, 2: local, 3: bot})
    assert seats[1].reported_model == seats[2].reported_model == "fake-model-2026-01-01"
    assert seats[3] == bot
    assert server.stats.requests == 1  # one probe per distinct agent
    assert prompt_set_hash_for(seats, "en") == load_prompt_set("default", "en").hash
    assert prompt_set_hash_for({3: bot}, "en") is None

    # a lost connection is retried like any transient (retries=0 here keeps the test quick)
    gone = AgentSpec(name="gone", kind="llm", model="m", base_url="http://127.0.0.1:9/v1", timeout_s=2, retries=0)
    with pytest.raises(
        AgentError, match=re.escape("agent gone: the probe call to http://127.0.0.1:9/v1 failed: connection error")
    ):
        await preflight({1: gone})


async def test_a_refused_key_stops_before_the_game_without_echoing_it(api_key: str) -> None:
    from arena.llm.preflight import preflight
    from arena.standin import FaultPlan

    with FakeServer(plan=FaultPlan().add("unauthorized")) as refusing:
        spec = AgentSpec(
            name="wrongkey", kind="llm", model="m", base_url=refusing.base_url, api_key_env="ARENA_TEST_KEY"
        )
        with pytest.raises(AgentError, match=r"agent wrongkey: .* HTTP 401") as caught:
            await preflight({1: spec})
    message = str(caught.value)
    assert "Incorrect API key provided: [key]" in message
    assert api_key[:8] not in message and api_key[-4:] not in message
