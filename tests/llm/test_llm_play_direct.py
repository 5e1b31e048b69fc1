"""`arena play` takes the tournament's direct HTTP path (`arena/llm/direct.py`) when aiohttp is installed, and the
SDK's path with ARENA_HTTP_POOL=httpx (or =aiohttp, the SDK on aiohttp's pool); either way the clients are made
and closed on the game's own event loop.

Each game runs in a child process, with ResourceWarnings made errors and asyncio's debug mode on, so an aiohttp
session left open ("Unclosed client session") or used from another loop ("attached to a different loop") shows on
its stderr. The child counts the direct path's POSTs by wrapping `DirectPost.post`, and prints the count at exit.
Ctrl-C in the middle of a game still leaves the transcript resumable, with the sessions closed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.standin import FakeServer
from arena.transcript import load

TEST_KEY = "sk-test-DO-NOT-LEAK-0123456789abcdefghijklmnop"

# The CLI, with `DirectPost.post` counted; the count goes to stderr when the process ends.
CHILD = """
import atexit, sys
from arena.llm import direct
posts = [0]
original = direct.DirectPost.post
async def counted(self, *args, **kwargs):
    posts[0] += 1
    return await original(self, *args, **kwargs)
direct.DirectPost.post = counted
atexit.register(lambda: print(f"direct posts: {posts[0]}", file=sys.stderr))
from arena.cli import app
app(prog_name="arena")
"""

TROUBLE = ("Unclosed", "different loop", "never awaited", "Traceback", "Exception ignored", "ResourceWarning")


def _agents(folder: Path, base_url: str) -> Path:
    folder.mkdir()
    (folder / "local.toml").write_text(
        f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{base_url}"\napi_key_env = "ARENA_TEST_KEY"\n'
    )
    return folder


def _env(pool: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy") and k != "ARENA_HTTP_POOL"}
    env.update(ARENA_TEST_KEY=TEST_KEY, PYTHONASYNCIODEBUG="1")
    if pool is not None:
        env["ARENA_HTTP_POOL"] = pool
    return env


def _command(tmp_path: Path, base_url: str, *args: str) -> list[str]:
    agents = _agents(tmp_path / "agents", base_url)
    return [sys.executable, "-W", "error::ResourceWarning", "-c", CHILD, "play", "--quiet", "--seed", "4",
            "--out", str(tmp_path / "out"), "--agents-dir", str(agents), *args]  # fmt: skip


def _posts(stderr: str) -> int:
    lines = [line for line in stderr.splitlines() if line.startswith("direct posts: ")]
    assert len(lines) == 1, stderr
    return int(lines[0].removeprefix("direct posts: "))


@pytest.mark.parametrize("pool", [None, "httpx", "aiohttp"])
def test_play_takes_the_direct_path_unless_told_otherwise(tmp_path: Path, pool: str | None) -> None:
    with FakeServer() as server:
        command = _command(tmp_path, server.base_url, "--seat", "all=local", "--seat", "3=bot:random")
        done = subprocess.run(command, env=_env(pool), capture_output=True, text=True, timeout=300)
        requests = server.stats.requests
    assert done.returncode == 0, done.stderr
    assert not [word for word in TROUBLE if word in done.stderr], done.stderr
    (path,) = sorted((tmp_path / "out").glob("*.jsonl"))
    transcript = load(path)
    assert transcript.status == "complete"
    assert not [c for c in transcript.calls if c.error], "a call failed"
    assert 3 not in {c.seat for c in transcript.calls} and len(transcript.calls) > 50
    assert requests == len(transcript.calls) + 1  # every call, plus the preflight probe (on its own loop, the SDK)
    # the direct path carried every call of the game, or none of them with ARENA_HTTP_POOL=httpx or =aiohttp (the SDK)
    assert _posts(done.stderr) == (len(transcript.calls) if pool is None else 0)


def test_ctrl_c_mid_game_closes_the_direct_sessions_and_resume_finishes_on_the_direct_path(
    tmp_path: Path, interrupt: Callable[..., str]
) -> None:
    with FakeServer(latency_s=0.05) as server:
        command = _command(tmp_path, server.base_url, "--seat", "all=local")
        # SIGINT as a terminal delivers it, even when the tests run in the background (where it is ignored, and a
        # child inherits that: the game never heard the signal)
        child = subprocess.Popen(command, env=_env(None), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
        # until the game's own calls are under way (the first request is the probe)
        stderr = interrupt(child, lambda: server.stats.requests >= 6)
        assert not [word for word in TROUBLE if word in stderr], stderr
        assert _posts(stderr) >= 5
        (path,) = sorted((tmp_path / "out").glob("*.jsonl"))
        assert load(path).status == "started"
        before = len(load(path).calls)
        resume = [*command[:5], "resume", str(path), "--quiet", "--agents-dir", str(tmp_path / "agents")]
        done = subprocess.run(resume, env=_env(None), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert not [word for word in TROUBLE if word in done.stderr], done.stderr
    transcript = load(path)
    assert transcript.status == "complete"
    assert _posts(done.stderr) == len(transcript.calls) - before > 0  # the resumed part went the direct path
