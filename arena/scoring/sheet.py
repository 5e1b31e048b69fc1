"""The judge's score sheet (the protocol) of one game, as data: the seats, roles and how and when each left; fouls
with their reasons; nominations and every vote round by day; each night's shots, checks and other actions; the best
move and its hits; removals and awards; the result and why, as a code with its numbers; and each seat's points by
group. Pure: built from the god view's events and the rules.

Words belong to the renderers (`arena/render/protocol.py`, in English and Russian); `Sheet.to_json()` is the
`arena export --protocol --format json` document (docs/scoring.md lists its fields).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.engine import Event, EventType, Phase, RuleSet
from arena.scoring.facts import BLACK_ROLES, Departure, departures, maniac_allied, roles_of, seat_facts, winner_of
from arena.scoring.points import Counter, Hit, SeatScore, score_game
from arena.scoring.system import ScoringSystem

FORMAT = "mafia-arena-protocol"
VERSION = 1


@dataclass(frozen=True)
class Foul:
    seat: int
    count: int  # his fouls after this one
    reason: str
    day: int
    phase: str


@dataclass(frozen=True)
class Award:
    seat: int
    kind: str  # extra, best_player, best_move, no_auto_bonus, yellow_card
    points: float  # extra points (0 for a title or a card)
    reason: str
    after_end: bool


@dataclass(frozen=True)
class SeatLine:
    seat: int
    name: str
    role: str
    team: str  # red, black, maniac
    left: Departure | None  # the first departure (None: at the table to the end)
    removed_after: Departure | None  # removed in his last word, after leaving
    fouls: int
    foul_reasons: tuple[str, ...]
    points: float | None  # None: the game has not ended
    groups: dict[str, float]
    hits: tuple[Hit, ...]


@dataclass(frozen=True)
class Nomination:
    by: int
    seat: int
    accepted: bool
    note: str = ""  # why not: already_nominated, one_per_day, not_alive, vote_cancelled


@dataclass(frozen=True)
class Vote:
    voter: int
    choice: int | None  # the seat voted for (a main vote or a re-vote); None: no, or an abstention
    how: str  # yes, default (R5.7: counted for the last nominee), no, abstain


@dataclass(frozen=True)
class VoteRound:
    kind: str  # main, revote, lift, threshold, acquittal
    candidates: tuple[int, ...]
    votes: tuple[Vote, ...]
    counts: tuple[int, ...]  # per candidate (main and re-votes), or (yes,) for a yes/no round

    def voters_for(self, seat: int) -> list[int]:
        return [v.voter for v in self.votes if v.choice == seat and v.how in ("yes", "default")]


@dataclass(frozen=True)
class Outcome:
    """One step of a day's result: left (seats, how), tie (seats), lift (passed/failed, yes), lift_not_held
    (reason), no_vote (reason), acquitted (seat), cancelled."""

    type: str
    seats: tuple[int, ...] = ()
    value: str = ""
    count: int | None = None


@dataclass(frozen=True)
class Day:
    day: int
    morning: tuple[int, ...]  # killed in the night before
    nominations: tuple[Nomination, ...]
    rounds: tuple[VoteRound, ...]
    outcome: tuple[Outcome, ...]


@dataclass(frozen=True)
class Action:
    """A night action: shot (a black's blind shot; target None: held fire), don_check and sheriff_check (value the
    answer), sheriff_shot, maniac_kill, heal (value saved, arms_crossed), visit."""

    type: str
    by: int
    target: int | None
    value: str = ""


@dataclass(frozen=True)
class BestMove:
    by: int
    named: tuple[int, ...]
    hits: tuple[int, ...]  # the named seats that are black


@dataclass(frozen=True)
class Night:
    night: int
    kill_order: tuple[int, ...]  # Night 0: the don's order for the nights to come
    actions: tuple[Action, ...]
    mafia_target: int | None  # the blacks' agreed target (None: a miss, or no mafia shot tonight)
    mafia_result: str  # agreed, or why it missed (split, no_shot, ...); "" on Night 0
    killed: tuple[int, ...]
    best_move: BestMove | None


@dataclass(frozen=True)
class Removal:
    seat: int
    reason: str
    by_fouls: bool
    day: int
    phase: str


@dataclass(frozen=True)
class Result:
    """The winner and why, as a code and its numbers (the renderers put it in words): parity (black, red alive; by
    day_vote, night_kill or removal), last_black (seat, how), maniac (others alive), idle (nights), everyone_out,
    or unfinished."""

    winner: str | None
    code: str
    black: int = 0
    red: int = 0
    seat: int = 0
    how: str = ""
    by: str = ""
    count: int = 0


@dataclass(frozen=True)
class Sheet:
    game_id: str
    rules: str
    seed: int | None
    players: int
    scoring: str
    groups: tuple[str, ...]
    finished: bool
    result: Result
    seats: tuple[SeatLine, ...]
    days: tuple[Day, ...]
    nights: tuple[Night, ...]
    fouls: tuple[Foul, ...]
    removals: tuple[Removal, ...]
    awards: tuple[Award, ...]
    days_played: int = 0
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """The protocol as JSON-ready data; `seats[i]` has `seat`, `role`, `fouls`, `points` (the total) and
        `groups` (points by group), as issue #35 asks, and the rest of the sheet beside them."""
        out = asdict(self)
        out = {"format": FORMAT, "version": VERSION, **out}
        return out


def _departure_events(events: Sequence[Event]) -> list[Event]:
    return [e for e in events if e.type in (EventType.ELIMINATED, EventType.REMOVED)]


def _result(events: Sequence[Event], rules: RuleSet, roles: list[str], gone: Mapping[int, list[Departure]]) -> Result:
    winner = winner_of(events)
    if winner is None:
        return Result(None, "unfinished")
    n = len(roles)
    ally = maniac_allied(events, rules)
    black = {s for s in range(1, n + 1) if roles[s - 1] in BLACK_ROLES or (roles[s - 1] == "maniac" and ally)}
    alive = [s for s in range(1, n + 1) if s not in gone]
    end = max(i for i, e in enumerate(events) if e.type is EventType.GAME_ENDED)
    last = next((e for e in reversed(_departure_events(events[:end])) if e.seat is not None), None)
    by = ""
    if last is not None:
        if last.type is EventType.REMOVED or last.value == "removed":
            by = "removal"
        elif last.value == "killed":
            by = "night_kill"
        else:
            by = "day_vote"
    if winner == "draw":
        if not alive:
            return Result(winner, "everyone_out", by=by)
        return Result(winner, "idle", count=rules.win.draw_after_idle_rounds)
    if winner == "maniac":
        return Result(winner, "maniac", count=len(alive) - 1, by=by)
    black_alive = sum(1 for s in alive if s in black)
    if winner == "mafia":
        return Result(winner, "parity", black=black_alive, red=len(alive) - black_alive, by=by)
    # the town: the last of its opponents (black, or an independent maniac) to leave
    opponents = black | {s for s in range(1, n + 1) if roles[s - 1] == "maniac"}
    final = next((e for e in reversed(_departure_events(events[:end])) if e.seat in opponents), None)
    seat = final.seat if final is not None and final.seat is not None else 0
    how = gone[seat][-1].how if seat in gone else ""
    return Result(winner, "last_black", seat=seat, how=how, by=by, black=0, red=len(alive))


def _days_and_nights(events: Sequence[Event], roles: list[str]) -> tuple[list[Day], list[Night]]:
    black = {s for s, r in enumerate(roles, 1) if r in BLACK_ROLES}
    days: dict[int, dict[str, Any]] = {}
    nights: dict[int, dict[str, Any]] = {}

    def day(k: int) -> dict[str, Any]:
        return days.setdefault(k, {"morning": (), "nominations": [], "rounds": [], "outcome": []})

    def night(k: int) -> dict[str, Any]:
        return nights.setdefault(
            k, {"order": (), "actions": [], "target": None, "result": "", "killed": (), "best": None}
        )

    current: dict[str, Any] | None = None  # the vote round being collected
    for e in events:
        t = e.type
        if e.phase is Phase.NIGHT or (e.phase is Phase.SETUP and t is EventType.KILL_ORDER):
            if t is EventType.PHASE_STARTED:
                night(e.day)
            elif t is EventType.KILL_ORDER:
                night(e.day)["order"] = e.seats
            elif t in (EventType.SHOT, EventType.SHERIFF_SHOT, EventType.MANIAC_KILL, EventType.VISIT):
                night(e.day)["actions"].append(Action(t.value, e.seat or 0, e.target))
            elif t in (EventType.DON_CHECK, EventType.SHERIFF_CHECK, EventType.HEAL):
                night(e.day)["actions"].append(Action(t.value, e.seat or 0, e.target, e.value or ""))
            elif t is EventType.MAFIA_RESULT:
                night(e.day)["target"] = e.target
                night(e.day)["result"] = e.value or ""
            elif t is EventType.BEST_MOVE and e.seat is not None:
                named = tuple(dict.fromkeys(e.seats))
                night(e.day)["best"] = BestMove(e.seat, named, tuple(s for s in named if s in black))
            continue
        if e.phase is not Phase.DAY:
            continue
        d = day(e.day)
        if t is EventType.MORNING:
            d["morning"] = e.seats
            night(e.day - 1)["killed"] = e.seats
        elif t is EventType.NOMINATED and e.seat is not None and e.target is not None:
            d["nominations"].append(Nomination(e.seat, e.target, True))
        elif t in (EventType.NOMINATION_REJECTED, EventType.NOMINATION_IGNORED) and e.seat and e.target:
            d["nominations"].append(Nomination(e.seat, e.target, False, e.value or ""))
        elif t is EventType.VOTING_STARTED:
            current = {"kind": e.value or "", "candidates": e.seats, "votes": [], "counts": ()}
            d["rounds"].append(current)
        elif t is EventType.VOTE_CAST and current is not None and e.seat is not None:
            yes_no = current["kind"] not in ("main", "revote")
            choice = None if yes_no or e.value in ("no", "abstain") else e.target
            current["votes"].append(Vote(e.seat, choice, e.value or ""))
        elif t is EventType.VOTES_COUNTED and current is not None:
            current["counts"] = e.counts
        elif t is EventType.TIE:
            d["outcome"].append(Outcome("tie", e.seats))
        elif t is EventType.LIFT_RESULT:
            value = e.value or ""
            if value.startswith("not_held:"):
                d["outcome"].append(Outcome("lift_not_held", e.seats, value.split(":", 1)[1]))
            else:
                yes = e.count if e.count is not None else 0
                d["outcome"].append(Outcome("lift", e.seats, value, yes))
                if current is not None and current["kind"] == "lift":
                    current["counts"] = (yes,)
        elif t is EventType.NO_VOTE:
            d["outcome"].append(Outcome("no_vote", (), e.value or ""))
        elif t is EventType.VOTE_CANCELLED:
            d["outcome"].append(Outcome("cancelled"))
        elif t is EventType.ACQUITTED and e.seat is not None:
            d["outcome"].append(Outcome("acquitted", (e.seat,)))
        elif t is EventType.ELIMINATED and e.seat is not None and e.value not in ("killed", "removed"):
            last = d["outcome"][-1] if d["outcome"] else None
            if last is not None and last.type == "left" and last.value == e.value:
                d["outcome"][-1] = Outcome("left", (*last.seats, e.seat), last.value)
            else:
                d["outcome"].append(Outcome("left", (e.seat,), e.value or ""))
    out_days = [
        Day(
            k,
            v["morning"],
            tuple(v["nominations"]),
            tuple(VoteRound(r["kind"], r["candidates"], tuple(r["votes"]), tuple(r["counts"])) for r in v["rounds"]),
            tuple(v["outcome"]),
        )
        for k, v in sorted(days.items())
    ]
    out_nights = [
        Night(k, v["order"], tuple(v["actions"]), v["target"], v["result"], tuple(v["killed"]), v["best"])
        for k, v in sorted(nights.items())
    ]
    return out_days, out_nights


def build_sheet(
    events: Sequence[Event],
    rules: RuleSet,
    system: ScoringSystem,
    *,
    names: Mapping[int, str] | None = None,
    game_id: str = "",
    seed: int | None = None,
    counters: Mapping[int, Counter] | None = None,
    stage: str | None = None,
) -> Sheet:
    """The score sheet of a game from its events (the god view: `view(game, MODERATOR).events`). An unfinished
    game has a sheet with no result and no points."""
    roles = roles_of(events)
    n = len(roles)
    names = names or {}
    finished = winner_of(events) is not None
    scores: dict[int, SeatScore] = {}
    if finished:
        scores = {s.seat: s for s in score_game(events, rules, system, counters=counters, stage=stage)}
    facts = {f.seat: f for f in seat_facts(events, rules)}
    gone = departures(events, rules)
    fouls = [
        Foul(e.seat, e.count or 0, e.value or "", e.day, e.phase.value)
        for e in events
        if e.type is EventType.FOUL and e.seat is not None
    ]
    removals = [
        Removal(e.seat, e.value or "", any(d.how == "fouls" for d in gone[e.seat]), e.day, e.phase.value)
        for e in events
        if e.type is EventType.REMOVED and e.seat is not None
    ]
    awards = [
        Award(e.seat, e.value or "", (e.count or 0) / 100, e.text or "", e.phase is Phase.END)
        for e in events
        if e.type is EventType.AWARD and e.seat is not None
    ]
    seats = []
    for s in range(1, n + 1):
        own = [f for f in fouls if f.seat == s]
        left = gone.get(s, [])
        score = scores.get(s)
        seats.append(
            SeatLine(
                seat=s,
                name=names.get(s, ""),
                role=roles[s - 1],
                team=facts[s].team,
                left=left[0] if left else None,
                removed_after=left[1] if len(left) > 1 else None,
                fouls=len(own),
                foul_reasons=tuple(f.reason for f in own),
                points=score.total if score is not None else None,
                groups=dict(score.groups) if score is not None else dict.fromkeys(system.groups, 0.0),
                hits=score.hits if score is not None else (),
            )
        )
    days, nights = _days_and_nights(events, roles)
    started = next((e for e in events if e.type is EventType.GAME_STARTED), None)
    return Sheet(
        game_id=game_id,
        rules=(started.value if started is not None else None) or rules.name,
        seed=seed,
        players=n,
        scoring=system.name,
        groups=system.groups,
        finished=finished,
        result=_result(events, rules, roles, gone),
        seats=tuple(seats),
        days=tuple(days),
        nights=tuple(nights),
        fouls=tuple(fouls),
        removals=tuple(removals),
        awards=tuple(awards),
        days_played=max((e.day for e in events), default=0),
    )
