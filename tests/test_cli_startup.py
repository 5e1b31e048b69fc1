"""`arena --help` starts quickly because it imports no command module: the list of modules it imports (read from
`python -X importtime`, a list, never a time) holds no engine, LLM, scenario, renderer or player module. The static
short help in `arena/cli/__init__.py` must say what each command's own help says."""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer.main

from arena.cli import COMMANDS, app, load_command

FORBIDDEN = (
    "arena.engine",
    "arena.llm",
    "arena.scenario",
    "arena.render",
    "arena.players",
    "arena.orchestrator",
    "arena.transcript",
    "arena.golden",
    "arena.cli.",  # the command modules (arena/cli/*.py); the package itself is allowed
    "pydantic",
    "openai",
    "jinja2",
)


def imported_modules(*args: str) -> tuple[list[str], str]:
    """The modules `arena ARGS` imports, in order, and what it printed."""
    code = f"import sys; sys.argv = ['arena', *{list(args)!r}]; from arena.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    names = [line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    return names[1:], done.stdout  # the first line is the column header


def test_help_imports_no_command_module() -> None:
    modules, out = imported_modules("--help")
    assert "play" in out and "scenario" in out
    assert "typer" in modules  # the list is real
    bad = [m for m in modules if m.startswith(FORBIDDEN)]
    assert not bad, f"arena --help imports {bad}"
    # arena.version: one constant (the package's __init__ takes it from there)
    assert sorted(m for m in modules if m.split(".")[0] == "arena") == ["arena", "arena.cli", "arena.version"]


def test_a_command_imports_its_module_only_when_it_runs() -> None:
    modules, out = imported_modules("verify", "--help")
    assert "arena.cli.verify" in modules  # the engine itself comes only when verify runs
    assert "arena.cli.review" not in modules and "arena.llm.conversation" not in modules
    assert "hash chain" in out


@pytest.mark.parametrize(("name", "module", "short"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_static_help_matches_the_command(name: str, module: str, short: str) -> None:
    command = load_command(name)
    assert command.name == name
    assert command.get_short_help_str(limit=1000) == short, f"update the {name!r} line in COMMANDS (arena/cli)"


def test_every_registered_command_is_listed() -> None:
    """A module that registers a command not named in COMMANDS would leave it unreachable."""
    group = typer.main.get_command(app)
    listed = {name for name, _, _ in COMMANDS}
    for _, module, _ in COMMANDS:
        scratch = typer.Typer()
        __import__(f"arena.cli.{module}", fromlist=["register"]).register(scratch)
        built = typer.main.get_command(scratch)
        names = set(getattr(built, "commands", {}) or {built.name})
        assert names <= listed, f"arena/cli/{module}.py registers {names - listed} that COMMANDS does not list"
    assert set(group.list_commands(None)) == listed  # type: ignore[arg-type]
