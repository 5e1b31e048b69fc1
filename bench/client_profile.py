"""The tournament client's CPU per call, by part, in one process, sampled on the process's CPU clock.

    python bench/client_profile.py --games 32                  # CPU ms per call, and each part's share and us/call
    python bench/client_profile.py --games 32 --plain          # no sampling: the process CPU per call only
    python bench/client_profile.py --games 8 --cprofile 30     # cProfile: Python calls per call, top functions
    PYTHONPATH=OLD_TREE python bench/client_profile.py ...     # the same games' path in another tree (run from it)

`--games` fiim games with every seat an LLM seat (the agent and tournament of `bench/tournament.py`) run at once on
one event loop in this process, as a tournament worker runs them (`play_task`, aiohttp, the worker's GC tuning),
against the stand-in in its own process (latency 0 by default: the client's work per call does not depend on it).

The parts: a timer on the process's CPU clock (`ITIMER_PROF`, user + system time, every `--interval` ms of CPU)
interrupts the games, and each sample goes to the innermost part on the Python stack (`PARTS`: the functions that
enter it), else "other" (the orchestrator, asyncio, the engine's other moves, the seat's glue). Samples count CPU
time only, so the shares do not depend on the machine's load; a C call (json, re, hashlib, a socket send) counts
for the Python function that made it. A part's us/call is its share of the process CPU per call.
`--plain` plays the same games with no timer. Callgrind (`valgrind --tool=callgrind`, this script with --plain,
--games N minus --games 0) counts the client's instructions per call, which do not depend on the load at all.

Runs on older trees too (only the tournament's public functions are used), so a before/after pair is this script
run from each tree with PYTHONPATH set to it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import json
import os
import pstats
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.llm.pool import use_aiohttp
from arena.tournament.model import load_tournament
from arena.tournament.play import play_task
from arena.tournament.run import task_for
from arena.tournament.schedule import make_schedule

# part -> the functions that enter it (file suffix, name); a sample goes to the innermost of them on the stack
PARTS: dict[str, list[tuple[str, str]]] = {
    "view (per-viewer numbering)": [("arena/engine/view.py", "view"), ("arena/engine/view.py", "as_seen")],
    "prompt render": [("arena/llm/conversation.py", "turn"), ("arena/llm/conversation.py", "role_prompt")],
    "injection quoting and flags": [("arena/llm/injection.py", "quote"), ("arena/llm/injection.py", "flags")],
    "conversation and compaction": [
        ("arena/llm/conversation.py", "fit"),
        ("arena/llm/conversation.py", "request_messages"),
        ("arena/llm/conversation.py", "commit"),
        ("arena/llm/conversation.py", "answer_messages"),
    ],
    "JSON body": [("arena/llm/direct.py", "dumps"), ("arena/llm/client.py", "body")],
    "HTTP (aiohttp) and the answer's JSON": [("arena/llm/direct.py", "post")],
    "answer read": [("arena/llm/answer.py", "read_completion")],
    "call record": [("arena/llm/seat.py", "record")],
    "transcript lines": [
        (writer, name)
        for writer in ("arena/transcript/writer.py", "arena/" + "transcript.py")  # (the older trees' one module)
        for name in ("call", "input", "event", "sync_events", "_write")
    ],
    "engine moves": [("arena/engine/game.py", "submit"), ("arena/engine/game.py", "check")],
}


class _Match:
    """`(path, name) in _Match(entries)`: the path ends with an entry's file and the name is its function's."""

    def __init__(self, entries: list[tuple[str, str]]) -> None:
        self.entries = entries

    def __contains__(self, item: tuple[str, str]) -> bool:
        path, name = item
        return any(path.endswith(suffix) and name == fn for suffix, fn in self.entries)


class Sampler:
    """Samples the main thread's Python stack every `interval` seconds of this process's CPU time."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.counts: dict[str, int] = dict.fromkeys([*PARTS, "other"], 0)
        self._parts: dict[Any, str] = {}  # code object -> its part, or "" when it enters none
        self.where: dict[str, int] = {}  # the innermost frame of the arena's own code, per sample

    def _part(self, code: Any) -> str:
        found = self._parts.get(code)
        if found is None:
            path = code.co_filename.replace(os.sep, "/")
            found = next(
                (
                    part
                    for part, entries in PARTS.items()
                    if any(path.endswith(f) and code.co_name == n for f, n in entries)
                ),
                "",
            )
            self._parts[code] = found
        return found

    def _sample(self, signum: int, frame: Any) -> None:
        inner = frame
        while inner is not None and "/arena/" not in inner.f_code.co_filename:
            inner = inner.f_back
        if inner is not None:
            code = inner.f_code
            key = f"{code.co_filename.rpartition('/arena/')[2]}:{code.co_name}"
            self.where[key] = self.where.get(key, 0) + 1
        while frame is not None:
            part = self._part(frame.f_code)
            if part:
                self.counts[part] += 1
                return
            frame = frame.f_back
        self.counts["other"] += 1

    def __enter__(self) -> Sampler:
        signal.signal(signal.SIGPROF, self._sample)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, signal.SIG_DFL)

    def parts(self, cpu_s: float, calls: int) -> dict[str, dict[str, float]]:
        total = max(sum(self.counts.values()), 1)
        return {
            part: {"share": round(n / total, 4), "us_per_call": round(n / total * cpu_s / calls * 1e6, 1)}
            for part, n in self.counts.items()
        }


def _tournament(folder: Path, base_url: str, games: int) -> Path:
    agents = folder / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "bench.toml").write_text(
        f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{base_url}"\ntimeout_s = 120\n'
    )
    spec = folder / "t.toml"
    spec.write_text(
        f'name = "bench"\ngames = {max(games, 1)}\nseed = 7\nfiller = "bench"\ntimeout_s = 300\n'
        '[[pool]]\nlabel = "a"\nagent = "bench"\n[[pool]]\nlabel = "b"\nagent = "bench"\ntemperature = 0.5\n'
    )
    return spec


async def _play(tasks: list[Any]) -> list[Any]:
    use_aiohttp()
    return await asyncio.gather(*(play_task(t) for t in tasks))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--plain", action="store_true", help="no sampling: the process CPU per call only")
    parser.add_argument("--interval", type=float, default=0.5, help="ms of CPU between samples")
    parser.add_argument("--where", type=int, default=0, help="also the N innermost arena functions most sampled")
    parser.add_argument("--cprofile", type=int, metavar="TOP", help="cProfile instead: calls per call, top functions")
    parser.add_argument("--dump", type=Path, help="with --cprofile: write the profile (pstats) here")
    args = parser.parse_args()
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.standin", "--port", "0", "--latency", str(args.latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    base_url = process.stdout.readline().strip()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            spec = _tournament(folder, base_url, args.games)
            t = load_tournament(spec, folder / "agents")
            plans = make_schedule(
                [c.label for c in t.configs], t.filler.label, t.rules, max(args.games, 1), t.seed
            )
            specs = {c.label: c.spec for c in [*t.configs, t.filler]}
            (folder / "out").mkdir()
            tasks = [task_for(t, plan, specs, folder / "out") for plan in plans[: args.games]]
            try:  # a worker's start-up before its first game (the LLM stack, the prompt set compiled)
                from arena.tournament.executors import warm_up
            except ImportError:  # an older tree: as its worker did it
                import arena.players.llm  # noqa: F401
                from arena.prompts import load_prompt_set

                load_prompt_set()
            else:
                warm_up()
            gc.collect()
            gc.freeze()
            gc.set_threshold(50_000, 20, 100)  # the worker's tuning (arena/tournament/executors.py)
            profiler = cProfile.Profile() if args.cprofile is not None else None
            sampler = Sampler(args.interval / 1000) if not args.plain and profiler is None else None
            cpu, wall = time.process_time(), time.perf_counter()
            with sampler or contextlib.nullcontext(), profiler or contextlib.nullcontext():
                results = asyncio.run(_play(tasks)) if tasks else []
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        process.terminate()
        process.wait(timeout=10)
    done = [r for r in results if r.status == "complete"]
    calls = sum(int(r.total.get("calls", 0)) for r in done)
    out: dict[str, Any] = {
        "games": len(done),
        "calls": calls,
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 3),
        "ms_per_call": round(cpu / calls * 1000, 4) if calls else 0.0,
        "load": round(os.getloadavg()[0], 2),
        "mode": "cprofile" if profiler is not None else "sampled" if sampler is not None else "plain",
    }
    if sampler is not None and calls:
        out["samples"] = sum(sampler.counts.values())
        out["parts"] = sampler.parts(cpu, calls)
        if args.where:
            top = sorted(sampler.where.items(), key=lambda kv: -kv[1])[: args.where]
            out["where_us_per_call"] = {k: round(n / out["samples"] * cpu / calls * 1e6, 1) for k, n in top}
    if profiler is not None and calls:
        stats = pstats.Stats(profiler)
        out["function_calls_per_call"] = round(stats.total_calls / calls, 1)  # type: ignore[attr-defined]
        if args.dump:
            stats.dump_stats(args.dump)
        if args.cprofile:
            stats.sort_stats("tottime").print_stats(args.cprofile)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
