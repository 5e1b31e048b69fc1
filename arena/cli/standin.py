"""`arena stand-in`: start the built-in OpenAI-compatible stand-in server, so LLM seats can play without a GPU or key.

The server is `arena/standin/server.py` (asyncio and h11, one event loop in the main thread, bound to 127.0.0.1).
It answers every decision legally from the schema the seat sends; `agents/local-fake.toml` points at its default
port. Run it in another terminal, or in the background with `arena stand-in &`, then `arena play --seat
all=local-fake`. Ctrl-C or SIGTERM stops it.
"""

from __future__ import annotations

from typing import Annotated

import typer

DEFAULT_PORT = 8765  # the port agents/local-fake.toml points at


def stand_in(
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free port).")
    ] = DEFAULT_PORT,
    latency: Annotated[float, typer.Option("--latency", min=0.0, help="Seconds to wait before each answer.")] = 0.0,
) -> None:
    """Serve the local OpenAI-compatible stand-in on 127.0.0.1 until interrupted (Ctrl-C)."""
    from arena.standin import FakeServer, serve_until_interrupted

    try:
        server = FakeServer(latency_s=latency, port=port)
    except OSError as exc:  # the port is taken, or not ours to bind
        typer.echo(f"error: cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"stand-in listening on {server.base_url} (stop with Ctrl-C)")  # it queues connections already
    serve_until_interrupted(server)


def register(app: typer.Typer) -> None:
    """Add `stand-in` to `app`."""
    app.command("stand-in")(stand_in)
