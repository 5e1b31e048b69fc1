"""The tables of one `arena serve` process: creating a table, resuming one from its transcript, finding a token.

Why it exists apart from the HTTP routes: the command line and the create-a-table page build tables the same way
(seats resolved like `arena play --seat`, bots built by the same factory, a transcript like any other game), and
the isolation tests drive it without a browser.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arena.agents import AgentError, AgentSpec, resolve_agent
from arena.engine import PRESETS, Game, RulesError, RuleSet, load_rules
from arena.orchestrator import RunStats, counters_from_inputs
from arena.players.base import Player
from arena.players.bot_lines import LinesError
from arena.players.factory import PlayerBuildError, build_player
from arena.safe_read import UnsafeFile, open_regular
from arena.seeds import draw_seed
from arena.transcript import Transcript, TranscriptError, TranscriptWriter, default_path, make_header
from arena.web.table import Table, new_token, same_token

MAX_TABLES = 50  # tables playing at once on one server; a server with that many games running refuses new tables
MAX_FINISHED = 500  # finished tables kept for their pages (end reveal); older ones are dropped, their files stay


class TableError(ValueError):
    """A table that cannot be created; the message says why (shown to the page or printed as `error: ...`)."""


@dataclass
class ServeConfig:
    lang: str = "en"
    out_dir: Path = Path("transcripts")
    agents_dir: Path | None = None  # None: the standard lookup (arena.agents.find_agent)
    human_timeout: float | None = 300.0
    bot_delay: float = 1.0
    typing_wpm: float = 40.0  # a person's speech allowance: the word budget at this typing speed (0: the spoken time)
    bot_wpm: float = 180.0  # a bot's speech appears after its words at this pace, so people can read along
    allowed_origins: tuple[str, ...] = ()  # extra Origins accepted on WebSocket upgrades (a reverse proxy's)
    admin_token: str = field(default_factory=new_token)
    replay_files: tuple[Path, ...] = ()
    sign_key: bytes | None = field(default=None, repr=False)  # HMAC key from the environment: signs every table
    start: str = "lobby"  # "lobby": a table with people waits for them (or the host); "now": it starts at once
    judge: bool = False  # each table gets a judge link
    blind: bool = False  # which seats are bots or models is hidden until the end


_AGENT_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,79}$")


def _seat_specs(specs: Mapping[int, str], players: int, agents_dir: Path | None) -> dict[int, AgentSpec]:
    seats: dict[int, AgentSpec] = {}
    for seat in range(1, players + 1):
        name = specs.get(seat, "bot:heuristic")
        if not _AGENT_NAME.match(name) or ".." in name:  # a file name in agents/, never a path
            raise TableError(f"seat {seat}: {name[:80]!r} is not an agent name")
        try:
            seats[seat] = resolve_agent(name, agents_dir)
        except AgentError as exc:
            raise TableError(f"seat {seat}: {exc}") from None
    extra = sorted(set(specs) - set(seats))
    if extra:
        raise TableError(f"seat {extra[0]} does not exist (seats are 1 to {players})")
    return seats


class Server:
    """Every table this process serves, by id; tokens are looked up across all of them."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.tables: dict[str, Table] = {}

    def is_admin(self, token: str) -> bool:
        return same_token(self.config.admin_token, token)

    def lookup_role(self, token: str, role: str) -> Table | None:
        """The table whose join (`role="join"`) or judge (`role="judge"`) link `token` is; every table is checked."""
        found: Table | None = None
        for table in self.tables.values():
            known = table.join_token if role == "join" else table.judge_token
            if known is not None and same_token(known, token):
                found = table
        return found

    def lookup(self, token: str) -> tuple[Table, int] | None:
        """The table and seat a token opens (a spectator token gives SPECTATOR), or None."""
        found: tuple[Table, int] | None = None
        for table in self.tables.values():  # every table is checked, whichever matches
            seat = table.seat_of(token)
            if seat is not None:
                found = (table, seat)
        return found

    def playing(self) -> int:
        """Tables whose game is still running (finished tables do not count against MAX_TABLES)."""
        return sum(1 for table in self.tables.values() if _playing(table))

    def _players(self, seats: Mapping[int, AgentSpec], seed: int, rules: RuleSet, lang: str) -> dict[int, Player]:
        players: dict[int, Player] = {}
        for seat, spec in seats.items():
            if spec.kind == "human":
                continue
            try:
                players[seat] = build_player(spec, seat, seed=seed, rules=rules, lang=lang)
            except (PlayerBuildError, LinesError, AgentError) as exc:
                raise TableError(str(exc)) from None
        return players

    def add(self, table: Table, players: Mapping[int, Player]) -> Table:
        """Serve `table` and start its game; call it in the server's event loop (the game is a task of it)."""
        if self.playing() >= MAX_TABLES:
            raise TableError(f"this server already plays {MAX_TABLES} games; a new table can start when one ends")
        finished = [key for key, known in self.tables.items() if not _playing(known)]
        for key in finished[: max(len(finished) - MAX_FINISHED + 1, 0)]:  # the oldest first (insertion order)
            del self.tables[key]
        self.tables[table.id] = table
        table.start(players)
        return table

    def build(
        self,
        rules: RuleSet,
        seats: Mapping[int, AgentSpec],
        *,
        lang: str | None = None,
        seed: int | None = None,
        human_timeout: float | None = None,
    ) -> tuple[Table, dict[int, Player]]:
        """A new table and its bot and model players, with its transcript created; not started yet. `human_timeout`
        (seconds per decision of a person) overrides the server's for this table."""
        lang = lang or self.config.lang
        seed = seed if seed is not None else draw_seed()  # 128 random bits: no seat can search for the deal
        players = self._players(seats, seed, rules, lang)
        prompt_hash = None
        if any(spec.kind in ("llm", "langchain") for spec in seats.values()):
            from arena.prompts import prompt_set_hash_for

            try:
                prompt_hash = prompt_set_hash_for(seats, lang)
            except Exception as exc:  # a missing or broken prompt set: one line
                raise TableError(f"prompt set: {exc}") from None
        header = make_header(rules, seed, seats, lang="ru" if lang == "ru" else "en", prompt_set_hash=prompt_hash)
        try:
            writer = TranscriptWriter.create(
                default_path(self.config.out_dir, header), header, sign_key=self.config.sign_key
            )
        except (TranscriptError, OSError) as exc:
            raise TableError(str(exc)) from None
        human_timeout = human_timeout if human_timeout is not None else self.config.human_timeout
        return self._table(Game(rules, seed), seats, lang, writer, human_timeout, RunStats()), players

    async def create(
        self,
        *,
        preset: str | None = None,
        specs: Mapping[int, str] | None = None,
        lang: str | None = None,
        seed: int | None = None,
        human_timeout: float | None = None,
        bot_delay: float | None = None,
    ) -> Table:
        """A new table from the create page's choices (agent names per seat, a seed, the seconds a person has per
        decision), started at once."""
        if preset is not None and preset not in PRESETS:
            raise TableError(f"unknown preset {preset!r}; allowed: {', '.join(PRESETS)}")
        try:
            rules = load_rules(preset)
        except RulesError as exc:
            raise TableError(str(exc)) from None
        seats = _seat_specs(specs or {}, rules.players, self.config.agents_dir)
        if any(spec.kind == "llm" for spec in seats.values()):
            try:
                from arena.llm.preflight import preflight

                seats = await preflight(seats)
            except (ImportError, AgentError) as exc:
                raise TableError(str(exc)) from None
        table, players = self.build(rules, seats, lang=lang, seed=seed, human_timeout=human_timeout)
        if bot_delay is not None:
            table.bot_delay = bot_delay
        return self.add(table, players)

    def build_resume(
        self, transcript: Transcript, game: Game, *, sign_key: bytes | None = None
    ) -> tuple[Table, dict[int, Player]]:
        """An unfinished game (rebuilt from its transcript) as a table with new links for its human seats. A signed
        game is continued only with its key: without it the end record would carry no signature, and verify would
        reject the file."""
        header = transcript.header
        sign_key = sign_key if sign_key is not None else self.config.sign_key
        if header.signed and sign_key is None:
            raise TableError(
                f"{transcript.path}: this game was signed, and `arena serve` holds no signing key, so its end record "
                f"could not be signed; continue it with `arena resume {transcript.path} --sign-key-env VAR`"
            )
        from arena.trust import TrustError, resume_seats

        try:  # the header is provenance only: each seat comes from a local definition of the same name
            seats = resume_seats({e.seat: e.agent for e in header.seats}, self.config.agents_dir)
        except (TrustError, AgentError) as exc:
            raise TableError(str(exc)) from None
        players = self._players(seats, header.seed, game.rules, header.lang)
        try:
            writer = TranscriptWriter.append_to(transcript, sign_key=sign_key)
        except (TranscriptError, OSError) as exc:
            raise TableError(str(exc)) from None
        stats = RunStats(counters=counters_from_inputs(transcript.inputs))
        return self._table(game, seats, header.lang, writer, self.config.human_timeout, stats), players

    def _table(
        self,
        game: Game,
        seats: Mapping[int, AgentSpec],
        lang: str,
        writer: TranscriptWriter,
        human_timeout: float | None,
        stats: RunStats,
    ) -> Table:
        """A table of `game` with this server's pacing, start (lobby or at once), blind seating and judge."""
        return Table(
            game=game,
            seats=seats,
            lang=lang,
            writer=writer,
            human_timeout=human_timeout,
            bot_delay=self.config.bot_delay,
            typing_wpm=self.config.typing_wpm,
            bot_wpm=self.config.bot_wpm,
            lobby=self.config.start == "lobby",
            blind=self.config.blind,
            judge_token=new_token() if self.config.judge else None,
            stats=stats,
        )

    def resume(self, transcript: Transcript, game: Game) -> Table:
        """`build_resume`, started at once (in the server's event loop)."""
        return self.add(*self.build_resume(transcript, game))

    def replay_names(self) -> list[str]:
        """Saved transcripts a replay may open: the out directory's and those named on the command line, finished
        games only (a replay is a god view: a game in progress, here or elsewhere, is never listed)."""
        paths = list(self.config.replay_files)
        out = self.config.out_dir
        if out.is_dir():  # the out directory's own files only: a link there could point anywhere on the machine
            found = (p for p in out.glob("*.jsonl") if not p.is_symlink())
            paths.extend(sorted(found, key=lambda p: p.name, reverse=True))
        names = [p.name for p in paths[:2000] if ended(p)]
        return list(dict.fromkeys(names))[:500]

    def replay_entries(self) -> list[dict[str, object]]:
        """The replays' list with what a person looks for: when, which rules, who won, in how many days (from each
        file's first line and its end record, read with bounds; a line that is not what the writer makes is left
        blank, the replay itself checks the file)."""
        out: list[dict[str, object]] = []
        for name in self.replay_names():
            path = self.replay_path(name)
            entry: dict[str, object] = {"name": name}
            if path is not None:
                entry.update(_summary(path))
            out.append(entry)
        return out

    def replay_path(self, name: str) -> Path | None:
        """The file for a listed name only (never a path from the request)."""
        for path in self.config.replay_files:
            if path.name == name:
                return path
        if "/" in name or "\\" in name or name.startswith("."):
            return None
        candidate = self.config.out_dir / name
        if candidate.is_symlink() or not candidate.is_file() or candidate.suffix != ".jsonl":
            return None  # a reader stays inside --out: a planted `x.jsonl -> /elsewhere` is no replay
        return candidate


def _playing(table: Table) -> bool:
    return table.task is None or not table.task.done()


_TAIL = 64 * 1024  # an end record is a few KiB (counters and totals per seat)


def ended(path: Path) -> bool:
    """Whether the file's last line is an end record, read from its tail only (the listing must stay cheap; the
    replay itself loads the file and checks its chain and status)."""
    try:  # a regular file only, opened without waiting: a FIFO named `*.jsonl` would hold the server's loop
        with open_regular(path, follow_links=True) as handle:
            size = handle.seek(0, 2)
            handle.seek(max(size - _TAIL, 0))
            tail = handle.read(_TAIL).rstrip(b"\n")
    except (OSError, UnsafeFile):
        return False
    start = tail.rfind(b"\n")
    if start == -1 and size > _TAIL:
        return False  # a last line longer than the tail is no end record the writer makes
    return tail[start + 1 :].startswith(b'{"kind":"end"')


def _summary(path: Path) -> dict[str, object]:
    import json

    found: dict[str, object] = {}
    try:
        with path.open("rb") as handle:
            head = json.loads(handle.readline(_TAIL * 4))
            size = handle.seek(0, 2)
            handle.seek(max(size - _TAIL, 0))
            last = handle.read(_TAIL).rstrip(b"\n").rsplit(b"\n", 1)[-1]
        end = json.loads(last)
        rules = head.get("rules") or {}
        humans = sum(1 for seat in head.get("seats") or [] if (seat.get("agent") or {}).get("kind") == "human")
        found = {
            "started": str(head.get("started_at", ""))[:16].replace("T", " "),
            "rules": str(rules.get("name", "")),
            "winner": str(end.get("winner") or ""),
            "days": int(end.get("days") or 0),
            "people": humans,
        }
    except (OSError, ValueError, AttributeError, TypeError):
        pass
    return found


def links(table: Table, base: str) -> dict[str, str]:
    """`seat N` and `spectators` -> URL."""
    out = {f"seat {seat}": f"{base}/seat/{token}" for seat, token in sorted(table.tokens.items())}
    out["spectators"] = f"{base}/watch/{table.spectator_token}"
    if table.humans and not table.started:
        out["lobby"] = f"{base}/join/{table.join_token}"  # anyone with it takes a free person's seat
    if table.judge_token is not None:
        out["judge"] = f"{base}/judge/{table.judge_token}"
    return out


def admin_links(config: ServeConfig, base: str) -> dict[str, str]:
    return {
        "tables": f"{base}/tables/{config.admin_token}",
        "new table": f"{base}/new/{config.admin_token}",
        "replays": f"{base}/replays/{config.admin_token}",
    }
