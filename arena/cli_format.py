"""How `arena --help` shows options: on/off flags as bare flags.

typer 0.29's rich help prints a `<bool>` type after a flag such as `--quiet`, which reads as if it took a value
(`--quiet true`), although a flag takes none. `show_flags_as_flags()` makes the help print no type for flags; it
changes nothing about parsing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from typer.core import TyperOption

_original: Callable[[TyperOption, Any], str | None] | None = getattr(TyperOption, "display_type_rich", None)


def _display_type_rich(self: TyperOption, ctx: Any) -> str | None:
    if self.is_flag and self.metavar is None:
        return None
    return _original(self, ctx) if _original is not None else None


def show_flags_as_flags() -> None:
    """Patch typer's help once (idempotent): flags show no `<bool>` type. A typer without the hook is left alone."""
    if _original is not None:
        TyperOption.display_type_rich = _display_type_rich  # type: ignore[method-assign]
