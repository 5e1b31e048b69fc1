"""No import circle anywhere in `arena`: the graph of every module's imports of every other, read from the source
(`tests/import_graph.py` says what counts: every import wherever it stands, at the top, inside a function or under
`if TYPE_CHECKING:`, and the packages a dotted import runs on the way), has no cycle. A function-level import that
dodges a cycle at run time is a cycle all the same, and fails here."""

from __future__ import annotations

from pathlib import Path

from import_graph import describe, find_cycle, import_graph

ROOT = Path(__file__).resolve().parent.parent


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_the_checker_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_parser_sees_every_kind_of_import(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/deep.py": "",
            "pkg/a.py": "",
            "pkg/b.py": "X = 1\n",
            "pkg/c.py": "",
            "pkg/d.py": "",
            "pkg/e.py": "",
            "pkg/m.py": (
                "from typing import TYPE_CHECKING\n"
                "import os\n"
                "import pkg.a\n"
                "from pkg.b import X\n"
                "from pkg import c\n"
                "if TYPE_CHECKING:\n"
                "    from pkg.d import D\n"
                "def f():\n"
                "    from .e import g\n"
                "class K:\n"
                "    def m(self):\n"
                "        import pkg.sub.deep\n"
            ),
        },
    )
    graph = import_graph(root, "pkg")
    edges = graph["pkg.m"]
    assert set(edges) == {"pkg.a", "pkg.b", "pkg.c", "pkg.d", "pkg.e", "pkg.sub", "pkg.sub.deep"}
    assert (edges["pkg.a"].where, edges["pkg.d"].where, edges["pkg.e"].where) == ("top", "TYPE_CHECKING", "function")
    assert edges["pkg.sub"].where == edges["pkg.sub.deep"].where == "function"  # the package's __init__ runs first
    assert graph["pkg.sub.deep"] == {}  # its own packages are not edges: they are being imported already


def test_a_name_from_ones_own_package_is_an_edge(tmp_path: Path) -> None:
    """`from pkg import X` inside `pkg/m.py` needs `pkg/__init__.py` to have defined X: when that `__init__` imports
    `m`, it has not, and the import fails at run time."""
    root = _package(
        tmp_path, {"pkg/__init__.py": "from pkg.m import Y\nX = 1\n", "pkg/m.py": "from pkg import X\nY = X\n"}
    )
    graph = import_graph(root, "pkg")
    assert find_cycle(graph) == ["pkg", "pkg.m", "pkg"]


def test_a_cycle_through_a_late_import_or_a_package_init_fails(tmp_path: Path) -> None:
    late = _package(
        tmp_path / "late",
        {"pkg/__init__.py": "", "pkg/a.py": "from pkg.b import y\n", "pkg/b.py": "def f():\n    from pkg import a\n"},
    )
    graph = import_graph(late, "pkg")
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.a"]
    assert describe(["pkg.a", "pkg.b", "pkg.a"], graph) == (
        "pkg.a -> pkg.b (pkg.a line 1, top) -> pkg.a (pkg.b line 2, function)"
    )
    init = _package(
        tmp_path / "init",
        {
            "pkg/__init__.py": "",
            "pkg/x/__init__.py": "from pkg.y import z\n",
            "pkg/x/m.py": "",
            "pkg/y.py": "import pkg.x.m\n",
        },
    )
    assert find_cycle(import_graph(init, "pkg")) == ["pkg.x", "pkg.y", "pkg.x"]


def test_arena_has_no_import_cycle() -> None:
    graph = import_graph(ROOT, "arena")
    assert {"arena.orchestrator", "arena.transcript", "arena.transcript.verify", "arena.engine.game"} <= graph.keys()
    # the parser reads real imports (a graph with no edges has no cycle either)
    assert {"arena.transcript", "arena.players.base"} <= graph["arena.orchestrator"].keys()
    assert "arena.llm.schema" in graph["arena.transcript.verify"]  # a function-level import is an edge
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle in arena: " + describe(cycle or [], graph)
