"""The JSONL transcript: round trip, clear errors, verify, and resume from any cut point."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path

import pytest
from forgery import rechain

from arena.agents import BUILTIN, AgentSpec
from arena.engine import Game, RuleSet, load_rules
from arena.orchestrator import RunStats, counters_from_inputs, run_game
from arena.players.base import Player
from arena.players.factory import build_player
from arena.transcript import (
    VERSION,
    TranscriptError,
    TranscriptWriter,
    default_path,
    load,
    make_header,
    verify,
)


def _seats(rules: RuleSet, agent: str = "bot:heuristic") -> dict[int, AgentSpec]:
    return dict.fromkeys(range(1, rules.players + 1), BUILTIN[agent])


def _players(rules: RuleSet, seats: dict[int, AgentSpec], seed: int) -> dict[int, Player]:
    return {s: build_player(spec, s, seed=seed, rules=rules, lang="en") for s, spec in seats.items()}


def _play(tmp_path: Path, preset: str = "fiim", seed: int = 4, agent: str = "bot:heuristic") -> tuple[Path, Game]:
    rules = load_rules(preset)
    seats = _seats(rules, agent)
    header = make_header(rules, seed, seats)
    path = default_path(tmp_path, header)
    writer = TranscriptWriter.create(path, header)
    game = asyncio.run(run_game(Game(rules, seed), _players(rules, seats, seed), writer))
    writer.close()
    return path, game


def test_round_trip(tmp_path: Path) -> None:
    path, game = _play(tmp_path)
    t = load(path)
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first["format"] == "mafia-arena-transcript" and first["version"] == VERSION == 4
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # only its owner reads a transcript
    assert t.chain == "ok" and all('"hash":"' in line for line in path.read_text(encoding="utf-8").splitlines())
    assert t.header.seed == 4 and t.header.ruleset() == game.rules
    assert [s.agent.name for s in t.header.seats] == ["bot:heuristic"] * 10
    assert t.events == game.events and t.inputs == game.inputs
    assert t.status == "complete" and t.end is not None and t.end.winner == game.winner
    assert t.rebuild().events == game.events
    assert path.name.endswith(f"_{t.header.game_id}.jsonl")


def test_never_overwrites(tmp_path: Path) -> None:
    path, _ = _play(tmp_path)
    before = path.read_bytes()
    t = load(path)
    with pytest.raises(TranscriptError, match="already exists"):
        TranscriptWriter.create(path, t.header)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty file"),
        ("# a README\nhello\n", "not a Mafia Arena transcript"),
        ('{"format": "something-else", "version": 1}\n', "not a Mafia Arena transcript"),
        ("[1, 2, 3]\n", "not a Mafia Arena transcript"),
    ],
)
def test_foreign_and_empty_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(TranscriptError, match=message):
        load(path)


def test_newer_version_is_refused(tmp_path: Path) -> None:
    path, _ = _play(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["version"] = VERSION + 1
    path.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    with pytest.raises(TranscriptError, match="newer"):
        load(path)


def test_truncated_last_line(tmp_path: Path) -> None:
    path, _ = _play(tmp_path)
    text = path.read_text(encoding="utf-8")
    cut = text[: text.index("\n", len(text) // 2) + 1 + 25]  # 25 characters into a line
    path.write_text(cut, encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"line \d+ is truncated"):
        load(path)
    repaired = load(path, repair=True)
    assert repaired.torn is not None and len(repaired.torn) == 25
    assert repaired.status == "started"


def test_bad_record_in_the_middle(tmp_path: Path) -> None:
    path, _ = _play(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[5] = '{"kind": "event", "seq": "x"}\n'
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(TranscriptError, match="line 6"):
        load(path, repair=True)


def test_verify_passes_and_finds_the_first_tampered_event(tmp_path: Path) -> None:
    path, _ = _play(tmp_path)
    assert verify(load(path)).ok
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if '"type":"speech"' in line and '"text":"' in line)
    record = json.loads(lines[index])
    record["text"] = "I am the moderator: seat 1 is the don."
    lines[index] = json.dumps(record, ensure_ascii=False) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    verdict = verify(load(path))
    assert not verdict.ok and f"line {index + 1} does not match its hash" in verdict.message
    path.write_text("".join(rechain(lines)), encoding="utf-8")
    verdict = verify(load(path))
    assert not verdict.ok and verdict.seq == record["seq"]
    assert f"event seq {record['seq']} (speech) differs: text" in verdict.message


def test_verify_reports_a_refused_input(tmp_path: Path) -> None:
    path, _ = _play(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if '"kind":"input"' in line)
    record = json.loads(lines[index])
    record["seat"] = 99
    lines[index] = json.dumps(record) + "\n"
    path.write_text("".join(rechain(lines)), encoding="utf-8")
    verdict = verify(load(path))
    assert not verdict.ok and "input 0" in verdict.message


def _resume(path: Path) -> Game:
    """What `arena resume` does, in process: load (dropping a torn line), rebuild, fresh players, append."""
    t = load(path, repair=True)
    game = t.rebuild()
    assert t.events == game.events[: len(t.events)]
    seats = {e.seat: e.agent for e in t.header.seats}
    players = _players(game.rules, seats, t.header.seed)
    writer = TranscriptWriter.append_to(t)
    stats = RunStats(counters=counters_from_inputs(t.inputs))
    asyncio.run(run_game(game, players, writer, stats=stats))
    writer.close()
    return game


@pytest.mark.parametrize("preset", ["fiim", "club", "edge"])
def test_resume_from_any_cut_matches_the_uninterrupted_game(tmp_path: Path, preset: str) -> None:
    full_path, full = _play(tmp_path / "full", preset=preset, seed=6)
    text = full_path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    full_events = [line for line in lines if line.startswith('{"kind":"event"')]
    for cut in (1, 2, len(lines) // 5, len(lines) // 2, len(lines) - 2, len(lines) - 1):
        for torn in (0, 17):
            part = tmp_path / f"cut{cut}-{torn}.jsonl"
            tail = lines[cut][:torn] if torn and cut < len(lines) else ""
            part.write_text("".join(lines[:cut]) + tail, encoding="utf-8")
            game = _resume(part)
            resumed = part.read_text(encoding="utf-8").splitlines(keepends=True)
            assert game.events == full.events
            assert [line for line in resumed if line.startswith('{"kind":"event"')] == full_events
            assert verify(load(part)).ok
            assert resumed[-1].startswith('{"kind":"end","status":"complete"')


def test_an_unterminated_but_whole_last_line_is_kept(tmp_path: Path) -> None:
    path, full = _play(tmp_path, seed=8)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    part = tmp_path / "part.jsonl"
    part.write_text("".join(lines[:40]).rstrip("\n"), encoding="utf-8")
    t = load(part)  # strict: a whole record without its newline is not an error
    assert t.torn is None and t.unterminated
    game = _resume(part)
    assert game.events == full.events
    assert verify(load(part)).ok


def test_random_bots_resume_too(tmp_path: Path) -> None:
    path, full = _play(tmp_path, preset="aurora", seed=2, agent="bot:random")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    part = tmp_path / "part.jsonl"
    part.write_text("".join(lines[: len(lines) // 3]), encoding="utf-8")
    assert _resume(part).events == full.events


def test_text_after_the_end_record_is_tampering_even_without_a_newline(tmp_path: Path) -> None:
    path, _ = _play(tmp_path)
    for tail in ("garbage", '{"kind":"x"}', "\n"):
        bad = tmp_path / "tail.jsonl"
        bad.write_text(path.read_text(encoding="utf-8") + tail, encoding="utf-8")
        with pytest.raises(TranscriptError, match="follows the end record") as caught:
            load(bad, repair=True)
        assert caught.value.damaged


def test_a_duplicate_key_is_refused_as_damage(tmp_path: Path) -> None:
    path, _ = _play(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    # a forger adds a second "winner" (the chain hashes the last one, a naive reader may take the first)
    end = lines[-1]
    lines[-1] = end.replace('"status":"complete"', '"status":"complete","status":"aborted"', 1)
    for text in ("".join(lines), "".join(lines).rstrip("\n")):
        bad = tmp_path / "dup.jsonl"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(TranscriptError, match="appears twice") as caught:
            load(bad, repair=True)
        assert caught.value.damaged
    header = tmp_path / "duphead.jsonl"
    header.write_text(lines[0].replace('"seed":', '"seed":1,"seed":', 1), encoding="utf-8")
    with pytest.raises(TranscriptError, match="appears twice"):
        load(header)


def test_the_writer_cuts_an_oversize_call_record_so_the_file_still_reads(tmp_path: Path) -> None:
    from arena.players.base import ModelCall
    from arena.transcript import MAX_LINE_BYTES

    rules = load_rules("fiim")
    header = make_header(rules, 1, _seats(rules))
    path = tmp_path / "big.jsonl"
    writer = TranscriptWriter.create(path, header)
    huge = "ж" * (MAX_LINE_BYTES // 2 + 10)  # 2 bytes each in UTF-8: over the line limit
    messages: list[dict[str, object]] = [{"role": "system", "content": "rules"}, {"role": "user", "content": huge}]
    writer.call(ModelCall(seat=1, request_kind="vote", messages=messages, raw='{"a": 1}'))
    writer.close()
    loaded = load(path)
    assert loaded.chain == "ok"
    (call,) = loaded.calls
    assert call.messages[0]["content"] == "rules" and call.raw == '{"a": 1}'
    text = str(call.messages[1]["content"])
    assert text.startswith("жжж") and "cut by the transcript writer" in text
    assert len(path.read_bytes()) < MAX_LINE_BYTES + 10_000


def test_the_writer_refuses_a_line_the_reader_would_refuse_and_writes_nothing(tmp_path: Path) -> None:
    from arena.engine import Input
    from arena.transcript import MAX_LINE_BYTES

    rules = load_rules("fiim")
    header = make_header(rules, 1, _seats(rules))
    path = tmp_path / "big.jsonl"
    writer = TranscriptWriter.create(path, header)
    before = path.read_bytes()
    with pytest.raises(TranscriptError, match="line limit"):
        writer.input(Input(op="reject", seat=1, reason="x" * (MAX_LINE_BYTES + 1)))
    writer.close()
    assert path.read_bytes() == before
    assert load(path).chain == "ok"
