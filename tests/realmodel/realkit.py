"""Helpers of the real-model tests: agent specs for the served model, a game driven to a wanted request, the audit
of a real game's transcript."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from arena.agents import AgentSpec
from arena.engine import Game, Kind, Request, RuleSet

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "llm"))
from test_llm_leaks import _check_seat  # noqa: E402 - the one leak audit, shared with tests/llm

FIVE = HERE / "five.toml"  # 5 players: 3 civilians, the sheriff, the don


def local_spec(base_url: str, mode: str = "json_schema", **fields: Any) -> AgentSpec:
    """agents/local.toml's settings against the test server."""
    from arena.agents import load_agent_file
    from arena.resources import example_agents_root

    shipped = load_agent_file(example_agents_root() / "local.toml")
    update: dict[str, Any] = {"base_url": base_url, "structured": mode, "name": f"local-{mode}", **fields}
    return shipped.model_copy(update=update)


def drive_to(rules: RuleSet, seed: int, kinds: set[Kind]) -> tuple[Game, Request]:
    """A game played at random until some seat is asked for one of `kinds`; that request."""
    from arena.players.random_policy import random_decision

    game = Game(rules, seed)
    rng = random.Random(seed)
    while game.winner is None:
        pending = game.pending()
        for request in pending:
            if request.kind in kinds:
                return game, request
        for request in pending:
            game.submit(request.seat, random_decision(rng, request))
    raise AssertionError(f"no {kinds} request in game {seed}")


ARENA_DEFAULTS = ("refused the request", "could not be reached", "context", "cut off at the token limit")


def agents_folder(tmp: Path, base_url: str) -> Path:
    """An agents folder whose `local.toml` is the shipped one, pointed at the test server."""
    from arena.resources import example_agents_root

    folder = tmp / "agents"
    folder.mkdir()
    text = (example_agents_root() / "local.toml").read_text()
    (folder / "local.toml").write_text(text.replace("http://127.0.0.1:8080/v1", base_url))
    return folder


def audit(path: Path, local_seats: set[int]) -> dict[str, int]:
    """The checks every real game passes; returns a few counts for the test's message."""
    from typer.testing import CliRunner

    from arena.cli import app
    from arena.llm.records import expand
    from arena.transcript import load

    verified = CliRunner().invoke(app, ["verify", str(path)])
    assert verified.exit_code == 0, verified.output
    t = load(path)
    assert t.end is not None and t.end.status == "complete"
    for item in t.inputs:  # no default comes from the arena itself: only the model's own illegal answers
        if item.op == "default":
            reason = item.reason or ""
            # the model's own: its private reasoning ran to the token limit before any public field (a small model
            # rambles; the arena's budget held everything else), as an illegal answer is the model's own
            rambled = "cut off before its first public field" in reason
            assert rambled or not any(word in reason for word in ARENA_DEFAULTS), reason
    game = Game(t.rules, t.header.seed, roles=t.header.roles)
    game.replay(t.inputs)
    full = expand(t.calls)
    for call in t.calls:
        assert call.seat in local_seats
        if call.parsed is not None or (call.error or "").startswith("unusable"):  # answered: the server's figures
            assert call.prompt_tokens > 0 and call.completion_tokens > 0 and call.timings is not None
    for seat in local_seats:  # the leak audit of tests/llm, on the prompts actually sent (compacted ones included)
        _check_seat(game, seat, [m for c, m in zip(t.calls, full, strict=True) if c.seat == seat], t.header.lang)
    spec = next(s.agent for s in t.header.seats if s.seat in local_seats)
    assert spec.context_tokens == 4096  # read from the server's /props by preflight
    return {"calls": len(t.calls), "compactions": sum(1 for c in t.calls if c.compaction)}
