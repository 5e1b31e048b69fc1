"""Tournaments: many games of a pool of configurations, balanced by side, role and seat, run concurrently on one
machine (a process pool) or a Dask cluster (mutual TLS only), resumable, with a cost estimate and a budget cap
(`arena tournament`).

| module | job |
|---|---|
| `model.py` | the tournament file (pydantic), resolved into rules, configurations and the filler |
| `schedule.py` | the seatings: who sits where with which role in every game, and the balance table |
| `play.py` | one game of the schedule, new or resumed from its transcript; what it cost and who won |
| `cost.py` | the cost estimate from a calibration game against a private local stand-in server |
| `executors.py` | the local process pool (many games per process, one event loop each) |
| `dask_executor.py` | the same games as Dask tasks: the driver's side (random keys, adopting a run's tasks) |
| `dask_worker.py` | what runs on a Dask worker: batches of games, the key plugin |
| `dask_limits.py` | a provider's limits for the whole cluster (Dask semaphores, 429 events) |
| `dask_local.py` | a Dask cluster on this machine: scheduler and worker processes on 127.0.0.1 |
| `tls.py` | the cluster's mutual TLS: temporary or `arena cluster-certs` credentials, tls:// only |
| `received.py` | a result from a cluster checked (chain, plan, replay) before it is written or counted |
| `run.py` | the driver: finished games skipped, started ones resumed, the budget, a game counted once, the manifest |
| `display.py` | what a person sees of a run: the progress bar and live standings (it only observes) |
| `standings.py` | win rates per configuration and side with Wilson intervals |
| `manifest.py` | `tournament.json` |
| `programmatic.py` | the Python API's `arena.tournament(file, ...)`: this package, called, runs a tournament file |

It may import the engine, the orchestrator, the players, model access, the transcript, `arena.agents`, `arena.trust`,
`arena.prompts`, `arena.resources`, `arena.safe_read`, `arena.safe_write`, `arena.seeds` and the stand-in (the cost
estimate's calibration); never the command line (which imports it) or the web app.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallablePackage(types.ModuleType):
    """`arena.tournament` is this package and also the Python API's function `arena.tournament(file, ...)`: Python
    binds a subpackage to its parent's attribute of the same name once it is imported, so the function could not
    keep the name; the package, called, plays the file (`programmatic.play_file`)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from arena.tournament.programmatic import play_file

        return play_file(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
