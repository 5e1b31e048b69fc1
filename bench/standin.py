"""The stand-in server's own cost: replay recorded request bodies at a concurrency, print its CPU per request.

    python bench/standin.py [--bodies FILE] [--games 64] [--concurrency 640] [--latency 0.1] [--repeats 1]
    python bench/standin.py --bodies FILE --url http://127.0.0.1:PORT/v1 --pid PID   # a server started elsewhere

The bodies are real: `--games` fiim games, every seat an LLM seat of the project's own client, played at once through
the tournament's local executor against `python -m arena.standin --record` (with no latency), as
`bench/tournament.py` plays them. `--bodies FILE` keeps them in FILE (one JSON string a line) and reuses FILE when it
exists, so repeated runs replay the same requests. Then a fresh stand-in process (latency `--latency`) gets every
body once, in the recorded order, from `--concurrency` keep-alive connections, each sending its next request as soon
as its last answer is in (a minimal HTTP/1.1 client here, so that the load generator's own CPU stays small).

Printed per repeat: requests, wall seconds, requests/s, the server process's CPU seconds (user + system, read with
psutil) and its CPU ms per request, and the load generator's CPU ms per request. The server's CPU per request
depends far less on the machine's load than requests/s does; the load average is printed with them. Nothing is
asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import psutil
from standin_process import start_standin, stop_standin  # the bench directory is not a package

from arena.tournament.executors import LocalExecutor
from arena.tournament.model import load_tournament
from arena.tournament.run import RunOptions, run_tournament
from arena.tournament.schedule import make_schedule


def _server(latency: float, record: Path | None = None) -> tuple[subprocess.Popen[str], str]:
    return start_standin(latency, *(["--record", str(record)] if record else []))


def record(games: int, out: Path) -> list[bytes]:
    """Play `games` games at once (two worker processes) against a recording stand-in; their request bodies."""
    process, base_url = _server(0.0, out)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "agents").mkdir()
            (folder / "agents" / "bench.toml").write_text(
                f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{base_url}"\ntimeout_s = 120\n'
            )
            spec = folder / "t.toml"
            spec.write_text(
                f'name = "standin"\ngames = {games}\nseed = 7\nfiller = "bench"\ntimeout_s = 300\n'
                '[[pool]]\nlabel = "a"\nagent = "bench"\n[[pool]]\nlabel = "b"\nagent = "bench"\ntemperature = 0.5\n'
            )
            t = load_tournament(spec, folder / "agents")
            plans = make_schedule([c.label for c in t.configs], t.filler.label, t.rules, games, t.seed)
            specs = {c.label: c.spec for c in [*t.configs, t.filler]}
            count = min(2, games)
            executor = LocalExecutor(count, -(-games // count), 0.004)
            options = RunOptions(out=folder / "out", jobs=games, progress=False)
            run_tournament(t, plans, specs, lambda: executor, options)
    finally:
        stop_standin(process)
    return load_bodies(out)


def load_bodies(path: Path) -> list[bytes]:
    return [json.loads(line).encode() for line in path.read_text(encoding="utf-8").splitlines() if line]


async def _worker(host: str, port: int, requests: list[bytes], next_index: list[int], done: list[int]) -> None:
    """One keep-alive connection: send the next body, read the whole answer, until none is left."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while next_index[0] < len(requests):
            index = next_index[0]
            next_index[0] += 1
            writer.write(requests[index])
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            await reader.readexactly(length)
            done[0 if status == 200 else 1] += 1
    finally:
        writer.close()


async def replay(base_url: str, bodies: list[bytes], concurrency: int) -> tuple[int, int]:
    """Every body once, over `concurrency` connections; (answers with 200, other answers)."""
    parts = urlsplit(base_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    path = f"{parts.path.rstrip('/')}/chat/completions".encode()
    head = b"POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\nAuthorization: Bearer sk-local\r\n"
    requests = [head % (path, host.encode(), port) + b"Content-Length: %d\r\n\r\n%s" % (len(b), b) for b in bodies]
    next_index, done = [0], [0, 0]
    await asyncio.gather(*(_worker(host, port, requests, next_index, done) for _ in range(concurrency)))
    return done[0], done[1]


def measure(base_url: str, pid: int, bodies: list[bytes], concurrency: int) -> dict[str, float]:
    server = psutil.Process(pid)
    load = os.getloadavg()[0]
    server_cpu, cpu, started = sum(server.cpu_times()[:2]), time.process_time(), time.perf_counter()
    ok, other = asyncio.run(replay(base_url, bodies, concurrency))
    wall = time.perf_counter() - started
    server_cpu, cpu = sum(server.cpu_times()[:2]) - server_cpu, time.process_time() - cpu
    total = ok + other
    return {
        "requests": total,
        "errors": other,
        "wall_s": round(wall, 2),
        "requests_per_s": round(total / wall, 1),
        "server_cpu_s": round(server_cpu, 2),
        "server_ms_per_request": round(server_cpu / total * 1000, 3),
        "client_ms_per_request": round(cpu / total * 1000, 3),
        "load_before": round(load, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bodies", type=Path, help="keep the recorded bodies here (reused when it exists)")
    parser.add_argument("--games", type=int, default=64, help="games played at once to record the bodies")
    parser.add_argument("--concurrency", type=int, default=640, help="connections sending at once")
    parser.add_argument("--latency", type=float, default=0.1, help="the stand-in's latency in seconds")
    parser.add_argument("--repeats", type=int, default=1, help="replays, each against a fresh server")
    parser.add_argument("--url", help="replay against this running stand-in instead of starting one")
    parser.add_argument("--pid", type=int, help="the process id of the stand-in at --url (for its CPU)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per repeat")
    args = parser.parse_args()
    if args.url and not args.pid:
        parser.error("--url needs --pid (the server's CPU is read from its process)")
    if args.bodies and args.bodies.exists():
        bodies = load_bodies(args.bodies)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            bodies = record(args.games, args.bodies or Path(tmp) / "bodies.jsonl")
    size = sum(map(len, bodies)) / max(len(bodies), 1)
    if not args.json:
        print(f"{len(bodies)} request bodies (mean {size / 1024:.1f} KiB), {args.concurrency} connections, "
              f"server latency {args.latency * 1000:.0f} ms, {os.cpu_count()} CPUs")  # fmt: skip
        print(f"{'requests':>8} {'errors':>6} {'wall s':>7} {'requests/s':>10} {'server CPU s':>12} "
              f"{'server ms/req':>13} {'client ms/req':>13} {'load':>5}")  # fmt: skip
    for _ in range(args.repeats):
        if args.url:
            r = measure(args.url, args.pid, bodies, args.concurrency)
        else:
            process, base_url = _server(args.latency)
            try:
                time.sleep(0.5)  # its imports are done before the clock starts
                r = measure(base_url, process.pid, bodies, args.concurrency)
            finally:
                stop_standin(process)
        if args.json:
            print(json.dumps(r), flush=True)
        else:
            print(f"{r['requests']:>8} {r['errors']:>6} {r['wall_s']:>7.2f} {r['requests_per_s']:>10.1f} "
                  f"{r['server_cpu_s']:>12.2f} {r['server_ms_per_request']:>13.3f} "
                  f"{r['client_ms_per_request']:>13.3f} {r['load_before']:>5.1f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
