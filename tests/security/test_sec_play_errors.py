"""`arena play` and `arena resume` stop with one `error:` line where the review found a traceback or a file that
would later fail verify: a sandbox-refused template in a prompt set (finding 10d), a signed game resumed without
its key (finding 7)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from seckit import EVIL_TEMPLATE, cli, rechain, write_attack

from arena.prompts import PROMPTS_DIR, load_prompt_set
from arena.standin import FakeServer
from arena.transcript import load


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer() as fake:
        yield fake


@pytest.fixture
def evil(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A prompt set whose system template the sandbox refuses."""
    folder = tmp_path / "evil-prompts"
    shutil.copytree(PROMPTS_DIR / "en", folder / "en")
    (folder / "en" / "system.j2").write_text(EVIL_TEMPLATE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    load_prompt_set.cache_clear()
    return folder


def _one_error_line(code: int, err: str) -> None:
    assert code == 2 and err.startswith("error: ") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert not (Path.cwd() / "PWNED").exists()


def test_a_refused_template_in_play_is_one_error_line(tmp_path: Path, server: FakeServer, evil: Path) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "evil.toml").write_text(
        f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{server.base_url}"\nprompt_set = "{evil}"\n',
        encoding="utf-8",
    )
    code, _, err = cli("play", "--quiet", "--seat", "1=evil", "--agents-dir", str(agents), "--out", str(tmp_path))
    _one_error_line(code, err)


def test_a_refused_template_in_resume_is_one_error_line(tmp_path: Path, server: FakeServer, evil: Path) -> None:
    path = write_attack("resume-template.jsonl", tmp_path, server.base_url)  # seat 4 names ./evil-prompts
    before = path.read_bytes()
    code, _, err = cli("resume", str(path), "--quiet", "--agents-from-header", "--prompt-folder", str(evil))
    _one_error_line(code, err)
    assert path.read_bytes() == before


def _signed_cut_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LAB_KEY", "k" * 32)
    code, out, err = cli("play", "--quiet", "--seed", "4", "--sign-key-env", "LAB_KEY", "--out", str(tmp_path))
    assert code == 0, err
    path = Path(out.strip().splitlines()[-1].removeprefix("transcript: "))
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert json.loads(lines[0])["signed"] is True
    path.write_text("".join(rechain(lines[:60])), encoding="utf-8")  # a crash: cut before the end
    return path


def test_a_signed_game_is_not_resumed_without_its_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _signed_cut_game(tmp_path, monkeypatch)
    before = path.read_bytes()
    code, _, err = cli("resume", str(path), "--quiet")
    assert code == 2 and err.startswith("error: ") and "--sign-key-env" in err and "signed" in err
    assert path.read_bytes() == before, "a refused resume leaves the file as it was"
    # with the key, it resumes and verifies with that key
    code, _, err = cli("resume", str(path), "--quiet", "--sign-key-env", "LAB_KEY")
    assert code == 0, err
    assert load(path).status == "complete"
    code, _, err = cli("verify", str(path), "--key-env", "LAB_KEY")
    assert code == 0, err
