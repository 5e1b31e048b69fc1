"""What a header may still choose on resume (red-team findings 1-3): not the model your key pays for (an
`openai:MODEL` name, or a `--agents-from-header` model), not an `extra_body` value, not a prompt folder in the
working directory that shadows a shipped set or poses as one (`en`)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from seckit import cli, recording_server, with_seat, write_attack

from arena import prompts
from arena.agents import AgentSpec, resolve_agent
from arena.engine import load_rules
from arena.transcript import make_header
from arena.trust import REDACTED, TrustError, allowed_prompt_set, redact_url, resume_seats, shipped_prompt_set

REPO_AGENTS = Path(__file__).resolve().parents[2] / "agents"
SECRET = "sk-test-cloud-token-0123456789"


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(REPO_AGENTS, tmp_path / "agents")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("PROV_KEY", SECRET)
    return tmp_path


def _header_seat(site: Path, url: str, agent: dict[str, Any]) -> Path:
    """The cut bot game of the attack files with seat 2's header entry replaced by `agent`, re-hashed."""
    return with_seat(write_attack("resume-secret.jsonl", site, url), 2, agent)


def test_an_openai_name_in_a_header_does_not_pick_the_model(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = {"name": "openai:o1-pro", "kind": "llm", "model": "o1-pro", "api_key_env": "OPENAI_API_KEY"}
    with recording_server() as (url, seen):
        monkeypatch.setenv("OPENAI_BASE_URL", url)  # where the SDK would send a spec without base_url
        path = _header_seat(site, url, agent)
        code, out, err = cli("resume", str(path), "--quiet")
        assert code == 2 and err.startswith("error: ")
        assert "seat 2: no local definition of agent 'openai:o1-pro'" in err and "--seat 2=openai:o1-pro" in err
        # accepting the header's agents does not let it choose the model either: no local openai definition is o1-pro
        code, out, err = cli("resume", str(path), "--quiet", "--agents-from-header")
        assert code == 2 and "model 'o1-pro' matches no local agent definition" in err
        assert seen == [] and SECRET not in out + err


def test_agents_from_header_takes_neither_the_model_nor_extra_body(site: Path) -> None:
    mine = ("--agents-dir", "agents")  # the folder vouched for: its definitions may send keys (arena.agents)
    with recording_server() as (url, seen):
        local = f'kind = "llm"\nmodel = "cheap"\nbase_url = "{url}"\napi_key_env = "PROV_KEY"\n'
        (site / "agents" / "prov.toml").write_text(local, encoding="utf-8")
        agent = {"name": "prov", "kind": "llm", "model": "most-expensive-model", "base_url": url,
                 "api_key_env": "PROV_KEY", "extra_body": {"n": 64, "store": True}}  # fmt: skip
        path = _header_seat(site, url, agent)
        code, out, err = cli("resume", str(path), "--quiet", "--agents-from-header", *mine)
        assert code == 2 and "model 'most-expensive-model' matches no local agent definition" in err
        # the right model, but values in extra_body the writer would have redacted: planted, refused
        folder = site / "my-set"
        shutil.copytree(prompts.PROMPTS_DIR / "en", folder / "en")
        agent.update(model="cheap", prompt_set=str(folder))
        path = _header_seat(site, url, agent)
        code, out, err = cli(
            "resume", str(path), "--quiet", "--agents-from-header", "--prompt-folder", str(folder), *mine
        )
        assert code == 2 and "extra_body holds values a transcript never holds" in err
        assert seen == [] and SECRET not in out + err


def test_planted_extra_body_values_are_refused_at_any_depth(tmp_path: Path) -> None:
    (tmp_path / "srv.toml").write_text('kind = "llm"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n')
    header = AgentSpec(name="x", kind="llm", model="m", base_url="http://127.0.0.1:9/v1",
                       extra_body={"provider": {"order": REDACTED, "n": 64}})  # fmt: skip
    with pytest.raises(TrustError, match="extra_body holds values"):
        resume_seats({1: header}, tmp_path, from_header=True)
    # redacted values only: the seat is the matched local definition, under the header's name
    plain = header.model_copy(update={"extra_body": {"provider": {"order": REDACTED}}})
    assert resume_seats({1: plain}, tmp_path, from_header=True)[1] == resolve_agent("srv", tmp_path).model_copy(
        update={"name": "x"}
    )


def test_an_implicit_openai_key_is_a_key_too(tmp_path: Path) -> None:
    # no api_key_env and no base_url: the SDK reads OPENAI_API_KEY and sends it to OpenAI
    header = AgentSpec(name="x", kind="llm", model="o1-pro")
    with pytest.raises(TrustError, match=r"api_key_env .OPENAI_API_KEY.*matches no local agent definition"):
        resume_seats({1: header}, tmp_path, from_header=True)
    (tmp_path / "mine.toml").write_text('kind = "llm"\nmodel = "o1-pro"\n', encoding="utf-8")
    assert resume_seats({1: header}, tmp_path, from_header=True)[1].model == "o1-pro"
    # and `--seat` is always the way past
    chosen = resolve_agent("openai:o1-pro", check_env=False)
    assert resume_seats({1: chosen}, tmp_path, overrides={1: chosen})[1] == chosen


def test_language_folders_are_not_prompt_sets() -> None:
    for name in ("en", "ru", "bots"):
        assert not shipped_prompt_set(name) and not allowed_prompt_set(name, [])


def test_a_shipped_set_name_never_resolves_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = tmp_path / "shipped"
    (shipped / "terse" / "en").mkdir(parents=True)
    (tmp_path / "cwd" / "terse" / "en").mkdir(parents=True)
    monkeypatch.setattr(prompts, "PROMPTS_DIR", shipped)
    monkeypatch.chdir(tmp_path / "cwd")
    assert prompts.prompt_dir("terse", "en") == shipped / "terse" / "en"
    assert prompts.prompt_dir("default", "en") == shipped / "en"
    # `en` is no set name: it is a folder path like any other, which resume takes only with --prompt-folder
    assert prompts.prompt_dir("en", "en") == Path("en") / "en"


def test_an_en_prompt_set_in_the_header_is_not_taken_from_the_working_directory(site: Path) -> None:
    shutil.copytree(prompts.PROMPTS_DIR / "en", site / "en" / "en")
    (site / "en" / "en" / "system.j2").write_text("PLANTED {{ 1 + 1 }}", encoding="utf-8")
    agent = {"name": "local-fake", "kind": "llm", "model": "fake-model", "base_url": "http://127.0.0.1:9/v1",
             "prompt_set": "en"}  # fmt: skip
    path = _header_seat(site, "http://127.0.0.1:9/v1", agent)
    mine = site / "mine"  # the user's own definition of that server and model, so only the prompt set is in question
    mine.mkdir()
    (mine / "fake9.toml").write_text('kind = "llm"\nmodel = "fake-model"\nbase_url = "http://127.0.0.1:9/v1"\n')
    code, _, err = cli("resume", str(path), "--quiet", "--agents-from-header", "--agents-dir", str(mine))
    assert code == 2 and "prompt_set 'en' is neither shipped" in err
    code, out, err = cli("prompt", str(path), "--seat", "2", "--rebuild")
    assert code == 2 and "PLANTED" not in out


def test_query_and_fragment_secrets_are_redacted(tmp_path: Path) -> None:
    url = "https://u:p@host.example/v1?api-key=s3cret&flag#tok3n"
    assert redact_url(url) == f"https://{REDACTED}@host.example/v1?api-key={REDACTED}&{REDACTED}#{REDACTED}"
    assert redact_url("http://127.0.0.1:9/v1") == "http://127.0.0.1:9/v1"
    header = make_header(load_rules("fiim"), 1, {1: AgentSpec(name="az", kind="llm", model="m", base_url=url)})
    assert "s3cret" not in header.model_dump_json() and "tok3n" not in header.model_dump_json()
    # a local definition with such a URL still matches its redacted header entry, and resumes with the real one
    (tmp_path / "az.toml").write_text(f'kind = "llm"\nmodel = "m"\nbase_url = "{url}"\n', encoding="utf-8")
    assert resume_seats({1: header.seats[0].agent}, tmp_path)[1].base_url == url
