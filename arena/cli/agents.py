"""`arena agents`: list every agent a seat can name, and where each definition was found.

The lookup itself is `arena.agents.find_agent` (`--agents-dir`, ./agents, the user folder, the package examples);
this module only prints what `list_agents` and `agent_folders` return, so the list is what `arena play` would use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def agents(
    agents_dir: Annotated[
        Path | None, typer.Option("--agents-dir", help="A folder searched before ./agents (as for `arena play`).")
    ] = None,
) -> None:
    """List the agents a seat can name, with where each was found (the first folder wins)."""
    from arena.agents import BUILTIN, AgentError, AgentSpec, agent_folders, list_agents, load_agent_file, needs_trust

    typer.echo("built in: " + ", ".join([*BUILTIN, "openai:MODEL"]))
    typer.echo("")
    found = list_agents(agents_dir)
    width = max((len(a.name) for a in found), default=0)
    for entry in found:
        note = f"   (shadowed by {entry.shadowed_by})" if entry.shadowed_by else ""
        try:
            spec: AgentSpec | None = load_agent_file(entry.path, entry.name)
        except AgentError:
            spec = None
        risk = needs_trust(spec) if spec is not None else None
        if not entry.trusted and not note and risk is not None:  # ./agents never decides where a key goes
            note = f"   (refused: it {risk}; use it with --agents-dir {entry.path.parent})"
        elif spec is not None and not note and spec.cached_price_assumed:
            note = "   (no price_cached_per_m: cached tokens billed at the input price)"
        typer.echo(f"{entry.name:<{width}}  {entry.where}: {entry.path}{note}")
    if not found:
        typer.echo("no agent definitions found")
    typer.echo("")
    typer.echo("searched, in order:")
    for folder in agent_folders(agents_dir):
        state = "" if folder.path.is_dir() else "  (missing)"
        typer.echo(f"  {folder.where}: {folder.path}{state}")


def register(app: typer.Typer) -> None:
    """Add `agents` to `app`."""
    app.command("agents")(agents)
