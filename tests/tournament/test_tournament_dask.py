"""Tournaments on a real Dask cluster: a `dask scheduler` and two `dask worker` processes on 127.0.0.1 with mutual
TLS (tests/tournament/cluster_processes.py). The bots tournament and an LLM tournament against the stand-in give
transcripts identical to the local executor's apart from the wall-clock fields (`started_at`, `finished_at`,
per-seat `player_s`, a call's `latency_ms`, and the chain hashes that cover them), and the same standings; streamed
back and written by the driver, or written by the workers into a shared folder. Without `--scheduler` the games
run on a local cluster that is TLS and loopback too."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster_processes import Cluster, running_cluster
from tournament_files import BOTS_POOL
from typer.testing import CliRunner

from arena.cli import app
from arena.standin import FakeServer
from arena.transcript import load, verify

distributed = pytest.importorskip("distributed")

BOTS = 'name = "dask"\ngames = 12\nseed = 21\n' + BOTS_POOL
KEY_VAR = "ARENA_DASK_TEST_KEY"  # ends in _KEY: the workers' environment never has it
KEY = "sk-dask-test-0123456789abcdef"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with running_cluster(tmp_path_factory.mktemp("cluster")) as running:
        yield running


def stable(path: Path) -> list[dict[str, Any]]:
    """The transcript's records without the wall-clock fields, the chain hashes (which cover them) and the cached
    tokens the server reports: games of one deal run at once share a prompt prefix on the one server, so which of
    them is served from its cache first depends on the order their requests arrive, not on the executor."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for name in ("started_at", "finished_at", "hash", "latency_ms", "cached_tokens"):
            record.pop(name, None)
        for group in ("counters", "totals"):
            for counters in (record.get(group) or {}).values():
                counters.pop("player_s", None)
                counters.pop("cached_tokens", None)
        if isinstance(record.get("total"), dict):
            record["total"].pop("cached_tokens", None)
        out.append(record)
    return out


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["tournament", *args, "--no-progress"])
    return result.exit_code, result.output


def on_cluster(cluster: Cluster) -> list[str]:
    return ["--executor", "dask", "--scheduler", cluster.address, "--tls", str(cluster.certs)]


def assert_same_games(local: Path, remote: Path, count: int) -> None:
    files = sorted(p.name for p in local.glob("game-*.jsonl"))
    assert len(files) == count and files == sorted(p.name for p in remote.glob("game-*.jsonl"))
    for name in files:
        assert stable(remote / name) == stable(local / name), name
        assert verify(load(remote / name)).outcome == "complete", name  # and its own hash chain holds
    a = json.loads((local / "tournament.json").read_text())
    b = json.loads((remote / "tournament.json").read_text())
    assert a["standings"] == b["standings"] and b["executor"] == "dask" and b["status"] == "complete"
    assert [g["winner"] for g in a["games"]] == [g["winner"] for g in b["games"]]


def bots_locally(tmp_path: Path) -> tuple[Path, Path]:
    """The bots tournament file, and its folder as the local executor plays it."""
    spec = tmp_path / "t.toml"
    spec.write_text(BOTS)
    local = tmp_path / "local"
    code, output = invoke(str(spec), "--out", str(local), "--processes", "0")
    assert code == 0, output
    return spec, local


@pytest.mark.parametrize("shared", [False, True], ids=["streamed", "shared-folder"])
def test_bots_on_a_real_cluster_equal_the_local_executor(tmp_path: Path, cluster: Cluster, shared: bool) -> None:
    spec, local = bots_locally(tmp_path)
    remote = tmp_path / "dask"
    code, output = invoke(str(spec), "--out", str(remote), *on_cluster(cluster), "--jobs", "6",
                          *(["--shared-out"] if shared else []))  # fmt: skip
    assert code == 0, output + cluster.log_text()
    assert_same_games(local, remote, 12)


def _llm(tmp_path: Path, base_url: str, games: int, extra: str = "") -> tuple[Path, Path]:
    agents = tmp_path / "agents"
    agents.mkdir(exist_ok=True)
    (agents / "fake.toml").write_text(
        f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{base_url}"\napi_key_env = "{KEY_VAR}"\n'
        f"price_input_per_m = 1.0\nprice_output_per_m = 4.0\n{extra}"
    )
    spec = tmp_path / "t.toml"
    spec.write_text(
        f'name = "llm"\ngames = {games}\nseed = 5\nfiller = "bot:heuristic"\n'
        '[[pool]]\nlabel = "cold"\nagent = "fake"\ntemperature = 0.1\n'
        '[[pool]]\nlabel = "hot"\nagent = "fake"\ntemperature = 1.4\n'
    )
    return spec, agents


def _worker_environments(cluster: Cluster) -> list[bytes]:
    """Each worker process's environment as the kernel holds it, and as its Python sees it."""
    blocks = [Path(f"/proc/{w.pid}/environ").read_bytes() for w in cluster.workers]
    client = cluster.client()
    try:
        seen = client.run(lambda: "\0".join(f"{k}={v}" for k, v in os.environ.items()))
    finally:
        client.close()
    return blocks + [text.encode() for text in seen.values()]


def _handed(cluster: Cluster) -> list[list[str]]:
    client = cluster.client()
    try:
        return list(client.run(lambda: sorted(__import__("arena.agents").agents._HANDED)).values())
    finally:
        client.close()


def test_llm_tournament_on_a_real_cluster_equals_the_local_executor(
    tmp_path: Path, cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_VAR, KEY)
    local, remote = tmp_path / "local", tmp_path / "dask"
    with FakeServer() as server:
        port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
    spec, agents = _llm(tmp_path, f"http://127.0.0.1:{port}/v1", 6)
    for out, args in ((local, ["--processes", "0", "--jobs", "3"]), (remote, [*on_cluster(cluster), "--jobs", "6"])):
        with FakeServer(port=port) as server:  # a fresh stand-in for each run (its prefix cache starts empty)
            code, output = invoke(str(spec), "--agents-dir", str(agents), "--out", str(out), *args)
            assert code == 0, output + cluster.log_text()
            assert server.stats.authorization_seen == {f"Bearer {KEY}"}  # the key reached the server
    assert_same_games(local, remote, 6)
    assert len(_limiters(cluster, f"http://127.0.0.1:{port}/v1")) == 2  # both worker processes played games
    for block in _worker_environments(cluster):  # ... and was never in a worker's environment
        assert KEY.encode() not in block and KEY_VAR.encode() not in block
    assert _handed(cluster) == [[], []]  # the workers forgot it when the run ended


def test_without_a_scheduler_a_local_cluster_runs_with_tls_on_loopback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.tournament import dask_executor

    seen: list[str] = []
    connect = dask_executor.connect

    def watched(*args: Any, **options: Any) -> dask_executor.Connection:
        connection = connect(*args, **options)
        client = connection.client
        seen.extend([client.scheduler.address, *client.nthreads()])
        return connection

    monkeypatch.setattr(dask_executor, "connect", watched)
    spec = tmp_path / "t.toml"
    spec.write_text(BOTS)
    code, output = invoke(str(spec), "--out", str(tmp_path / "o"), "--executor", "dask", "--processes", "1")
    assert code == 0 and "12/12 games complete" in output, output
    assert len(seen) == 2 and all(address.startswith("tls://127.0.0.1:") for address in seen), seen


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--scheduler", "tcp://127.0.0.1:9"], "is not a tls:// address"),
        (["--scheduler", "tls://127.0.0.1:9"], "--tls: connecting to tls://127.0.0.1:9 needs"),
    ],
)
def test_a_plain_or_credential_less_scheduler_is_one_error_line(tmp_path: Path, args: list[str], says: str) -> None:
    spec = tmp_path / "t.toml"
    spec.write_text(BOTS)
    code, output = invoke(str(spec), "--out", str(tmp_path / "o"), "--executor", "dask", *args)
    assert code == 2 and output.startswith("error: ") and says in output and output.count("\n") == 1, output


async def _throttles(provider: str) -> tuple[int, int] | None:
    """On a worker's loop: its limiter of `provider`'s 429s, its own and the other workers' (None: it sent none)."""
    from arena.llm.limits import limiters

    limiter = limiters().get(provider)
    return None if limiter is None else (limiter.stats.throttles, limiter.stats.remote_throttles)


_throttles.__module__ = "__main__"  # sent by value (cloudpickle): the workers cannot import this test module


def _limiters(cluster: Cluster, provider: str) -> list[tuple[int, int]]:
    client = cluster.client()
    try:
        seen = list(client.run(_throttles, provider).values())
    finally:
        client.close()
    assert None not in seen, f"a worker played no game: {seen}"
    return [s for s in seen if s is not None]


def test_a_429_slows_the_provider_on_every_worker(
    tmp_path: Path, cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.standin import FaultPlan

    monkeypatch.setenv(KEY_VAR, KEY)
    plan = FaultPlan().add("rate_limit", "*", 60)  # one 429, well into the run (8 games: about 240 calls)
    with FakeServer(plan=plan) as server:
        spec, agents = _llm(tmp_path, server.base_url, 8)
        code, output = invoke(str(spec), "--agents-dir", str(agents), "--out", str(tmp_path / "o"),
                              *on_cluster(cluster), "--jobs", "8", "--games-per-task", "1")  # fmt: skip
        assert code == 0, output + cluster.log_text()
        assert [fault for fault, _, _ in server.stats.injected] == ["rate_limit"]
    seen = _limiters(cluster, server.base_url)
    assert sorted(throttles - remote for throttles, remote in seen) == [0, 1], seen  # one worker got the 429 ...
    assert sorted(remote for _, remote in seen) == [0, 1], seen  # ... and the other paused for it too
    data = json.loads((tmp_path / "o" / "tournament.json").read_text())
    assert data["done"] == 8 and data["errors"] == 0  # the refused call was retried


def test_a_provider_limit_holds_across_the_cluster(
    tmp_path: Path, cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """8 games on two workers would send dozens of requests at once (a vote round alone is several per game); with
    `max_concurrent_requests = 3` the stand-in never holds more than 3, and it does hold 3."""
    monkeypatch.setenv(KEY_VAR, KEY)
    with FakeServer(latency_s=0.05) as server:
        spec, agents = _llm(tmp_path, server.base_url, 8, extra="max_concurrent_requests = 3\n")
        code, output = invoke(str(spec), "--agents-dir", str(agents), "--out", str(tmp_path / "o"),
                              *on_cluster(cluster), "--jobs", "8", "--games-per-task", "1")  # fmt: skip
        assert code == 0, output + cluster.log_text()
        peak = server.stats.peak_in_flight
    assert peak == 3
    data = json.loads((tmp_path / "o" / "tournament.json").read_text())
    assert data["done"] == 8 and data["errors"] == 0
    assert len(_limiters(cluster, server.base_url)) == 2  # both workers played: the cap held across them
    client = cluster.client()
    try:  # and the run's semaphores were closed at its end
        left = client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.extensions["semaphores"].max_leases))
    finally:
        client.close()
    assert not [name for name in left if "concurrent" in name], left
