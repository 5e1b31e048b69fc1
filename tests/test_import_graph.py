"""No import circle anywhere in `arena`: the graph of every module's imports of every other, read from the source
(`tests/import_graph.py` says what counts: every import wherever it stands, at the top, inside a function or under
`if TYPE_CHECKING:`, and the packages a dotted import runs on the way), has no cycle. A function-level import that
dodges a cycle at run time is a cycle all the same, and fails here. And each room imports only what its `__init__`
docstring says it may (`ROOMS`, `ONLY_FROM`): the engine nothing but `arena.safe_read`, the stand-in nothing of
`arena`, the seat contract only the engine, nothing but the command line the command line or the web app."""

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


# What a room may import, as its `__init__` says: (room, the rooms outside it that it may import, or None for any;
# the rooms it must never import). A room is a module or package, and everything below it.
ROOMS: list[tuple[str, tuple[str, ...] | None, tuple[str, ...]]] = [
    ("arena.engine", ("arena.safe_read",), ()),
    ("arena.human", ("arena.engine",), ()),
    ("arena.players.base", ("arena.engine",), ()),
    ("arena.remote", ("arena.engine", "arena.players.base"), ()),
    ("arena.standin", (), ()),
    ("arena.scenario", ("arena.engine", "arena.safe_read"), ()),
    ("arena.scoring", ("arena.engine", "arena.safe_read"), ()),
    (
        "arena.transcript",
        (
            "arena.engine",
            "arena.players.base",
            "arena.agents",
            "arena.trust",
            "arena.safe_write",
            "arena.safe_read",
            "arena.llm.extract",
            "arena.llm.schema",
            "arena.llm.modes",
            "arena.llm.records",
            "arena.remote.protocol",
            "arena.remote.check",
        ),
        (),
    ),
    ("arena.render", None, ("arena.cli", "arena.web", "arena.orchestrator", "arena.llm", "arena.tournament")),
    ("arena.llm", None, ("arena.standin", "arena.orchestrator", "arena.cli", "arena.web", "arena.tournament")),
    ("arena.tournament", None, ("arena.cli", "arena.web")),
    ("arena.field", None, ("arena.cli", "arena.web", "arena.site", "arena.render", "arena.llm")),
    ("arena.site", None, ("arena.cli", "arena.web", "arena.tournament", "arena.orchestrator", "arena.llm")),
]
ONLY_FROM = {"arena.cli": ("arena.cli",), "arena.web": ("arena.web", "arena.cli")}  # room -> who may import it


def _in(module: str, room: str) -> bool:
    return module == room or module.startswith(room + ".")


def _outside(graph: dict[str, dict[str, object]], room: str) -> dict[str, set[str]]:
    """What the room's modules import outside it (and outside `arena.version`, which only holds the version, and
    `arena` itself, which holds it too and loads the Python API on first use)."""
    out: dict[str, set[str]] = {}
    for module, edges in graph.items():
        if _in(module, room):
            for target in edges:
                if not _in(target, room) and target not in ("arena", "arena.version"):
                    out.setdefault(target, set()).add(module)
    return out


def test_each_room_imports_only_what_its_init_says() -> None:
    graph = import_graph(ROOT, "arena")
    problems = []
    for room, allowed, never in ROOMS:
        assert any(_in(m, room) for m in graph), f"no module {room}: update ROOMS"
        for target, importers in sorted(_outside(graph, room).items()):
            # a package on the way to an allowed module runs too (`arena.players` for `arena.players.base`)
            outside = allowed is not None and not any(_in(target, a) or _in(a, target) for a in allowed)
            bad = outside or any(_in(target, n) for n in never)
            if bad:
                problems.append(f"{room} imports {target} ({', '.join(sorted(importers))})")
    for room, importers_allowed in ONLY_FROM.items():
        for module, edges in graph.items():
            if any(_in(t, room) for t in edges) and not any(_in(module, a) for a in importers_allowed):
                problems.append(f"{module} imports {room}, which only {', '.join(importers_allowed)} may")
    assert not problems, "imports its room's __init__ does not allow:\n  " + "\n  ".join(problems)


def test_the_room_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    root = _package(
        tmp_path, {"pkg/__init__.py": "", "pkg/low.py": "def f():\n    import pkg.high\n", "pkg/high.py": ""}
    )
    assert _outside(import_graph(root, "pkg"), "pkg.low") == {"pkg.high": {"pkg.low"}}
