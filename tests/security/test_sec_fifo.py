"""Issue 30, security round 3: a FIFO named `*.jsonl` froze `arena serve`'s replays page (after which only SIGKILL
stopped it) and hung a tournament resume. Readers open only regular files and never wait in `open`; the server
stops on SIGTERM. Each reader runs in a child process or a thread with a bound, so the old code fails the test
instead of hanging it (the bound is for a hang, never a measure of speed)."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from servekit import finishes, serve, unblock

from arena.safe_read import UnsafeFile, open_regular, read_text
from arena.transcript import TranscriptError, load

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
HANG = 60.0  # seconds after which a reader is taken to be stuck for good


def _arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=HANG
    )


def _bot_game(folder: Path, seed: int = 3) -> Path:
    done = _arena("play", "--quiet", "--seed", str(seed), "--out", str(folder), cwd=folder)
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip().splitlines()[-1].removeprefix("transcript: "))


def test_open_regular_refuses_a_fifo_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "game.jsonl"
    os.mkfifo(fifo)
    try:
        for follow in (False, True):
            ended, outcome = finishes(lambda f=follow: open_regular(fifo, follow_links=f))  # type: ignore[misc]
            assert ended and isinstance(outcome, UnsafeFile) and "FIFO" in str(outcome)
        ended, outcome = finishes(lambda: load(fifo))
        assert ended and isinstance(outcome, TranscriptError) and "not a regular file" in str(outcome)
        ended, outcome = finishes(lambda: read_text(fifo))  # a rules, agent or tournament file
        assert ended and isinstance(outcome, UnsafeFile)
    finally:
        unblock(fifo)


def test_verify_and_report_refuse_a_fifo(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    _bot_game(games)
    fifo = games / "planted.jsonl"
    os.mkfifo(fifo)
    try:
        done = _arena("verify", str(fifo), cwd=tmp_path)
        assert done.returncode == 2 and "not a regular file" in done.stderr
        done = _arena("report", str(games), "--out", str(tmp_path / "report"), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        report = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
        assert "planted.jsonl" in report and "1 game" in report.replace("1 games", "1 game")
    finally:
        unblock(fifo)


def test_a_tournament_resume_refuses_a_fifo_game_file(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text(
        'name = "fifo"\ngames = 2\n[[pool]]\nlabel = "a"\nagent = "bot:random"\n', encoding="utf-8"
    )
    out = tmp_path / "out"
    done = _arena("tournament", "t.toml", "--out", str(out), "--no-progress", "--processes", "0", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    game = out / "game-0002.jsonl"
    game.unlink()
    os.mkfifo(game)
    try:
        done = _arena("tournament", "t.toml", "--out", str(out), "--no-progress", "--processes", "0", cwd=tmp_path)
        assert done.returncode == 2 and "game-0002.jsonl" in done.stderr and "not a regular file" in done.stderr
    finally:
        unblock(game)


def test_the_replays_page_lists_around_a_fifo_and_sigterm_stops_the_server(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    real = _bot_game(games)
    fifo = games / "20991231T235959Z_fifo.jsonl"  # sorts first: the listing reaches it before the real game
    os.mkfifo(fifo)
    try:
        with serve("--out", str(games)) as served:

            def page(path: str) -> tuple[int, str]:
                connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=HANG)
                connection.request("GET", path)
                response = connection.getresponse()
                return response.status, response.read().decode("utf-8")

            replays = served.path("replays")
            ended, outcome = finishes(lambda: page(replays), HANG)
            assert ended and not isinstance(outcome, BaseException), outcome
            status, body = outcome
            assert status == 200 and real.name in body and fifo.name not in body
            name = replays.replace("/replays/", "/api/replay/") + "/" + fifo.name
            ended, outcome = finishes(lambda: page(name), HANG)
            assert ended and not isinstance(outcome, BaseException) and outcome[0] in (400, 404)
            ended, outcome = finishes(lambda: page("/"), HANG)
            assert ended and not isinstance(outcome, BaseException) and outcome[0] == 200
            served.proc.send_signal(signal.SIGTERM)
            try:
                code = served.proc.wait(timeout=HANG)
            except subprocess.TimeoutExpired:
                code = None
            assert code is not None, "the server did not stop on SIGTERM"
    finally:
        unblock(fifo)
