"""Mafia Arena's Inspect AI entry point: `inspect eval mafia_arena/mafia --model PROVIDER/MODEL` from any folder.

Inspect names a task after the top-level package of the module that defines it, and finds a package's tasks through
the `inspect_ai` entry point group (pyproject.toml: `mafia_arena = "mafia_arena._registry"`). The task itself is
`arena.inspect_task.mafia`; this package only gives it the name `mafia_arena/mafia`. It imports nothing until Inspect
loads the registry (the `inspect` extra).
"""
