"""The Dask executor (a LocalCluster bound to 127.0.0.1, threads only on this small machine) gives transcripts
identical to the local executor's for the same tournament: everything but the wall-clock fields (`started_at`,
`finished_at`, per-seat `player_s`) is equal, byte for byte, and the standings are the same. Streamed back and
written by the driver, or written by the workers into a shared folder."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app

distributed = pytest.importorskip("distributed")

BODY = """name = "dask"
games = 6
seed = 21
[[pool]]
label = "h"
agent = "bot:heuristic"
[[pool]]
label = "r"
agent = "bot:random"
"""


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, host="127.0.0.1", protocol="tcp", dashboard_address=None
    )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def _stable(path: Path) -> list[dict[str, Any]]:
    """The transcript's records without the wall-clock fields and the chain hash (which covers the start time)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record.pop("started_at", None)
        record.pop("finished_at", None)
        record.pop("hash", None)
        for counters in (record.get("counters") or {}).values():
            counters.pop("player_s", None)
        out.append(record)
    return out


@pytest.mark.parametrize("shared", [False, True])
def test_dask_transcripts_equal_the_local_ones(tmp_path: Path, scheduler: str, shared: bool) -> None:
    spec = tmp_path / "t.toml"
    spec.write_text(BODY)
    local, remote = tmp_path / "local", tmp_path / "dask"
    result = CliRunner().invoke(app, ["tournament", str(spec), "--out", str(local), "--no-progress",
                                      "--processes", "0"])  # fmt: skip
    assert result.exit_code == 0, result.output
    args = ["tournament", str(spec), "--out", str(remote), "--no-progress", "--executor", "dask",
            "--scheduler", scheduler, "--jobs", "3"]  # fmt: skip
    result = CliRunner().invoke(app, [*args, *(["--shared-out"] if shared else [])])
    assert result.exit_code == 0, result.output
    files = sorted(p.name for p in local.glob("game-*.jsonl"))
    assert len(files) == 6 and files == sorted(p.name for p in remote.glob("game-*.jsonl"))
    for name in files:
        assert _stable(remote / name) == _stable(local / name), name
    a = json.loads((local / "tournament.json").read_text())
    b = json.loads((remote / "tournament.json").read_text())
    assert a["standings"] == b["standings"] and b["executor"] == "dask" and b["status"] == "complete"


def test_a_scheduler_that_is_not_there_is_one_error_line(tmp_path: Path) -> None:
    spec = tmp_path / "t.toml"
    spec.write_text(BODY)
    result = CliRunner().invoke(app, ["tournament", str(spec), "--out", str(tmp_path / "o"), "--executor", "dask",
                                      "--no-progress"])  # fmt: skip
    assert result.exit_code == 2 and result.output.startswith("error: --scheduler"), result.output
