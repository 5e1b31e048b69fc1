"""A provider that goes away mid-tournament pauses its games: neither counted nor lost (#31).

Six games of two model configurations against the stand-in, two at a time. The stand-in is stopped once the
tournament is under way: every game in flight stops (saved, resumable, the stop recorded), no new game of that
provider starts, the run says so and exits non-zero, and the manifest counts only the games that finished. Then the
stand-in comes back on the same address and the same command resumes the paused games and plays the rest: all six
complete, each verifies, and none holds a default from the outage.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest
from tournament_files import FAKE_POOL, fake_agent
from typer.testing import CliRunner

from arena.cli import app
from arena.players.base import transport_failure
from arena.standin import FakeServer
from arena.transcript import load, verify

GAMES = 6


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _setup(tmp_path: Path, port: int) -> Path:
    fake_agent(tmp_path, f"http://127.0.0.1:{port}/v1", "free = true\nretries = 1\n")
    spec = tmp_path / "t.toml"
    spec.write_text(f'name = "outage"\ngames = {GAMES}\nseed = 9\nfiller = "bot:heuristic"\n{FAKE_POOL}')
    return spec


def _run(spec: Path, out: Path) -> tuple[int, str]:
    agents = spec.parent / "agents"
    result = CliRunner().invoke(app, ["tournament", str(spec), "--agents-dir", str(agents), "--no-progress",
                                      "--out", str(out), "--jobs", "2", "--processes", "0"])  # fmt: skip
    return result.exit_code, result.output


def test_a_provider_that_goes_away_pauses_its_games_and_a_new_run_resumes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-outage-0000")
    port = _free_port()
    spec, out = _setup(tmp_path, port), tmp_path / "out"
    server = FakeServer(port=port).start()

    def kill_when_busy() -> None:  # the outage: once some games are under way (a condition, not a time)
        deadline = time.monotonic() + 120
        while server.stats.requests < 60 and time.monotonic() < deadline:
            time.sleep(0.005)
        server.stop()

    killer = threading.Thread(target=kill_when_busy, daemon=True)
    killer.start()
    code, output = _run(spec, out)
    killer.join()
    assert code == 1, output
    assert "paused:" in output and f"127.0.0.1:{port}" in output and "run the same command again" in output
    manifest = json.loads((out / "tournament.json").read_text())
    statuses = [g["status"] for g in manifest["games"]]
    assert manifest["status"] == "paused" and "paused" in statuses, statuses
    assert manifest["done"] == statuses.count("complete") < GAMES  # only finished games are counted
    counted = sum(row["games"] for row in manifest["standings"] if row["label"] == "cold")
    assert counted == sum(1 for g in manifest["games"] if g["status"] == "complete" and "cold" in g["seats"])
    for game in manifest["games"]:
        path = out / game["file"]
        if game["status"] == "paused":  # saved, resumable, the stop recorded, nothing applied for the outage
            stopped = load(path)
            assert stopped.end is None and stopped.stops
            assert not [i for i in stopped.inputs if i.op == "default" and transport_failure(i)]
        elif game["status"] == "not started":
            assert not path.exists()  # no new game of the paused provider was started

    server = FakeServer(port=port).start()  # the provider is back, at the same address
    try:
        code, output = _run(spec, out)
    finally:
        server.stop()
    assert code == 0, output
    manifest = json.loads((out / "tournament.json").read_text())
    assert manifest["status"] == "complete" and manifest["done"] == GAMES
    assert all(g["status"] == "complete" for g in manifest["games"])
    resumed = 0
    for game in manifest["games"]:
        transcript = load(out / game["file"])
        assert verify(transcript).outcome == "complete"
        assert not [i for i in transcript.inputs if i.op == "default" and transport_failure(i)]
        resumed += bool(transcript.stops)
        assert len(transcript.resumes) == len(transcript.stops)  # each stop was resumed, nothing lost
    assert resumed >= 1
