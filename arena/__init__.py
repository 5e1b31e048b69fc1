"""Mafia Arena: LLM agents, bots and humans play Mafia under real club rules.

A game is a pure function of its rules, its seed and the inputs its seats and judge give it (`engine`); the
orchestrator asks the seats (`players`, through `llm` for models and `human` for people) and the `transcript` records
everything; `render`, `research` and `web` read what was recorded or played; `cli` is the `arena` command. Each
package's `__init__` says what the room is for and what it may import; `docs/architecture.md` draws the map, and
`tests/test_import_graph.py` holds every module to no import circle. This file imports nothing when it loads: the
Python API, `arena.play`, `arena.tournament` and `arena.load` (`api.py`, docs/python.md), is imported on first use.
"""

from __future__ import annotations

from typing import Any

from arena.version import __version__

__all__ = ["__version__", "load", "play", "tournament"]
_API = frozenset({"play", "tournament", "load", "Games"})


def __getattr__(name: str) -> Any:
    if name in _API:
        from arena import api

        return getattr(api, name)
    raise AttributeError(f"module 'arena' has no attribute {name!r}")
