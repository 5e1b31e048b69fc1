"""The Python API, for notebooks and scripts: `arena.play`, `arena.tournament` and `arena.load` (docs/python.md).

    import arena
    path = arena.play(seats={"all": "bot:heuristic", 3: "bot:random"}, seed=7)
    games = arena.load(path)            # or a folder of transcripts
    games.seats.groupby("role")["won"].mean()

`play` and `tournament` do what `arena play` and `arena tournament` do (the same seats, preflight, transcripts and
resumable folders), without a terminal; `load` reads transcripts into pandas DataFrames (the `research` extra):
`games`, `seats` and `decisions` have the columns of the report's CSV files (docs/metrics.md), and `calls` one row
per model call (the transcript's call records, docs/transcripts.md). Every error is a `ValueError` (or `OSError`)
with the message the command line would print. A coroutine-free API: from inside a running event loop (Jupyter) a
game runs on a worker thread of its own.

This module is a room of its own beside the command line: it may import anything but `cli`, `web` and `render`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from arena.agents import AgentSpec, resolve_agent
from arena.tournament.programmatic import play_file, run_to_end

if TYPE_CHECKING:  # pandas is the `research` extra's; imported when `load` runs
    import pandas as pd

__all__ = ["Games", "load", "play", "tournament"]

tournament = play_file  # `arena.tournament(...)`: the same function (arena/tournament/programmatic.py)


def _seats(seats: Mapping[int | str, str] | str | None, players: int, agents_dir: Path | None) -> dict[int, AgentSpec]:
    """`{"all": AGENT, 3: AGENT}` (or one agent for every seat) as specs; unnamed seats play bot:heuristic."""
    if isinstance(seats, str):
        seats = {"all": seats}
    chosen = dict(seats or {})
    default = resolve_agent(str(chosen.pop("all", "bot:heuristic")), agents_dir)
    out = dict.fromkeys(range(1, players + 1), default)
    for seat, agent in chosen.items():
        number = int(seat)
        if not 1 <= number <= players:
            raise ValueError(f"seats: seat {seat} is not a seat of this table (1-{players})")
        out[number] = resolve_agent(agent, agents_dir)
    if any(spec.kind == "human" for spec in out.values()):
        raise ValueError("seats: a human seat needs a terminal or a browser: use `arena play` or `arena serve`")
    return out


def play(
    seats: Mapping[int | str, str] | str | None = None,
    *,
    preset: str | None = None,
    rules: str | Path | None = None,
    rule: list[str] | None = None,
    seed: int | None = None,
    lang: Literal["en", "ru"] = "en",
    out: str | Path = "transcripts",
    agents_dir: str | Path | None = None,
    timeout: float = 60.0,
    max_reasks: int = 2,
) -> Path:
    """Play one game to its end and return its transcript's path (as `arena play --quiet`).

    `seats`: an agent for every seat (`"bot:random"`), or a mapping of seat numbers (and `"all"`) to agents, as
    `--seat` takes them; unnamed seats play `bot:heuristic`. `preset`, `rules` (a rules file), `rule` (overrides
    such as `"voting.protocol=ballot"`), `seed` (random if not given) and `lang` as on the command line. LLM seats
    are probed once before the game (server up, key accepted), as `arena play` does."""
    from arena.engine import Game, load_rules
    from arena.orchestrator import run_game
    from arena.players.factory import build_player
    from arena.transcript import TranscriptWriter, default_path, make_header

    folder = Path(agents_dir) if agents_dir is not None else None
    ruleset = load_rules(preset, Path(rules) if rules is not None else None, rule or None)
    specs = _seats(seats, ruleset.players, folder)
    if any(spec.kind == "llm" for spec in specs.values()):
        from arena.llm.preflight import preflight

        specs = run_to_end(preflight(specs))
    seed = seed if seed is not None else random.SystemRandom().randrange(1_000_000)
    hashed = None
    if any(spec.kind in ("llm", "langchain") for spec in specs.values()):
        from arena.prompts import prompt_set_hash_for

        hashed = prompt_set_hash_for(specs, lang)
    header = make_header(ruleset, seed, specs, lang=lang, prompt_set_hash=hashed)
    writer = TranscriptWriter.create(default_path(Path(out), header), header)

    async def game() -> None:
        players = {s: build_player(spec, s, seed=seed, rules=ruleset, lang=lang) for s, spec in specs.items()}
        try:
            await run_game(Game(ruleset, seed), players, writer, timeout_s=timeout, max_reasks=max_reasks)
        finally:
            for player in players.values():
                await player.close()

    try:
        run_to_end(game())
    finally:
        writer.close()
    assert writer.path is not None  # a file writer (TranscriptWriter.create) has its path
    return writer.path


@dataclass
class Games:
    """Transcripts as pandas DataFrames, one row per game, seat, decision and model call; `skipped` lists the
    files not counted (unfinished, tampered, unreadable) with the reason."""

    games: pd.DataFrame
    seats: pd.DataFrame
    decisions: pd.DataFrame
    calls: pd.DataFrame
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def __repr__(self) -> str:
        return (f"Games({len(self.games)} games, {len(self.seats)} seats, {len(self.decisions)} decisions, "
                f"{len(self.calls)} calls, {len(self.skipped)} skipped)")  # fmt: skip


CALL_COLUMNS = [
    "game_id", "seat", "agent", "request_kind", "attempt", "mode", "model", "prompt_tokens", "cached_tokens",
    "completion_tokens", "cost_usd", "latency_ms", "finish_reason", "error", "raw",
]  # fmt: skip


def load(path: str | Path) -> Games:
    """Read a transcript, or every finished transcript under a folder (as `arena report` does: a tampered, unfinished
    or unreadable file is skipped and listed), into DataFrames. Needs the `research` extra (pandas)."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - the extra is missing
        raise ImportError("arena.load needs pandas: pip install 'mafia-arena[research]'") from exc
    from arena.research import tables
    from arena.research.corpus import Corpus, load_folder
    from arena.research.metrics import measure

    root = Path(path)
    if root.is_dir():
        corpus = load_folder(root)
    else:
        single = load_folder(root.parent)
        corpus = Corpus([g for g in single.games if Path(g.path) == root],
                        [s for s in single.skipped if Path(s[0]) == root])  # fmt: skip
        if not corpus.games and not corpus.skipped:
            raise ValueError(f"{path}: no such transcript")
    measured = [measure(g) for g in corpus.games]
    game_columns = tables.GAME_COLUMNS + tables.COUNT_COLUMNS + tables.RATE_COLUMNS
    seat_columns = tables.SEAT_COLUMNS + tables.COUNT_COLUMNS + tables.RATE_COLUMNS
    calls = []
    for g in corpus.games:
        agents = g.configs
        for c in g.calls:
            record = c.model_dump()
            calls.append({"game_id": g.game_id, "agent": agents.get(c.seat, ""),
                          **{k: record.get(k) for k in CALL_COLUMNS if k not in ("game_id", "agent")}})  # fmt: skip
    return Games(
        games=pd.DataFrame([tables.game_row(m) for m in measured], columns=game_columns),
        seats=pd.DataFrame([row for m in measured for row in tables.seat_rows(m)], columns=seat_columns),
        decisions=pd.DataFrame(
            [row for g in corpus.games for row in tables.decision_rows(g)], columns=tables.DECISION_COLUMNS
        ),
        calls=pd.DataFrame(calls, columns=CALL_COLUMNS),
        skipped=list(corpus.skipped),
    )
