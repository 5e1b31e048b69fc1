"""A transcript header is provenance, never code, paths, URLs or key names: the attacks of issue #7 against
`arena resume` and `arena prompt`, each with a crafted transcript from this folder.

Every attack file is a real game cut mid-way whose header claims one seat was played by the attacker's agent. The
tests run the commands against a recording server on 127.0.0.1 and check that nothing reached it, that no file the
payload would create exists, and that the named module was never imported.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import jinja2
import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from seckit import EVIL_TEMPLATE, cli, recording_server, write_attack

from arena.agents import AgentError, AgentSpec, resolve_agent
from arena.engine import load_rules
from arena.players import bot_lines
from arena.prompts import PROMPTS_DIR, load_prompt_set
from arena.transcript import load, make_header
from arena.trust import REDACTED

REPO_AGENTS = Path(__file__).resolve().parents[2] / "agents"
SECRET = "sk-test-cloud-token-0123456789"


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with the shipped agent files, an evil prompt set and an evil factory module next to it."""
    shutil.copytree(REPO_AGENTS, tmp_path / "agents")
    evil = tmp_path / "evil-prompts" / "en"
    shutil.copytree(PROMPTS_DIR / "en", evil)
    (evil / "system.j2").write_text(EVIL_TEMPLATE, encoding="utf-8")
    (tmp_path / "sec_evil_factory.py").write_text(
        "from pathlib import Path\nPath('IMPORTED').write_text('x')\ndef boom():\n    Path('CALLED').write_text('x')\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ARENA_TEST_CLOUD_TOKEN", SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return tmp_path


def _no_effect(site: Path) -> None:
    for marker in ("PWNED", "IMPORTED", "CALLED"):
        assert not (site / marker).exists(), f"the payload ran: {marker}"
    assert "sec_evil_factory" not in sys.modules


def test_no_request_leaves_for_the_headers_url_or_with_its_key_variable(site: Path) -> None:
    with recording_server() as (url, seen):
        path = write_attack("resume-secret.jsonl", site, url)
        before = path.read_bytes()
        mine = ("--agents-dir", "agents")  # the folder vouched for: its definitions may send keys (arena.agents)
        code, out, err = cli("resume", str(path), "--quiet", *mine)
        assert code == 2 and err.startswith("error: ")
        assert (
            "seat 2 (openai)" in err and "base_url" in err and "api_key_env" in err and "ARENA_TEST_CLOUD_TOKEN" in err
        )
        # even when the user accepts the header's agents, a key goes only where a local definition sends it
        code, out, err = cli("resume", str(path), "--quiet", "--agents-from-header", *mine)
        assert code == 2 and "api_key_env 'ARENA_TEST_CLOUD_TOKEN'" in err and "matches no local agent" in err
        assert seen == [], "a request reached the header's server"
        assert SECRET not in out + err
    assert path.read_bytes() == before, "a refused resume leaves the file as it was"


def test_a_seat_override_is_the_way_past_and_plays_locally(site: Path) -> None:
    with recording_server() as (url, seen):
        path = write_attack("resume-secret.jsonl", site, url)
        code, _out, err = cli("resume", str(path), "--quiet", "--seat", "2=bot:heuristic")
        assert code == 0, err
        assert seen == []
    transcript = load(path)
    assert transcript.status == "complete" and transcript.chain == "ok"
    assert [e.agent.name for e in transcript.resumes[0].seats][:3] == ["bot:heuristic"] * 3  # who played on
    # verify still sees that the attacker's header claimed a model seat that made no model call
    code, _, err = cli("verify", str(path))
    assert code == 1 and "(seat 2, decide): no model call record gave this answer" in err


def test_no_template_outside_the_sandbox_runs(site: Path) -> None:
    with recording_server() as (url, seen):
        path = write_attack("resume-template.jsonl", site, url)
        # the user's own local-fake serves where the header says: only the prompt set differs
        (site / "agents" / "local-fake.toml").write_text(
            f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{url}"\n', encoding="utf-8"
        )
        code, _, err = cli("resume", str(path), "--quiet")
        assert code == 2 and "seat 4 (local-fake)" in err and "prompt_set: header 'evil-prompts'" in err
        code, _, err = cli("resume", str(path), "--quiet", "--agents-from-header", "--agents-dir", "agents")
        assert code == 2 and "prompt_set 'evil-prompts' is neither shipped" in err
        # the review command does not take the set from the header either
        for extra in ([], ["--rebuild"]):
            code, _, err = cli("prompt", str(path), "--seat", "4", *extra)
            assert code == 2 and "not shipped in prompts/" in err and "--prompt-set" in err
        # and a set the user names himself still renders in the sandbox: the payload is refused, by name
        code, _, err = cli("prompt", str(path), "--seat", "4", "--prompt-set", "evil-prompts")
        assert code == 2 and err.startswith("error: ") and "unsafe" in err and "Traceback" not in err
        assert seen == []
    _no_effect(site)


def test_the_payload_is_real_outside_a_sandbox(site: Path) -> None:
    """The control: the same template in a plain Jinja2 environment does run a shell command."""
    jinja2.Environment().from_string(EVIL_TEMPLATE.replace("PWNED", "CONTROL")).render()
    assert (site / "CONTROL").exists()


def test_every_renderer_is_sandboxed() -> None:
    assert isinstance(load_prompt_set("default", "en").env, ImmutableSandboxedEnvironment)
    assert isinstance(bot_lines._ENV, ImmutableSandboxedEnvironment)
    with pytest.raises(SecurityError):
        bot_lines._template(EVIL_TEMPLATE).render()


def test_no_function_named_only_by_the_header_is_called(site: Path) -> None:
    path = write_attack("resume-factory.jsonl", site, "http://127.0.0.1:9/v1")
    code, _, err = cli("resume", str(path), "--quiet")
    assert code == 2 and "seat 6: no local definition of agent 'lc-evil'" in err
    code, _, err = cli("resume", str(path), "--quiet", "--agents-from-header")
    assert code == 2 and "langchain_factory 'sec_evil_factory:boom' is in no local agent file" in err
    _no_effect(site)


@pytest.mark.parametrize("name", ["../../x", "../agents/openai", "/etc/passwd", "a/b", ".hidden", "..", "x\\y"])
def test_an_agent_name_is_a_name(site: Path, name: str) -> None:
    (site / "x.toml").write_text('kind = "llm"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8")
    with pytest.raises(AgentError, match="bad agent name"):
        resolve_agent(name, site / "agents")
    code, _, err = cli("play", "--quiet", "--seat", f"3={name}", "--agents-dir", str(site / "agents"))
    assert code == 2 and "bad agent name" in err
    path = write_attack("resume-factory.jsonl", site, "http://127.0.0.1:9/v1")
    code, _, err = cli("resume", str(path), "--seat", f"6={name}", "--agents-dir", str(site / "agents"))
    assert code == 2 and "bad agent name" in err


def test_credentials_never_reach_the_header(tmp_path: Path) -> None:
    spec = AgentSpec(
        name="lab",
        kind="llm",
        model="m",
        base_url="http://alice:pa55word@127.0.0.1:9/v1",
        extra_body={"api_key": "s3cret-body", "provider": {"token": "s3cret-nested", "order": ["x"]}},
    )
    header = make_header(load_rules("fiim"), 1, {1: spec})
    text = header.model_dump_json()
    for secret in ("alice", "pa55word", "s3cret-body", "s3cret-nested"):
        assert secret not in text
    agent = header.seats[0].agent
    assert agent.base_url == f"http://{REDACTED}@127.0.0.1:9/v1"
    assert agent.extra_body == {"api_key": REDACTED, "provider": {"token": REDACTED, "order": REDACTED}}
