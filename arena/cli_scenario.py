"""Commands of the `arena` CLI (placeholder until this group is written)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to `app`."""
