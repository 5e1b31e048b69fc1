"""`arena/trust.py` directly: which header specs resume accepts, with and without `--agents-from-header`."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.agents import AgentSpec
from arena.trust import REDACTED, TrustError, allowed_prompt_set, redacted, resume_seats, shipped_prompt_set

LOCAL = 'kind = "llm"\nmodel = "m"\nbase_url = "http://u:p@127.0.0.1:9/v1"\napi_key_env = "LAB_KEY"\n'
LOCAL += 'extra_body = { token = "t0k" }\n'


@pytest.fixture
def agents(tmp_path: Path) -> Path:
    (tmp_path / "lab.toml").write_text(LOCAL, encoding="utf-8")
    return tmp_path


def _lab(**change: object) -> AgentSpec:
    spec = AgentSpec(
        name="lab", kind="llm", model="m", base_url="http://u:p@127.0.0.1:9/v1", api_key_env="LAB_KEY",
        extra_body={"token": "t0k"},
    )  # fmt: skip
    return redacted(spec).model_copy(update=change)


def test_a_matching_header_gets_the_local_definition_with_its_secrets(agents: Path) -> None:
    seats = resume_seats({1: _lab()}, agents)
    assert seats[1].base_url == "http://u:p@127.0.0.1:9/v1" and seats[1].extra_body == {"token": "t0k"}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"model": "other"}, "model"),
        ({"base_url": "http://127.0.0.1:8/v1"}, "base_url"),
        ({"api_key_env": "HOME"}, "api_key_env"),
        ({"prompt_set": "/tmp"}, "prompt_set"),
        ({"kind": "langchain", "langchain_factory": "os:system"}, "langchain_factory"),
    ],
)
def test_each_difference_is_named(agents: Path, change: dict[str, object], field: str) -> None:
    with pytest.raises(TrustError, match=rf"seat 3 \(lab\): the local definition differs: .*{field}: header"):
        resume_seats({3: _lab(**change)}, agents)


def test_from_header_keeps_keys_with_their_servers(agents: Path, tmp_path: Path) -> None:
    folder = tmp_path / "my-set"
    folder.mkdir()
    # the local definition's key variable, towards its server, for its model: accepted, with the real URL
    spec = _lab(prompt_set=str(folder), extra_body={})
    seats = resume_seats({1: spec}, agents, from_header=True, prompt_folders=[folder])
    assert seats[1].prompt_set == str(folder) and seats[1].base_url == "http://u:p@127.0.0.1:9/v1"
    # the same variable towards another server: refused
    with pytest.raises(TrustError, match="matches no local agent definition"):
        resume_seats(
            {1: spec.model_copy(update={"base_url": "http://127.0.0.1:8/v1"})}, agents, from_header=True,
            prompt_folders=[folder],
        )  # fmt: skip
    # nor for another model: the header does not choose what the key pays for
    with pytest.raises(TrustError, match="model 'other' matches no local agent definition"):
        resume_seats({1: spec.model_copy(update={"model": "other"})}, agents, from_header=True, prompt_folders=[folder])
    # redacted extra_body values in the header: the local definition's real ones are sent, never the header's
    seats = resume_seats({1: _lab(prompt_set=str(folder))}, agents, from_header=True, prompt_folders=[folder])
    assert seats[1].extra_body == {"token": "t0k"}
    # a prompt folder is accepted only when the user names it
    header = _lab(prompt_set=str(folder), extra_body={})
    with pytest.raises(TrustError, match="neither shipped"):
        resume_seats({1: header}, agents, from_header=True)
    assert resume_seats({1: header}, agents, from_header=True, prompt_folders=[folder])[1].prompt_set == str(folder)


def test_shipped_prompt_sets_are_names_not_paths() -> None:
    assert shipped_prompt_set("default")
    for bad in ("/etc", "../prompts", "en/..", "bots", "", "no-such-set"):
        assert not shipped_prompt_set(bad)
        assert not allowed_prompt_set(bad, [])


def test_redaction_keeps_key_names_only() -> None:
    spec = _lab()
    assert spec.base_url == f"http://{REDACTED}@127.0.0.1:9/v1" and spec.extra_body == {"token": REDACTED}
