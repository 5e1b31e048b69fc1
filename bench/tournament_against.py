"""The tournament bench's client CPU per call against an older commit's, on the same machine in the same hour.

Why this exists: a 2-core host's speed drifts by a quarter between hours (the same commit measured 0.65 ms of client
CPU per call on 30 Nov and 0.73 to 0.90 ms on 6 Dec), so a figure in milliseconds compares hosts as much as code.
Waves of the two trees alternated, each after a rest, compare the code:

    python bench/tournament_against.py --reference 200e3d0            # 30 Nov's commit (issue #39's 0.65 ms)
    python bench/tournament_against.py --reference main --rounds 5    # a branch against main

`--reference REF` checks REF out into a temporary git worktree (`baseline.worktree`). Each round runs one wave of
`bench/tournament.py --ns 64 --long 0 --cost-games 0 --processes 2 --json` in each tree, with that tree's own copy
of the script and its code (`PYTHONPATH`), the order swapped every round (ABBA) so a drift of the host's speed falls
on both. Before each wave it waits `--rest` seconds, so each starts with the machine at rest. It prints each wave,
then per tree the mean client and stand-in CPU per call, and the ratio of this tree's client CPU per call to the
reference's, with its range over the rounds: the figure that does not depend on the host. Run it on an otherwise
idle machine; the load average before each wave is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from baseline import ROOT, worktree  # the bench directory is not a package

FIELDS = ("efficiency", "client_ms_per_call", "server_ms_per_call", "calls", "critical_s", "load_before")


def one_wave(tree: Path, n: int, processes: int) -> dict[str, Any]:
    """One wave of `n` games at once in `tree`, by its own bench script, on its own code."""
    command = [sys.executable, str(tree / "bench" / "tournament.py"), "--ns", str(n), "--long", "0",
               "--cost-games", "0", "--processes", str(processes), "--json"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"error: the wave in {tree} failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
    row: dict[str, Any] = json.loads(lines[-1])
    if "client_ms_per_call_all" in row:  # like for like with an older tree's bench, which counts the bench's RSS
        row["client_ms_per_call"] = row["client_ms_per_call_all"]  # sampler and the workers' exit as the client's
    return {field: row[field] for field in FIELDS if field in row}


def summary(rows: list[dict[str, Any]]) -> dict[str, float]:
    client = [r["client_ms_per_call"] for r in rows]
    return {
        "client_ms_per_call": round(statistics.mean(client), 3),
        "client_min": min(client),
        "client_max": max(client),
        "server_ms_per_call": round(statistics.mean(r["server_ms_per_call"] for r in rows), 3),
        "efficiency": round(statistics.mean(r["efficiency"] for r in rows), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", required=True, help="a git ref: the commit to compare this tree with")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of one wave per tree")
    parser.add_argument("--rest", type=float, default=45.0, help="seconds of rest before each wave")
    parser.add_argument("--n", type=int, default=64, help="games at once in a wave")
    parser.add_argument("--processes", type=int, default=2, help="worker processes")
    parser.add_argument("--json", action="store_true", help="one JSON object per wave, then the summary")
    args = parser.parse_args()
    waves: dict[str, list[dict[str, Any]]] = {"reference": [], "this": []}
    with worktree(args.reference) as old:
        trees = {"reference": old, "this": ROOT}
        for round_ in range(args.rounds):
            order = ["reference", "this"] if round_ % 2 == 0 else ["this", "reference"]
            for name in order:
                time.sleep(args.rest)
                row = {"tree": name, "round": round_ + 1, **one_wave(trees[name], args.n, args.processes)}
                waves[name].append(row)
                print(json.dumps(row) if args.json else
                      f"round {row['round']} {name:<9} load {row['load_before']:>5.2f}  efficiency "
                      f"{row['efficiency']:.3f}  client {row['client_ms_per_call']:.3f} ms/call  stand-in "
                      f"{row['server_ms_per_call']:.3f} ms/call  {row['calls']} calls", flush=True)  # fmt: skip
    ours, theirs = summary(waves["this"]), summary(waves["reference"])
    # per round, so each ratio compares two waves a minute apart
    pairs = zip(waves["this"], waves["reference"], strict=True)
    ratios = [a["client_ms_per_call"] / b["client_ms_per_call"] for a, b in pairs]
    result = {
        "reference": args.reference,
        "this": ours,
        "reference_tree": theirs,
        "ratio": round(ours["client_ms_per_call"] / theirs["client_ms_per_call"], 3),
        "ratio_per_round": [round(r, 3) for r in ratios],
        "load_at_end": round(os.getloadavg()[0], 2),
    }
    if args.json:
        print(json.dumps(result))
        return
    for name, s in (("reference", theirs), ("this tree", ours)):
        print(f"{name:<10} client {s['client_ms_per_call']:.3f} ms/call ({s['client_min']:.3f} to "
              f"{s['client_max']:.3f}), stand-in {s['server_ms_per_call']:.3f}, efficiency {s['efficiency']:.3f}")
    print(f"this tree's client CPU per call / the reference's: {result['ratio']} (per round "
          f"{', '.join(f'{r:.3f}' for r in ratios)}); load average {result['load_at_end']} at the end")


if __name__ == "__main__":
    main()
