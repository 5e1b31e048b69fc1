"""An `arena serve` app in this process, on a thread of its own, for browser tests that must steer the table.

The test holds the table's pacing (`Gate`: every bot pause waits until the test opens it), can hold back an HTTP
answer after the server computed it (`Held`), and reaches the table and the game directly. Nothing here sleeps for
a result: the test waits on events (a page's DOM, a gate, a held answer let go).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import uvicorn

from arena.web.app import create_app
from arena.web.server import ServeConfig, Server

T = TypeVar("T")
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Gate:
    """A table's pause that waits until the test opens the gate (then every pause passes at once)."""

    def __init__(self) -> None:
        self.event: asyncio.Event | None = None
        self.waits = 0

    async def pause(self, _seconds: float) -> None:
        if self.event is None:
            self.event = asyncio.Event()
        self.waits += 1
        await self.event.wait()


class Held:
    """ASGI middleware that answers the first `GET /api/state/...` late: the server computes it at once, then it is
    held back until `release` (the state a page asked for first arrives after newer pushes)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.hold = threading.Event()  # set: let the held answer go
        self.asked = threading.Event()  # set: the first state answer was computed and is being held
        self.sent = threading.Event()  # set: the held answer went out
        self.computed_at = 0.0
        self._first = True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not (scope["type"] == "http" and scope["path"].startswith("/api/state/") and self._first):
            await self.app(scope, receive, send)
            return
        self._first = False
        parts: list[dict[str, Any]] = []

        async def keep(message: dict[str, Any]) -> None:
            parts.append(message)

        await self.app(scope, receive, keep)
        self.computed_at = time.time()
        self.asked.set()
        await asyncio.to_thread(self.hold.wait, 60)
        for message in parts:
            await send(message)
        self.sent.set()


class Live:
    """A server and its event loop on a thread; `call(coro)` runs a coroutine there and returns its result."""

    def __init__(self, tmp_path: Path, *, bot_delay: float = 0.0, human_timeout: float = 300.0, **config: Any) -> None:
        config.setdefault("start", "now")  # the lobby's own tests ask for it
        self.config = ServeConfig(out_dir=tmp_path, human_timeout=human_timeout, bot_delay=bot_delay, **config)
        self.server = Server(self.config)
        self.app = Held(create_app(self.server))
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.loop: asyncio.AbstractEventLoop | None = None
        self._uv = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning"))
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._uv.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise AssertionError("the test server did not start")
            time.sleep(0.02)

    def _run(self) -> None:
        async def serve() -> None:
            self.loop = asyncio.get_running_loop()
            await self._uv.serve()

        asyncio.run(serve())

    def call(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def soon(self, fn: Callable[[], object]) -> None:
        assert self.loop is not None
        self.loop.call_soon_threadsafe(fn)

    def stop(self) -> None:
        async def cancel() -> None:
            tasks = [t.task for t in self.server.tables.values() if t.task is not None]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        if self.loop is not None:
            self.call(cancel())
        self.app.hold.set()
        self._uv.should_exit = True
        self._thread.join(20)
