"""`arena local-model`: serve a real model on this machine with llama.cpp's `llama-server` (the `local` extra).

Starts the server on 127.0.0.1 with Gemma 3 270M (or `--model PATH.gguf`), the context per slot, the slots and
`--jinja`, waits until it answers, prints where, and stops it cleanly on Ctrl-C or SIGTERM. `agents/local.toml`
points at the default port, so `arena play --seat all=local` plays against it (arena/local/server.py).
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.local.server import ALIAS, DEFAULT_CTX, DEFAULT_PARALLEL, DEFAULT_PORT


def local_model(
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port on 127.0.0.1.")] = DEFAULT_PORT,
    ctx: Annotated[
        int, typer.Option("--ctx", min=256, help="Context tokens per slot (each seat's budget).")
    ] = DEFAULT_CTX,
    parallel: Annotated[
        int, typer.Option("--parallel", min=1, max=64, help="Slots: requests served at once (10 gives each seat one).")
    ] = DEFAULT_PARALLEL,
    model: Annotated[
        Path | None, typer.Option("--model", help="A GGUF file to serve instead of Gemma 3 270M.", dir_okay=False)
    ] = None,
    log: Annotated[Path | None, typer.Option("--log", help="Write the server's output to this file.")] = None,
    threads: Annotated[
        int | None,
        typer.Option("--threads", min=1, help="CPU threads (default: the cores; 1 is faster on a busy machine)."),
    ] = None,
) -> None:
    """Serve a real local model (llama.cpp's llama-server) on 127.0.0.1 until interrupted (Ctrl-C)."""
    from arena.local.server import LocalModelError, LocalServer, default_model

    try:
        path = model if model is not None else default_model()
        if not path.is_file():
            raise LocalModelError(f"--model: no file {path}")
        # the name the server reports (and every call record and header then holds): the file's name, never its
        # path on this machine (llama-server reports the path it was given when it has no alias)
        alias = model.stem if model is not None else ALIAS
        server = LocalServer(path, port=port, ctx=ctx, parallel=parallel, alias=alias, log=log,
                             threads=threads)  # fmt: skip
        typer.echo(f"starting {' '.join(server.command())}", err=True)
        server.start()
    except LocalModelError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    # a shell script's `arena local-model &` starts with SIGINT ignored (job control is off there); stop on it anyway
    signal.signal(signal.SIGINT, on_term)
    try:
        server.wait_ready()
        typer.echo(f"llama-server ready on {server.base_url} ({parallel} slots of {ctx} tokens; stop with Ctrl-C)")
        assert server.process is not None
        code = server.process.wait()
        server.stop()  # it is gone; its key file goes too (a stale key would outlive the server)
        typer.echo(f"error: {server.died(code, ready=True)}", err=True)
        sys.exit(1)
    except LocalModelError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        stopped = server.stop()
        typer.echo(f"llama-server stopped (exit {stopped})", err=True)


def register(app: typer.Typer) -> None:
    """Add `local-model` to `app`."""
    app.command("local-model")(local_model)
