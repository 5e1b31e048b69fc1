"""The Python API (`arena.play`, `arena.tournament`, `arena.load`) and docs/python.md, whose example runs here as
written: every `python` block of the page, in order, in an empty folder."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("pandas")

import arena
from arena.agents import AgentError
from arena.engine import RulesError
from arena.research.corpus import TAMPERED
from arena.transcript import load, verify

DOC = Path(__file__).resolve().parents[1] / "docs" / "python.md"


def test_the_docs_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)
    scope: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), scope)  # our own documentation, run as a user would
    assert len(list((tmp_path / "games").glob("*.jsonl"))) == 2
    assert (tmp_path / "runs" / "demo" / "tournament.json").is_file()


def test_play_and_load(tmp_path: Path) -> None:
    path = arena.play({"all": "bot:random", 2: "bot:heuristic"}, seed=3, out=tmp_path)
    t = load(path)
    assert verify(t).ok and t.header.seed == 3
    assert [e.agent.name for e in t.header.seats][:3] == ["bot:random", "bot:heuristic", "bot:random"]
    games = arena.load(path)
    assert len(games.games) == 1 and len(games.seats) == 10 and len(games.decisions) > 50
    assert set(games.seats["side"]) == {"town", "mafia"} and games.games.loc[0, "winner"] == t.end.winner  # type: ignore[union-attr]
    seats = games.seats.set_index("seat")
    assert seats.loc[2, "config"] == "bot:heuristic" and seats.loc[1, "config"] == "bot:random"
    assert games.calls.empty and list(games.calls.columns) == arena.api.CALL_COLUMNS
    assert games.decisions["seat"].between(1, 10).all()


def test_a_folder_skips_what_a_report_skips(tmp_path: Path) -> None:
    kept = arena.play(seed=1, out=tmp_path)
    edited = arena.play(seed=2, out=tmp_path)
    lines = edited.read_text(encoding="utf-8").splitlines()
    end = json.loads(lines[-1])
    end["winner"] = "draw"  # a flipped result, the hash left as it was
    edited.write_text("\n".join([*lines[:-1], json.dumps(end)]) + "\n", encoding="utf-8")
    games = arena.load(tmp_path)
    assert list(games.games["path"]) == [str(kept)] and len(games.seats) == 10
    assert [Path(p) for p, _ in games.skipped] == [edited] and games.skipped[0][1].startswith(TAMPERED)
    assert repr(games).startswith("Games(1 games, 10 seats,") and repr(games).endswith("1 skipped)")


def test_calls_of_llm_seats_are_rows(tmp_path: Path) -> None:
    from arena.standin import FakeServer

    agents = tmp_path / "agents"
    agents.mkdir()
    with FakeServer() as server:
        (agents / "fake.toml").write_text(f'kind = "llm"\nmodel = "m"\nbase_url = "{server.base_url}"\nfree = true\n')
        path = arena.play({3: "fake"}, seed=5, out=tmp_path / "games", agents_dir=agents)
    calls = arena.load(path).calls
    assert len(calls) == len(load(path).calls) > 0
    assert set(calls["seat"]) == {3} and set(calls["agent"]) == {"fake"} and (calls["prompt_tokens"] > 0).all()


def test_from_a_running_event_loop_as_in_a_notebook(tmp_path: Path) -> None:
    async def cell() -> Path:
        return arena.play(seed=4, out=tmp_path)

    assert verify(load(asyncio.run(cell()))).ok


def test_errors_are_plain_exceptions_with_the_clis_message(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="unknown agent 'nobody'"):
        arena.play({3: "nobody"}, out=tmp_path)
    with pytest.raises(ValueError, match="seat 11"):
        arena.play({11: "bot:random"}, out=tmp_path)
    with pytest.raises(ValueError, match="human seat"):
        arena.play({1: "human"}, out=tmp_path)
    with pytest.raises(RulesError):
        arena.play(preset="nope", out=tmp_path)
    with pytest.raises(ValueError, match="no such transcript"):
        arena.load(tmp_path / "missing.jsonl")
    with pytest.raises(AttributeError):
        arena.nothing  # type: ignore[attr-defined]  # noqa: B018


def test_arena_tournament_is_callable_whether_or_not_its_package_was_imported(tmp_path: Path) -> None:
    """`arena.tournament` is also a subpackage: once anything imported it, Python bound the package to that name and
    `arena.tournament(...)` said "'module' object is not callable" (the docs' example failed in a full run)."""
    import arena.tournament.schedule  # what other code does: the subpackage is now bound to arena.tournament

    assert callable(arena.tournament)
    file = tmp_path / "t.toml"
    file.write_text('name = "t"\ngames = 2\nseed = 3\n[[pool]]\nlabel = "h"\nagent = "bot:heuristic"\n')
    folder = arena.tournament(file, out=tmp_path / "run", processes=0)
    assert len(arena.load(folder).games) == 2
