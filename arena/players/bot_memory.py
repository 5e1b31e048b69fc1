"""What a heuristic bot remembers: a fold over the events its seat has seen, and the reads it draws from them.

The memory is a pure function of the ordered events the seat saw (deduplicated by seq), never of how they arrived,
so a bot rebuilt on resume from one full view knows exactly what the original knew from many small views. It reads
only Observation data: public events, the seat's own private results, and the black team's channel.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from arena.engine import Event, EventType, Observation, Role, Team
from arena.players.bot_lines import reader

BLACK_ROLES = {Role.MAFIA.value, Role.DON.value}


@dataclass
class Claim:
    """A public sheriff claim: who, when first, and the checks he has announced (latest word per seat)."""

    seat: int
    seq: int
    checks: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Vote:
    day: int
    seq: int
    voter: int
    target: int | None
    candidates: tuple[int, ...]
    round: int  # the index of the vote round (a VOTING_STARTED) this vote belongs to


@dataclass
class Memory:
    """Everything one seat has seen, folded into the facts the heuristics use."""

    seat: int
    sheriff_answer: str = "colour"  # the rules' question, to read a yes/no check answer
    last_seq: int = -1
    don: int = 0
    black: tuple[int, ...] = ()
    kill_order: tuple[int, ...] = ()
    fake_claimer: int = 0  # the black named by the don to claim sheriff falsely
    side: str = ""  # the maniac's Night-0 choice
    my_checks: dict[int, str] = field(default_factory=dict)  # sheriff: black | red | not_don
    don_checks: dict[int, bool] = field(default_factory=dict)  # don: is the sheriff?
    claims: dict[int, Claim] = field(default_factory=dict)
    named: dict[tuple[int, int], int] = field(default_factory=dict)  # (day, speaker) -> the suspect he named
    spoke: set[tuple[int, int]] = field(default_factory=set)  # (day, speaker)
    nominations: list[tuple[int, int, int]] = field(default_factory=list)  # (day, by, target)
    votes: list[Vote] = field(default_factory=list)
    killed_at_night: list[int] = field(default_factory=list)
    gone: dict[int, str] = field(default_factory=dict)  # seat -> how he left
    cards: dict[int, str] = field(default_factory=dict)  # open cards: seat -> role
    best_moves: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    healed: list[int] = field(default_factory=list)
    visited: list[int] = field(default_factory=list)
    _round: tuple[int, ...] = ()
    _rounds: int = 0

    def update(self, events: tuple[Event, ...]) -> None:
        for event in events:
            if event.seq <= self.last_seq:
                continue  # seen already (a re-sent view)
            self.last_seq = event.seq
            self._fold(event)

    def _fold(self, e: Event) -> None:  # one branch per event type reads best as a flat dispatch
        t = e.type
        if t is EventType.SPEECH and e.seat is not None:
            self._speech(e.seq, e.day, e.seat, e.text or "")
        elif t is EventType.VOTING_STARTED:
            self._round = e.seats
            self._rounds += 1
        elif t is EventType.VOTE_CAST and e.seat is not None and e.value in ("yes", "default"):
            self.votes.append(Vote(e.day, e.seq, e.seat, e.target, self._round, self._rounds))
        elif t is EventType.NOMINATED and e.seat is not None and e.target is not None:
            self.nominations.append((e.day, e.seat, e.target))
        elif t is EventType.ELIMINATED and e.seat is not None:
            self.gone[e.seat] = e.value or ""
            if e.value == "killed":
                self.killed_at_night.append(e.seat)
        elif t is EventType.CARD_REVEALED and e.seat is not None:
            self.cards[e.seat] = e.value or ""
        elif t is EventType.BLACK_TEAM:
            self.black = e.seats
            self.don = e.target or 0
        elif t is EventType.KILL_ORDER:
            self.kill_order = e.seats
        elif t is EventType.BLACK_MESSAGE and e.seat == self.don and self.don:
            fake = reader().read(e.text or "").fake_claimer
            if fake is not None and fake in self.black:
                self.fake_claimer = fake
        elif t is EventType.SHERIFF_CHECK and e.target is not None:
            self.my_checks[e.target] = _check_word(e.value or "", self.sheriff_answer)
        elif t is EventType.DON_CHECK and e.target is not None:
            self.don_checks[e.target] = e.value == "sheriff"
        elif t is EventType.SIDE_CHOSEN:
            self.side = e.value or ""
        elif t is EventType.BEST_MOVE and e.seat is not None:
            self.best_moves.append((e.seat, e.seats))
        elif t is EventType.HEAL and e.target is not None:
            self.healed.append(e.target)
        elif t is EventType.VISIT and e.target is not None:
            self.visited.append(e.target)

    def _speech(self, seq: int, day: int, seat: int, text: str) -> None:
        self.spoke.add((day, seat))
        reading = reader().read(text)
        if reading.suspect is not None:
            self.named[(day, seat)] = reading.suspect
        if reading.claims_sheriff:
            claim = self.claims.get(seat)
            if claim is None:
                claim = self.claims[seat] = Claim(seat, seq)
            for target, value in reading.checks:
                if target != seat:
                    claim.checks[target] = value


@dataclass
class ProbeOffset:
    """How many of the events a seat saw the belief probes added so far (its own `probe` events and the public
    `probes_taken` ones): a bot subtracts it from the event count it keys its random draws on, so the probes never
    change how it plays."""

    last_seq: int = -1
    events: int = 0

    def update(self, events: tuple[Event, ...]) -> int:
        for event in events:
            if event.seq <= self.last_seq:
                continue
            self.last_seq = event.seq
            if event.type is EventType.PROBES_TAKEN or event.type is EventType.PROBE:
                self.events += 1
        return self.events


def beliefs(m: Memory, obs: Observation, options: tuple[int, ...], blacks: int) -> tuple[float, ...]:
    """P(black) for each of `options`, from what this seat knows: its team (a black knows every colour), its own
    checks, open cards, and otherwise the town's suspicion scores spread over the blacks it expects still alive."""
    if obs.team is Team.BLACK:
        return tuple(1.0 if s in m.black else 0.0 for s in options)
    known: dict[int, float] = {}
    for seat, role in m.cards.items():
        known[seat] = 1.0 if is_black_role(role) else 0.0
    for seat, value in m.my_checks.items():
        if value in ("black", "red"):
            known[seat] = 1.0 if value == "black" else 0.0
    unknown = [s for s in options if s not in known]
    if unknown:
        gone_black = sum(1 for s, role in m.cards.items() if is_black_role(role) and s not in options)
        left = max(0.0, blacks - gone_black - sum(known.get(s, 0.0) for s in options))
        # blacks leave the game at about the rate reds do when nothing is known: scale by the seats still here
        expected = min(left, left * (len(options) + 1) / obs.players) if not m.cards else left
        scores = town_reads(m, obs).score
        weights = {s: math.exp(0.25 * max(-10.0, min(10.0, scores.get(s, 0.0)))) for s in unknown}
        total = sum(weights.values())
        for s in unknown:
            known[s] = min(0.95, max(0.02, expected * weights[s] / total))
    return tuple(round(known[s], 3) for s in options)


def _check_word(value: str, question: str) -> str:
    """The engine's sheriff answer (colour, is_don, is_mafia) in the bots' three words."""
    if value in ("black", "red"):
        return value
    if value == "yes":
        return "black"
    return "not_don" if question == "is_don" else "red"


def is_black_role(role: str) -> bool:
    return role in BLACK_ROLES


@dataclass
class Reads:
    """Suspicion of each seat, with the main reason (a line key) and the seat the reason cites."""

    score: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    reason: dict[int, tuple[str, int, float]] = field(default_factory=dict)
    sheriff: int = 0  # the sheriff this seat believes in (0: none)

    def bump(self, seat: int, value: float, code: str, by: int = 0) -> None:
        self.score[seat] += value
        best = self.reason.get(seat)
        if value > 0 and (best is None or value > best[2]):
            self.reason[seat] = (code, by, value)


def believed_sheriff(m: Memory, obs: Observation) -> int:
    """The claimant a red seat believes: the real one if it is me, else the most credible claim (0: none)."""
    if obs.role is Role.SHERIFF:
        return m.seat
    best, best_cred = 0, -50.0
    for index, (claimant, claim) in enumerate(sorted(m.claims.items(), key=lambda kv: kv[1].seq)):
        if claimant == m.seat:
            continue
        cred = 0.5 if index == 0 else 0.0
        card = m.cards.get(claimant)
        if card:
            cred += 100 if card == Role.SHERIFF.value else -100
        if claim.checks.get(m.seat) == "black" and obs.team is Team.RED:
            cred -= 100  # he called me black; I know my card
        if claimant in m.killed_at_night:
            cred += 5  # the mafia shoot real sheriffs
        for target, value in claim.checks.items():
            role = m.cards.get(target)
            if role and value != "not_don":
                cred += 3 if (value == "black") == is_black_role(role) else -100
            if value == "black" and target in m.killed_at_night:
                cred -= 3  # the mafia rarely shoot their own
            if value == "black" and target in m.black:
                cred += 100  # a black teammate knows this one checks true (black seats only)
        if claimant in m.black:
            cred -= 200  # a black knows his teammate is lying
        if cred > best_cred:
            best, best_cred = claimant, cred
    return best


def town_reads(m: Memory, obs: Observation) -> Reads:
    """Suspicion as a red seat sees it: claims and checks first, then nominations, votes and the best move."""
    reads = Reads()
    sheriff = believed_sheriff(m, obs)
    reads.sheriff = sheriff
    me = m.seat
    for claimant, claim in m.claims.items():
        if claimant == me:
            continue
        if claim.checks.get(me) == "black" and obs.team is Team.RED:
            reads.bump(claimant, 10, "fake_claim")
        elif sheriff and claimant != sheriff:
            reads.bump(claimant, 5, "counter_claim", sheriff)
    if sheriff == me:
        for target, value in m.my_checks.items():
            if value == "black":
                reads.bump(target, 20, "my_check")
            elif value == "red":
                reads.bump(target, -20, "my_check")
    elif sheriff:
        for target, value in m.claims[sheriff].checks.items():
            if value == "black":
                reads.bump(target, 8, "sheriff_black", sheriff)
            elif value == "red":
                reads.bump(target, -3, "sheriff_black", sheriff)
    known_black = {s for s, v in reads.score.items() if v >= 8}
    claim_seq = m.claims[sheriff].seq if sheriff and sheriff in m.claims else -1
    for vote in m.votes:
        if sheriff and vote.target == sheriff:
            reads.bump(vote.voter, 2, "voted_sheriff", sheriff)
        if claim_seq >= 0 and vote.seq > claim_seq and vote.voter not in known_black:
            shielded = [k for k in known_black if k in vote.candidates and k != vote.target]
            if shielded:
                reads.bump(vote.voter, 1, "shielded_black")
    for _day, by, target in m.nominations:
        if sheriff and target == sheriff:
            reads.bump(by, 2, "nominated_sheriff", sheriff)
    _company(m, reads, known_black)
    for victim, named in m.best_moves:
        if victim in m.killed_at_night:
            for target in named:
                reads.bump(target, 1.5, "best_move", victim)
    for seat, role in m.cards.items():
        reads.bump(seat, 100 if is_black_role(role) else -100, "revealed")
    reads.score.pop(me, None)
    return reads


def _company(m: Memory, reads: Reads, known_black: set[int]) -> None:
    """Who keeps company with a checked black: names the same suspect on the same day, or votes with him."""
    if not known_black:
        return
    for (day, speaker), named in m.named.items():
        if speaker in known_black:
            continue
        for black in known_black:
            if m.named.get((day, black)) == named and named != speaker:
                reads.bump(speaker, 2, "echoes", black)
    by_round: dict[int, dict[int, int | None]] = defaultdict(dict)
    for vote in m.votes:
        by_round[vote.round][vote.voter] = vote.target
    for ballots in by_round.values():
        for black in known_black & ballots.keys():
            target = ballots[black]
            for voter, choice in ballots.items():
                if voter not in known_black and choice == target and target not in known_black:
                    reads.bump(voter, 1, "voted_with", black)


def black_threat(m: Memory) -> dict[int, float]:
    """How dangerous each red seat looks to the black team, from what every black saw (no private checks)."""
    threat: dict[int, float] = defaultdict(float)
    for claimant in m.claims:
        if claimant not in m.black:
            threat[claimant] += 10
    for _day, by, target in m.nominations:
        if target in m.black and by not in m.black:
            threat[by] += 1
    for vote in m.votes:
        if vote.target in m.black and vote.voter not in m.black:
            threat[vote.voter] += 0.5
    return threat
