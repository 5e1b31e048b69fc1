"""Tamper-evident transcripts: every edit of a speech, reasoning, vote or winner fails `arena verify`, a cut file is
unfinished (exit 3), a signature proves who wrote a file, and `show`/`export` refuse an edited file.

Two kinds of edit are tried. A plain edit breaks the hash chain. A forged edit also recomputes every hash (anyone
can: the chain has no key), and is then caught by the replay and by the check that every model call's answer is
the input it produced; only a signature catches a forged edit that leaves no other trace (see docs/security.md).
"""

from __future__ import annotations

import json
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from seckit import cli, edit, rechain

from arena.standin import FakeServer

KEY = "lab-signing-key-for-tests"
ENV = {"ARENA_TEST_SIGN_KEY": KEY}
V1 = Path(__file__).resolve().parent / "v1-fiim.jsonl"


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """One signed game of LLM seats against the local fake server, and one signed game of bots."""
    folder = tmp_path_factory.mktemp("games")
    with FakeServer() as server:
        agents = folder / "agents"
        agents.mkdir()
        (agents / "fake.toml").write_text(
            f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{server.base_url}"\ntimeout_s = 30\n', encoding="utf-8"
        )
        out = {}
        for name, seat in (("llm", "all=fake"), ("bots", "all=bot:heuristic")):
            args = ["play", "--quiet", "--seed", "3", "--seat", seat, "--agents-dir", str(agents)]
            code, stdout, stderr = cli(
                *args, "--out", str(folder / name), "--sign-key-env", "ARENA_TEST_SIGN_KEY", env=ENV
            )
            assert code == 0, stderr
            out[name] = Path(stdout.strip().splitlines()[-1].removeprefix("transcript: "))
        out["agents"] = agents
        yield out


@pytest.fixture
def llm(games: dict[str, Path], tmp_path: Path) -> Path:
    return Path(shutil.copy(games["llm"], tmp_path / "llm.jsonl"))


@pytest.fixture
def bots(games: dict[str, Path], tmp_path: Path) -> Path:
    return Path(shutil.copy(games["bots"], tmp_path / "bots.jsonl"))


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _find(records: list[dict[str, object]], test: object) -> int:
    return next(i for i, r in enumerate(records) if test(r))  # type: ignore[operator]


def _verify(path: Path, *extra: str) -> tuple[int, str]:
    code, out, err = cli("verify", str(path), *extra, env=ENV)
    assert "Traceback" not in out + err
    return code, out + err


def test_a_fresh_game_verifies_with_its_signature(games: dict[str, Path]) -> None:
    for path in (games["llm"], games["bots"]):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        code, output = _verify(path, "--key-env", "ARENA_TEST_SIGN_KEY")
        assert code == 0 and output.startswith("OK") and "hash chain intact" in output
        assert "signature: valid for this key" in output
        assert '"sig":"' in path.read_text(encoding="utf-8").splitlines()[-1]
    assert sum(1 for r in _records(games["llm"]) if r["kind"] == "call") > 50  # the LLM seats did play


def _speech_edit(path: Path) -> tuple[int, int, dict[str, object], dict[str, object]]:
    """Change one speech in its input line and its event line alike (the audit's attack)."""
    records = _records(path)
    spoken = {r["text"]: n for n, r in enumerate(records) if r["kind"] == "event" and r.get("type") == "speech"}
    i = _find(records, lambda r: r["kind"] == "input" and r.get("decision", {}).get("text") in spoken)
    decision = dict(records[i]["decision"])  # type: ignore[call-overload]
    e = spoken[decision["text"]]
    decision["text"] = "I am the sheriff and seat 1 is black."
    event = dict(records[e], text=decision["text"])
    return i, e, {"decision": decision}, {"text": event["text"]}


def test_an_edited_speech_fails(llm: Path) -> None:
    i, e, input_change, event_change = _speech_edit(llm)
    plain = llm.with_name("plain.jsonl")
    shutil.copy(llm, plain)
    edit(plain, i, input_change, forge=False)
    edit(plain, e, event_change, forge=False)
    code, output = _verify(plain)
    assert code == 1 and f"line {min(i, e) + 1} does not match its hash" in output
    edit(llm, i, input_change, forge=True)
    edit(llm, e, event_change, forge=True)
    code, output = _verify(llm)
    assert code == 1 and "differs from the answer of call record" in output and "text" in output


def test_edited_reasoning_fails(llm: Path) -> None:
    records = _records(llm)
    i = _find(records, lambda r: r["kind"] == "input" and r.get("decision", {}).get("reasoning"))
    decision = dict(records[i]["decision"], reasoning="(private) I will betray seat 4.")  # type: ignore[call-overload]
    edit(llm, i, {"decision": decision}, forge=True)
    code, output = _verify(llm)
    assert code == 1 and "differs from the answer of call record" in output and "reasoning" in output


def test_an_edited_vote_fails(llm: Path) -> None:
    records = _records(llm)
    i = _find(records, lambda r: r["kind"] == "input" and r.get("decision", {}).get("vote") is not None)
    decision = records[i]["decision"]
    flipped = dict(decision, vote=not decision["vote"])  # type: ignore[index, call-overload]
    edit(llm, i, {"decision": flipped}, forge=True)
    code, output = _verify(llm)
    assert code == 1 and "differs from the answer of call record" in output and "vote" in output


def test_an_edited_call_answer_fails(llm: Path) -> None:
    """A forger who edits the call's parsed answer too is caught by its raw text."""
    records = _records(llm)
    c = _find(
        records, lambda r: r["kind"] == "call" and isinstance(r.get("parsed"), dict) and "reasoning" in r["parsed"]
    )
    edit(llm, c, {"parsed": dict(records[c]["parsed"], reasoning="edited")}, forge=True)  # type: ignore[call-overload]
    code, output = _verify(llm)
    assert code == 1 and "its parsed answer is not what its raw text says" in output


@pytest.mark.parametrize("forge", [False, True])
def test_an_edited_winner_fails_and_show_export_refuse_it(bots: Path, tmp_path: Path, forge: bool) -> None:
    records = _records(bots)
    winner = records[-1]["winner"]
    edit(bots, len(records) - 1, {"winner": "mafia" if winner != "mafia" else "town"}, forge=forge)
    code, output = _verify(bots)
    assert code == 1
    assert ("does not match its hash" in output) if not forge else ("the end record says" in output)
    if forge:
        return
    code, out, err = cli("show", str(bots))
    assert code == 1 and out == "" and err.startswith("error: ") and "tampered" in err and "--force" in err
    code, out, err = cli("show", str(bots), "--force")
    assert code == 0 and out.startswith("*** TAMPERED FILE") and "Traceback" not in err
    page = tmp_path / "page.html"
    code, _, err = cli("export", str(bots), "--html", str(page))
    assert code == 1 and not page.exists()
    code, _, err = cli("export", str(bots), "--html", str(page), "--force")
    assert code == 0 and "TAMPERED FILE" in page.read_text(encoding="utf-8")


def test_a_rechained_forgery_that_verify_refuses_is_not_shown_unlabelled(bots: Path, tmp_path: Path) -> None:
    records = _records(bots)
    winner = records[-1]["winner"]
    edit(bots, len(records) - 1, {"winner": "mafia" if winner != "mafia" else "town"}, forge=True)
    code, out, err = cli("show", str(bots))
    assert code == 1 and out == "" and "fails verify" in err and "the end record says" in err and "--force" in err
    code, out, err = cli("show", str(bots), "--force")
    assert code == 0 and out.startswith("*** TAMPERED FILE: it fails verify")
    page = tmp_path / "page.html"
    code, _, err = cli("export", str(bots), "--html", str(page))
    assert code == 1 and not page.exists()
    code, _, err = cli("export", str(bots), "--html", str(page), "--force")
    assert code == 0 and "TAMPERED FILE: it fails verify" in page.read_text(encoding="utf-8")


def test_an_exported_page_is_private_like_its_transcript(games: dict[str, Path], tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("old", encoding="utf-8")
    page.chmod(0o644)  # an existing, world-readable file is narrowed too
    for target in (page, tmp_path / "new.html"):
        code, _, err = cli("export", str(games["bots"]), "--html", str(target))
        assert code == 0, err
        assert target.stat().st_mode & 0o777 == 0o600 and "<html" in target.read_text(encoding="utf-8").lower()


def test_a_signature_catches_what_the_chain_alone_cannot(bots: Path) -> None:
    """Bots make no model calls, so a forged speech edit in a bot game replays cleanly: only the key tells."""
    i, e, input_change, event_change = _speech_edit(bots)
    edit(bots, i, input_change, forge=True)
    edit(bots, e, event_change, forge=True)
    code, output = _verify(bots)
    assert code == 0 and "signed: pass --key-env" in output  # the documented limit of an unsigned check
    code, output = _verify(bots, "--key-env", "ARENA_TEST_SIGN_KEY")
    assert code == 1 and "the signature does not match" in output


def test_wrong_or_missing_keys(bots: Path, tmp_path: Path) -> None:
    code, output = _verify(bots, "--key-env", "ARENA_TEST_OTHER_KEY")
    assert code == 2 and "ARENA_TEST_OTHER_KEY" in output and "not set" in output
    code, _, err = cli("verify", str(bots), "--key-env", "WRONG", env={"WRONG": "another key"})
    assert code == 1 and "the signature does not match" in err
    unsigned = tmp_path / "unsigned.jsonl"
    lines = bots.read_text(encoding="utf-8").splitlines(keepends=True)
    unsigned.write_text("".join(rechain(lines, drop_sig=True)), encoding="utf-8")
    code, output = _verify(unsigned, "--key-env", "ARENA_TEST_SIGN_KEY")
    assert code == 1 and "not signed" in output
    code, output = _verify(unsigned)  # the header still says it was signed
    assert code == 1 and "the header says this file was signed" in output
    code, output = _verify(V1, "--key-env", "ARENA_TEST_SIGN_KEY")
    assert code == 1 and "version-1 file is never signed" in output


@pytest.mark.parametrize("keep", [1, 2, 40, -1])
def test_a_file_cut_at_a_line_boundary_exits_3(bots: Path, keep: int) -> None:
    lines = bots.read_text(encoding="utf-8").splitlines(keepends=True)
    bots.write_text("".join(lines[:keep]), encoding="utf-8")
    code, output = _verify(bots)
    assert code == 3 and output.startswith("UNFINISHED") and "no end record" in output
    code, output = _verify(bots, "--allow-unfinished")
    assert code == 0 and output.startswith("UNFINISHED")


def test_a_file_cut_mid_line_exits_3(bots: Path) -> None:
    text = bots.read_text(encoding="utf-8")
    bots.write_text(text[: len(text) // 2], encoding="utf-8")
    code, output = _verify(bots)
    assert code == 3 and "torn last line" in output


def test_a_removed_line_fails(llm: Path) -> None:
    lines = llm.read_text(encoding="utf-8").splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if i > 30 and line.startswith('{"kind":"call"'))
    llm.write_text("".join(lines[:n] + lines[n + 1 :]), encoding="utf-8")  # a model call taken out
    code, output = _verify(llm)
    assert code == 1 and f"line {n + 1} does not match its hash" in output
    lines = lines[:30] + lines[31:]  # an event taken out: the sequence numbers tell at once
    llm.write_text("".join(lines), encoding="utf-8")
    code, output = _verify(llm)
    assert code == 1 and "expected" in output


def test_a_version_1_file_still_reads_and_says_it_has_no_chain() -> None:
    code, output = _verify(V1)
    assert code == 0 and output.startswith("OK") and "a version-1 file has no hash chain to check" in output
    code, out, _ = cli("show", str(V1))
    assert code == 0 and "wins" in out


def test_not_a_transcript_exits_2(tmp_path: Path) -> None:
    for content in (b"", b"hello\n", b'{"format":"mafia-arena-transcript","version":99}\n'):
        path = tmp_path / "x.jsonl"
        path.write_bytes(content)
        code, output = _verify(path)
        assert code == 2 and output.startswith("error: ")


@pytest.mark.parametrize("seat", [None, "all=bot:heuristic"])
def test_a_resumed_game_verifies(games: dict[str, Path], llm: Path, seat: str | None) -> None:
    """Resume takes the seats from the local definitions (or the user's --seat), records them, and the file
    verifies, signed, whichever agents played on."""
    lines = llm.read_text(encoding="utf-8").splitlines(keepends=True)
    llm.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    args = [
        "resume",
        str(llm),
        "--quiet",
        "--agents-dir",
        str(games["agents"]),
        "--sign-key-env",
        "ARENA_TEST_SIGN_KEY",
    ]
    code, _, err = cli(*args, *(["--seat", seat] if seat else []), env=ENV)
    assert code == 0, err
    records = _records(llm)
    resume = next(r for r in records if r["kind"] == "resume")
    assert {e["agent"]["name"] for e in resume["seats"]} == {"bot:heuristic" if seat else "fake"}  # type: ignore[index]
    code, output = _verify(llm, "--key-env", "ARENA_TEST_SIGN_KEY")
    assert code == 0 and "signature: valid" in output, output


def test_an_aborted_game_is_sealed_but_not_complete(tmp_path: Path) -> None:
    from arena.agents import BUILTIN
    from arena.engine import Game, load_rules
    from arena.transcript import TranscriptWriter, make_header

    rules = load_rules("fiim")
    path = tmp_path / "aborted.jsonl"
    writer = TranscriptWriter.create(path, make_header(rules, 1, dict.fromkeys(range(1, 11), BUILTIN["bot:random"])))
    game = Game(rules, 1)
    writer.sync_events(game)
    writer.abort("RuntimeError: an engine bug")
    writer.close()
    code, output = _verify(path)
    assert code == 3 and output.startswith("ABORTED") and "an engine bug" in output
    assert _verify(path, "--allow-unfinished")[0] == 0
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join([*lines, lines[-1]]), encoding="utf-8")  # nothing may follow the seal
    code, output = _verify(path)
    assert code == 1 and "follows the end record" in output


def test_a_version_1_file_resumes_as_version_1(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text("".join(V1.read_text(encoding="utf-8").splitlines(keepends=True)[:50]), encoding="utf-8")
    code, _, err = cli("resume", str(path), "--quiet")
    assert code == 0, err
    assert '"hash"' not in path.read_text(encoding="utf-8")  # one file, one format: no chain half-way
    code, output = _verify(path)
    assert code == 0 and "a version-1 file has no hash chain to check" in output


def test_play_with_an_unset_signing_variable_starts_nothing(tmp_path: Path) -> None:
    code, _, err = cli("play", "--quiet", "--out", str(tmp_path / "out"), "--sign-key-env", "ARENA_TEST_UNSET_KEY")
    assert code == 2 and "ARENA_TEST_UNSET_KEY" in err and not (tmp_path / "out").exists()
