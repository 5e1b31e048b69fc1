"""The window check before play (issue #31): a server whose window per slot cannot hold a seat's first turn, even
compacted as far as it goes, is refused by `arena play` before any model call, with the size needed. Before, the
game played on: every call got HTTP 400, every decision its default, and a 'complete' draw was sealed."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.agents import load_agent_file
from arena.cli import app
from arena.engine import Game, load_rules
from arena.llm.window import check_windows, first_turn_needs, suggested_window
from arena.resources import example_agents_root


class _Server(ThreadingHTTPServer):
    n_ctx = 512
    posts = 0


class _Handler(BaseHTTPRequestHandler):
    """llama.cpp's answers that matter here: /props with the window per slot; the probe answered, any longer
    prompt refused as over the window (HTTP 400); every POST counted."""

    server: _Server

    def do_GET(self) -> None:
        if self.path == "/props":
            body = json.dumps({"default_generation_settings": {"n_ctx": self.server.n_ctx}, "total_slots": 10})
            self._send(200, body)
        else:
            self._send(404, "{}")

    def do_POST(self) -> None:
        self.server.posts += 1
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if len(body) < 1000:  # the probe ("Reply with the word OK."): it fits
            message = {"role": "assistant", "content": "OK"}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            self._send(200, json.dumps({"choices": [choice], "model": "gemma-3-270m", "usage": {}}))
            return
        error = {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                 "type": "exceed_context_size_error", "n_prompt_tokens": 1500, "n_ctx": self.server.n_ctx}
        self._send(400, json.dumps({"error": error}))

    def _send(self, status: int, body: str) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def small_server() -> Iterator[_Server]:
    server = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _agents(tmp_path: Path, port: int) -> Path:
    folder = tmp_path / "agents"
    folder.mkdir()
    text = (example_agents_root() / "local.toml").read_text()
    (folder / "local.toml").write_text(text.replace("http://127.0.0.1:8080/v1", f"http://127.0.0.1:{port}/v1"))
    return folder


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_window_smaller_than_a_first_turn_is_refused_before_any_call(
    tmp_path: Path, small_server: _Server, lang: str
) -> None:
    agents = _agents(tmp_path, small_server.server_address[1])
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["play", "--agents-dir", str(agents), "--seat", "all=local", "--seed", "3",
                                      "--lang", lang, "--out", str(out), "--quiet"])  # fmt: skip
    assert result.exit_code == 2, result.output
    found = re.search(r"window per slot is 512 tokens, but seat \d+'s first turn \(\w+\) needs at least (\d+)",
                      result.output)  # fmt: skip
    assert found, result.output
    needed = int(found.group(1))
    assert f"arena local-model --ctx {suggested_window(needed)}" in result.output
    assert small_server.posts == 0  # refused before the probe, and before any game call
    assert not out.exists() or not list(out.glob("*.jsonl"))  # no transcript: nothing was played


def test_the_needed_size_is_the_largest_first_turn() -> None:
    spec = load_agent_file(example_agents_root() / "local.toml").model_copy(update={"context_tokens": 512})
    seats = {seat: spec for seat in range(1, 11)}
    needs = first_turn_needs(seats, Game(load_rules("fiim"), 3), "en")
    assert [n.seat for n in needs] == list(range(1, 11))
    assert all(1000 < n.tokens <= 4096 for n in needs)  # the rules alone are about a thousand tokens
    with pytest.raises(Exception, match=f"needs at least {max(n.tokens for n in needs)} "):
        check_windows(seats, Game(load_rules("fiim"), 3), "en")
    roomy = {seat: spec.model_copy(update={"context_tokens": 4096}) for seat in seats}
    check_windows(roomy, Game(load_rules("fiim"), 3), "en")  # the default window holds an English game
