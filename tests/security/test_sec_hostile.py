"""Every command over a corpus of hostile files: nested thousands deep, binary, mis-encoded, truncated, a 20 MiB
line, a 1 GiB (sparse) file, invalid or multiplying YAML. Each gives a clear `error:` line and a non-zero exit,
never a traceback; the huge ones run in a subprocess whose peak memory (VmHWM) must stay bounded.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from seckit import cli, rechain

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
GIB = 1024**3
MAX_RSS_MB = 300  # the interpreter and arena's imports take about 100 MB; a loaded gigabyte would take far more

Maker = Callable[[Path], None]


def _sparse(path: Path, head: bytes, size: int = GIB) -> None:
    with path.open("wb") as handle:  # a hole, not a gigabyte of writes: created at once, on any file system
        handle.write(head)
        handle.truncate(size)


def _huge_line(path: Path, head: bytes) -> None:
    with path.open("wb") as handle:
        handle.write(head)
        handle.write(b"A" * (20 * 1024 * 1024))


def _header() -> bytes:
    return (GOLDEN / "fiim.jsonl").read_bytes().split(b"\n", 1)[0] + b"\n"


def _past_replay(path: Path, forge: bool) -> None:
    lines = (GOLDEN / "fiim.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)[:-1]  # no end record
    last = json.loads(
        lines[-1] if '"kind":"event"' in lines[-1] else next(x for x in reversed(lines) if '"event"' in x)
    )
    extra = {"kind": "event", "seq": last["seq"] + 1, "day": 9, "phase": "day", "type": "speech", "vis": "public"}
    lines.append(json.dumps({**extra, "seat": 1, "text": "after the end"}) + "\n")
    path.write_text("".join(rechain(lines) if forge else lines), encoding="utf-8")


TRANSCRIPTS: dict[str, Maker] = {
    "empty": lambda p: p.write_bytes(b""),
    "nested-json": lambda p: p.write_bytes(b"[" * 200_000 + b"\n"),
    "nested-header": lambda p: p.write_bytes(
        b'{"format":"mafia-arena-transcript","version":2,"rules":' + b'{"a":' * 100_000 + b"1" + b"}" * 100_001 + b"\n"
    ),
    "nested-record": lambda p: p.write_bytes(_header() + b'{"kind":"event","x":' + b"[" * 200_000 + b"\n"),
    "binary": lambda p: p.write_bytes(bytes(range(256)) * 64),
    "mis-encoded": lambda p: p.write_bytes((GOLDEN / "fiim-ru.jsonl").read_text(encoding="utf-8").encode("cp1251")),
    "truncated-header": lambda p: p.write_bytes(_header()[:200]),
    "huge-line": lambda p: _huge_line(p, _header()),
    "gigabyte": lambda p: _sparse(p, _header()),
    "past-replay": lambda p: _past_replay(p, forge=False),
    "directory": lambda p: p.mkdir(),
}
RULES: dict[str, Maker] = {
    "empty.yaml": lambda p: p.write_bytes(b""),
    "nested.yaml": lambda p: p.write_bytes(b"voting: " + b"[" * 200_000),
    "nested.toml": lambda p: p.write_bytes(b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n"),
    "bomb.yaml": lambda p: p.write_text(
        "a: &a [x,x,x,x,x,x,x,x,x]\n"
        + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{','.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(9)),
        encoding="utf-8",
    ),
    "invalid.yaml": lambda p: p.write_text("voting: [unclosed\n  - {\n", encoding="utf-8"),
    "binary.yaml": lambda p: p.write_bytes(bytes(range(256)) * 64),
    "mis-encoded.yaml": lambda p: p.write_bytes("name: клуб\nbase: fiim\n".encode("cp1251")),
    "huge.yaml": lambda p: _huge_line(p, b"name: "),
    "gigabyte.yaml": lambda p: _sparse(p, b"base: fiim\n"),
    "directory.yaml": lambda p: p.mkdir(),
}
AGENTS = {
    "nested": lambda p: p.write_bytes(b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n"),
    "binary": lambda p: p.write_bytes(bytes(range(256)) * 64),
    "misencoded": lambda p: p.write_bytes('kind = "llm"\nmodel = "модель"\n'.encode("cp1251")),
    "invalid": lambda p: p.write_bytes(b'kind = "llm\n'),
    "gigabyte": lambda p: _sparse(p, b'kind = "llm"\n'),
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    for name, make in {**TRANSCRIPTS, **RULES}.items():
        make(folder / name)
    (folder / "agents").mkdir()
    for name, make in AGENTS.items():
        make(folder / "agents" / f"{name}.toml")
    return folder


def _commands(corpus: Path, name: str, out: Path) -> list[list[str]]:
    path = str(corpus / name)
    if name in TRANSCRIPTS:
        return [
            ["verify", path],
            ["show", path],
            ["export", path, "--html", str(out / "x.html")],
            ["prompt", path, "--seat", "1"],
            ["resume", path, "--quiet"],
        ]
    if name in RULES:
        return [["play", "--quiet", "--rules", path, "--out", str(out)], ["scenario", "run", path]]
    return [["play", "--quiet", "--seat", f"1={name}", "--agents-dir", str(corpus / "agents"), "--out", str(out)]]


def _clear_failure(code: int, output: str, args: list[str]) -> None:
    assert code != 0, f"{args}: exit 0 on a hostile file"
    assert "Traceback" not in output, f"{args}: a traceback\n{output[-2000:]}"
    assert re.search(r"^(error: |ERROR )", output, re.MULTILINE), f"{args}: no error line\n{output[-2000:]}"


SMALL = [n for n in [*TRANSCRIPTS, *RULES, *AGENTS] if "gigabyte" not in n]


@pytest.mark.parametrize("name", SMALL)
def test_every_command_fails_clearly(corpus: Path, tmp_path: Path, name: str) -> None:
    before = {p.name: p.stat().st_size for p in corpus.iterdir() if p.is_file()}
    for args in _commands(corpus, name, tmp_path):
        code, out, err = cli(*args)
        _clear_failure(code, out + err, args)
    assert {p.name: p.stat().st_size for p in corpus.iterdir() if p.is_file()} == before, "a command changed a file"


# VmHWM, not getrusage: Linux keeps ru_maxrss across execve, so a child of a large pytest process would report
# the parent's peak; VmHWM belongs to the new address space alone.
_RUN = """
import re, sys
from arena.cli import app
try:
    app(args=sys.argv[1:], prog_name="arena")
finally:
    with open("/proc/self/status") as status:
        peak = int(re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1)) // 1024
    sys.stderr.write(f"\\npeak_rss_mb={peak}\\n")
"""


@pytest.mark.parametrize("name", ["gigabyte", "huge-line", "gigabyte.yaml", "gigabyte-agent"])
def test_huge_files_fail_clearly_in_bounded_memory(corpus: Path, tmp_path: Path, name: str) -> None:
    if name == "gigabyte-agent":
        assert (corpus / "agents" / "gigabyte.toml").stat().st_size == GIB
        commands = [["play", "--quiet", "--seat", "1=gigabyte", "--agents-dir", str(corpus / "agents")]]
    else:
        assert (corpus / name).stat().st_size >= 20 * 1024 * 1024
        commands = _commands(corpus, name, tmp_path)
    for args in commands:
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        result = subprocess.run(
            [sys.executable, "-c", _RUN, *args], capture_output=True, text=True, timeout=120, env=env
        )
        _clear_failure(result.returncode, result.stdout + result.stderr, args)
        peak = int(re.findall(r"peak_rss_mb=(\d+)", result.stderr)[-1])
        print(f"{name}: arena {args[0]}: peak RSS {peak} MB")
        assert peak < MAX_RSS_MB, f"{args}: peak RSS {peak} MB"


def test_an_event_past_the_replay_is_shown_with_a_warning(tmp_path: Path) -> None:
    """The chain intact (forged), one event more than the replay makes: a warning, never StopIteration."""
    path = tmp_path / "past.jsonl"
    _past_replay(path, forge=True)
    code, _, err = cli("show", str(path))  # verify's replay check refuses it, although the chain is intact
    assert code == 1 and "fails verify" in err and "is not produced by the replay" in err and "--force" in err
    code, _, err = cli("show", str(path), "--force")
    assert code == 0 and "differs from the recorded events" in err and "Traceback" not in err
    code, _, err = cli("export", str(path), "--html", str(tmp_path / "x.html"), "--force")
    assert code == 0 and "differs from the recorded events" in err
    code, _, err = cli("verify", str(path))
    assert code == 1 and "is not produced by the replay" in err


def _forged(change: Callable[[list[dict[str, object]]], None]) -> Maker:
    """A golden file changed by `change` and re-hashed: a valid chain around nonsense the engine must refuse."""

    def make(path: Path) -> None:
        records = [json.loads(line) for line in (GOLDEN / "fiim.jsonl").read_text(encoding="utf-8").splitlines()]
        change(records)
        lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in records]
        path.write_text("".join(rechain(lines)), encoding="utf-8")

    return make


def _first_input(records: list[dict[str, object]]) -> dict[str, object]:
    return next(r for r in records if r["kind"] == "input")


FORGED: dict[str, Maker] = {
    "decide-without-decision": _forged(lambda rs: _first_input(rs).pop("decision", None)),
    "seat-far-away": _forged(lambda rs: _first_input(rs).update(seat=10**12)),
    "roles-short": _forged(lambda rs: rs[0].update(roles=["don"])),
    "no-players": _forged(lambda rs: rs[0]["rules"].update(players=0)),  # type: ignore[attr-defined]
    "seed-text": _forged(lambda rs: rs[0].update(seed="x")),
}


@pytest.mark.parametrize("name", list(FORGED))
def test_forged_nonsense_fails_clearly(tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.jsonl"
    FORGED[name](path)
    for args in (
        ["verify", str(path)],
        ["show", str(path)],
        ["export", str(path), "--html", str(tmp_path / "x.html")],
        ["prompt", str(path), "--seat", "1"],
        ["resume", str(path), "--quiet"],
    ):
        code, out, err = cli(*args)
        _clear_failure(code, out + err, args)
