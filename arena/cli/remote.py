"""Remote seats at the command line (`arena play` and `arena resume`, docs/remote.md): the options, the table that
serves them, and the lines that tell the user where the agents connect and with which token."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated

import typer

from arena.agents import AgentSpec
from arena.cli.options import fail
from arena.engine import RuleSet

if TYPE_CHECKING:
    from arena.remote.server import RemoteTable

LINGER_S = 10.0  # after the game, how long the server waits for each connected agent to hear that it is over

RemoteHost = Annotated[
    str,
    typer.Option(
        "--remote-host",
        help="The address the remote agents' server binds (default 127.0.0.1; any other is reachable by others, and "
        "tokens travel unencrypted).",
    ),
]
RemotePort = Annotated[
    int, typer.Option("--remote-port", min=0, max=65535, help="Its port (default 0: any free port, printed).")
]
RemoteWait = Annotated[
    float,
    typer.Option(
        "--remote-wait", min=0, help="Seconds to wait for every remote agent to connect before the first move."
    ),
]


def remote_table(
    seats: Mapping[int, AgentSpec], rules: RuleSet, *, lang: str, host: str, port: int, timeout: float
) -> RemoteTable | None:
    """The table of the remote seats, its socket bound and each seat's token set; None when no seat is remote. The
    address and each token (or the variable it came from) are printed on stderr."""
    remote = sorted(s for s, spec in seats.items() if spec.kind == "remote")
    if not remote:
        return None
    from arena.remote.server import LOOPBACK, TOKEN_ENV, RemoteError, RemoteTable

    try:
        table = RemoteTable(rules, lang=lang, host=host, port=port, deadline_s=timeout)
        for seat in remote:
            table.seat(seat)
    except RemoteError as exc:
        fail(str(exc))
    if host != LOOPBACK:
        typer.echo(
            f"warning: binding {host}: anyone who reaches it can try tokens, and they travel unencrypted", err=True
        )
    typer.echo(f"remote agents: {table.url} (docs/remote.md)", err=True)
    for seat, line in table.lines.items():
        given = f"${TOKEN_ENV.format(seat=seat)}" if line.from_env else line.token
        typer.echo(f"remote seat {seat}: token {given}", err=True)
    return table
