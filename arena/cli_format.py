"""How `arena --help` shows options: on/off flags as bare flags.

typer 0.29's rich help prints a `<bool>` type after a flag such as `--quiet`, which reads as if it took a value
(`--quiet true`), although a flag takes none. `show_flags_as_flags()` makes the help print no type for flags; it
changes nothing about parsing.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperOption

_original = TyperOption.display_type_rich


def _display_type_rich(self: TyperOption, ctx: Any) -> str | None:
    if self.is_flag and self.metavar is None:
        return None
    return _original(self, ctx)


def show_flags_as_flags() -> None:
    """Patch typer's help once (idempotent): flags show no `<bool>` type."""
    TyperOption.display_type_rich = _display_type_rich  # type: ignore[method-assign]
