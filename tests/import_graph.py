"""The import graph of a package, read from its source with `ast` (nothing is imported), and a cycle finder.

What counts as an edge from module A to module B (the rule `tests/test_import_graph.py` holds `arena` to):
- every `import` or `from ... import` in A that names B, wherever it stands: at the top, inside a function or a
  method, under `if TYPE_CHECKING:`, in a `try:`. An import moved into a function to dodge a cycle still makes the
  two modules depend on each other (only later), and a `TYPE_CHECKING` import is a dependency of A's types; so both
  are edges, and a cycle through either fails like any other;
- `from P import n` names the module `P.n` when that file exists (a submodule), else the module `P` (a name `P`
  defines or re-exports); relative imports are resolved against A's package;
- importing `P.Q.m` also runs `P/__init__.py` and `P/Q/__init__.py` first, so those packages are edges too, except
  the packages A itself lies in (they are being imported already when A runs); but a name A takes from its own
  package (`from P.Q import name` in `P/Q/m.py`) is an edge to `P/Q/__init__.py`, which must have defined it.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Edge:
    """One import: where it stands in the importing module, for the message."""

    line: int
    where: str  # "top", "function" or "TYPE_CHECKING"


def module_names(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package in `root / package`, by dotted name (a package by its `__init__.py`)."""
    out: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _where(tree: ast.AST) -> dict[ast.Import | ast.ImportFrom, str]:
    """Each import node of `tree`, with where it stands: at the top, in a function, or under TYPE_CHECKING."""
    found: dict[ast.Import | ast.ImportFrom, str] = {}

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                inner = "function" if where == "top" else where
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                inner = "TYPE_CHECKING"
            if isinstance(child, ast.Import | ast.ImportFrom):
                found[child] = where
            visit(child, inner)

    visit(tree, "top")
    return found


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module a dotted name lives in: the longest prefix of it that is a module of the package."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> dict[str, Edge]:
    """The modules of the package that `module` (the file at `path`) imports, each with its first import."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    edges: dict[str, Edge] = {}
    for node, where in sorted(_where(ast.parse(path.read_text(encoding="utf-8"))).items(), key=lambda i: i[0].lineno):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        for name in names:
            target = _resolve(name, modules)
            if target is None:
                continue  # outside the package
            if target != module:  # the module named: even one's own package, whose names must be defined by then
                edges.setdefault(target, Edge(node.lineno, where))
            chain = target.split(".")
            for depth in range(1, len(chain)):  # the packages on the way run first, unless they are running already
                step = ".".join(chain[:depth])
                if step in modules and step != module and not module.startswith(step + "."):
                    edges.setdefault(step, Edge(node.lineno, where))
    return edges


def import_graph(root: Path, package: str) -> dict[str, dict[str, Edge]]:
    """module -> {imported module: its first import}, over every module of `root / package`."""
    modules = module_names(root, package)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, dict[str, Edge]] | dict[str, set[str]]) -> list[str] | None:
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


def describe(cycle: list[str], graph: dict[str, dict[str, Edge]]) -> str:
    """`a -> b (line 12, function) -> a (line 3, top)`: each step with the import that makes it."""
    steps = [cycle[0]]
    for a, b in itertools.pairwise(cycle):
        edge = graph[a][b]
        steps.append(f"{b} ({a} line {edge.line}, {edge.where})")
    return " -> ".join(steps)
