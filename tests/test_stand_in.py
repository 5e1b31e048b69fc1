"""`arena stand-in` serves the built-in OpenAI-compatible stand-in, and `local-fake` seats play a whole game on it.

Both commands run as real subprocesses, as a newcomer types them; the server binds a free port on 127.0.0.1 (asked
for with `--port 0`, read back from its first line), and is stopped at the end of each test.
"""

from __future__ import annotations

import re
import select
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.transcript import load, verify

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena.cli"]
URL = re.compile(r"http://127\.0\.0\.1:(\d+)/v1")


def _first_line(process: subprocess.Popen[str], timeout: float = 30.0) -> str:
    """The server prints its URL once it listens; wait for it, but not forever."""
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    assert ready, f"arena stand-in printed nothing in {timeout} s"
    return process.stdout.readline()


@pytest.fixture
def stand_in() -> Iterator[int]:
    """A running `arena stand-in --port 0`; yields its port."""
    process = subprocess.Popen([*ARENA, "stand-in", "--port", "0"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        line = _first_line(process)
        match = URL.search(line)
        assert match, f"no URL in {line!r}"
        yield int(match.group(1))
    finally:
        process.terminate()
        process.wait(timeout=10)


def _agents_for(tmp_path: Path, port: int) -> Path:
    """The shipped local-fake definition, pointed at `port`."""
    folder = tmp_path / "agents"
    folder.mkdir()
    text = (ROOT / "agents" / "local-fake.toml").read_text(encoding="utf-8")
    assert "127.0.0.1:8765" in text
    (folder / "local-fake.toml").write_text(text.replace("127.0.0.1:8765", f"127.0.0.1:{port}"), encoding="utf-8")
    return folder


def test_local_fake_plays_a_whole_game_on_the_stand_in(stand_in: int, tmp_path: Path) -> None:
    agents = _agents_for(tmp_path, stand_in)
    out = tmp_path / "out"
    played = subprocess.run(
        [*ARENA, "play", "--seat", "all=local-fake", "--agents-dir", str(agents), "--out", str(out), "--seed", "3"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert played.returncode == 0, played.stderr
    (path,) = out.glob("*.jsonl")
    assert played.stdout.strip().endswith(f"transcript: {path}")
    transcript = load(path)
    assert transcript.status == "complete"
    assert {entry.agent.name for entry in transcript.header.seats} == {"local-fake"}
    assert transcript.calls and {call.seat for call in transcript.calls} == set(range(1, 11))
    assert all(call.model.startswith("fake-model") for call in transcript.calls if not call.error)
    assert verify(transcript).ok


def test_a_taken_port_is_a_clean_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [*ARENA, "stand-in", "--port", str(port)], capture_output=True, text=True, timeout=60, cwd=ROOT
        )
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}") and "Traceback" not in result.stderr


def test_local_fake_without_its_server_says_to_start_it(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on once this closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    agents = _agents_for(tmp_path, port)
    result = subprocess.run(
        [*ARENA, "play", "--seat", "all=local-fake", "--agents-dir", str(agents), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "connection error" in result.stderr
    assert f"start it with `arena stand-in --port {port}`" in result.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.jsonl"))
