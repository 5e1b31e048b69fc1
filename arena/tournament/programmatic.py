"""`arena.tournament(file, ...)` of the Python API (docs/python.md): play or resume a tournament file on this
machine, as `arena tournament` does, without a terminal. The package's module object is callable (see its
`__init__`), so `arena.tournament(...)` is this function whether or not the package was imported before."""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import os
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def run_to_end(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to its end, also from a thread whose loop is already running (a notebook's cell)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def play_file(
    file: str | Path,
    *,
    out: str | Path | None = None,
    jobs: int = 8,
    processes: int | None = None,
    budget: float | None = None,
    agents_dir: str | Path | None = None,
    progress: bool = False,
) -> Path:
    """Play (or resume) the tournament of `file` on this machine and return its folder (as `arena tournament`).

    `out` (else the file's `out`), `jobs` games at once over `processes` worker processes (default: the cores, at
    most `jobs`; 0 plays them on a thread here), `budget` (USD: no game starts once the estimate would pass it; every
    LLM configuration needs prices), `progress` (a progress bar on the terminal). Run it again to resume."""
    from rich.console import Console

    from arena.agents import unpriced
    from arena.tournament.executors import LocalExecutor
    from arena.tournament.manifest import check_folder
    from arena.tournament.model import TournamentError, load_tournament
    from arena.tournament.run import RunOptions, run_tournament
    from arena.tournament.schedule import make_schedule

    t = load_tournament(Path(file), Path(agents_dir) if agents_dir is not None else None,
                        out=Path(out) if out is not None else None)  # fmt: skip
    folder = Path(out) if out is not None else (Path(t.file.out) if t.file.out else None)
    if folder is None:
        raise TournamentError(f'{file}: out: no output folder; give out= or out = "DIR" in the file')
    check_folder(folder, t.fingerprint, t.file.name)
    plans = make_schedule([c.label for c in t.configs], t.filler.label, t.rules, t.file.games, t.seed,
                          kind=t.file.schedule)  # fmt: skip
    estimate = None
    if budget is not None:
        unknown = unpriced((c.label, c.spec) for c in [*t.configs, t.filler])
        if unknown:
            raise TournamentError(f"budget: the cost of {', '.join(unknown)} is unknown (no price_*_per_m in its "
                                  "agent definition), so a budget cannot be kept")  # fmt: skip
        from arena.tournament.cost import calibrate
        from arena.tournament.cost import estimate as scale

        estimate = scale(t, plans, calibrate(t, plans), 3)
    specs = {c.label: c.spec for c in [*t.configs, t.filler]}
    if any(spec.kind == "llm" for spec in specs.values()):
        from arena.llm.preflight import preflight

        labels = list(specs)
        probed = run_to_end(preflight(dict(enumerate(specs.values()))))
        specs = {labels[i]: spec for i, spec in probed.items()}
    count = min(os.cpu_count() or 1, jobs) if processes is None else processes
    options = RunOptions(out=folder, jobs=jobs, budget=budget, estimate=estimate, progress=progress)
    console = Console(quiet=not progress, highlight=False)
    run_tournament(t, plans, specs, lambda: LocalExecutor(count, math.ceil(jobs / max(count, 1))), options, console)
    return folder
