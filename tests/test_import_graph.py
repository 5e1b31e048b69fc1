"""No import circle anywhere in `arena`: the graph of every module's imports of every other, read from the source
(`tests/import_graph.py` says what counts: every import wherever it stands, at the top, inside a function or under
`if TYPE_CHECKING:`, and the packages a dotted import runs on the way), has no cycle. A function-level import that
dodges a cycle at run time is a cycle all the same, and fails here. And each room imports only what its `__init__`
docstring says it may (`ROOMS`, `ONLY_FROM`): the engine nothing but `arena.safe_read`, the stand-in nothing of
`arena`, the seat contract only the engine, nothing but the command line the command line or the web app."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
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


# What each room may import, as its docstring (a package's `__init__`, a module's own) and docs/architecture.md's
# table say. A room is a package or a top-level module, with everything below it; a room inside another (the seat
# contract in `players`, the routes in `web`) is held to its own row. Every module of `arena` belongs to one: a new
# package or top-level module gets a row here (the test below fails until it has one).
@dataclass(frozen=True)
class Room:
    may: tuple[str, ...] | None  # what it may import outside itself (None: anything), besides `arena.version`
    never: tuple[str, ...] = ()  # what it must never import, whatever `may` says
    extra: dict[str, tuple[str, ...]] = field(default_factory=dict)  # a module of the room (by its name in it): what
    # it may import besides, `never` notwithstanding
    siblings: tuple[str, ...] | None = None  # the room's own modules its modules may import (None: any)


def _of(names: str) -> tuple[str, ...]:
    """`"engine players.base"` -> `("arena.engine", "arena.players.base")`."""
    return tuple(f"arena.{name}" for name in names.split())


RESEARCH = "engine transcript scoring players.base agents safe_read safe_write"
ROOMS: dict[str, Room] = {
    "arena": Room(_of("api")),  # the package itself: it loads the Python API on first use
    "arena.version": Room(()),
    "arena.engine": Room(_of("safe_read")),
    "arena.safe_read": Room(()),
    "arena.safe_write": Room(()),
    "arena.resources": Room(()),
    "arena.seeds": Room(()),
    "arena.sandbox": Room(()),
    "arena.template_speed": Room(()),
    "arena.standin": Room(()),
    "arena.local": Room(()),
    "arena.agents": Room(_of("resources safe_read prompts local.key")),  # the local server's per-run key
    "arena.trust": Room(_of("agents resources safe_read prompts")),
    "arena.players.base": Room(_of("engine")),
    "arena.human": Room(_of("engine")),
    "arena.pacing": Room(_of("engine")),
    "arena.remote": Room(_of("engine players.base")),
    "arena.scenario": Room(_of("engine safe_read")),
    "arena.scoring": Room(_of("engine safe_read")),
    "arena.transcript": Room(
        _of("engine players.base agents trust safe_write safe_read llm.extract llm.schema llm.modes llm.records")
        + _of("remote.protocol remote.check")
    ),
    "arena.render": Room(_of("engine players.base transcript agents scoring")),
    "arena.live": Room(_of("engine players.base render.phrases render.phrasebook render.labels render.console")),
    "arena.prompts": Room(_of("engine agents trust resources sandbox template_speed llm.schema llm.injection")),
    "arena.llm": Room(
        _of("engine players.base agents trust prompts transcript local.key"),
        never=_of("players.llm players.langchain_seat standin orchestrator"),
        extra={"window": _of("players.random_policy")},  # the context-window probe plays random legal moves
    ),
    "arena.players": Room(
        _of("engine agents prompts resources llm human live remote"), never=_of("orchestrator transcript")
    ),
    "arena.orchestrator": Room(_of("engine players.base transcript")),
    "arena.golden": Room(_of("engine players agents orchestrator transcript render.playthrough safe_write")),
    "arena.research": Room(
        _of(RESEARCH),
        never=_of("llm"),
        extra={
            "selfplay": _of("orchestrator players.factory"),
            "planted": _of("orchestrator players.bots"),  # it scripts bots
            "reask": _of("llm players.llm"),  # it asks a model seat again, with the seat's own client settings
            "persuasion": _of("llm.injection"),  # player text quoted as the seats see it
            "power": _of("tournament.schedule"),
            "simulate": _of("tournament.schedule"),
        },
    ),
    "arena.research.speech_reader": Room(()),  # the free-text reader reads a string: nothing of arena
    "arena.inspect_task": Room(_of("engine transcript players agents orchestrator llm prompts research")),
    "arena.tournament": Room(
        _of("engine orchestrator players llm transcript agents trust prompts resources safe_read safe_write seeds")
        + _of("standin")
    ),
    "arena.web": Room(
        _of("engine orchestrator players human transcript agents live pacing prompts trust seeds safe_read")
        + _of("safe_write llm.preflight render.phrasebook render.phrases render.phrases_ru render.labels")
        + _of("render.protocol"),
        never=_of("tournament research"),
    ),
    "arena.web.routes": Room(
        _of("engine transcript agents web.guard web.server web.table web.state web.i18n web.decide render.protocol"),
        never=_of("web.app"),
        siblings=_of("web.routes.site"),  # one module per concern: never another route module
    ),
    "arena.field": Room(
        _of("engine players orchestrator transcript agents safe_read safe_write tournament research"),
        never=_of("cli web site render llm"),
    ),
    "arena.site": Room(
        _of("engine transcript render research field scoring safe_read safe_write sandbox"),
        never=_of("cli web tournament orchestrator llm"),
    ),
    "arena.api": Room(None, never=_of("render web cli")),
    "arena.cli": Room(None),
}
ONLY_FROM = {"arena.cli": ("arena.cli",), "arena.web": ("arena.web", "arena.cli")}  # room -> who may import it


def _in(module: str, room: str) -> bool:
    return module == room or module.startswith(room + ".")


def room_of(module: str) -> str | None:
    """The narrowest room holding `module` (the package `arena` holds only itself)."""
    rooms = [r for r in ROOMS if (_in(module, r) if r != "arena" else module == r)]
    return max(rooms, key=len) if rooms else None


def _outside(graph: dict[str, dict[str, object]], room: str) -> dict[str, set[str]]:
    """What the room's own modules (not those of a room inside it) import outside it, and outside `arena.version`
    (which only holds the version)."""
    out: dict[str, set[str]] = {}
    for module, edges in graph.items():
        if room_of(module) == room:
            for target in edges:
                if not (_in(target, room) if room != "arena" else target == room) and target != "arena.version":
                    out.setdefault(target, set()).add(module)
    return out


def _allowed(target: str, allowed: tuple[str, ...]) -> bool:
    # a package on the way to an allowed module runs too (`arena.players` for `arena.players.base`)
    return any(_in(target, a) or _in(a, target) for a in allowed)


def room_problems(graph: dict[str, dict[str, object]]) -> list[str]:
    problems = [f"{m} has no room in ROOMS: add one (what it may import)" for m in graph if room_of(m) is None]
    for room, rule in ROOMS.items():
        for target, importers in sorted(_outside(graph, room).items()):
            for module in sorted(importers):
                extra = rule.extra.get(module.removeprefix(room + "."), ())  # a module's own leave, over `never` too
                outside = rule.may is not None and not _allowed(target, rule.may + extra)
                never = any(_in(target, n) for n in rule.never) and not _allowed(target, extra)
                if outside or never:
                    problems.append(f"{room}: {module} imports {target}")
        if rule.siblings is not None:
            for module, edges in graph.items():
                if room_of(module) == room and module != room:
                    for target in edges:
                        if _in(target, room) and target != room and target not in rule.siblings:
                            problems.append(f"{room}: {module} imports {target}, another module of its room")
    for room, importers_allowed in ONLY_FROM.items():
        for module, edges in graph.items():
            if any(_in(t, room) for t in edges) and not any(_in(module, a) for a in importers_allowed):
                problems.append(f"{module} imports {room}, which only {', '.join(importers_allowed)} may")
    return problems


def test_each_room_imports_only_what_its_docstring_says() -> None:
    graph = import_graph(ROOT, "arena")
    for room in ROOMS:
        assert any(room_of(m) == room for m in graph), f"no module {room}: update ROOMS"
    problems = room_problems(graph)
    assert not problems, "imports a room's docstring does not allow:\n  " + "\n  ".join(problems)


def test_the_room_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    root = _package(
        tmp_path, {"pkg/__init__.py": "", "pkg/low.py": "def f():\n    import pkg.high\n", "pkg/high.py": ""}
    )
    graph = import_graph(root, "pkg")
    assert {target for target in graph["pkg.low"]} == {"pkg.high"}


NEW = "arena." + "newroom.x"  # a module no room holds (made up: spelt apart, as no such file exists)


def test_the_room_check_holds_every_room(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules bite: a route importing another route, the model layer importing a seat, a module with no room, an
    engine module importing the transcript are each one problem."""
    graph: dict[str, dict[str, object]] = {
        "arena.web.routes.channel": {"arena.web.routes.seats": 1, "arena.web.routes.site": 1, "arena.web.table": 1},
        "arena.web.routes.seats": {"arena.web.decide": 1},
        "arena.web.routes.site": {},
        "arena.llm.preflight": {"arena.players.llm": 1, "arena.players": 1, "arena.llm.client": 1},
        "arena.llm.client": {},
        "arena.players.llm": {"arena.llm.client": 1},
        NEW: {},
        "arena.engine.game": {"arena.transcript.writer": 1},
    }
    problems = room_problems(graph)
    assert problems == [
        f"{NEW} has no room in ROOMS: add one (what it may import)",
        "arena.engine: arena.engine.game imports arena.transcript.writer",
        "arena.llm: arena.llm.preflight imports arena.players.llm",
        "arena.web.routes: arena.web.routes.channel imports arena.web.routes.seats, another module of its room",
    ]
