"""Losing a worker or the driver on a real Dask cluster (a scheduler and two worker processes on 127.0.0.1, TLS):

- a worker killed mid-run (SIGKILL, no nanny to bring it back): its games are played again on the other worker,
  from the start (streamed transcripts) or from their files (a shared folder); every game completes once, and the
  standings equal an uninterrupted run's;
- the driver killed mid-run: its tasks go on on the cluster, and the same command run again adopts them (from the
  run's token in --out and the scheduler's variables) instead of starting those games again; it ends with the
  standings of an uninterrupted run, and no game counted twice.

Seats wait 0.05 s before each answer (`--delay`), so that a game lasts a few seconds and is caught mid-game.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cluster_processes import Cluster, running_cluster
from test_tournament_dask import bots_locally, invoke, on_cluster, stable

from arena.transcript import load, verify

distributed = pytest.importorskip("distributed")
WAIT_S = 60


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    with running_cluster(tmp_path / "cluster", nthreads=8) as running:
        yield running


def _executing(client: distributed.Client) -> dict[int, int]:
    """The tasks each worker process (by index) is executing now."""
    executing = client.run(lambda dask_worker: (dask_worker.name, len(dask_worker.state.executing)))
    return {int(str(name)[1:]): count for name, count in executing.values()}


def _busy_worker(client: distributed.Client) -> int | None:
    """The index of a worker process that is executing games now, if any."""
    busy = [index for index, count in _executing(client).items() if count]
    return busy[0] if busy else None


def _when_busy(
    cluster: Cluster, then: Callable[[int], object], files: Path | None = None, caught: list[int] | None = None
) -> threading.Thread:
    """Call `then(worker)` once a worker has been playing for a second (and, with `files`, once every game's file
    holds some of its game); `caught` gets the tasks that worker was still executing just before."""

    def mid_game() -> bool:
        if files is None:
            return True
        paths = list(files.glob("game-*.jsonl"))
        return len(paths) == 12 and all(p.stat().st_size > 20_000 for p in paths)

    client = cluster.client(set_as_default=False)  # made here: the driver's client must stay the default

    def watch() -> None:
        deadline = time.monotonic() + WAIT_S
        try:
            while time.monotonic() < deadline:
                busy = _busy_worker(client)
                if busy is not None and mid_game():
                    time.sleep(1.0)
                    if caught is not None:
                        caught.append(_executing(client).get(busy, 0))
                    then(busy)
                    return
                time.sleep(0.2)
        finally:
            client.close()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def _check(local: Path, remote: Path, *, identical: bool) -> dict[str, object]:
    data = json.loads((remote / "tournament.json").read_text())
    assert data["status"] == "complete" and data["done"] == 12 and data["errors"] == 0, data["stop_reason"]
    assert sorted(g["index"] for g in data["games"]) == list(range(12))  # each game once
    expected = json.loads((local / "tournament.json").read_text())
    assert data["standings"] == expected["standings"]
    assert [g["winner"] for g in data["games"]] == [g["winner"] for g in expected["games"]]
    for path in sorted(remote.glob("game-*.jsonl")):
        assert verify(load(path)).outcome == "complete", path
        if identical:
            assert stable(path) == stable(local / path.name), path.name
    return data


@pytest.mark.parametrize("shared", [False, True], ids=["streamed", "shared-folder"])
def test_a_worker_killed_mid_run_loses_no_game(tmp_path: Path, cluster: Cluster, shared: bool) -> None:
    spec, local = bots_locally(tmp_path)
    killed: list[int] = []

    def kill(index: int) -> None:
        cluster.workers[index].send_signal(signal.SIGKILL)
        killed.append(index)

    remote = tmp_path / "dask"
    caught: list[int] = []
    watcher = _when_busy(cluster, kill, remote if shared else None, caught)
    code, output = invoke(str(spec), "--out", str(remote), *on_cluster(cluster), "--jobs", "12", "--delay", "0.05",
                          *(["--shared-out"] if shared else []))  # fmt: skip
    watcher.join()
    assert killed and cluster.workers[killed[0]].wait(timeout=10) == -signal.SIGKILL
    assert caught and caught[0] > 0, caught  # it died with games in hand (they were played again elsewhere)
    assert code == 0, output + cluster.log_text()
    _check(local, remote, identical=not shared)
    if shared:  # a game caught mid-way went on from its file on the other worker
        assert any(load(path).resumes for path in remote.glob("game-*.jsonl"))


def test_a_restarted_driver_adopts_the_games_still_running(tmp_path: Path, cluster: Cluster) -> None:
    spec, local = bots_locally(tmp_path)
    remote = tmp_path / "dask"
    command = [sys.executable, "-m", "arena.cli", "tournament", str(spec), "--out", str(remote), *on_cluster(cluster),
               "--jobs", "12", "--delay", "0.05", "--no-progress"]  # fmt: skip
    with (tmp_path / "driver.log").open("wb") as log:
        driver = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ))
    watcher = _when_busy(cluster, lambda _: driver.send_signal(signal.SIGKILL))
    watcher.join()
    assert driver.wait(timeout=WAIT_S) == -signal.SIGKILL, (tmp_path / "driver.log").read_text()
    assert json.loads((remote / "tournament.json").read_text())["status"] == "running"  # it never got to say more
    code, output = invoke(str(spec), "--out", str(remote), *on_cluster(cluster), "--jobs", "12", "--delay", "0.05")
    assert code == 0, output + cluster.log_text()
    assert "adopted" in output, output  # the killed driver's tasks, not new ones
    _check(local, remote, identical=True)
