"""A game stopped on a dead server verifies: the re-asks of the decision it stopped in repeat the seat's own failure
(its model could not be reached), which no input records, since nothing of a stopped batch is applied.

The fixture is the file of the real-server kill test (`tests/realmodel/test_real_kill.py`, Gemma 3 270M on
llama.cpp's server, killed after 41 answered calls) from the CI run of 5 Dec 2026, where `arena verify` refused it:
"compacted call 49 (seat 2): its re-ask repeats no recorded refusal (and 5 more)"."""

from __future__ import annotations

from pathlib import Path

from arena.llm.rebuild import check_compactions
from arena.transcript import load, verify

KILLED = Path(__file__).resolve().parents[1] / "fixtures" / "v3-killed-server.jsonl"


def test_a_game_stopped_on_a_dead_server_verifies_with_its_reasks() -> None:
    transcript = load(KILLED)
    assert transcript.stops and transcript.stops[-1].seat == 2
    reasks = [c for c in transcript.calls if c.seat == 2 and c.reask]
    assert len(reasks) == 6 and all(c.compaction for c in reasks)  # each is rebuilt, and checked against its record
    assert check_compactions(transcript).problems == []
    assert verify(transcript).outcome == "unfinished"


def test_a_reask_of_no_failure_on_record_is_still_refused() -> None:
    transcript = load(KILLED)
    [index] = [i for i, c in enumerate(transcript.calls) if c.reask][:1]
    made_up = "the model could not be reached: made up"
    transcript.calls[index] = transcript.calls[index].model_copy(update={"reask": made_up})
    assert any("its re-ask repeats no recorded refusal" in p for p in check_compactions(transcript).problems)
