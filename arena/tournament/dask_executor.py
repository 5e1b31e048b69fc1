"""The games as tasks on a Dask cluster (`--executor dask`, extra `dask`): a local one on 127.0.0.1, or a real one
(`--scheduler tls://HOST:PORT --tls DIR`).

What the driver trusts and what it does not (docs/tournaments.md, "Running on a cluster"):

- Every connection is mutual TLS (`tls.py`): only a process holding the cluster's key can connect; a local
  cluster (`dask_local.py`) is bound to 127.0.0.1 with a certificate made for the run. A member can
  run any code on the scheduler and the workers, so the cluster's members are trusted as much as this machine.
- Task keys are random (`arena-` and 128 bits), never derived from the tournament, so nobody can submit a task
  under a game's key before the driver does and have the driver take its answer.
- The driver reads answers with msgpack only (`Client(deserializers=["msgpack", "error"])`): an answer is plain
  data, and a pickled object in its place is refused unread. An erred task's exception is never fetched (Dask would
  unpickle it); the game is played again. Every transcript is checked as `arena verify` checks it before it is
  written or counted (`received.py`); a refused result is played again under a new key, at most `ATTEMPTS` times.
- The model keys the seats need go to the workers' memory through a worker plugin (`dask_worker.KeyPlugin`), not
  through their environment, and are taken back when the run ends.

Batches: a task plays `games_per_task` games (0: chosen from the measured game time, so that a task lasts about
`TARGET_TASK_S` while every worker thread still gets work). Lost workers: Dask runs a task whose worker died again
on another worker (up to `distributed.scheduler.allowed-failures` times); the game starts again from the start
(streamed transcripts) or from its file (`--shared-out`). A driver that stops without cancelling (killed, or a
lost connection) leaves its tasks running: each batch's future is held by a `distributed.Variable` named for the
run (the run's token is kept in `--out`/.dask-run), and the next driver on the same folder adopts them instead of
starting those games again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.agents import AgentSpec
from arena.tournament.dask_limits import ProviderPlan, cluster_limits
from arena.tournament.executors import Message
from arena.tournament.play import GameResult, GameTask
from arena.tournament.received import Refused, accept
from arena.tournament.tls import ClusterError, check_address, security_from

DESERIALIZERS = ["msgpack", "error"]  # never "pickle" (nor "dask", whose headers are pickled): plain data only
ATTEMPTS = 3  # a game refused, or whose task erred, is played again under a new key; then it failed
TARGET_TASK_S = 0.5  # a batch of cheap games lasts about this long: Dask's few ms per task are then ~1 %
MAX_GAMES_PER_TASK = 64
RUN_FILE = ".dask-run"
CONNECT_TIMEOUT_S = 15


@dataclass
class Connection:
    client: Any
    cluster: Any | None = None  # the local cluster this driver started (closed with it)

    @property
    def local(self) -> bool:
        return self.cluster is not None


def connect(
    scheduler: str | None, tls: Path | None, *, workers: int, threads: int, hide: Iterable[str] = ()
) -> Connection:
    """A client of the cluster at `scheduler` (TLS with the credentials in `tls`), or, without one, of a new local
    cluster (`dask_local.py`) of `workers` processes of `threads` task slots each on 127.0.0.1, whose certificate
    is made for this run; the variables named in `hide` (the model keys) are not in its workers' environment."""
    dd = _distributed()
    if scheduler is None:
        from arena.tournament.dask_local import LocalProcesses

        cluster = LocalProcesses(max(workers, 1), max(threads, 1), hide=hide)
        try:
            client = cluster.client(deserializers=DESERIALIZERS)
        except BaseException:
            cluster.close()
            raise
        return Connection(client, cluster)
    check_address(scheduler)
    if tls is None:
        raise ClusterError(f"--tls: connecting to {scheduler} needs the cluster's credentials folder (--tls DIR)")
    security = security_from(tls)
    try:
        client = dd.Client(scheduler, security=security, deserializers=DESERIALIZERS, timeout=CONNECT_TIMEOUT_S)
    except OSError as exc:
        raise ClusterError(f"--scheduler: cannot connect to {scheduler}: {exc}") from None
    return Connection(client)


def _distributed() -> Any:
    """The `distributed` package (untyped: used through Any), or one clear error without the dask extra."""
    try:
        import distributed
    except ImportError as exc:
        raise ClusterError(f"the dask executor needs the dask extra (pip install -e '.[dask]'): {exc}") from None
    return distributed


def run_token(out: Path) -> str:
    """The run's token, kept in `out` so that a restarted driver finds its tasks: read, or made (mode 0600)."""
    path = out / RUN_FILE
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        token = secrets.token_hex(16)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(token + "\n")
        return token
    with os.fdopen(descriptor, encoding="ascii", errors="replace") as handle:
        token = handle.read(64).strip()
    if len(token) != 32 or any(c not in "0123456789abcdef" for c in token):
        raise ClusterError(f"{path} is not a run token; remove it to start a new run")
    return token


def needed_keys(specs: Iterable[AgentSpec]) -> dict[str, str]:
    """The keys the model seats send, by variable name, read from this process's environment."""
    keys: dict[str, str] = {}
    for spec in specs:
        if spec.kind != "llm":
            continue
        # the SDK reads OPENAI_API_KEY itself for a spec that names neither a variable nor a server
        name = spec.api_key_env or (None if spec.base_url else "OPENAI_API_KEY")
        if name and os.environ.get(name):
            keys[name] = os.environ[name]
    return keys


def task_key() -> str:
    """A new batch's Dask key: random, never derived from the tournament, so nobody can claim it first."""
    return f"arena-{secrets.token_hex(16)}"


def _has_models(task: GameTask) -> bool:
    return any(seat.get("kind") in ("llm", "langchain") for seat in task.seats.values())


class DaskExecutor:
    """The executor protocol of `executors.py` over a Dask cluster, with `adopt` for a restarted driver."""

    def __init__(
        self,
        connection: Connection,
        *,
        specs: Iterable[AgentSpec] = (),
        out: Path | None = None,
        shared: bool = False,
        games_per_task: int = 0,
    ) -> None:
        self.connection = connection
        self.client = connection.client
        self.shared = shared
        self.games_per_task = games_per_task
        specs = list(specs)
        self.restartable = out is not None and not connection.local  # a local cluster ends with this process
        self.run = run_token(out) if self.restartable and out is not None else secrets.token_hex(16)
        self.plans: dict[str, ProviderPlan] = cluster_limits(specs, self.run)
        self.topic = f"arena-{self.run}-throttle"
        self.futures: dict[Any, list[GameTask]] = {}
        self.pending: list[GameTask] = []
        self.attempts: dict[int, int] = {}
        self.game_s: list[float] = []  # measured wall time of games played here (advisory, for batching)
        self.notes: list[Message] = []
        self._slots = (0.0, 1)
        self._index: dict[str, list[int]] = {}
        self._index_dirty = False
        if any(spec.kind in ("llm", "langchain") for spec in specs):
            from arena.tournament.dask_worker import warm

            with contextlib.suppress(Exception):  # a worker that fails here fails its first batch, with a reason
                self.client.run(warm)
        self.plugin = f"arena-keys-{self.run}"
        keys = needed_keys(specs)
        if keys:
            from arena.tournament.dask_worker import KeyPlugin

            self.client.register_plugin(KeyPlugin(self.plugin, keys), name=self.plugin)
        else:
            self.plugin = ""

    # -- the run's state on the scheduler, for a restarted driver

    def _variable(self, name: str) -> Any:
        return _distributed().Variable(f"arena-{self.run}-{name}", client=self.client)

    def adopt(self, tasks: Mapping[int, GameTask]) -> set[int]:
        """Take over the batches a previous driver of this run left running; the indices of their games."""
        if not self.restartable:
            return set()
        try:
            index = self._variable("index").get(timeout=1)
        except (TimeoutError, OSError):
            return set()
        adopted: set[int] = set()
        for key, indices in dict(index).items():
            games = [tasks[i] for i in indices if isinstance(i, int) and i in tasks]
            if not games or len(games) != len(indices):
                continue
            try:
                future = self._variable(str(key)).get(timeout=1)
            except (TimeoutError, OSError):
                continue
            if getattr(future, "key", None) != key:
                continue
            self.futures[future] = games
            self._index[str(key)] = [t.index for t in games]
            adopted.update(t.index for t in games)
            self.notes.append(("note", f"adopted {len(games)} game(s) still running on the cluster (task {key})"))
        self._index_dirty = True
        return adopted

    def _save_index(self) -> None:
        if self.restartable and self._index_dirty:
            self._variable("index").set(dict(self._index))
            self._index_dirty = False

    # -- the executor protocol

    def submit(self, task: GameTask) -> None:
        self.pending.append(task)
        self.notes.append(("started", task.index))

    def _per_task(self, waiting: int) -> int:
        if self.games_per_task > 0:
            return self.games_per_task
        if not self.game_s:
            return 1
        mean = sum(self.game_s) / len(self.game_s)
        wanted = math.ceil(TARGET_TASK_S / max(mean, 1e-3))
        spread = max(1, waiting // self._threads())  # every worker thread gets a batch
        return max(1, min(wanted, spread, MAX_GAMES_PER_TASK))

    def _threads(self) -> int:
        checked, count = self._slots
        if time.monotonic() - checked > 5:
            with contextlib.suppress(Exception):
                count = max(1, sum(self.client.nthreads().values()))
            self._slots = (time.monotonic(), count)
        return count

    def _flush(self) -> None:
        for models in (True, False):
            games = [t for t in self.pending if _has_models(t) == models]
            size = self._per_task(len(games))
            for start in range(0, len(games), size):
                self._send(games[start : start + size], models)
        self.pending = []

    def _send(self, games: list[GameTask], models: bool) -> None:
        from arena.tournament.dask_worker import Batch, play_batch, play_batch_in_thread

        sent = [task if self.shared else dataclasses.replace(task, path=None) for task in games]
        batch = Batch(sent, self.plans if models else {}, self.topic)
        key = task_key()
        future = self.client.submit(play_batch if models else play_batch_in_thread, batch, key=key, pure=False)
        self.futures[future] = games
        if self.restartable:
            self._variable(key).set(future)  # holds the task on the cluster if this driver stops
            self._index[key] = [t.index for t in games]
            self._index_dirty = True

    def poll(self, timeout: float) -> list[Message]:
        wait = _distributed().wait
        if self.pending:
            self._flush()
        self._save_index()
        out, self.notes = self.notes, []
        if not self.futures:
            return out
        try:
            done, _ = wait(list(self.futures), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return out
        for future in done:
            games = self.futures.pop(future)
            out.extend(self._finished(future, games))
            self._forget(future)
        out.extend(self.notes)
        self.notes = []
        return out

    def _finished(self, future: Any, games: list[GameTask]) -> list[Message]:
        if future.status != "finished":  # erred or cancelled: its exception is never fetched (it is a pickle)
            return self._again(games, f"its task {future.status} on the cluster")
        try:
            items = future.result()
        except Exception as exc:  # e.g. a pickled object in place of the answer: refused, not unpickled
            return self._again(games, f"its answer is not plain data ({type(exc).__name__}: {str(exc)[:200]})")
        if not isinstance(items, (list, tuple)) or len(items) != len(games):
            return self._again(games, "its answer is not one entry per game")
        out: list[Message] = []
        for task, item in zip(games, items, strict=True):
            try:
                result = accept(task, item, shared=self.shared)
            except Refused as exc:
                out.extend(self._again([task], f"refused: {exc}"))
                continue
            wall = item.get("wall_s") if isinstance(item, Mapping) else None
            if isinstance(wall, float) and 0 <= wall < 86_400:
                self.game_s = [*self.game_s[-63:], wall]
            out.append(("done", result))
        return out

    def _again(self, games: list[GameTask], reason: str) -> list[Message]:
        """Play `games` again under a new key, or report them failed after `ATTEMPTS`."""
        out: list[Message] = []
        for task in games:
            tries = self.attempts[task.index] = self.attempts.get(task.index, 0) + 1
            out.append(("note", f"game {task.index + 1}: {reason}"))
            if self.shared and reason.startswith("refused") and task.path and Path(task.path).exists():
                _set_aside(Path(task.path))
            if tries < ATTEMPTS:
                self.pending.append(task)
            else:
                error = f"not played after {tries} attempts on the cluster; the last: {reason}"
                out.append(("done", GameResult(task.index, "failed", error=error)))
        return out

    def _forget(self, future: Any) -> None:
        key = future.key
        if self.restartable and key in self._index:
            del self._index[key]
            self._index_dirty = True
            with contextlib.suppress(Exception):
                self._variable(key).delete()
        future.release()

    def close(self, *, cancel: bool = False) -> None:
        with contextlib.suppress(Exception):
            if cancel:
                self.client.cancel(list(self.futures))
                for future in list(self.futures):
                    self._forget(future)
            self._save_index()
            if self.restartable and not self._index:
                self._variable("index").delete()
            if self.plugin:
                self.client.unregister_worker_plugin(self.plugin)
            for plan in self.plans.values():
                for name in (plan.concurrency, plan.rate):
                    if name:
                        self.client.sync(self.client.scheduler.semaphore_close, name=name)
        self.client.close()
        if self.connection.cluster is not None:
            self.connection.cluster.close()


def _set_aside(path: Path) -> None:
    """Move a refused game file out of the way (kept for inspection) so the game is played again from scratch."""
    for n in range(1, 1000):
        target = path.with_name(f"{path.name}.refused-{n}")
        if not target.exists() and not target.is_symlink():
            path.rename(target)
            return
