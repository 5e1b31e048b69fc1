"""What each seat did in one finished game, as the facts a scoring system can score: mafiaratings' matters (its
`SCORING_FLAG_*`, computed as its `include/game_players_stats.php` computes them) and the judge's awards.

Pure: a function of the game's events (the god view) and its rules. Every fact names the mafiaratings matter it
reproduces and says where this engine's events differ from that site's game record (docs/scoring.md has the table).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.engine import Event, EventType, Phase, Role, RuleSet

# fact -> what it means (mafiaratings matter number in brackets; "arena" where the site has none)
FLAGS: dict[str, str] = {
    "played": "played the game (matter 0)",
    "win": "the seat's side won (matter 1)",
    "loss": "the seat's side lost (matter 2)",
    "draw": "the game was drawn (matter 26, a tie)",
    "clear_win": "won, and nobody of the seat's team left by day (matter 3)",
    "clear_loss": "lost, and nobody of the other team left by day (matter 4)",
    "best_player": "the judge named the seat the best player (matter 5)",
    "best_move": "the judge gave the seat the best-move title (matter 6)",
    "survived": "won and was never out of the game (matter 7; the site sets it for winners only)",
    "killed_first_night": "killed on Night 1 (matter 8)",
    "killed_night": "killed at night (matter 9)",
    "legacy_3": "the Night-1 victim's best move named 3 blacks (matter 10)",
    "legacy_2": "the Night-1 victim's best move named 2 blacks (matter 11)",
    "legacy_1": "the Night-1 victim's best move named 1 black (matter 23)",
    "removed_by_fouls": "removed at the foul limit, four fouls in fiim (matter 12)",
    "kicked_out": "removed by the judge or for forbidden words (matter 13)",
    "surrendered": "gave the game up (matter 14; no seat of this engine can)",
    "all_votes_vs_mafia": "from Day 2 on, at least 3 votes and every one on a black (matter 15)",
    "all_votes_vs_civ": "from Day 2 on, at least 3 votes and none on a black (matter 16)",
    "sheriff_killed_after_finding": "the sheriff was shot the night after the don found him, unarranged (matter 17)",
    "sheriff_found_first_night": "the don found the sheriff on Night 1; the sheriff was killed at night (matter 18)",
    "sheriff_killed_first_night": "the sheriff was killed on Night 1 (matter 19)",
    "black_checks": "the sheriff checked three blacks (matter 20)",
    "red_checks": "the sheriff checked three reds, and not three blacks (matter 21)",
    "bonus": "the judge gave the seat extra points or a title (matter 22)",
    "no_auto_bonus": "the judge took the seat's auto-bonus away ('worst move', matter 24)",
    "team_kicked_out": "removed with a loss for the team (matter 25; this engine's judge has no such removal)",
    "yellow_card": "the judge showed the seat a yellow card (arena: the Maf World Cup's penalty)",
}
COUNTS = ("yellow_cards",)  # a matter's `times`

RED_ROLES = frozenset({Role.CIVILIAN.value, Role.SHERIFF.value, Role.DOCTOR.value, Role.LOVER.value})
BLACK_ROLES = frozenset({Role.MAFIA.value, Role.DON.value})
SPECIAL_ROLES = frozenset({Role.SHERIFF.value, Role.DON.value})  # mafiaratings' "special role" wins
DAY_DEPARTURES = frozenset({"voted", "lifted", "single_nominee", "justification"})
VOTE_ROUNDS = frozenset({"main", "revote"})  # rounds where a vote names a player (not a lift or yes/no vote)


@dataclass(frozen=True)
class Departure:
    """How and when a seat left: `how` voted, lifted, single_nominee, justification, killed, fouls (removed at the
    foul limit) or kicked_out (any other removal); `day` and `phase` as the sheet shows them (a night kill: the
    night it was made)."""

    how: str
    day: int
    phase: str
    reason: str = ""  # a removal's reason

    @property
    def at_night(self) -> bool:
        return self.how == "killed"


@dataclass(frozen=True)
class SeatFacts:
    """One seat's facts in one game."""

    seat: int
    role: str
    team: str  # red, black, maniac
    flags: frozenset[str]
    extra_points: float = 0.0  # the judge's extra points (sum)
    yellow_cards: int = 0
    departure: Departure | None = None
    left_first: Departure | None = None  # the first departure, when a removal came later (in a last word)
    votes_black: int = 0  # from Day 2 on (mafiaratings leaves Day 1 out)
    votes_red: int = 0
    titles: tuple[str, ...] = field(default=())


def _team(role: str, maniac_ally: bool) -> str:
    if role in BLACK_ROLES or (role == Role.MANIAC.value and maniac_ally):
        return "black"
    if role == Role.MANIAC.value:
        return "maniac"
    return "red"


def winner_of(events: Sequence[Event]) -> str | None:
    end = next((e for e in reversed(events) if e.type is EventType.GAME_ENDED), None)
    return end.value if end is not None else None


def roles_of(events: Sequence[Event]) -> list[str]:
    """The roles dealt, by seat (index 0: seat 1), from the moderator's `roles_dealt` event."""
    dealt = next((e for e in events if e.type is EventType.ROLES_DEALT), None)
    if dealt is None:
        raise ValueError("the events hold no deal (roles_dealt): not a whole game's god view")
    return list(dealt.roles)


def maniac_allied(events: Sequence[Event], rules: RuleSet) -> bool:
    chosen = next((e for e in events if e.type is EventType.SIDE_CHOSEN), None)
    if chosen is not None:
        return chosen.value == "mafia_ally"
    return rules.maniac_side == "mafia_ally"


def departures(events: Sequence[Event], rules: RuleSet) -> dict[int, list[Departure]]:
    """Every seat's departures in order: one, or two when a seat that had left was removed in its last word."""
    out: dict[int, list[Departure]] = {}
    previous: Event | None = None
    for e in events:
        if e.type is EventType.REMOVED and e.seat is not None:
            by_fouls = (
                previous is not None
                and previous.type is EventType.FOUL
                and previous.seat == e.seat
                and (previous.count or 0) >= rules.fouls.removal_at
            )
            how = "fouls" if by_fouls else "kicked_out"
            out.setdefault(e.seat, []).append(Departure(how, e.day, e.phase.value, e.value or ""))
        elif e.type is EventType.ELIMINATED and e.seat is not None and e.value != "removed":
            if e.value == "killed":  # announced in the morning of the day after the night
                night = e.day - 1 if e.phase is Phase.DAY else e.day
                out.setdefault(e.seat, []).append(Departure("killed", night, Phase.NIGHT.value))
            else:
                out.setdefault(e.seat, []).append(Departure(e.value or "", e.day, e.phase.value))
        previous = e
    return out


def seat_facts(events: Sequence[Event], rules: RuleSet) -> list[SeatFacts]:
    """The facts of every seat, in seat order, from a finished game's events (the god view)."""
    roles = roles_of(events)
    n = len(roles)
    ally = maniac_allied(events, rules)
    teams = [_team(r, ally) for r in roles]
    black = {s for s in range(1, n + 1) if teams[s - 1] == "black"}
    winner = winner_of(events)
    gone = departures(events, rules)
    # the death that counts for scoring: a removal (the discipline outcome), else the first departure
    death = {s: next((d for d in ds if d.how in ("fouls", "kicked_out")), ds[0]) for s, ds in gone.items()}

    # shared flags (every seat of the game): the sheriff's fate and checks
    shared: set[str] = {"played"}
    sheriff = next((s for s in range(1, n + 1) if roles[s - 1] == Role.SHERIFF.value), 0)
    found = next((e.day for e in events if e.type is EventType.DON_CHECK and e.target == sheriff and sheriff
                  and e.value == "sheriff"), None)  # fmt: skip
    order = next((e.seats for e in events if e.type is EventType.KILL_ORDER), ())
    arranged = order.index(sheriff) + 1 if sheriff in order else None
    sheriff_death = death.get(sheriff)
    if sheriff and sheriff_death is not None and sheriff_death.at_night:
        if found is not None and sheriff_death.day == found + 1 and sheriff_death.day != arranged:
            shared.add("sheriff_killed_after_finding")
        if found == 1:
            shared.add("sheriff_found_first_night")
        if sheriff_death.day == 1:
            shared.add("sheriff_killed_first_night")
    checked = {e.target for e in events if e.type is EventType.SHERIFF_CHECK and e.target is not None}
    black_checks = sum(1 for s in checked if roles[s - 1] in BLACK_ROLES)
    if black_checks >= 3:
        shared.add("black_checks")
    elif len(checked) - black_checks >= 3:
        shared.add("red_checks")

    # who left by day (anything but a night kill), by team: the clear win and loss
    day_gone = {"black": 0, "other": 0}
    for s, gone_by in death.items():
        if not gone_by.at_night:
            day_gone["black" if s in black else "other"] += 1

    votes = _votes(events, black)
    legacy = _legacy(events, black)
    awards = _awards(events)

    out: list[SeatFacts] = []
    for seat in range(1, n + 1):
        role, team = roles[seat - 1], teams[seat - 1]
        flags = set(shared)
        own, other = ("black", "other") if team == "black" else ("other", "black")
        if winner == "draw":
            flags.add("draw")
        elif winner is not None:
            won = (
                (winner == "mafia" and team == "black")
                or (winner == "town" and team == "red")
                or (winner == "maniac" and team == "maniac")
            )
            flags.add("win" if won else "loss")
            if won and team != "maniac" and day_gone[own] == 0:
                flags.add("clear_win")
            if won and seat not in death:
                flags.add("survived")
            if not won and team != "maniac" and winner != "maniac" and day_gone[other] == 0:
                flags.add("clear_loss")
        d = death.get(seat)
        if d is not None:
            if d.at_night:
                flags.add("killed_night")
                if d.day == 1:
                    flags.add("killed_first_night")
            elif d.how == "fouls":
                flags.add("removed_by_fouls")
            elif d.how == "kicked_out":
                flags.add("kicked_out")
        guessed = legacy.get(seat)
        if guessed is not None and guessed >= 1:
            flags.add("legacy_3" if guessed >= 3 else "legacy_2" if guessed == 2 else "legacy_1")
        black_votes, red_votes = votes.get(seat, (0, 0))
        if red_votes == 0 and black_votes >= 3:
            flags.add("all_votes_vs_mafia")
        if black_votes == 0 and red_votes >= 3:
            flags.add("all_votes_vs_civ")
        extra, titles, cards = awards.get(seat, (0.0, (), 0))
        flags.update(titles)
        if cards:
            flags.add("yellow_card")
        if extra or set(titles) & {"best_player", "best_move", "no_auto_bonus"}:
            flags.add("bonus")
        first: Departure | None = gone[seat][0] if seat in gone else None
        out.append(
            SeatFacts(
                seat=seat,
                role=role,
                team=team,
                flags=frozenset(flags),
                extra_points=extra,
                yellow_cards=cards,
                departure=d,
                left_first=first if first is not None and first != d else None,
                votes_black=black_votes,
                votes_red=red_votes,
                titles=titles,
            )
        )
    return out


def _votes(events: Sequence[Event], black: set[int]) -> dict[int, tuple[int, int]]:
    """Per voter, from Day 2 on, the votes naming a black and the votes naming anyone else, in main votes and
    re-votes (the lift vote names nobody). mafiaratings leaves Day 1 out: 'mostly splitting'."""
    out: dict[int, list[int]] = {}
    kind = ""
    for e in events:
        if e.type is EventType.VOTING_STARTED:
            kind = e.value or ""
        elif e.type is EventType.VOTE_CAST and e.day >= 2 and kind in VOTE_ROUNDS:
            if e.seat is None or e.target is None or e.value not in ("yes", "default"):
                continue
            tally = out.setdefault(e.seat, [0, 0])
            tally[0 if e.target in black else 1] += 1
    return {s: (b, r) for s, (b, r) in out.items()}


def _legacy(events: Sequence[Event], black: set[int]) -> dict[int, int]:
    """The Night-1 victim's best move: how many of the seats he named are black (mafiaratings' legacy)."""
    return {e.seat: sum(1 for s in set(e.seats) if s in black) for e in events
            if e.type is EventType.BEST_MOVE and e.seat is not None}  # fmt: skip


def _awards(events: Sequence[Event]) -> dict[int, tuple[float, tuple[str, ...], int]]:
    """Per seat: the judge's extra points, titles (in the order given) and yellow cards."""
    extra: dict[int, int] = {}
    titles: dict[int, list[str]] = {}
    cards: dict[int, int] = {}
    for e in events:
        if e.type is not EventType.AWARD or e.seat is None:
            continue
        if e.value == "extra":
            extra[e.seat] = extra.get(e.seat, 0) + (e.count or 0)
        elif e.value == "yellow_card":
            cards[e.seat] = cards.get(e.seat, 0) + 1
        elif e.value:
            titles.setdefault(e.seat, []).append(e.value)
    seats = set(extra) | set(titles) | set(cards)
    return {s: (extra.get(s, 0) / 100, tuple(titles.get(s, ())), cards.get(s, 0)) for s in seats}
