"""The engine loops the docs show run as written: the README's ten lines and the engine docstring's (#38 item 4)."""

from __future__ import annotations

import doctest
from pathlib import Path

import arena.engine

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_engine_loop_runs() -> None:
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5, "the README's engine loop is gone"
    assert result.failed == 0


def test_the_engine_docstring_loop_runs() -> None:
    result = doctest.testmod(arena.engine, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 4, "the engine docstring's loop is gone"
    assert result.failed == 0
