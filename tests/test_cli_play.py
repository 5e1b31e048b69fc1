"""`arena play`, `arena verify` and `arena resume` from the command line: results, files and clean errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from forgery import rechain
from typer.testing import CliRunner

from arena.cli import app
from arena.cli.seats import SeatSpecError, parse_seat_specs
from arena.transcript import load


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def _play(tmp_path: Path, *args: str) -> tuple[int, str, Path | None]:
    out = tmp_path / "out"
    code, output = _run("play", "--out", str(out), *args)
    files = sorted(out.glob("*.jsonl")) if out.exists() else []
    return code, output, files[-1] if files else None


def test_play_with_defaults_saves_a_verifiable_transcript(tmp_path: Path) -> None:
    code, output, path = _play(tmp_path)
    assert code == 0, output
    assert path is not None and output.strip().endswith(f"transcript: {path}")
    assert "fiim · seed " in output and ("wins" in output or "a draw" in output)
    transcript = load(path)
    assert transcript.status == "complete"
    assert transcript.rules.name == "fiim"
    assert {e.agent.name for e in transcript.header.seats} == {"bot:heuristic"}
    assert f"seed {transcript.header.seed}" in output
    # the live view: phases, speeches, a folded vote line per round, the roles at the end
    assert "Night 0" in output and "Day 1" in output and "» #1: " in output
    assert ("  votes  " in output) == any(e.type.value == "vote_cast" for e in transcript.events)
    assert "Roles: #1 " in output
    code, output = _run("verify", str(path))
    assert code == 0 and output.startswith(f"OK {path}")


def test_play_options(tmp_path: Path) -> None:
    code, output, path = _play(
        tmp_path,
        "--preset",
        "aurora",
        "--seed",
        "42",
        "--rule",
        "voting.protocol=ballot",
        "--seat",
        "2,4-5=bot:random",
        "--seat",
        "all=bot:heuristic",
        "--lang",
        "ru",
        "--quiet",
    )
    assert code == 0, output
    assert output.strip() == f"transcript: {path}"
    assert path is not None
    header = load(path).header
    assert header.seed == 42 and header.lang == "ru"
    assert header.ruleset().voting.protocol == "ballot" and header.ruleset().name == "aurora"
    agents = {e.seat: e.agent.name for e in header.seats}
    assert [s for s, name in agents.items() if name == "bot:random"] == [2, 4, 5]


def test_same_seed_same_events(tmp_path: Path) -> None:
    _, _, first = _play(tmp_path / "a", "--seed", "9", "--quiet")
    _, _, second = _play(tmp_path / "b", "--seed", "9", "--quiet")
    assert first is not None and second is not None
    assert load(first).events == load(second).events


def test_rules_file(tmp_path: Path) -> None:
    rules = tmp_path / "mine.toml"
    rules.write_text('base = "classic"\n[speech]\nregular_s = 30\n', encoding="utf-8")
    code, output, path = _play(tmp_path, "--rules", str(rules), "--quiet", "--seed", "1")
    assert code == 0, output
    assert path is not None and load(path).rules.speech.regular_s == 30


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "nope"], "unknown preset 'nope'"),
        (["--rules", "missing.toml"], "cannot read rules file"),
        (["--rule", "voting.protocol=shouting"], "voting.protocol"),
        (["--rule", "novalue"], "must look like section.field=value"),
        (["--seat", "3"], "bad --seat '3'"),
        (["--seat", "11=human"], "seat 11 does not exist"),
        (["--seat", "x=human"], "bad --seat"),
        (["--seat", "3=nobody-here"], "unknown agent 'nobody-here'"),
    ],
)
def test_bad_options_give_one_clear_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    code, output, path = _play(tmp_path, *args)
    assert code == 2
    assert output.startswith("error: ") and message in output
    assert "Traceback" not in output
    assert path is None  # nothing was started


def test_bad_rules_file_content(tmp_path: Path) -> None:
    rules = tmp_path / "bad.yaml"
    rules.write_text("players: many\n", encoding="utf-8")
    code, output, _ = _play(tmp_path, "--rules", str(rules))
    assert code == 2 and "players" in output and "Traceback" not in output


def test_an_unknown_language_is_a_usage_error(tmp_path: Path) -> None:
    code, output, _ = _play(tmp_path, "--lang", "de")
    assert code == 2 and "Traceback" not in output


def test_verify_reports_the_first_mismatch(tmp_path: Path) -> None:
    _, _, path = _play(tmp_path, "--seed", "3", "--quiet")
    assert path is not None
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if '"type":"eliminated"' in line)
    record = json.loads(lines[index])
    record["seat"] = record["seat"] % 10 + 1
    lines[index] = json.dumps(record) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    code, output = _run("verify", str(path))
    assert code == 1 and f"line {index + 1} does not match its hash" in output
    lines = rechain(lines)  # a forger who recomputes the chain is caught by the replay
    path.write_text("".join(lines), encoding="utf-8")
    code, output = _run("verify", str(path))
    assert code == 1
    assert f"event seq {record['seq']} (eliminated) differs: seat" in output


@pytest.mark.parametrize(("content", "message"), [("", "empty file"), ("hello\n", "not a Mafia Arena transcript")])
def test_verify_refuses_foreign_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(content, encoding="utf-8")
    code, output = _run("verify", str(path))
    assert code == 2 and message in output and "Traceback" not in output


def test_verify_says_a_torn_file_is_unfinished(tmp_path: Path) -> None:
    _, _, path = _play(tmp_path, "--seed", "3", "--quiet")
    assert path is not None
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    code, output = _run("verify", str(path))
    assert code == 3 and "UNFINISHED" in output and "torn last line" in output and "arena resume" in output
    code, output = _run("verify", "--allow-unfinished", str(path))
    assert code == 0 and "UNFINISHED" in output


def test_resume_finishes_a_cut_game_like_the_original(tmp_path: Path) -> None:
    _, _, full = _play(tmp_path / "full", "--seed", "12", "--preset", "edge", "--quiet")
    _, _, cut = _play(tmp_path / "cut", "--seed", "12", "--preset", "edge", "--quiet")
    assert full is not None and cut is not None
    text = cut.read_text(encoding="utf-8")
    cut.write_text(text[: len(text) // 3], encoding="utf-8")  # mid-line, as a crash leaves it
    code, output = _run("resume", str(cut))
    assert code == 0, output
    assert "dropped a torn last line" in output and f"transcript: {cut}" in output
    assert load(cut).events == load(full).events
    assert load(cut).status == "complete"
    code, output = _run("resume", str(cut))
    assert code == 1 and "already complete" in output


def test_parse_seat_specs() -> None:
    seats = parse_seat_specs(["3=human", "all=bot:random", "1,7-8=bot:heuristic"], 10)
    assert seats[3].kind == "human"
    assert [s for s, spec in seats.items() if spec.name == "bot:heuristic"] == [1, 7, 8]
    assert sum(spec.name == "bot:random" for spec in seats.values()) == 6
    with pytest.raises(SeatSpecError):
        parse_seat_specs(["0=human"], 10)
