"""Tournament throughput against the local stand-in server, and the cost estimate against the measured cost.

    python bench/tournament.py [--latency 0.1] [--ns 1 4 16 64] [--processes 2] [--json]
    python bench/tournament.py --ns --cost-runs 4     # only the estimate against the measured cost, 4 times

Every seat of every game is an LLM seat (fiim, 10 seats) talking to `arena.standin` in its own process, which
answers each request after exactly `latency` seconds. For each N, N games start at once through the tournament's
local executor (a process pool; each process runs its games on one event loop with one HTTP client and one limiter
per provider). Printed per N:

- games/s = N / wall time of the wave;
- efficiency = games/s divided by what latency alone allows, N / one game's critical path. The critical path is the
  game's sequential chain of round trips times the latency: per batch of requests (a speech, a vote round, the night
  actors, asked together), the most calls one seat of it made (a re-ask or a retry is one more trip), summed over
  the game. The wave cannot end before its longest game, so the longest game's critical path is used;
- peak RSS of the run (the driver and its worker processes, sampled every 0.1 s);
- client CPU seconds (the driver and the workers) and the stand-in's CPU seconds, in all and per call: the two
  share this machine's cores, so together they bound what the cores allow. A worker's start (its imports, before
  the clock starts) is once per process, not per call: it is left out of the client's figures and printed apart
  ("start CPU s", 1.3 to 1.8 s for two workers; with it, a 64-game wave's client ms/call read about 0.2 higher, a
  16-game wave's about 0.7 higher);
- the mean round trip of a call as the client saw it (the server's latency plus the waits for a core on both sides);
- the load average (1 min) when the wave started, and the CPU bound: the efficiency the machine's cores would allow
  if this run had them to itself, critical path / ((client + server CPU) / cores), capped at 1; and the burst bound:
  the same with the games in step (see `burst_bound`), where a vote round's calls of all N games need their CPU at
  once.

Each worker process starts its games `--stagger` seconds apart (the executor's default, 4 ms), counted in the wall
time. Then a long run: `--long` games (192) through max(ns) slots, whose games desynchronise as they finish and new
ones start; its efficiency uses the mean game's critical path (N slots allow N games per critical path), so the last
wave's tail counts against it, and its CPU bound is cores / CPU per game over that. The burst bound is printed only
for one wave started at once without stagger.

`--json` prints one JSON object per line per N (and one for the long run) with the keys n, games_per_s and
efficiency (and the rest). `--parts GAMES` then measures the client's CPU per call by part (the view, the prompt
render, injection quoting and flags, the conversation, the JSON body, HTTP, the answer, the call record, the
transcript lines, the engine, the rest) over GAMES games in one process (`bench/client_profile.py`, sampled on the
CPU clock) and prints them (with --json, one more line: `client_parts`).
Nothing is asserted: the figures depend on the machine and its load, so the load average is printed with them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import psutil
from standin_process import start_standin, stop_standin  # the bench directory is not a package

from arena.agents import AgentSpec
from arena.tournament.cost import calibrate, estimate, relative_se
from arena.tournament.dask_executor import DESERIALIZERS, Connection, DaskExecutor
from arena.tournament.dask_local import LocalProcesses
from arena.tournament.executors import DEFAULT_STAGGER_S, Executor, LocalExecutor
from arena.tournament.model import load_tournament
from arena.tournament.play import GameResult, GameTask
from arena.tournament.run import RunOptions, run_tournament
from arena.tournament.schedule import make_schedule
from arena.transcript import load

PRICES = "price_input_per_m = 1.0\nprice_cached_per_m = 0.25\nprice_output_per_m = 4.0\n"


def _server(latency: float, salt: str = "") -> tuple[subprocess.Popen[str], str]:
    vary = ["--salt", salt, "--vary"] if salt else []  # the cost check: a sampling model's answers
    return start_standin(latency, *vary)


def _tournament(folder: Path, base_url: str, games: int, seed: int, limit: int = 0) -> Path:
    agents = folder / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    cap = f"max_concurrent_requests = {limit}\n" if limit else ""
    (agents / "bench.toml").write_text(
        f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{base_url}"\ntimeout_s = 120\n{PRICES}{cap}'
    )
    spec = folder / f"t{games}.toml"
    spec.write_text(
        f'name = "bench"\ngames = {games}\nseed = {seed}\nfiller = "bench"\ntimeout_s = 300\n'
        '[[pool]]\nlabel = "a"\nagent = "bench"\n[[pool]]\nlabel = "b"\nagent = "bench"\ntemperature = 0.5\n'
    )
    return spec


class PeakRSS:
    """Samples the RSS of this process and its children until stopped; `cpu_s` is this thread's own CPU so far
    (the bench's work, in the driver's process, which `wave` takes out of the client's)."""

    def __init__(self) -> None:
        self.peak = 0
        self.cpu_s = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = psutil.Process()
        processes: list[psutil.Process] = []
        for tick in range(10**9):  # bounded by the run; stopped by __exit__
            if self._stop.wait(0.1):
                break
            if tick % 10 == 0:  # finding the children walks every process of the machine: once a second, not each
                # sample (it was most of the driver's CPU, counted as the client's)
                with contextlib.suppress(psutil.Error):
                    processes = [me, *me.children(recursive=True)]
            total = 0
            for process in processes:
                with contextlib.suppress(psutil.Error):
                    total += process.memory_info().rss
            self.peak = max(self.peak, total)
            self.cpu_s = time.thread_time()  # this thread's own CPU so far: the bench's work, not the client's

    def __enter__(self) -> PeakRSS:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _settle(limit_s: float = 20.0) -> None:
    """Wait until the worker processes stop using CPU (their imports are done), at most `limit_s`."""
    me = psutil.Process()
    deadline = time.monotonic() + limit_s
    last = -1.0
    while time.monotonic() < deadline:
        time.sleep(0.3)
        used = sum(sum(p.cpu_times()[:2]) for p in me.children(recursive=True) if p.is_running())
        if used == last:
            return
        last = used


def _start_cpu(executor: LocalExecutor) -> float:
    """The CPU the worker processes used so far (their start: imports, the warm-up before the first game)."""
    total = 0.0
    for worker in executor.workers:
        with contextlib.suppress(psutil.Error, AttributeError):
            total += sum(psutil.Process(worker.pid).cpu_times()[:2])
    return total


class _Closing:
    """The local executor, with the workers' CPU read just before they are told to stop: what they use after it
    (their exit, the interpreter's teardown) is `exit_cpu` once they were reaped."""

    def __init__(self, executor: LocalExecutor) -> None:
        self.executor = executor
        self.before_close = 0.0
        self.children_at_close = 0.0

    def submit(self, task: GameTask) -> None:
        self.executor.submit(task)

    def poll(self, timeout: float) -> list[Any]:
        return self.executor.poll(timeout)

    def close(self, *, cancel: bool = False) -> None:
        self.before_close = _start_cpu(self.executor)  # the live workers' CPU so far
        times = psutil.Process().cpu_times()
        self.children_at_close = times.children_user + times.children_system
        self.executor.close(cancel=cancel)

    def exit_cpu(self) -> float:
        times = psutil.Process().cpu_times()
        reaped = times.children_user + times.children_system - self.children_at_close  # the workers, whole
        return max(float(reaped) - self.before_close, 0.0)


def _cpu() -> float:
    me = psutil.Process()
    times = me.cpu_times()
    return float(times.user + times.system + times.children_user + times.children_system)


def _cluster_cpu(cluster: LocalProcesses | None) -> float:
    """The CPU the cluster's scheduler and worker processes used so far (they live through several waves)."""
    total = 0.0
    for process in [] if cluster is None else [cluster.scheduler, *cluster.workers]:
        with contextlib.suppress(psutil.Error, AttributeError):
            top = psutil.Process(process.pid)  # type: ignore[union-attr]
            for one in [top, *top.children(recursive=True)]:  # a nanny's worker process is its child
                with contextlib.suppress(psutil.Error):
                    total += sum(one.cpu_times()[:2])
    return total


def _dask_executor(cluster: LocalProcesses, specs: dict[str, AgentSpec]) -> DaskExecutor:
    client = cluster.client(deserializers=DESERIALIZERS)
    return DaskExecutor(Connection(client), specs=specs.values(), games_per_task=1)


def wave(
    folder: Path, base_url: str, n: int, latency: float, processes: int, server_pid: int, stagger: float,
    games: int = 0, cluster: LocalProcesses | None = None, limit: int = 0,
) -> dict[str, float]:  # fmt: skip
    """N games at once; with `games` > N, a long run of that many games through N slots; with `cluster`, through
    the Dask executor on it (and `limit`: a provider limit of that many concurrent requests)."""
    total = max(games, n)
    spec = _tournament(folder, base_url, total, seed=100 + n + total, limit=limit)
    t = load_tournament(spec, folder / "agents")
    plans = make_schedule([c.label for c in t.configs], t.filler.label, t.rules, total, t.seed)
    specs = {c.label: c.spec for c in [*t.configs, t.filler]}
    count = max(1, min(processes, n))
    options = RunOptions(out=folder / f"out{n}", jobs=n, progress=False)
    server = psutil.Process(server_pid)
    cores = os.cpu_count() or 1
    load_before = os.getloadavg()[0]
    with PeakRSS() as rss:
        executor: Executor
        if cluster is None:
            executor = LocalExecutor(count, math.ceil(n / count), stagger)
            _settle()  # the workers import their modules before the clock starts: a long tournament amortises that
            start_cpu = _start_cpu(executor)  # counted in `cpu` once the workers are reaped: taken out, printed apart
        else:
            executor, start_cpu, count = _dask_executor(cluster, specs), 0.0, len(cluster.workers)
        server_cpu = sum(server.cpu_times()[:2])
        cpu = _cpu() + _cluster_cpu(cluster)
        driver_cpu = sum(psutil.Process().cpu_times()[:2])
        sampler_cpu = rss.cpu_s
        closing = _Closing(executor) if isinstance(executor, LocalExecutor) else None
        started = time.perf_counter()
        state = run_tournament(t, plans, specs, lambda: closing or executor, options)
        wall = time.perf_counter() - started
        cpu = _cpu() + _cluster_cpu(cluster) - cpu - start_cpu
        driver_cpu = sum(psutil.Process().cpu_times()[:2]) - driver_cpu
        sampler_cpu = rss.cpu_s - sampler_cpu  # (to its last tick, a tenth of a second at most before now)
    # taken out of the client's CPU and printed apart, as the workers' start is: the bench's RSS sampler (its own
    # work, a thread of the driver's process), and the workers' exit after the last game (the interpreter's
    # teardown, once per worker however long the tournament); `client_ms_per_call_all` keeps both
    cpu_all = cpu
    close_cpu = closing.exit_cpu() if closing is not None else 0.0
    cpu -= sampler_cpu + close_cpu
    driver_cpu -= sampler_cpu
    server_cpu = sum(server.cpu_times()[:2]) - server_cpu
    done = [r for r in state.results.values() if r.status == "complete"]
    if total == n:  # one wave cannot end before its longest game
        critical = max(r.call_rounds for r in done) * latency
    else:  # N slots kept busy: N games per mean critical path (the last wave's tail counts against the run)
        critical = sum(r.call_rounds for r in done) / len(done) * latency
    games_per_s = len(done) / wall
    allowed = n / critical
    calls = sum(int(r.total.get("calls", 0)) for r in done)
    latencies = [c.latency_ms for path in (folder / f"out{n}").glob("game-*.jsonl") for c in load(path).calls]
    return {
        "executor": "local" if cluster is None else "dask",
        "limit": limit,
        "n": n,
        "games_per_s": round(games_per_s, 3),
        "efficiency": round(games_per_s / allowed, 3),
        "wall_s": round(wall, 2),
        "critical_s": round(critical, 2),
        "games": len(done),
        "stagger_ms": round(stagger * 1000, 1),
        "processes": count,
        "peak_rss_mb": round(rss.peak / 2**20, 1),
        "sampler_cpu_s": round(sampler_cpu, 3),  # not in client_cpu_s: the bench's RSS sampler thread
        "exit_cpu_s": round(close_cpu, 3),  # not in client_cpu_s: the workers' exit after their last game
        "client_cpu_s": round(cpu, 2),
        "start_cpu_s": round(start_cpu, 2),
        "driver_cpu_s": round(driver_cpu, 2),  # part of client_cpu_s: the driver process (schedule, manifest, RSS)
        "server_cpu_s": round(server_cpu, 2),
        "calls": calls,
        "client_ms_per_call": round(cpu / calls * 1000, 3) if calls else 0.0,
        # with the sampler and the workers' exit, as the bench counted before 6 Dec
        "client_ms_per_call_all": round(cpu_all / calls * 1000, 3) if calls else 0.0,
        "server_ms_per_call": round(server_cpu / calls * 1000, 3) if calls else 0.0,
        # the client's CPU per call in units of the stand-in's: the host's speed, which moves both by a tenth from
        # one wave to the next here, mostly cancels out
        "client_per_server_cpu": round(cpu / server_cpu, 3) if server_cpu > 0 else 0.0,
        "load_before": round(load_before, 2),
        # the round trip each call saw: above the server's latency by the time both sides waited for a core
        "mean_call_ms": round(sum(latencies) / len(latencies), 1) if latencies else 0.0,
        # what two idle cores would allow: the wave needs its critical path, and its CPU (both sides) over the cores
        # (for a long run: the games/s the cores allow, cores / CPU per game, over the N / critical path allowed)
        "cpu_bound_efficiency": round(min(1.0, critical * len(done) / n / ((cpu + server_cpu) / cores)), 3),
        # in step only in a single wave started at once; staggered starts or later waves are not
        "burst_bound_efficiency": round(burst_bound(done, n, latency, (cpu + server_cpu) / max(calls, 1), critical), 3)
        if total == n and stagger == 0 and cluster is None
        else -1.0,  # not computed: printed as "-", and strict JSON has no NaN
        # with a provider limit of C concurrent requests, C / latency requests a second at most: games/s over that
        "limit_efficiency": round(games_per_s / (limit / latency / (calls / len(done))), 3) if limit and done else -1.0,
    }


def _bound(value: float) -> str:
    return "-" if value < 0 else f"{value:.3f}"


def burst_bound(done: list[GameResult], n: int, latency: float, cpu_per_call: float, critical: float) -> float:
    """The efficiency idle cores would allow if the N games ran in step (they start together, so they do at first):
    a batch of k calls in every game is k * N calls whose CPU (client and server, `cpu_per_call` each) the cores
    must give before the batch is answered, so it takes max(latency, k * N * cpu_per_call / cores). A vote round of
    10 seats in 64 games is 640 calls at once."""
    cores = os.cpu_count() or 1
    longest = max(sum(max(latency, k * n * cpu_per_call / cores) for k in r.batch_calls if k) for r in done)
    return min(1.0, critical / longest)


def cost_check(folder: Path, games: int, calibration: int, processes: int, salt: str) -> dict[str, Any]:
    """Estimate a tournament's cost from calibration games, then run it against a stand-in and compare.

    The tournament's stand-in runs in its own process with `salt` mixed into its answers and `--vary` (a seating the
    schedule repeats is played another way, as by a sampling model), so its games are other draws than the
    calibration's (a private stand-in without salt, as `arena tournament` uses): the estimate is judged out of sample,
    as it would be against a real model's own randomness."""
    process, base_url = _server(0.0, salt)
    try:
        spec = _tournament(folder, base_url, games, seed=7)
        t = load_tournament(spec, folder / "agents")
        plans = make_schedule([c.label for c in t.configs], t.filler.label, t.rules, games, t.seed)
        started = time.perf_counter()
        guess = estimate(t, plans, calibrate(t, plans, calibration), calibration)
        calibration_s = time.perf_counter() - started
        specs = {c.label: c.spec for c in [*t.configs, t.filler]}
        count = max(1, min(processes, games))
        options = RunOptions(out=folder / "cost", jobs=games, progress=False)
        state = run_tournament(t, plans, specs, lambda: LocalExecutor(count, math.ceil(games / count)), options)
    finally:
        stop_standin(process)
    measured = state.spent
    done = [r for r in state.results.values() if r.status == "complete"]
    return {
        "salt": salt,
        "estimate_prompt": round(guess.total.prompt_tokens),
        "measured_prompt": sum(int(r.total.get("prompt_tokens", 0)) for r in done),
        "estimate_cached": round(guess.total.cached_tokens),
        "measured_cached": sum(int(r.total.get("cached_tokens", 0)) for r in done),
        "estimate_calls": round(guess.total.calls),
        "measured_calls": sum(int(r.total.get("calls", 0)) for r in done),
        "games": len(done),
        "calibration_games": guess.calibration_games,
        "calibration_s": round(calibration_s, 1),
        "estimate_usd": round(guess.total.usd, 4),
        "estimate_rse": round(guess.rse, 4),
        "measured_usd": round(measured, 4),
        "measured_rse": round(relative_se([r.cost_usd for r in done]), 4),
        "ratio": round(guess.total.usd / measured, 3) if measured else float("nan"),
    }


def _client_parts(games: int) -> dict[str, Any]:
    """The client's CPU per call by part (`bench/client_profile.py`, sampled on the CPU clock, so its shares do
    not depend on the load): the view, the prompt render, injection quoting and flags, the conversation, the JSON
    body, HTTP, the answer, the call record, the transcript lines, the engine, and the rest."""
    script = Path(__file__).with_name("client_profile.py")
    out = subprocess.run([sys.executable, str(script), "--games", str(games)], capture_output=True, text=True,
                         check=True)  # fmt: skip
    data: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return {"client_parts": data["parts"], "parts_games": data["games"], "parts_calls": data["calls"],
            "parts_ms_per_call": data["ms_per_call"], "parts_load": data["load"]}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.1, help="seconds the server takes per answer")
    parser.add_argument("--ns", type=int, nargs="*", default=[1, 4, 16, 64], help="games at once")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--stagger", type=float, default=DEFAULT_STAGGER_S, help="seconds between a process's starts")
    parser.add_argument("--long", type=int, default=192, help="games of the long run through max(ns) slots (0: skip)")
    parser.add_argument("--cost-games", type=int, default=128, help="games of the estimate check (0: skip)")
    parser.add_argument("--calibration-games", type=int, default=3, help="at least this many (as the CLI's option)")
    parser.add_argument("--cost-runs", type=int, default=1, help="repeat the estimate check, each with other answers")
    parser.add_argument("--json", action="store_true", help="one JSON object per line per N")
    parser.add_argument("--parts", type=int, default=0, metavar="GAMES",
                        help="then the client's CPU per call by part over GAMES games in one process "
                             "(bench/client_profile.py; with --json, one more line)")  # fmt: skip
    parser.add_argument("--executor", choices=["local", "dask"], default="local",
                        help="dask: each N through the local executor and then through Dask (2 worker processes)")
    parser.add_argument("--limit", type=int, default=32,
                        help="with --executor dask: then a wave of max(ns) games under this provider limit (0: skip)")
    args = parser.parse_args()
    if args.executor == "dask":
        dask_bench(args)
        return
    process, base_url = _server(args.latency)
    rows: list[dict[str, float]] = []
    costs: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for n in args.ns:
                rows.append(wave(Path(tmp) / f"n{n}", base_url, n, args.latency, args.processes, process.pid,
                                 args.stagger))  # fmt: skip
                if args.json:
                    print(json.dumps(rows[-1]), flush=True)
            if args.ns and args.long > max(args.ns):
                slots = max(args.ns)
                rows.append(wave(Path(tmp) / f"long{slots}", base_url, slots, args.latency, args.processes,
                                 process.pid, args.stagger, args.long))  # fmt: skip
                if args.json:
                    print(json.dumps(rows[-1]), flush=True)
            if args.cost_games and not args.json:
                for run in range(1, max(args.cost_runs, 1) + 1):
                    costs.append(cost_check(Path(tmp) / f"cost{run}", args.cost_games, args.calibration_games,
                                            args.processes, f"run-{run}"))  # fmt: skip
    finally:
        stop_standin(process)
    parts = _client_parts(args.parts) if args.parts else None
    if args.json:
        if parts is not None:
            print(json.dumps(parts), flush=True)
        return
    load = os.getloadavg()[0]
    print(f"fiim, 10 LLM seats per game, server latency {args.latency * 1000:.0f} ms, {args.processes} worker "
          f"processes, {os.cpu_count()} CPUs, starts {args.stagger * 1000:g} ms apart per process, load average "
          f"{load:.1f} at the end")  # fmt: skip
    print(f"{'N':>4} {'games':>5} {'games/s':>8} {'efficiency':>10} {'wall s':>7} {'critical s':>10} "
          f"{'peak RSS MB':>11} {'client CPU s':>12} {'start CPU s':>11} {'server CPU s':>12} {'calls':>6} "
          f"{'client ms/call':>14} "
          f"{'server ms/call':>14} {'load':>5} {'CPU bound':>9} {'burst bound':>11} {'call ms':>7}")  # fmt: skip
    for r in rows:
        print(f"{r['n']:>4} {r['games']:>5} {r['games_per_s']:>8.3f} {r['efficiency']:>10.3f} {r['wall_s']:>7.2f} "
              f"{r['critical_s']:>10.2f} {r['peak_rss_mb']:>11.1f} {r['client_cpu_s']:>12.2f} "
              f"{r['start_cpu_s']:>11.2f} "
              f"{r['server_cpu_s']:>12.2f} {r['calls']:>6} {r['client_ms_per_call']:>14.3f} "
              f"{r['server_ms_per_call']:>14.3f} {r['load_before']:>5.1f} "
              f"{r['cpu_bound_efficiency']:>9.3f} {_bound(r['burst_bound_efficiency']):>11} "
              f"{r['mean_call_ms']:>7.1f}")  # fmt: skip
    for cost in costs:
        print(f"cost ({cost['salt']}): estimate ${cost['estimate_usd']:.4f} ±{1.96 * cost['estimate_rse']:.1%} from "
              f"{cost['calibration_games']} calibration games ({cost['calibration_s']} s), measured "
              f"${cost['measured_usd']:.4f} ±{1.96 * cost['measured_rse']:.1%} over {cost['games']} games: "
              f"estimate/measured = {cost['ratio']}")  # fmt: skip
        for name in ("calls", "prompt", "cached"):
            guess, got = cost[f"estimate_{name}"], cost[f"measured_{name}"]
            print(f"  {name}: estimate {guess:,.0f}, measured {got:,.0f} ({guess / got if got else 0:.3f})")
    if parts is not None:
        print(f"client CPU per call by part ({parts['parts_games']} games in one process, {parts['parts_calls']} "
              f"calls, {parts['parts_ms_per_call']:.3f} ms/call, load {parts['parts_load']:.1f}):")  # fmt: skip
        for name, part in parts["client_parts"].items():
            print(f"  {name:<40} {part['us_per_call']:>7.1f} us  {part['share']:>6.1%}")


def peak_in_flight(base_url: str) -> dict[str, int]:
    """The stand-in's own count: the most requests it held at once, and how many it answered."""
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/stats", timeout=10) as response:
        data = json.loads(response.read())
    return {"peak": int(data["peak_in_flight"]), "requests": int(data["requests"])}


def dask_bench(args: argparse.Namespace) -> None:
    """`--executor dask`: for each N a wave through the local executor and one through Dask on a scheduler and two
    worker processes on 127.0.0.1 (TLS, as `--executor dask` starts them), then a wave of max(ns) games under a
    provider limit of `--limit` concurrent requests, against a new stand-in whose peak of requests in flight is
    read from it."""
    ns = args.ns if args.ns != [1, 4, 16, 64] else [16, 64, 256]
    workers = 2
    rows: list[dict[str, float]] = []
    process, base_url = _server(args.latency)
    cluster = LocalProcesses(workers, math.ceil(max(ns) / workers))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cluster.client().close()  # every worker has joined
            for n in ns:
                for name, on in (("local", None), ("dask", cluster)):
                    rows.append(wave(Path(tmp) / f"{name}{n}", base_url, n, args.latency, workers, process.pid,
                                     args.stagger, cluster=on))  # fmt: skip
                    if args.json:
                        print(json.dumps(rows[-1]), flush=True)
            if args.limit:
                limited, limited_url = _server(args.latency)
                try:
                    row = wave(Path(tmp) / "limit", limited_url, max(ns), args.latency, workers, limited.pid,
                               args.stagger, cluster=cluster, limit=args.limit)  # fmt: skip
                    seen = peak_in_flight(limited_url)
                finally:
                    stop_standin(limited)
                rows.append({**row, "peak_in_flight": seen["peak"], "server_requests": seen["requests"]})
                if args.json:
                    print(json.dumps(rows[-1]), flush=True)
    finally:
        cluster.close()
        stop_standin(process)
    if args.json:
        return
    print(f"fiim, 10 LLM seats per game, server latency {args.latency * 1000:.0f} ms, {workers} worker processes "
          f"(local: a process pool; dask: dask worker processes with a scheduler, TLS), {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at the end")  # fmt: skip
    print(f"{'executor':>8} {'limit':>5} {'N':>4} {'games/s':>8} {'efficiency':>10} {'wall s':>7} "
          f"{'critical s':>10} {'client ms/call':>14} {'server ms/call':>14} {'call ms':>7} {'load':>5} "
          f"{'peak at server':>14}")  # fmt: skip
    for r in rows:
        peak = str(r.get("peak_in_flight", "-"))
        efficiency = r["limit_efficiency"] if r["limit"] else r["efficiency"]
        print(f"{r['executor']:>8} {r['limit'] or '-':>5} {r['n']:>4} {r['games_per_s']:>8.3f} {efficiency:>10.3f} "
              f"{r['wall_s']:>7.2f} {r['critical_s']:>10.2f} {r['client_ms_per_call']:>14.3f} "
              f"{r['server_ms_per_call']:>14.3f} {r['mean_call_ms']:>7.1f} {r['load_before']:>5.1f} "
              f"{peak:>14}")  # fmt: skip
    if args.limit:
        print(f"(with a limit, efficiency is games/s over what {args.limit} requests in flight allow: "
              f"{args.limit} / latency / calls per game)")


if __name__ == "__main__":
    main()
