"""A Dask cluster on this machine, as processes of its own: `dask scheduler` and `dask worker`, bound to 127.0.0.1,
with mutual TLS from a certificate made for this run in a private temporary folder (removed when it stops).

`--executor dask` without `--scheduler` runs the tournament on one of these, and the tests and the bench start
the same processes a real cluster runs. The workers start with this process's environment less the variables in
`hide` (the model keys: a worker gets them from the driver's key plugin, in memory), so neither `os.environ` nor
the kernel's copy of a worker's environment (/proc/PID/environ) holds a key.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from arena.tournament.tls import CERT, KEY, ClusterError, make_credentials, security_from

START_TIMEOUT_S = 90


class LocalProcesses:
    """A scheduler and `workers` worker processes of `threads` task slots each; `close()` stops them all."""

    def __init__(
        self,
        workers: int,
        threads: int,
        *,
        hide: Iterable[str] = (),
        nanny: bool = True,
        folder: Path | None = None,
    ) -> None:
        self._own = folder is None
        self.folder = Path(tempfile.mkdtemp(prefix="arena-dask-")) if folder is None else folder
        self.certs = self.folder / "certs"
        self.logs = self.folder / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.scheduler: subprocess.Popen[bytes] | None = None
        self.workers: list[subprocess.Popen[bytes]] = []
        self.address = ""
        hidden = set(hide)
        self.env = {k: v for k, v in os.environ.items() if k not in hidden}
        try:
            make_credentials(self.certs)
            self._start(workers, threads, nanny)
        except BaseException:
            self.close()
            raise

    @property
    def security(self) -> Any:
        return security_from(self.certs)

    def tls_args(self) -> list[str]:
        cert, key = str(self.certs / CERT), str(self.certs / KEY)
        return ["--tls-ca-file", cert, "--tls-cert", cert, "--tls-key", key]

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        with (self.logs / f"{name}.log").open("wb") as log:
            return subprocess.Popen([sys.executable, "-m", "dask", *args], stdout=log, stderr=subprocess.STDOUT,
                                    env=self.env, stdin=subprocess.DEVNULL)  # fmt: skip

    def _start(self, workers: int, threads: int, nanny: bool) -> None:
        address_file = self.folder / "scheduler.json"
        # the HTTP status pages (health, metrics, task names) on loopback too; no dashboard
        http = ["--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
        where = ["--host", "127.0.0.1", "--port", "0", "--scheduler-file", str(address_file)]
        self.scheduler = self._spawn("scheduler", ["scheduler", *self.tls_args(), *where, *http])
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.address:
            if self.scheduler.poll() is not None or time.monotonic() > deadline:
                raise ClusterError(f"the local Dask scheduler did not start: {self.log_text()}")
            try:
                self.address = str(json.loads(address_file.read_text())["address"])
            except (OSError, ValueError, KeyError):
                time.sleep(0.1)
        for n in range(workers):
            self.workers.append(self._spawn(f"worker{n}", [
                "worker", self.address, *self.tls_args(), "--host", "127.0.0.1", "--nthreads", str(threads),
                "--nanny" if nanny else "--no-nanny", *http, "--name", f"w{n}", "--memory-limit", "0",
            ]))  # fmt: skip

    def client(self, **options: Any) -> Any:
        """A client of this cluster that waited for every worker (options go to `distributed.Client`)."""
        import distributed

        dd: Any = distributed
        client = dd.Client(self.address, security=self.security, timeout=30, **options)
        try:
            client.wait_for_workers(len(self.workers), timeout=START_TIMEOUT_S)
        except BaseException:
            client.close()
            raise ClusterError(f"the local Dask workers did not start: {self.log_text()}") from None
        return client

    def log_text(self) -> str:
        logs = sorted(self.logs.glob("*.log"))
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in logs)

    def close(self) -> None:
        processes = [p for p in [*self.workers, self.scheduler] if p is not None]
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._own:
            shutil.rmtree(self.folder, ignore_errors=True)
