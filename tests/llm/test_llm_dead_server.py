"""A model server that dies mid-game stops the game: saved, resumable, never finished on defaults (#31).

`arena play` plays every seat against the stand-in (`arena stand-in`, a process of its own); the test kills the
stand-in with SIGKILL once the game is under way. The game must stop with one line saying what to fix and exit
non-zero, its transcript unfinished and the stop recorded, no default applied for the outage. Then the stand-in is
started again on the same port and `arena resume` finishes the game, which verifies, with no default whose attempts
got no answer. A brief outage (a few cut connections in a row) is retried within the seat's deadline and never
stops the game.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from llmkit import llm_player, llm_spec, play

from arena.engine import load_rules
from arena.players.base import Player, transport_failure
from arena.standin import FakeServer, FaultPlan
from arena.transcript import Transcript, load, verify

pytestmark = pytest.mark.skipif(os.name != "posix", reason="needs SIGKILL")

ARENA = [sys.executable, "-m", "arena.cli"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _stand_in(port: int, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        proc = subprocess.Popen([*ARENA, "stand-in", "--port", str(port)], stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60  # a guard against a hang, not a timing assumption
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        assert proc.poll() is None, log.read_text()
        time.sleep(0.02)
    raise AssertionError("the stand-in did not start")


def _lines(folder: Path) -> int:
    files = list(folder.glob("*.jsonl"))
    return files[0].read_text(encoding="utf-8").count("\n") if files else 0


def test_a_server_killed_mid_game_stops_it_and_resume_finishes_it(
    tmp_path: Path, stopped_unreached: Callable[[Path, str, int], Transcript]
) -> None:
    port = _free_port()
    agents, out, log = tmp_path / "agents", tmp_path / "games", tmp_path / "stand-in.log"
    agents.mkdir()
    (agents / "fake.toml").write_text(  # one transport retry: the outage is seen within a second or two
        f'kind = "llm"\nmodel = "fake-model"\nbase_url = "http://127.0.0.1:{port}/v1"\nfree = true\n'
        "retries = 1\ntimeout_s = 10\n"
    )
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-dead-server-0000"}
    server = _stand_in(port, log)
    game = subprocess.Popen(
        [*ARENA, "play", "--seat", "all=fake", "--agents-dir", str(agents), "--seed", "4", "--quiet", "--out",
         str(out), "--delay", "0.01"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while _lines(out) < 150 and time.monotonic() < deadline:  # well into Day 1, far from the end
            assert game.poll() is None, game.communicate()
            time.sleep(0.01)
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()
    _, stderr = game.communicate(timeout=120)
    text = stderr.decode()
    assert game.returncode == 1, text
    [path] = list(out.glob("*.jsonl"))
    stopped = stopped_unreached(out, text, port)
    assert not [i for i in stopped.inputs if i.op == "default"]  # the outage applied no default
    assert verify(stopped).outcome == "unfinished"

    server = _stand_in(port, log)  # the server is back
    try:
        resumed = subprocess.run([*ARENA, "resume", str(path), "--agents-dir", str(agents), "--quiet"],
                                 capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)  # fmt: skip
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    assert resumed.returncode == 0, resumed.stderr
    final = load(path)
    assert final.status == "complete" and len(final.stops) == 1 and len(final.resumes) == 1
    assert not [i for i in final.inputs if i.op == "default" and transport_failure(i)]
    verified = subprocess.run([*ARENA, "verify", str(path)], capture_output=True, text=True, cwd=tmp_path)
    assert verified.returncode == 0 and verified.stdout.startswith("OK"), verified.stderr
    last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
    assert last["kind"] == "end" and last["status"] == "complete"


async def test_a_brief_outage_is_retried_and_never_stops_the_game(tmp_path: Path, api_key: str) -> None:
    """Four requests in a row get no answer (the connection cut, then a 503): each seat's call retries within its
    deadline, the game goes on, and no decision ends on a default for them."""
    plan = FaultPlan()
    for nth in (20, 21, 22, 23):
        plan.add("cut_connection" if nth < 22 else "unavailable", "*", nth)
    rules = load_rules("fiim")
    with FakeServer(plan=plan) as server:
        spec = llm_spec(server.base_url)
        players: dict[int, Player] = {s: llm_player(spec, s, rules) for s in range(1, 11)}
        game, _ = await play(rules, 4, players, {s: spec for s in players}, tmp_path / "brief.jsonl")
        injected = [fault for fault, _, _ in server.stats.injected]
    assert injected == ["cut_connection", "cut_connection", "unavailable", "unavailable"]
    transcript = load(tmp_path / "brief.jsonl")
    assert game.over and transcript.status == "complete" and not transcript.stops
    failed = [c.error or "" for c in transcript.calls if (c.error or "").startswith("transport: ")]
    assert len(failed) == 4 and sum("HTTP 503" in e for e in failed) == 2
    assert not [i for i in transcript.inputs if i.op == "default" and transport_failure(i)]
    assert verify(transcript).outcome == "complete"
