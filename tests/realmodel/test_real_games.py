"""Whole games with real model seats, through `arena play` as a user runs it: every seat of a 5-player game at
4,096 tokens per slot, and 3 local seats among bots in a 10-seat fiim game. Each completes and verifies, no default
comes from the arena itself (overflow, a refused request, a cut-off answer), the leak audit passes on the prompts
actually sent, and the call records carry the server's token figures (realkit.audit)."""

from __future__ import annotations

from pathlib import Path

from realkit import FIVE, agents_folder, audit
from typer.testing import CliRunner

from arena.cli import app
from arena.local.server import LocalServer


def _play(tmp_path: Path, server: LocalServer, *args: str) -> Path:
    agents = agents_folder(tmp_path, server.base_url)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["play", "--agents-dir", str(agents), "--out", str(out), "--quiet", *args]  # the agent's deadlines
    )
    assert result.exit_code == 0, result.output
    (path,) = out.glob("*.jsonl")
    return path


def test_five_local_seats_play_a_whole_game(tmp_path: Path, real_server: LocalServer) -> None:
    path = _play(tmp_path, real_server, "--rules", str(FIVE), "--seat", "all=local", "--seed", "3")
    counts = audit(path, {1, 2, 3, 4, 5})
    assert counts["calls"] >= 5


def test_three_local_seats_among_bots_in_fiim(tmp_path: Path, real_server: LocalServer) -> None:
    path = _play(tmp_path, real_server, "--seat", "2,5,9=local", "--seed", "4")
    counts = audit(path, {2, 5, 9})
    assert counts["calls"] >= 3
