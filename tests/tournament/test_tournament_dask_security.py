"""The attacks of the security review on a tournament's Dask cluster, each replayed against a real scheduler and two
worker processes on 127.0.0.1 (tests/tournament/cluster_processes.py), and what must hold instead:

1. A second client read a worker's environment (the model key): a client without the cluster's certificate (plain
   TCP, or TLS with a certificate of its own) cannot connect at all, and no worker's environment holds the key.
2. It pre-submitted the task keys the driver would use (derivable from the tournament file) with pickled answers:
   one ran a shell command in `arena tournament`, the others were counted as mafia wins without being played. The
   driver's keys are random: the planted tasks are never asked for, and the standings are the played games'.
3. Even with the driver's keys known (an insider who can read the scheduler), a planted answer is refused: a
   pickled object is never unpickled, a forged transcript (edited and re-chained) fails the replay, anything else
   is not a batch's answer; each such game is played again under a new key and counted once.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import attack_payloads
import pytest
from cluster_processes import Cluster, running_cluster
from test_tournament_dask import bots_locally, invoke, on_cluster

from arena.tournament.model import load_tournament
from arena.tournament.play import GameResult

sys.path.insert(0, str(Path(__file__).parents[1]))
from forgery import rechain

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with running_cluster(tmp_path_factory.mktemp("cluster")) as running:
        yield running


@pytest.fixture
def attacker(cluster: Cluster) -> Iterator[distributed.Client]:
    """A member of the cluster: it holds the certificate (as an insider does, or anyone, on a plain-TCP cluster)."""
    client = cluster.client()
    try:
        yield client
    finally:
        client.close()


def test_a_client_without_the_clusters_certificate_cannot_connect(cluster: Cluster) -> None:
    from arena.tournament.tls import temporary_security

    plain = cluster.address.replace("tls://", "tcp://")
    for address, security in ((plain, None), (cluster.address, temporary_security())):
        with pytest.raises(OSError):  # refused before it could run `client.run(os.environ.copy)` on a worker
            distributed.Client(address, security=security, timeout=5)


def _standings(out: Path) -> list[object]:
    return list(json.loads((out / "tournament.json").read_text())["standings"])


def _marker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """A file the payload creates if it runs in the driver (only the driver has ARENA_TEST_DRIVER set)."""
    marker = tmp_path / "pwned"
    monkeypatch.setenv("ARENA_TEST_DRIVER", "1")
    return marker, f'[ -n "$ARENA_TEST_DRIVER" ] && touch {marker}'


def test_pre_submitted_task_keys_are_never_taken(
    tmp_path: Path, cluster: Cluster, attacker: distributed.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, local = bots_locally(tmp_path)
    marker, command = _marker(tmp_path, monkeypatch)
    fingerprint = load_tournament(spec).fingerprint
    planted = []
    for index in range(12):  # the keys the driver used to derive: arena-game-<fingerprint>-<game>
        key = f"arena-game-{fingerprint[:8]}-{index + 1:04d}"
        if index == 0:
            planted.append(attacker.submit(attack_payloads.payload, command, key=key, pure=False))
        else:
            win = GameResult(index, "complete", winner="mafia", days=1)
            planted.append(attacker.submit(attack_payloads.planted, win, key=key, pure=False))
    distributed.wait(planted)
    assert [f.status for f in planted] == ["finished"] * 12  # planted and waiting for the driver
    remote = tmp_path / "dask"
    code, output = invoke(str(spec), "--out", str(remote), *on_cluster(cluster), "--jobs", "6")
    assert code == 0, output + cluster.log_text()
    assert not marker.exists()  # the planted pickle never ran in the driver
    assert _standings(remote) == _standings(local)  # only the played games count
    assert len(list(remote.glob("game-*.jsonl"))) == 12


def test_planted_answers_under_the_drivers_own_keys_are_refused(
    tmp_path: Path, cluster: Cluster, attacker: distributed.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.tournament import dask_executor

    spec, local = bots_locally(tmp_path)
    marker, command = _marker(tmp_path, monkeypatch)
    genuine = (local / "game-0002.jsonl").read_text().splitlines(keepends=True)
    end = json.loads(genuine[-1])
    end["winner"] = "mafia" if end["winner"] != "mafia" else "town"  # the forger flips the result and re-chains
    forged = "".join(rechain([*genuine[:-1], json.dumps(end)]))
    known = [f"arena-known-{n}" for n in range(4)]  # the keys the insider learned, in the order the driver uses them
    plants = [
        attacker.submit(attack_payloads.payload, command, key=known[0], pure=False),  # a pickle that runs a command
        attacker.submit(attack_payloads.planted, [{"index": 1, "text": forged}], key=known[1], pure=False),
        attacker.submit(attack_payloads.planted, "all mafia wins", key=known[2], pure=False),
        attacker.submit(attack_payloads.planted, [GameResult(3, "complete", winner="mafia")], key=known[3], pure=False),
    ]
    distributed.wait(plants)
    assert [f.status for f in plants] == ["finished"] * 4
    keys = iter(known)
    monkeypatch.setattr(
        dask_executor, "task_key", lambda: next(keys, None) or f"arena-new-{dask_executor.secrets.token_hex(16)}"
    )
    remote = tmp_path / "dask"
    code, output = invoke(str(spec), "--out", str(remote), *on_cluster(cluster), "--jobs", "4",
                          "--games-per-task", "1")  # fmt: skip
    assert code == 0, output + cluster.log_text()
    assert not marker.exists()
    assert output.count("note: game ") == 4, output  # each planted answer refused, with why
    assert "refused: " in output and "not plain data" in output, output
    assert _standings(remote) == _standings(local)
    data = json.loads((remote / "tournament.json").read_text())
    assert [g["status"] for g in data["games"]] == ["complete"] * 12 and data["errors"] == 0
    assert all((remote / f"game-{n:04d}.jsonl").read_text() != forged for n in range(1, 13))
