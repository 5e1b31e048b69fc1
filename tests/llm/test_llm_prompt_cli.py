"""`arena prompt`: the recorded messages come back verbatim, and the rebuild reproduces them exactly.

The rebuild is what "would be sent" relies on (a point without a call, or a seat that is not an LLM), so it is
checked against every first call of every seat at every point of a recorded LLM game: the same code, the same
messages, byte for byte. The call records store messages by reference; expanding them must give each call's
messages in full.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from llmkit import llm_player, llm_spec, play
from typer.testing import CliRunner

from arena.cli import app
from arena.engine import load_rules
from arena.llm.rebuild import events_after_inputs, seat_prompt
from arena.llm.records import expand
from arena.players.base import Player
from arena.standin import FakeServer
from arena.transcript import Transcript, load


async def _llm_game(server: FakeServer, mode: str, path: Path) -> Transcript:
    """A fiim game of ten LLM seats on the stand-in in `mode`, written to `path`."""
    rules = load_rules("fiim")
    spec = llm_spec(server.base_url, mode)
    players: dict[int, Player] = {s: llm_player(spec, s, rules) for s in range(1, 11)}
    await play(rules, 5, players, {s: spec for s in players}, path)
    return load(path)


async def test_recorded_and_rebuilt_prompts_agree(tmp_path: Path, server: FakeServer, api_key: str) -> None:
    path = tmp_path / "game.jsonl"
    transcript = await _llm_game(server, "json_object", path)
    positions = transcript.call_positions
    full = expand(transcript.calls)
    assert sum(1 for c in transcript.calls if c.prefix_ref is None) == 10  # one full record per seat, then references
    assert all(len(c.messages) <= 3 for c in transcript.calls if c.prefix_ref is not None)
    # append-only: each call of a seat repeats the whole previous call, then adds its answer and one new turn
    previous: dict[int, list[dict[str, object]]] = {}
    for call, messages in zip(transcript.calls, full, strict=True):
        before = previous.get(call.seat)
        if before is not None:
            assert messages[: len(before)] == before
            assert [m["role"] for m in messages[len(before) :]] == ["assistant", "user"]
        assert [m["role"] for m in messages[1:]] == ["user", "assistant"] * (len(messages) // 2 - 1) + ["user"]
        previous[call.seat] = messages

    compared = 0
    for seat in range(1, 11):
        events_after, _ = events_after_inputs(transcript, seat)
        firsts: dict[int, int] = {}  # events shown -> the seat's first call at that point
        for index, call in enumerate(transcript.calls):
            if call.seat == seat:
                firsts.setdefault(events_after[positions[index]], index)
        for shown in firsts:
            recorded = seat_prompt(transcript, seat, shown - 1)
            assert recorded.sent and recorded.messages == full[recorded.call or 0]
            last = recorded.call or 0  # a point's last call: what `--at` shows (a vote "no" adds no event)
            if transcript.calls[last].attempt != 1 or _reasked(full[last]):
                continue
            rebuilt = seat_prompt(transcript, seat, shown - 1, rebuild=True)
            assert not rebuilt.sent
            assert rebuilt.messages == full[last], f"seat {seat}, call {last}"
            compared += 1
    assert compared >= 60


def _reasked(messages: list[dict[str, object]]) -> bool:
    return "refused your last answer" in str(messages[-1].get("content"))


def test_cli_prints_messages_and_rejects_bad_input(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(app, ["prompt", str(tmp_path / "nope.jsonl"), "--seat", "1"])
    assert missing.exit_code == 2 and "no such file" in missing.output
    from arena.transcript import TranscriptWriter, make_header

    rules = load_rules("fiim")
    from arena.agents import resolve_agent

    bots = {s: resolve_agent("bot:random") for s in range(1, 11)}
    path = tmp_path / "bots.jsonl"
    writer = TranscriptWriter.create(path, make_header(rules, 2, bots))
    writer.close()
    bad_seat = runner.invoke(app, ["prompt", str(path), "--seat", "11"])
    assert bad_seat.exit_code == 2 and "seat 11" in bad_seat.output
    fresh = runner.invoke(app, ["prompt", str(path), "--seat", "4"])
    assert fresh.exit_code == 0, fresh.output
    assert fresh.stdout.startswith("----- system -----\nYou are a player in a game of Mafia")
    assert "----- user -----\nYou are the player at seat 4." in fresh.stdout
    as_json = runner.invoke(app, ["prompt", str(path), "--seat", "4", "--json"])
    messages = json.loads(as_json.stdout)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "[#0] The game begins" in messages[1]["content"]


async def test_terminal_control_characters_never_reach_the_terminal(
    tmp_path: Path, server: FakeServer, api_key: str
) -> None:
    path = tmp_path / "game.jsonl"
    await _llm_game(server, "json_object", path)
    # a model's raw answer and a message carrying a clear-screen, a C1 CSI, a bidi override and a tag character
    hostile = "A\x1b[2J\x9b31m\u202e\U000e0041B\tC\nD"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    edited = 0
    for index, line in enumerate(lines):
        record = json.loads(line)
        if record["kind"] == "call" and record["seat"] == 3 and record.get("prefix_ref") is None:
            record["messages"][0]["content"] += hostile
            lines[index] = json.dumps(record, ensure_ascii=False) + "\n"
            edited += 1
    assert edited, "no full call record of seat 3"
    path.write_text("".join(lines), encoding="utf-8")
    runner = CliRunner()
    shown = runner.invoke(app, ["prompt", str(path), "--seat", "3", "--force"])
    assert shown.exit_code == 0, shown.output
    assert "A[2J31mB\tC\nD" in shown.stdout  # the ESC and CSI bytes gone, so no sequence starts
    for bad in ("\x1b", "\x9b", "\u202e", "\U000e0041"):
        assert bad not in shown.stdout
    as_json = runner.invoke(app, ["prompt", str(path), "--seat", "3", "--force", "--json"])
    assert as_json.exit_code == 0 and not any(bad in as_json.stdout for bad in ("\x1b", "\x9b", "\u202e"))
    assert json.loads(as_json.stdout)[0]["content"].endswith(hostile)  # exact, as escapes


async def test_prompt_at_takes_the_number_the_prompt_shows(tmp_path: Path, server: FakeServer, api_key: str) -> None:
    """Issue #34: `arena prompt --at K` is the seat's own event #K, the `[#K]` its prompt shows. For each speech
    call, K is the last number of its last turn: the command prints exactly the messages that call was sent."""
    path = tmp_path / "game.jsonl"
    transcript = await _llm_game(server, "json_schema", path)
    full = expand(transcript.calls)
    runner = CliRunner()
    checked = 0
    for index, call in enumerate(transcript.calls):
        later = [j for j in range(index + 1, len(transcript.calls)) if transcript.calls[j].seat == call.seat]
        if call.request_kind != "speech" or call.attempt != 1 or checked >= 12:
            continue
        if later and transcript.call_positions[later[0]] == transcript.call_positions[index]:
            continue  # a re-ask follows at the same point: the point's last call is shown
        shown = [int(n) for n in re.findall(r"^\[#(\d+)\]", str(full[index][-1]["content"]), re.MULTILINE)]
        printed = runner.invoke(app, ["prompt", str(path), "--seat", str(call.seat), "--at", str(max(shown)),
                                      "--json"])  # fmt: skip
        assert printed.exit_code == 0, printed.output
        assert json.loads(printed.stdout) == full[index], f"call {index}, --at {max(shown)}"
        assert f"right after its event #{max(shown)} (call {index})" in printed.stderr
        checked += 1
    assert checked >= 10
