"""What waiting for the provider costs the client: the same games' CPU per call with the stand-in answering at once
and after `--latency` seconds, alternated in this tree.

Why this exists: the tournament bench's stand-in answers 100 ms after each request, so a worker does one answer's
work, sleeps, and wakes for the next. The Python work per call is the same either way (`--cprofile` counts it: the
event loop's extra turns are about 2 % more function calls), yet the CPU it takes is not. This script measures the
difference on this host, so a bench figure can be read as the code's part and the waiting's part:

    python bench/wake_cost.py                     # 3 rounds of 32 games, latency 0 against 0.1, alternated
    python bench/wake_cost.py --rounds 5 --games 64 --calls   # and the Python function calls per call of each

Each round runs `bench/client_profile.py --plain` (the games of a tournament worker, one process, against the
stand-in in its own) once with each latency, the order swapped every round. It prints each run, then the medians,
their difference in ms per call and their ratio. Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent


def one_run(games: int, latency: float, *, profiled: bool = False) -> dict[str, Any]:
    """One `client_profile.py` run of `games` games at `latency` (`profiled`: under cProfile); its JSON line."""
    command = [sys.executable, str(BENCH / "client_profile.py"), "--games", str(games), "--latency", str(latency)]
    command += ["--cprofile", "1"] if profiled else ["--plain"]
    env = {**os.environ, "PYTHONPATH": str(BENCH.parent)}
    done = subprocess.run(command, cwd=BENCH.parent, env=env, capture_output=True, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"error: client_profile.py failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
    row: dict[str, Any] = json.loads(lines[-1])
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of one run per latency")
    parser.add_argument("--games", type=int, default=32, help="games at once (a worker's share of a wave of 64)")
    parser.add_argument("--latency", type=float, default=0.1, help="the stand-in's answer time of the waiting runs")
    parser.add_argument("--calls", action="store_true", help="also count Python function calls per call (cProfile)")
    args = parser.parse_args()
    latencies = (0.0, args.latency)
    ms: dict[float, list[float]] = {latency: [] for latency in latencies}
    for round_ in range(args.rounds):
        for latency in latencies if round_ % 2 == 0 else latencies[::-1]:
            row = one_run(args.games, latency)
            ms[latency].append(row["ms_per_call"])
            print(json.dumps({"round": round_ + 1, "latency": latency, **row}), flush=True)
    at_once, waiting = (statistics.median(ms[latency]) for latency in latencies)
    summary: dict[str, Any] = {
        "games": args.games,
        "ms_per_call_at_once": round(at_once, 4),
        "ms_per_call_waiting": round(waiting, 4),
        "waiting_costs_ms_per_call": round(waiting - at_once, 4),
        "ratio": round(waiting / at_once, 3),
    }
    if args.calls:
        for latency in latencies:
            key = "function_calls_per_call_at_once" if latency == 0 else "function_calls_per_call_waiting"
            summary[key] = one_run(args.games, latency, profiled=True)["function_calls_per_call"]
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
