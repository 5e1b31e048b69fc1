"""The engine's own import rules, on the import graph of `tests/import_graph.py` (read from the source with `ast`,
nothing is imported; every import counts, at the top, inside a function or under `if TYPE_CHECKING:` alike): the
engine's modules form no cycle among themselves, and the phase machine is written against the `GameState` Protocol,
never the `Game` class. (`tests/test_import_graph.py` holds the whole `arena` package to no cycle.)"""

from __future__ import annotations

import ast
from pathlib import Path

from import_graph import find_cycle, import_graph

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "arena.engine"


def engine_graph() -> dict[str, set[str]]:
    """The engine's modules by short name (`game`, `flow`, ...), each with the engine modules it imports."""
    short = len(PACKAGE) + 1
    graph = import_graph(ROOT, "arena")
    return {
        name[short:]: {target[short:] for target in edges if target.startswith(PACKAGE + ".")}
        for name, edges in graph.items()
        if name.startswith(PACKAGE + ".") and name.count(".") == 2
    }


def test_engine_import_graph_has_no_cycle() -> None:
    graph = engine_graph()
    assert {"game", "flow", "night", "voting", "speech", "validate", "state"} <= graph.keys()
    assert "game" in graph["view"]  # the parser reads real imports (a graph with no edges has no cycle either)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in arena/engine: " + " -> ".join(cycle or [])


def test_the_phase_machine_does_not_import_the_game() -> None:
    graph = engine_graph()
    for module in ("flow", "night", "voting", "speech", "probes", "text", "validate", "state"):
        assert "game" not in graph[module], f"{module}.py imports game.py; use the GameState Protocol (state.py)"


def test_the_protocol_goes_by_its_own_name() -> None:
    """`g: GameState` where the Protocol is meant: no module imports it under another name (`Game` is the class)."""
    for path in sorted((ROOT / "arena" / "engine").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "arena.engine.state":
                renamed = [a.name for a in node.names if a.asname not in (None, a.name)]
                assert not renamed, f"{path.name} imports {renamed} from state.py under another name"
