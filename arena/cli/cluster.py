"""`arena cluster-certs DIR`: make the credentials of a Dask cluster for tournaments (docs/tournaments.md).

A tournament only talks to a cluster over mutual TLS; this writes the one certificate and key every member (the
scheduler, each worker, the driver) needs, and prints the commands that start a scheduler and a worker with them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add `cluster-certs` to `app`."""

    @app.command("cluster-certs")
    def cluster_certs(
        folder: Annotated[Path, typer.Argument(help="Where to write cluster.pem and cluster.key (made if missing).")],
        days: Annotated[int, typer.Option(help="Days the certificate is valid.", min=1, max=3650)] = 365,
    ) -> None:
        """Make a Dask cluster's TLS certificate and key for `arena tournament --executor dask` (mutual TLS)."""
        from arena.tournament.tls import ClusterError, make_credentials

        try:
            cert, key = make_credentials(folder, days=days)
        except (ClusterError, OSError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        tls = f"--tls-ca-file {cert} --tls-cert {cert} --tls-key {key}"
        typer.echo(f"wrote {cert} and {key} (the key with mode 0600): copy both to the scheduler, every worker and")
        typer.echo("the driver; anyone who holds the key can join the cluster and run code on it. Model keys stay in")
        typer.echo("the driver's environment only. Then, for example (each process listens on the address given by")
        typer.echo("--host, its status pages on loopback):")
        typer.echo(
            f"  dask scheduler {tls} --host SCHEDULER_IP --port 8786 --no-dashboard --dashboard-address 127.0.0.1:8787"
        )
        typer.echo(
            f"  dask worker tls://SCHEDULER_IP:8786 {tls} --host WORKER_IP --nthreads 64 --no-dashboard "
            "--dashboard-address 127.0.0.1:0"
        )
        typer.echo(
            f"  arena tournament FILE.toml --out DIR --executor dask --scheduler tls://SCHEDULER_IP:8786 --tls {folder}"
        )
