"""A real Dask cluster for the tests: `dask scheduler` and `dask worker` as processes of their own on 127.0.0.1,
with mutual TLS from credentials made by `arena cluster-certs`'s code, as docs/tournaments.md tells a user to start
them. The workers' environment holds no model key (every variable ending in _KEY or _TOKEN is left out)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.tournament.tls import CERT, KEY, make_credentials, security_from

START_TIMEOUT_S = 60


@dataclass
class Cluster:
    address: str
    certs: Path
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: Path = Path()

    def tls_args(self) -> list[str]:
        cert, key = str(self.certs / CERT), str(self.certs / KEY)
        return ["--tls-ca-file", cert, "--tls-cert", cert, "--tls-key", key]

    def client(self, **options: Any) -> Any:
        from distributed import Client

        return Client(self.address, security=security_from(self.certs), timeout=20, **options)

    def log_text(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in sorted(self.logs.glob("*.log"))
        )


def worker_env() -> dict[str, str]:
    """This environment without anything that looks like a secret."""
    return {k: v for k, v in os.environ.items() if not k.endswith(("_KEY", "_TOKEN", "_SECRET"))}


def _wait_for(path: Path, what: str, cluster: Cluster | None = None) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not path.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start: " + (cluster.log_text() if cluster else ""))
        time.sleep(0.1)


@contextmanager
def running_cluster(folder: Path, workers: int = 2, nthreads: int = 16) -> Iterator[Cluster]:
    """A scheduler and `workers` worker processes (no nanny: a killed worker stays dead), stopped on exit."""
    certs = folder / "certs"
    make_credentials(certs)
    logs = folder / "logs"
    logs.mkdir()
    address_file = folder / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    tls = ["--tls-ca-file", str(certs / CERT), "--tls-cert", str(certs / CERT), "--tls-key", str(certs / KEY)]
    with (logs / "scheduler.log").open("wb") as log:
        scheduler = subprocess.Popen(
            [*dask, "scheduler", *tls, "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(address_file)],
            stdout=log, stderr=subprocess.STDOUT, env=worker_env(),
        )  # fmt: skip
    cluster = Cluster("", certs, scheduler, logs=logs)
    try:
        _wait_for(address_file, "the scheduler", cluster)
        for _ in range(50):
            try:
                cluster.address = json.loads(address_file.read_text())["address"]
                break
            except (ValueError, KeyError):
                time.sleep(0.1)
        for n in range(workers):
            with (logs / f"worker{n}.log").open("wb") as log:
                cluster.workers.append(
                    subprocess.Popen(
                        [*dask, "worker", cluster.address, *tls, "--host", "127.0.0.1", "--nthreads", str(nthreads),
                         "--no-nanny", "--no-dashboard", "--dashboard-address", "127.0.0.1:0", "--name", f"w{n}",
                         "--memory-limit", "0"],
                        stdout=log, stderr=subprocess.STDOUT, env=worker_env(),
                    )
                )  # fmt: skip
        client = cluster.client()
        try:
            client.wait_for_workers(workers, timeout=START_TIMEOUT_S)
        finally:
            client.close()
        yield cluster
    finally:
        for process in [*cluster.workers, scheduler]:
            if process.poll() is None:
                process.terminate()
        for process in [*cluster.workers, scheduler]:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
