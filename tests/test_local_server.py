"""`arena local-model`'s server handling, with a stand-in `llama-server` on PATH (a small script): the installed
server is preferred, the flags our seats need are passed, readiness is waited for, a SIGILL is explained with the
portable rebuild, and the server is stopped cleanly."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from arena.agents import AgentSpec, api_key_for
from arena.llm.server_info import server_info_now
from arena.local.key import key_path, local_key
from arena.local.server import PORTABLE_BUILD, LocalModelError, LocalServer, died, find_server

FAKE = """#!{python}
import http.server, os, signal, sys, time
args = sys.argv[1:]
if args == ["--help"]:
    print("-cram, --cache-ram N   set the maximum cache size in MiB")
    print("--swa-full   use full-size SWA cache")
    print("--cors-origins ORIGINS   comma-separated list of allowed origins for CORS (default: *)")
    print("--ui,  --webui, --no-ui, --no-webui   whether to enable the Web UI (default: enabled)")
    sys.exit(0)
if "--die" in " ".join(args) or {die}:
    os.kill(os.getpid(), signal.SIGILL)
if {fail}:
    print("error: failed to load model '/x.gguf': not a GGUF file", flush=True)
    sys.exit(3)
port = int(args[args.index("--port") + 1])
start = time.monotonic()
KEY = os.environ.get("LLAMA_API_KEY")  # as llama-server reads --api-key from its environment
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ready = time.monotonic() - start > 0.5  # 503 while "loading the model", as llama-server answers
        if self.path == "/props":
            good = KEY and self.headers.get("Authorization") == "Bearer " + KEY
            self.send_response(200 if good else 401)
            self.end_headers()
            props = b'{{"default_generation_settings": {{"n_ctx": 2048}}, "total_slots": 3}}'
            self.wfile.write(props if good else b'{{}}')
            return
        self.send_response(200 if ready else 503)
        self.end_headers()
        self.wfile.write(b'{{"status":"ok"}}' if ready else b'{{"error":"Loading model"}}')
    def log_message(self, *a):
        pass
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
print(" ".join(args), flush=True)
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
"""


@pytest.fixture(autouse=True)
def _keys_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runs' key files go to this test's folder, never the user's runtime folder or home."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))


def _fake(folder: Path, die: bool = False, fail: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "llama-server"
    path.write_text(FAKE.format(python=sys.executable, die=die, fail=fail))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_installed_server_on_path_is_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _fake(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    assert find_server() == fake


def test_the_server_gets_our_flags_and_is_waited_for_and_stopped(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    log = tmp_path / "server.log"
    server = LocalServer(model, port=_port(), ctx=2048, parallel=3, binary=_fake(tmp_path / "bin"), log=log)
    command = server.command()
    assert command[command.index("--ctx-size") + 1] == "6144"  # llama-server's -c is the total: ctx x slots
    assert command[command.index("--parallel") + 1] == "3" and "--jinja" in command
    assert command[command.index("--host") + 1] == "127.0.0.1"
    assert command[command.index("--cache-ram") + 1] == "0"  # no prompt state shared across slots (seats)
    assert "--swa-full" in command  # a compacted prompt resumes where it changed
    with server, urllib.request.urlopen(f"http://127.0.0.1:{server.port}/health", timeout=5) as answer:
        assert answer.status == 200  # ready, past the 503s of the loading phase
    assert server.process is not None and server.process.returncode == 0  # SIGTERM, clean exit


def test_a_sigill_says_how_to_rebuild(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    server = LocalServer(model, port=_port(), binary=_fake(tmp_path / "bin", die=True))
    server.start()
    with pytest.raises(LocalModelError) as caught:
        server.wait_ready(30)
    assert "SIGILL" in str(caught.value) and PORTABLE_BUILD in str(caught.value)
    assert "GGML_NATIVE=OFF" in died(-signal.SIGILL)
    assert "exited with code 3" in died(3)


def test_a_server_without_the_ram_cache_flag_is_not_given_it(tmp_path: Path) -> None:
    """An older llama-server on PATH, whose --help does not list --cache-ram, still starts: the flag is left out."""
    old = tmp_path / "bin" / "llama-server"
    old.parent.mkdir()
    old.write_text(f"#!{sys.executable}\nimport sys\nprint('usage: llama-server [options]')\n")
    old.chmod(old.stat().st_mode | stat.S_IXUSR)
    server = LocalServer(tmp_path / "m.gguf", port=_port(), binary=old)
    command = server.command()
    assert "--cache-ram" not in command and "--swa-full" not in command
    assert command[command.index("--parallel") + 1] == "10"


def test_sigint_stops_it_even_when_started_from_a_script_in_the_background(tmp_path: Path) -> None:
    """`arena local-model &` in a shell script starts with SIGINT ignored (no job control); SIGINT stops it cleanly."""
    fake = _fake(tmp_path / "bin")
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    env = {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"}
    command = [sys.executable, "-m", "arena.cli", "local-model", "--model", str(model), "--port", str(_port())]

    def as_a_background_job() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=as_a_background_job)  # fmt: skip
    try:
        assert child.stdout is not None
        assert "llama-server ready" in child.stdout.readline()
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()  # nothing to do once it has exited and been reaped
        child.wait()
    assert child.returncode == 0 and "llama-server stopped (exit 0)" in err, err


def test_a_server_killed_after_it_was_ready_is_said_so_and_its_key_goes(tmp_path: Path) -> None:
    """#31: `kill -9` of a serving llama-server: `arena local-model` says it was killed after it was ready (not
    "before it was ready") and exits 1, and the run's key file goes with it (before, a stale key outlived it)."""
    fake = _fake(tmp_path / "bin")
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    port = _port()
    env = {**os.environ, "PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"}
    command = [sys.executable, "-m", "arena.cli", "local-model", "--model", str(model), "--port", str(port)]
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert "llama-server ready" in child.stdout.readline()
        assert key_path(port).exists()
        [server] = Path(f"/proc/{child.pid}/task/{child.pid}/children").read_text().split()
        os.kill(int(server), signal.SIGKILL)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 1 and "was killed by signal 9 after it was ready" in err, err
    assert not key_path(port).exists()


def test_each_start_has_a_key_only_the_arena_knows(tmp_path: Path) -> None:
    """Issue #30: the server gets a fresh key in its environment (never on its command line), the arena's clients
    find it by the port in a file only this user reads, and no page of another origin may read an answer."""
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    server = LocalServer(model, port=_port(), ctx=2048, parallel=3, binary=_fake(tmp_path / "bin"))
    command = server.command()
    assert command[command.index("--cors-origins") + 1] == "none.invalid" and "--no-webui" in command
    with server:
        key = server.api_key
        assert len(key) >= 40 and key not in " ".join(command)
        path = key_path(server.port)
        assert path.read_text() == key and stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert local_key(server.base_url) == key and local_key(f"http://example.com:{server.port}/v1") is None
        spec = AgentSpec(name="local", kind="llm", model="m", base_url=server.base_url)
        assert api_key_for(spec) == key  # what the seats and the probe send
        assert server_info_now(server.base_url).context_tokens == 2048  # /props wants the key: it got it
        path.chmod(0o644)
        assert local_key(server.base_url) is None  # a file others can read is not trusted
        path.chmod(0o600)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{server.port}/props", timeout=5)
        assert refused.value.code == 401  # the fake checks the key as llama-server does
    assert not path.exists()  # gone with the server
    second = LocalServer(model, port=server.port, binary=_fake(tmp_path / "bin"))
    with second:
        assert second.api_key != key  # a fresh key each run


def test_a_failed_start_says_why_without_a_log(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    server = LocalServer(model, port=_port(), binary=_fake(tmp_path / "bin", fail=True))
    server.start()
    assert key_path(server.port).exists()
    with pytest.raises(LocalModelError) as caught:
        server.wait_ready(30)
    assert not key_path(server.port).exists()  # a start that failed leaves no key behind
    message = str(caught.value)
    assert "exited with code 3 before it was ready" in message and "not a GGUF file" in message
    assert "after it was ready (it had been serving)" in died(-signal.SIGKILL, ready=True)
    assert "killed by signal 9" in died(-signal.SIGKILL, ready=True)
