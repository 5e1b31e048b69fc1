"""A real Dask cluster for the tests: `dask scheduler` and `dask worker` as processes of their own on 127.0.0.1,
with mutual TLS (arena/tournament/dask_local.py, what `--executor dask` starts without `--scheduler`), without a
nanny so that a killed worker stays dead. The workers' environment holds no model key: every variable ending in
_KEY, _TOKEN or _SECRET is left out."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.tournament.dask_local import LocalProcesses

Cluster = LocalProcesses


@contextmanager
def running_cluster(folder: Path, workers: int = 2, nthreads: int = 16) -> Iterator[LocalProcesses]:
    secrets = [k for k in os.environ if k.endswith(("_KEY", "_TOKEN", "_SECRET"))]
    cluster = LocalProcesses(workers, nthreads, hide=secrets, nanny=False, folder=folder)
    try:
        cluster.client().close()  # every worker has joined
        yield cluster
    finally:
        cluster.close()
