"""The engine's import graph has no cycle: every import of one `arena.engine` module by another counts, at the top,
inside a function or under `if TYPE_CHECKING:` alike (read from the source with `ast`, nothing is imported)."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "arena" / "engine"
PACKAGE = "arena.engine"


def engine_imports(path: Path) -> set[str]:
    """The `arena.engine` modules that the file at `path` imports, by short name (`game`, `flow`, ...)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from arena.engine import view` names a module; `from arena.engine.game import y` names module game
            names = [f"{PACKAGE}.{a.name}" for a in node.names] if node.module == PACKAGE else [node.module]
        elif isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [f"{PACKAGE}.{node.module}"] if node.module else [f"{PACKAGE}.{a.name}" for a in node.names]
        for name in names:
            if name.startswith(PACKAGE + "."):
                found.add(name[len(PACKAGE) + 1 :].split(".")[0])
    return found


def import_graph() -> dict[str, set[str]]:
    modules = {p.stem: p for p in ENGINE.glob("*.py") if p.stem != "__init__"}
    return {name: engine_imports(path) & modules.keys() for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path [a, b, ..., a], or None: a depth-first search with the usual three colours."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_checker_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_parser_sees_every_kind_of_import(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "import arena.engine.roles\n"
        "from arena.engine.events import Event\n"
        "from arena.engine import view\n"
        "if TYPE_CHECKING:\n"
        "    from arena.engine.game import Game\n"
        "def f():\n"
        "    from .flow import run\n",
        encoding="utf-8",
    )
    assert engine_imports(source) == {"roles", "events", "view", "game", "flow"}


def test_engine_import_graph_has_no_cycle() -> None:
    graph = import_graph()
    assert {"game", "flow", "night", "voting", "validate", "state"} <= graph.keys()
    assert "game" in graph["view"]  # the parser reads real imports (a graph with no edges has no cycle either)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in arena/engine: " + " -> ".join(cycle or [])


def test_the_phase_machine_does_not_import_the_game() -> None:
    graph = import_graph()
    for module in ("flow", "night", "voting", "validate", "state"):
        assert "game" not in graph[module], f"{module}.py imports game.py; use the GameState Protocol (state.py)"
