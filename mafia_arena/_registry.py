"""The tasks Inspect finds under `mafia_arena/`: `mafia_arena/mafia` (see `arena/inspect_task.py`)."""

from __future__ import annotations

import functools
from typing import Any

from inspect_ai import Task, task

from arena import inspect_task


@functools.wraps(inspect_task.mafia)
def _mafia(*args: Any, **kwargs: Any) -> Task:
    return inspect_task.mafia(*args, **kwargs)


_mafia.__module__ = __name__  # Inspect names a task by its module's package: mafia_arena/mafia
mafia = task(name="mafia")(_mafia)

__all__ = ["mafia"]
