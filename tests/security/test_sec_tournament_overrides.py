"""Issue 30, security round 3 (medium): a tournament file overrode the user's own agent. It sent the user's key with
`max_tokens` 1,000,256 and the file's own persona. A tournament file may be someone else's, so of an agent that
sends a key it changes only the documented safe fields: `temperature`, `language`, a `prompt_set` shipped in
`prompts/` (or a folder the user names with --prompt-folder), and `max_tokens` only downwards; its persona stays the
definition's. A keyless agent (a local server) still takes any persona and budget."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from seckit import cli

from arena.llm.budget import DEFAULT_BASE_TOKENS
from arena.standin import FakeServer
from arena.tournament.model import TournamentError, load_tournament

PERSONA = "a visitor who repeats this sentence verbatim every turn"


@pytest.fixture
def mine(tmp_path: Path, server: tuple[FakeServer, io.StringIO], monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's own agents: `lab` sends the key in LAB_KEY, `local` is a keyless local server."""
    monkeypatch.setenv("LAB_KEY", "sk-test-not-a-real-key")
    folder = tmp_path / "mine"
    folder.mkdir()
    url = server[0].base_url
    (folder / "lab.toml").write_text(
        f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{url}"\napi_key_env = "LAB_KEY"\nmax_tokens = 500\n'
        "price_input_per_m = 1.0\nprice_output_per_m = 2.0\n",
        encoding="utf-8",
    )
    (folder / "local.toml").write_text(f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{url}"\nfree = true\n')
    return folder


def _file(tmp_path: Path, agent: str, **fields: object) -> Path:
    lines = ['name = "theirs"', "games = 1", "seed = 1", "[[pool]]", 'label = "x"', f'agent = "{agent}"']
    lines += [f"{k} = {json.dumps(v)}" for k, v in fields.items()]
    path = tmp_path / "t.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("max_tokens", 1_000_000, "never raise it"),
        ("max_tokens", 501, "never raise it"),
        ("persona", PERSONA, "persona"),
        ("prompt_set", "their-prompts", "--prompt-folder"),
    ],
)
def test_a_tournament_file_cannot_change_what_your_key_pays_for(
    tmp_path: Path, mine: Path, field: str, value: object, says: str
) -> None:
    with pytest.raises(TournamentError, match=says):
        load_tournament(_file(tmp_path, "lab", **{field: value}), mine)


@pytest.mark.parametrize("field", ["base_url", "api_key_env", "model", "extra_body", "structured", "retries"])
def test_no_other_field_of_your_agent_can_be_overridden(tmp_path: Path, mine: Path, field: str) -> None:
    value: object = "OTHER" if field == "api_key_env" else "x"
    with pytest.raises(TournamentError, match=field):
        load_tournament(_file(tmp_path, "lab", **{field: value}), mine)


def test_the_safe_fields_still_apply(tmp_path: Path, mine: Path) -> None:
    t = load_tournament(_file(tmp_path, "lab", temperature=1.2, language="ru", max_tokens=300,
                              prompt_set="default"), mine)  # fmt: skip
    spec = t.configs[0].spec
    assert (spec.temperature, spec.language, spec.max_tokens, spec.prompt_set) == (1.2, "ru", 300, "default")
    assert spec.api_key_env == "LAB_KEY" and spec.persona is None
    # a keyless local server's budget and persona are the file's to choose: no key pays for them
    t = load_tournament(_file(tmp_path, "local", max_tokens=5000, persona=PERSONA), mine)
    assert (t.configs[0].spec.max_tokens, t.configs[0].spec.persona) == (5000, PERSONA)
    # a folder the user names on the command line may be a prompt set
    theirs = tmp_path / "their-prompts"
    theirs.mkdir()
    t = load_tournament(_file(tmp_path, "lab", prompt_set="their-prompts"), mine, prompt_folders=[theirs])
    assert t.configs[0].spec.prompt_set == str(theirs.resolve())
    assert DEFAULT_BASE_TOKENS >= 500  # an agent without max_tokens may be lowered below the default, not raised


def test_what_goes_out_with_the_key_is_the_definitions(
    tmp_path: Path, mine: Path, server: tuple[FakeServer, io.StringIO]
) -> None:
    """End to end: the file's max_tokens and persona are refused before any request; with only safe fields, every
    request the key pays for carries the definition's budget (plus a speech's words) and no persona of the file."""
    theirs = _file(tmp_path, "lab", max_tokens=1_000_000, persona=PERSONA)
    code, _, err = cli("tournament", str(theirs), "--agents-dir", str(mine), "--out", str(tmp_path / "out1"),
                       "--no-progress", "--processes", "0")  # fmt: skip
    assert code == 2 and "max_tokens" in err and not server[1].getvalue()
    code, _, err = cli("tournament", str(_file(tmp_path, "lab", temperature=0.5)), "--agents-dir", str(mine),
                       "--out", str(tmp_path / "out2"), "--no-progress", "--processes", "0")  # fmt: skip
    assert code == 0, err
    bodies = [json.loads(json.loads(line)) for line in server[1].getvalue().splitlines() if line]
    calls = [b for b in bodies if "messages" in b]
    assert calls and all(PERSONA not in json.dumps(b) for b in calls)
    assert max(b.get("max_tokens", 0) for b in calls) <= 500 + 1000  # the base, and at most a speech's words
