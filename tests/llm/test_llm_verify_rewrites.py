"""`arena verify` rebuilds every rewritten prompt it can, says which it cannot, and never passes a forged one (#30,
security round 3, low items).

A compaction rewrites a seat's history into a summary (its "notes of the game so far"); a forger who edits one (a
civilian told who the don is) and re-hashes the chain must not pass `verify`, whichever field he also changes:
- the header's `prompt_set_hash` (which used to skip the check with a note): the rebuild is compared all the same;
  if it differs and the set is not the one here, the file is "not verified" (exit 4), never OK;
- the call's `compaction` mark, removed (which used to hide the call from the check): a seat's first user message
  only changes at a compaction, so an unmarked rewrite is a problem (exit 1);
- a seat's first turn (its role prompt), rebuilt too.
And the check's work is linear: fake "compacted" failure records at one point (which used to cost a replay of the
whole game each, 30-37 s of CPU per MB) are rebuilt once. The test counts the work, not the time.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_llm_compaction import _game
from typer.testing import CliRunner

import arena.llm.rebuild as rebuild
from arena.cli import app
from arena.llm.conversation import Conversation
from arena.llm.rebuild import check_compactions
from arena.standin import FakeServer
from arena.transcript import load

sys.path.insert(0, str(Path(__file__).parents[1]))
from forgery import rechain

NOTE = "Your notes of the game so far"
FORGED = " (moderator's note: seat 6 is the don)"


@pytest.fixture
async def compacted(tmp_path: Path, server: FakeServer, api_key: str) -> Path:
    return await _game(tmp_path, server, "json_schema", "per_request", seed=3)


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _forge(path: Path, edit: Callable[[list[dict[str, Any]]], None], name: str = "forged.jsonl") -> Path:
    records = _records(path)
    edit(records)
    lines = [json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in records]
    forged = path.with_name(name)
    forged.write_text("".join(rechain(lines)), encoding="utf-8")
    return forged


def _summary_call(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The first compacted call record whose own messages hold the summary (a rewrite is recorded whole)."""
    return next(r for r in records if r.get("compaction") == "budget"
                and any(NOTE in str(m.get("content")) for m in r.get("messages", [])))  # fmt: skip


def _plant(record: dict[str, Any]) -> None:
    for message in record["messages"]:
        if NOTE in str(message.get("content")):
            message["content"] = str(message["content"]).replace(NOTE, NOTE + FORGED)


def _verify(path: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["verify", str(path), *args])
    return result.exit_code, result.output


def test_a_forged_summary_does_not_pass_under_another_prompt_set_hash(compacted: Path) -> None:
    def forge(records: list[dict[str, Any]]) -> None:
        records[0]["prompt_set_hash"] = "0" * 64  # "the prompt set changed since": the check was skipped
        _plant(_summary_call(records))

    code, output = _verify(_forge(compacted, forge))
    assert code == 4 and "not verified" in output and "not rebuilt" in output, output
    # the same hash change on an honest file: every prompt still rebuilds exactly, so it verifies, with a note
    honest = _forge(compacted, lambda records: records[0].update(prompt_set_hash="0" * 64), "honest.jsonl")
    code, output = _verify(honest)
    assert code == 0 and "rebuilt exactly, although the header names another prompt set" in output, output


def test_a_forged_summary_does_not_pass_without_its_compaction_mark(compacted: Path) -> None:
    def forge(records: list[dict[str, Any]]) -> None:
        record = _summary_call(records)
        _plant(record)
        del record["compaction"]  # the mark was the only thing that had the call checked

    code, output = _verify(_forge(compacted, forge))
    assert code == 1 and "rewrites the seat's history, but is not marked compacted" in output, output


def test_a_forged_first_turn_does_not_pass(compacted: Path) -> None:
    def forge(records: list[dict[str, Any]]) -> None:
        first = next(r for r in records if r.get("kind") == "call" and r["seat"] == 2)
        first["messages"][1]["content"] += FORGED

    code, output = _verify(_forge(compacted, forge))
    assert code == 1 and "first call" in output and "not the rebuild's" in output, output


def test_a_prompt_set_that_is_not_here_is_not_vouched_for(compacted: Path) -> None:
    def rename(records: list[dict[str, Any]]) -> None:
        for entry in records[0]["seats"]:
            entry["agent"]["prompt_set"] = "theirs"

    elsewhere = _forge(compacted, rename)
    code, output = _verify(elsewhere)
    assert code == 4 and "'theirs'" in output and "--prompt-set" in output, output
    code, output = _verify(elsewhere, "--prompt-set", "default")  # the set the game really used: all rebuilt
    assert code == 0, output


def test_fake_compacted_failure_records_cost_one_rebuild(compacted: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000 fake compacted failure records (a few hundred kB) at one compacted call's point: the check rebuilds
    that point once and replays the game once per seat, exactly as for the honest file."""
    work = {"rebuilds": 0, "games": 0}
    fit = Conversation.fit

    def counted_fit(self: Conversation, *args: Any, **kwargs: Any) -> Any:
        work["rebuilds"] += 1
        return fit(self, *args, **kwargs)

    class CountedGame(rebuild.Game):  # type: ignore[misc, name-defined]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            work["games"] += 1
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(Conversation, "fit", counted_fit)
    monkeypatch.setattr(rebuild, "Game", CountedGame)

    def counted(path: Path) -> dict[str, int]:
        work.update(rebuilds=0, games=0)
        found = check_compactions(load(path))
        assert found.problems == [] and found.unchecked == [], found
        return dict(work)

    honest = counted(compacted)
    records = _records(compacted)
    calls = [r for r in records if r.get("kind") == "call"]
    full = rebuild.Expansion(load(compacted).calls)
    index = next(i for i, r in enumerate(calls) if r.get("compaction") == "budget")
    target = calls[index]
    fake = {"kind": "call", "seat": target["seat"], "request_kind": target["request_kind"], "compaction": "budget",
            "error": "transport: HTTP 500: The server had an error"}  # fmt: skip
    if target.get("reask") is not None:
        fake["reask"] = target["reask"]
    whole = {**fake, "messages": full.messages(index)}  # the same prompt as the real call, recorded whole
    tiny = {**fake, "prefix_ref": -1, "prefix_messages": len(full.messages(index))}  # then by reference, ~200 bytes
    at = records.index(target)

    def crafted(records: list[dict[str, Any]]) -> None:
        records[at:at] = [whole, *[dict(tiny) for _ in range(2000)]]

    path = _forge(compacted, crafted, "crafted.jsonl")
    assert path.stat().st_size > compacted.stat().st_size + 300_000
    assert counted(path) == honest  # the same work: nothing per fake record but reading it
    seats = len({c["seat"] for c in calls})
    assert honest["games"] <= seats + 1  # one replay per seat, and the one game replayed forward
