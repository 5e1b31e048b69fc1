"""Figures and references a writer never writes are tampering (issue 16, items 7, 9 and two lows of 11).

- Item 7: `end.total.cost_usd = -1000000`, re-chained, verified, and a tournament resumed on the folder took it as
  spend, so `--budget` was lifted ($19.02 spent against a $10 cap).
- Item 9: failed call records whose `prefix_messages` pointed past their base made `arena prompt`'s expansion build
  every record's full list, quadratic in the records (gigabytes from a 12 MB file that verified).
- Item 11: an end record with `status: "started"` let resume append after the seal; 200,000 failed call records made
  `arena export` take 1.5 GB and `arena show --calls` run past 90 s (a decision now draws at most 24 of its calls).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from seckit import cli, edit, rechain

from arena.players.base import ModelCall

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fiim.jsonl"
ROOT = Path(__file__).resolve().parents[2]


def _golden(tmp_path: Path) -> Path:
    path = tmp_path / "game.jsonl"
    shutil.copy(GOLDEN, path)
    return path


def _last(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) - 1


@pytest.mark.parametrize(
    "change",
    [
        {"total": {"calls": 0, "failed_calls": 0, "prompt_tokens": 0, "cached_tokens": 0, "completion_tokens": 0,
                   "cost_usd": -1_000_000.0, "defaults": 0}},
        {"totals": {"1": {"cost_usd": 5.0}}},
    ],
    ids=["a negative game total", "a seat total its calls do not add up to"],
)  # fmt: skip
def test_a_forged_total_does_not_verify(tmp_path: Path, change: dict[str, Any]) -> None:
    path = _golden(tmp_path)
    assert cli("verify", str(path))[0] == 0
    edit(path, _last(path), change, forge=True)
    code, _, err = cli("verify", str(path))
    assert code == 1 and "the end record's" in err and "cost_usd" in err


@pytest.mark.parametrize("cost", [-5.0, float("nan"), float("inf")])
def test_a_negative_or_non_finite_call_cost_does_not_verify(tmp_path: Path, cost: float) -> None:
    path = _golden(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    call = {"kind": "call", "seat": 1, "request_kind": "speech", "error": "transport: HTTP 500", "cost_usd": cost}
    lines.insert(len(lines) - 1, json.dumps(call) + "\n")
    path.write_text("".join(rechain(lines)), encoding="utf-8")
    code, _, err = cli("verify", str(path))
    assert code == 1 and "call record 0 (seat 1): cost_usd is" in err


def _tournament(tmp_path: Path) -> tuple[Path, Path]:
    text = (ROOT / "examples" / "tournament-bots.toml").read_text(encoding="utf-8").replace("games = 200", "games = 4")
    file = tmp_path / "t.toml"
    file.write_text(text, encoding="utf-8")
    return file, tmp_path / "out"


def test_a_forged_total_in_a_tournament_folder_does_not_lift_the_budget(tmp_path: Path) -> None:
    file, out = _tournament(tmp_path)
    code, _, err = cli("tournament", str(file), "--out", str(out), "--no-progress", "--processes", "0")
    assert code == 0, err
    game = out / "game-0001.jsonl"
    edit(game, _last(game), {"total": {"calls": 0, "failed_calls": 0, "prompt_tokens": 0, "cached_tokens": 0,
                                       "completion_tokens": 0, "cost_usd": -1_000_000.0, "defaults": 0}},
         forge=True)  # fmt: skip
    code, out_text, err = cli("tournament", str(file), "--out", str(out), "--no-progress", "--processes", "0",
                              "--budget", "10")  # fmt: skip
    assert code == 2 and "game-0001.jsonl" in err and "tampered figures" in err
    assert "-1000000" not in out_text


# ----- item 9: references past their base --------------------------------------------------------------------------
def _with_calls(tmp_path: Path, calls: list[dict[str, Any]]) -> Path:
    """The golden bot game with `calls` (failed, so verify pairs them with no input) before its end record, and
    the end record's totals counting them, re-hashed: as a forger would make it."""
    path = _golden(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    end = json.loads(lines[-1])
    seat = end["totals"].setdefault("1", {})
    for totals in (seat, end["total"]):
        totals["calls"] = totals.get("calls", 0) + len(calls)
        totals["failed_calls"] = totals.get("failed_calls", 0) + len(calls)
    rows = [json.dumps({"kind": "call", "seat": 1, "request_kind": "speech", "error": "transport: HTTP 500", **c})
            + "\n" for c in calls]  # fmt: skip
    path.write_text("".join(rechain([*lines[:-1], *rows, json.dumps(end) + "\n"])), encoding="utf-8")
    return path


def test_a_reference_past_its_base_is_tampering(tmp_path: Path) -> None:
    message = [{"role": "user", "content": "x"}]
    bomb = [{"messages": message}] + [{"messages": message, "prefix_ref": -1, "prefix_messages": 400_000}] * 3000
    path = _with_calls(tmp_path, bomb)
    code, _, err = cli("verify", str(path))
    assert code == 1 and "prefix_messages 400,000 is more than the 1 messages of call record 0" in err
    code, _, err = cli("prompt", str(path), "--seat", "1", "--force")
    assert code == 2 and "prefix_messages 400,000" in err


def test_expansion_resolves_one_record_at_a_time() -> None:
    from arena.llm.records import Expansion

    calls = [ModelCall(seat=1, request_kind="speech", messages=[{"n": 0}])]
    calls += [ModelCall(seat=1, request_kind="speech", messages=[{"n": i}], prefix_ref=-1, prefix_messages=i)
              for i in range(1, 5000)]  # fmt: skip
    expansion = Expansion(calls)  # one pass over the records: no full list is built here
    assert expansion.lengths[-1] == 5000
    assert expansion.messages(4999) == [{"n": i} for i in range(5000)]
    assert expansion.messages(3) == [{"n": 0}, {"n": 1}, {"n": 2}, {"n": 3}]


# ----- item 11 ----------------------------------------------------------------------------------------------------
def test_an_end_record_that_says_started_seals_nothing_open(tmp_path: Path) -> None:
    path = _golden(tmp_path)
    edit(path, _last(path), {"status": "started"}, forge=True)
    before = path.read_bytes()
    for args in (["verify", str(path)], ["resume", str(path), "--quiet"]):
        code, out, err = cli(*args)
        assert code in (1, 2) and err.startswith("error: ") and "line " in err and "Traceback" not in out + err
    assert path.read_bytes() == before, "nothing is appended after the seal"


def test_a_flood_of_failed_calls_draws_a_bounded_page(tmp_path: Path) -> None:
    from arena.render.notes import CALLS_SHOWN

    message = [{"role": "user", "content": "x"}]
    flood = [{"messages": message}] + [
        {"messages": message, "prefix_ref": -1, "prefix_messages": n} for n in range(1, 2000)
    ]
    path = _with_calls(tmp_path, flood)
    assert cli("verify", str(path))[0] == 0  # the flood itself is well formed
    code, out, err = cli("show", str(path), "--calls")
    assert code == 0, err
    assert out.count("transport: HTTP 500") <= CALLS_SHOWN and f"{2000 - CALLS_SHOWN:,} more calls" in out
    page = tmp_path / "game.html"
    code, _, err = cli("export", str(path), "--html", str(page))
    assert code == 0, err
    assert page.stat().st_size < 2 * GOLDEN.stat().st_size + 400_000
