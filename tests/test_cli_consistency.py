"""The command line says what it does: seat ranges, flags, the help text, `arena prompt --at`, agent lookup."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.agents import AgentError, find_agent, list_agents, resolve_agent
from arena.cli import app
from arena.cli.prompt import at_note
from arena.cli.seats import SeatSpecError, parse_seat_specs
from arena.engine import EventType, view
from arena.llm.rebuild import Point, decision_point
from arena.transcript import load

ROOT = Path(__file__).resolve().parent.parent
BOT = 'kind = "bot"\nbot = "random"\n'


def _run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "220", **(env or {})})
    return result.exit_code, result.output


# ----- seat ranges -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("specs", "message"),
    [
        (["3-1=bot:random"], "the range 3-1 runs backwards; write 1-3"),
        (["1-4=bot:random", "3=human"], "both name seat 3"),
        (["2,5=bot:random", "4-6=bot:heuristic"], "both name seat 5"),
        (["1-3,2=bot:random"], "seat 2 is named twice"),
        (["9-11=bot:random"], "seat 11 does not exist"),
        (["0=bot:random"], "seat 0 does not exist"),
    ],
)
def test_bad_seat_ranges_are_errors(specs: list[str], message: str) -> None:
    with pytest.raises(SeatSpecError, match=message):
        parse_seat_specs(specs, 10)
    args = [a for spec in specs for a in ("--seat", spec)]
    code, output = _run("play", "--quiet", *args)
    assert code == 2 and message in output and "Traceback" not in output


def test_all_is_overridden_and_ranges_apply() -> None:
    seats = parse_seat_specs(["4-6=bot:random", "all=human", "1,10=bot:random"], 10)
    assert [s for s, spec in seats.items() if spec.name == "bot:random"] == [1, 4, 5, 6, 10]
    assert all(seats[s].name == "human" for s in (2, 3, 7, 8, 9))


# ----- flags and help ------------------------------------------------------------------------------------------
def test_flags_are_shown_as_flags() -> None:
    for command in (["play"], ["show"], ["prompt"], ["resume"], ["scenario", "run"]):
        code, output = _run(*command, "--help")
        assert code == 0, output
        assert "<bool>" not in output, f"arena {' '.join(command)} --help shows a flag as taking a value"
    code, output = _run("play", "--help")
    assert "--quiet" in output and "Print only the transcript path." in output


def test_play_help_lists_seat_forms_agents_and_the_default_preset() -> None:
    code, output = _run("play", "--help")
    assert code == 0
    flat = " ".join(output.replace("│", " ").split())
    assert "fiim (the default)" in flat
    for form in ("all=AGENT", "N=AGENT", "N-K=AGENT", "openai:MODEL", "bot:heuristic", "human"):
        assert form in flat, form
    names = sorted({entry.name for entry in list_agents()})
    assert "local-fake" in names
    assert f"found now: {', '.join(names)}" in flat


# ----- arena prompt --at ---------------------------------------------------------------------------------------
def test_prompt_at_says_what_it_used(tmp_path: Path) -> None:
    """`--at K` is the seat's own event #K, the `[#K]` its prompt shows (issue #34); where the seat was not asked
    right then, its next decision is shown and the note says so; where it is asked nothing more (it left, or the
    game ended), or K is past its log, an error says why (issue #31: before, a turn with no decision was shown, and
    for a dead seat another seat's decision)."""
    code, output = _run("play", "--quiet", "--seed", "4", "--seat", "all=bot:random", "--out", str(tmp_path))
    assert code == 0, output
    (path,) = tmp_path.glob("*.jsonl")
    transcript = load(path)
    game = transcript.rebuild()
    seat = next(s for s in range(1, 11) if game.alive[s])  # a seat asked to the end
    seen = len(view(game, seat).events)  # its own log: its events #0 to #seen-1
    code, output = _run("prompt", str(path), "--seat", str(seat), "--at", str(seen + 50))
    assert code == 2 and f"its events #0 to #{seen - 1}; there is no event #{seen + 50}" in output, output
    last = decision_point(transcript, seat).seen - 1  # its last decision came right after its event #last
    notes = {}
    for at in range(5, min(40, last)):
        code, output = _run("prompt", str(path), "--seat", str(seat), "--at", str(at))
        assert code == 0, output
        notes[at] = output
        point = re.search(r"right after its event #(\d+) \(", output)
        assert point and int(point.group(1)) >= at, output  # the point asked for, or the seat's next decision
    between = [at for at, text in notes.items() if f"not asked for a decision right after its event #{at};" in text]
    exact = [at for at, text in notes.items() if "# note:" not in text]
    assert between and exact
    for at in exact:
        assert f"right after its event #{at} (" in notes[at]
    code, output = _run("prompt", str(path), "--seat", str(seat), "--at", "-1")
    assert code == 2
    dead = next(s for s in range(1, 11) if not game.alive[s])
    log = view(game, dead).events
    left = next(e.seq for e in log if e.type is EventType.ELIMINATED and e.seat == dead)
    code, output = _run("prompt", str(path), "--seat", str(dead), "--at", str(len(log) - 1))
    assert code == 2 and "(it left the game)" in output, output
    assert "Your decision" not in output and left < len(log)


def test_at_note_wording() -> None:
    assert at_note(None, Point(5, 41, moved=True)) is None
    assert at_note(40, Point(5, 41)) is None
    assert at_note(40, Point(9, 48, moved=True)) == (
        "the seat was not asked for a decision right after its event #40; showing its next one, right after its "
        "event #47"
    )


# ----- agent lookup ----------------------------------------------------------------------------------------------
@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A working folder with ./agents, a user config folder, and an extra --agents-dir."""
    work, config, extra = tmp_path / "work", tmp_path / "config", tmp_path / "extra"
    for folder in (work / "agents", config / "mafia-arena" / "agents", extra):
        folder.mkdir(parents=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    return {"local": work / "agents", "user": config / "mafia-arena" / "agents", "extra": extra}


def test_lookup_order(folders: dict[str, Path]) -> None:
    for where in ("extra", "local", "user"):
        (folders[where] / "mine.toml").write_text(BOT + f'persona = "{where}"\n')
    assert resolve_agent("mine", folders["extra"]).persona == "extra"
    assert resolve_agent("mine").persona == "local"
    (folders["local"] / "mine.toml").unlink()
    assert resolve_agent("mine").persona == "user"
    (folders["user"] / "mine.toml").unlink()
    with pytest.raises(AgentError, match="unknown agent 'mine'"):
        resolve_agent("mine")
    # the package examples come last: found from any folder, and shadowed by a local file of the same name
    found = find_agent("local-fake")
    assert found is not None and found.where == "package examples"
    assert found.path == ROOT / "agents" / "local-fake.toml"
    (folders["local"] / "local-fake.toml").write_text(BOT)
    assert resolve_agent("local-fake", check_env=False).kind == "bot"


def test_arena_agents_lists_every_folder(folders: dict[str, Path]) -> None:
    (folders["user"] / "mine.toml").write_text(BOT)
    (folders["local"] / "vllm.toml").write_text(BOT)
    code, output = _run("agents", "--agents-dir", str(folders["extra"]))
    assert code == 0, output
    lines = output.splitlines()
    assert any(line.startswith("mine ") and f"user folder: {folders['user'] / 'mine.toml'}" in line for line in lines)
    assert any(line.startswith("vllm ") and "./agents: agents/vllm.toml" in line for line in lines)
    assert any(line.startswith("vllm ") and "package examples" in line and "(shadowed by ./agents)" in line
               for line in lines)  # fmt: skip
    assert any(line.startswith("local-fake ") and "package examples" in line for line in lines)
    searched = output.split("searched, in order:")[1]
    order = [searched.index(label) for label in ("--agents-dir", "./agents", "user folder", "package examples")]
    assert order == sorted(order)


@pytest.mark.parametrize("name", ["../x", "a/b", "/etc/passwd", ".hidden", "a\\b"])
def test_names_are_names(folders: dict[str, Path], name: str) -> None:
    with pytest.raises(AgentError, match="no path separators"):
        resolve_agent(name)
    code, output = _run("play", "--quiet", "--seat", f"1={name}")
    assert code == 2 and "error: bad agent name" in output


def test_play_outside_a_checkout_finds_the_examples_and_prints_the_path(folders: dict[str, Path]) -> None:
    code, output = _run("play", "--quiet", "--seed", "2", "--seat", "all=bot:random")
    assert code == 0, output
    (path,) = Path("transcripts").glob("*.jsonl")
    assert output.strip() == f"transcript: {path}"
    # an LLM example agent resolves from the package, here in a folder with no agents/ of its own
    (folders["local"]).rmdir()
    assert resolve_agent("local-fake", check_env=False).base_url == "http://127.0.0.1:8765/v1"


# ----- packaging -----------------------------------------------------------------------------------------------
def test_openai_is_a_core_dependency_imported_only_for_llm_seats(tmp_path: Path) -> None:
    import subprocess
    import sys
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert any(dep.startswith("openai") for dep in project["dependencies"])
    assert any(dep.startswith("langchain") for dep in project["optional-dependencies"]["langchain"])
    script = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from arena.cli import app\n"
        f"r = CliRunner().invoke(app, ['play', '--quiet', '--seed', '1', '--out', {str(tmp_path)!r}])\n"
        "assert r.exit_code == 0, r.output\n"
        "print('openai' in sys.modules, 'langchain_core' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False"], "a bot game should not import the LLM client"


def test_example_agents_ship_with_the_package() -> None:
    import tomllib

    from arena.resources import example_agents_root

    assert example_agents_root() == ROOT / "agents"
    data_files = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    assert data_files["share/mafia-arena/agents"] == ["agents/*.toml"]
    assert {p.name for p in (ROOT / "agents").glob("*.toml")} >= {"local-fake.toml", "openai.toml", "vllm.toml"}
