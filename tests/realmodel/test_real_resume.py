"""A game resumed late at 3,072 tokens per slot (issue #31): three local seats among bots, cut at Day 4 (the first
part played against the stand-in, quickly), then resumed against the real server with 3 slots of 3,072 tokens.
Each local seat's first turn after the resume is its whole view, compacted to fit; no decision is a default the
arena caused (an overflow, a refused request, a cut-off answer), and the file verifies. Before, two seats
overflowed and lost their speech and vote to defaults."""

from __future__ import annotations

import asyncio
from pathlib import Path

from realkit import ARENA_DEFAULTS, agents_folder
from typer.testing import CliRunner

from arena.agents import resolve_agent
from arena.cli import app
from arena.cli.seats import build_players, prompt_hash
from arena.engine import Event, EventType, Game, load_rules
from arena.local.server import LocalServer
from arena.orchestrator import run_game
from arena.standin import FakeServer
from arena.transcript import TranscriptWriter, load, make_header

SMALL = (3072, 3)
LOCAL = (2, 5, 9)
SEED = 1  # with these bots and the stand-in's answers, a game that reaches Day 4


class _Cut(Exception):
    pass


def _cut_at_day_4(path: Path, agents: Path) -> None:
    """The first part: seats 2, 5 and 9 answer from the stand-in until Day 4 begins; the file is left unfinished."""
    rules = load_rules("fiim")
    with FakeServer() as fake:
        fields = f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{fake.base_url}"\nmax_tokens = 300\nfree = true\n'
        (agents / "fake.toml").write_text(fields)
        seats = {s: resolve_agent("fake" if s in LOCAL else "bot:heuristic", agents) for s in range(1, 11)}
        players = build_players(seats, seed=SEED, rules=rules, lang="en", delay=0.0)
        header = make_header(rules, SEED, seats, lang="en", prompt_set_hash=prompt_hash(seats, "en"))
        writer = TranscriptWriter.create(path, header)

        def cut(event: Event) -> None:
            if event.type is EventType.PHASE_STARTED and event.day == 4 and event.value == "day":
                raise _Cut

        async def first_part() -> None:
            try:
                await run_game(Game(rules, SEED), players, writer, on_event=cut)
            finally:
                writer.close()
                for player in players.values():
                    await player.close()

        try:
            asyncio.run(first_part())
        except _Cut:
            return
    raise AssertionError("the first part ended before Day 4")


def test_a_game_resumed_late_at_3072_tokens_has_no_overflow_default(tmp_path: Path, small_server: LocalServer) -> None:
    agents = agents_folder(tmp_path, small_server.base_url)
    path = tmp_path / "game.jsonl"
    _cut_at_day_4(path, agents)
    resumed = CliRunner().invoke(app, ["resume", str(path), "--quiet", "--agents-dir", str(agents),
                                       "--seat", ",".join(map(str, LOCAL)) + "=local"])  # fmt: skip
    assert resumed.exit_code == 0, resumed.output
    verified = CliRunner().invoke(app, ["verify", str(path)])
    assert verified.exit_code == 0, verified.output
    t = load(path)
    assert t.status == "complete"
    assert all(s.agent.context_tokens == 3072 for s in t.resumes[0].seats if s.seat in LOCAL)  # from /props
    after = t.resume_positions[0]
    defaults = [i for i in t.inputs[after:] if i.op == "default" and i.seat in LOCAL]
    assert not [i for i in defaults if any(word in (i.reason or "") for word in ARENA_DEFAULTS)], defaults
    calls = t.calls[t.resume_calls[0] :]
    assert calls, "the local seats made no call after the resume"
    first = {c.seat: c for c in reversed(calls)}
    assert all(c.compaction is not None for c in first.values()), {s: c.compaction for s, c in first.items()}
    overflowed = [c for c in calls if (c.error or "").startswith("transport: context overflow")]
    print(f"\n{len(calls)} calls after the resume, {sum(1 for c in calls if c.compaction)} compacted, "
          f"{len(overflowed)} overflowed and compacted again, {len(defaults)} defaults (the model's own)")  # fmt: skip
