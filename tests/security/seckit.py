"""Helpers for the security tests: re-hashing a file as a forger would, the CLI in process, a recording server.

`python tests/security/seckit.py` rewrites the crafted transcripts committed next to this file (an attacker's
files: each header names an agent that would send a secret, render a foreign template or import a function).
"""

from __future__ import annotations

import io
import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from arena.cli import app
from arena.transcript import GENESIS, chain_hash

HERE = Path(__file__).resolve().parent
PLACEHOLDER_URL = "http://127.0.0.1:9/v1"  # the tests put their recording server's address here
ATTACKS: dict[str, tuple[int, dict[str, Any]]] = {
    # file: (seat, the agent spec its header claims)
    "resume-secret.jsonl": (
        2,
        {
            "name": "openai",
            "kind": "llm",
            "model": "gpt-4o-mini",
            "base_url": PLACEHOLDER_URL,
            "api_key_env": "ARENA_TEST_CLOUD_TOKEN",
        },
    ),
    "resume-template.jsonl": (
        4,
        {
            "name": "local-fake",
            "kind": "llm",
            "model": "fake-model",
            "base_url": PLACEHOLDER_URL,
            "prompt_set": "evil-prompts",
        },
    ),
    "resume-factory.jsonl": (
        6,
        {"name": "lc-evil", "kind": "langchain", "langchain_factory": "sec_evil_factory:boom"},
    ),
}
EVIL_TEMPLATE = "{{ cycler.__init__.__globals__.os.system('touch PWNED') }}"


def rechain(lines: list[str], *, drop_sig: bool = False) -> list[str]:
    """Every line's hash recomputed after an edit, as a forger who read docs/security.md would (keeping the old
    signature, which he cannot recompute, unless `drop_sig`)."""
    out, previous = [], GENESIS
    for line in lines:
        data = json.loads(line)
        data.pop("hash", None)
        sig = data.pop("sig", None)
        previous = chain_hash(previous, data)
        data["hash"] = previous
        if sig is not None and not drop_sig:
            data["sig"] = sig
        out.append(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
    return out


def edit(path: Path, index: int, change: dict[str, Any], *, forge: bool) -> None:
    """Change fields of line `index` (0-based); with `forge`, re-hash the whole file afterwards."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[index])
    record.update(change)
    lines[index] = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    path.write_text("".join(rechain(lines) if forge else lines), encoding="utf-8")


def cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run `arena ARGS` in process: (exit code, stdout, stderr)."""
    result = CliRunner().invoke(app, list(args), env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


class _Recorder(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _any(self) -> None:
        self.server.seen.append((self.command, self.path, dict(self.headers)))  # type: ignore[attr-defined]
        self.send_response(500)
        self.end_headers()

    do_GET = do_POST = _any


@contextmanager
def recording_server() -> Iterator[tuple[str, list[tuple[str, str, dict[str, str]]]]]:
    """An HTTP server on 127.0.0.1 that records every request (and answers 500): (base URL, requests seen)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", server.seen  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def write_attack(name: str, folder: Path, url: str) -> Path:
    """The committed attack file `name`, with the recording server's URL, re-hashed (a valid chain)."""
    text = (HERE / name).read_text(encoding="utf-8").replace(PLACEHOLDER_URL, url)
    path = folder / name
    path.write_text("".join(rechain(text.splitlines(keepends=True))), encoding="utf-8")
    return path


def with_seat(path: Path, seat: int, agent: dict[str, Any]) -> Path:
    """`path` with seat `seat`'s header entry replaced by `agent`, re-hashed (a valid chain)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    head = json.loads(lines[0])
    head["seats"][seat - 1]["agent"] = agent
    lines[0] = json.dumps(head, ensure_ascii=False, separators=(",", ":")) + "\n"
    path.write_text("".join(rechain(lines)), encoding="utf-8")
    return path


def _craft() -> None:
    """Write the attack files: a fiim bot game cut mid-game, one seat's header entry replaced by the attacker."""
    import asyncio

    from arena.agents import BUILTIN
    from arena.engine import Game, load_rules
    from arena.orchestrator import run_game
    from arena.players.factory import build_player
    from arena.transcript import TranscriptWriter, make_header

    rules = load_rules("fiim")
    seats = dict.fromkeys(range(1, 11), BUILTIN["bot:heuristic"])
    header = make_header(rules, 5, seats, game_id="attacker", started_at="2000-01-01T00:00:00Z", version="x")
    stream = io.StringIO()
    writer = TranscriptWriter.to_stream(stream, header, clock=lambda: "2000-01-01T00:00:00Z")
    players = {s: build_player(seats[s], s, seed=5, rules=rules, lang="en") for s in seats}
    asyncio.run(run_game(Game(rules, 5), players, writer, timing=False))
    lines = stream.getvalue().splitlines(keepends=True)[:80]
    for name, (seat, agent) in ATTACKS.items():
        head = json.loads(lines[0])
        head["seats"][seat - 1]["agent"] = agent
        out = [json.dumps(head, ensure_ascii=False, separators=(",", ":")) + "\n", *lines[1:]]
        (HERE / name).write_text("".join(rechain(out)), encoding="utf-8")
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    sys.exit(_craft())
