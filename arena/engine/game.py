"""Game: the engine's one stateful object and its public API.

A game is a pure function of (rules, seed, inputs). The phase machine lives in `flow.py` as a generator that yields
batches of requests (one per deciding seat) and receives the answers; this class validates every answer before it
touches the state, buffers answers until the whole batch is in (so the event stream never depends on who answered
first), and takes the judge's out-of-band inputs: fouls, removals, the live table's pause, resume and extra time
(recorded and announced; the engine has no clock, so they change no rule), and the awards of the score sheet. No
I/O, no clock, no global random.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from arena.engine.decisions import Decision, Failed, Failure, IllegalDecision, Kind, Request
from arena.engine.events import EVERY_SEAT, Event, EventType, Phase, Vis, audience_mask
from arena.engine.flow import run
from arena.engine.night import doomed
from arena.engine.outcome import Outcome, Termination, Winner
from arena.engine.roles import BLACK_ROLES, Role, Team, base_team
from arena.engine.ruleset import RuleSet
from arena.engine.state import Answers, Batch, Flow
from arena.engine.validate import validate

__all__ = ["AWARDS", "JUDGE_OPS", "Answers", "AwardKind", "Batch", "Flow", "Game", "GameEnded", "Input", "Winner"]

MAX_EXTRA_TIME_S = 600  # the most a judge adds to one speaker's clock at once


# the Vis members `emit` tests, bound once: on Python 3.11 a member read off its class goes through
# `EnumType.__getattr__`'s hook, about forty times the cost of a global
_PUBLIC, _BLACK = Vis.PUBLIC, Vis.BLACK


class GameEnded(Exception):
    """Raised inside the flow when the game is decided; caught by the driver."""


# What the judge may put on the score sheet (`Game.award`): extra points, a title, or a card. Scoring only: an award
# never changes the game (docs/scoring.md says what each scoring system makes of it).
AwardKind = Literal["extra", "best_player", "best_move", "no_auto_bonus", "yellow_card"]
AWARDS: tuple[AwardKind, ...] = ("extra", "best_player", "best_move", "no_auto_bonus", "yellow_card")
_ONE_SEAT_TITLES = ("best_player", "best_move")  # one seat a game
AWARD_MAX_POINTS = 10.0  # extra points, either sign, in hundredths
AWARD_MAX_REASON = 300  # characters of the judge's reason
JUDGE_OPS = frozenset({"foul", "remove", "pause", "resume", "extra_time", "award"})  # inputs that answer no request


class Input(BaseModel):
    """One input to the engine, in the order it was given: the game's replay record. An `award` carries its kind in
    `award` and, for extra points, `points`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    op: Literal["decide", "reject", "default", "foul", "remove", "pause", "resume", "extra_time", "award"]
    seat: int
    decision: Decision | None = None
    reason: str = ""
    seconds: int = 0  # extra_time: the seconds the judge adds to the seat's clock
    award: AwardKind | None = None
    points: float = 0.0
    # reject and default: the failed attempt as data (`Failed`; None from a caller that said nothing of it)
    code: Failure | None = None
    limit_ms: int | None = None
    reached: bool = True
    rule: str | None = None

    @property
    def failed(self) -> Failed | None:
        """A reject's or default's failed attempt as data, if its caller recorded one."""
        if self.code is None:
            return None
        return Failed(self.code, self.limit_ms, self.reached, self.rule)


def _failed_input(op: str, seat: int, reason: str, failed: Failed) -> Input:
    code, limit_ms, reached, rule = failed.code, failed.limit_ms, failed.reached, failed.rule
    return Input(op=op, seat=seat, reason=reason, code=code, limit_ms=limit_ms, reached=reached, rule=rule)


class Game:
    """One game of Mafia. Create it, then loop: `pending()`, `submit()` (or `apply_default()`), until `over`."""

    # Slots: past the 30 attributes CPython 3.11 shares between instance dicts, every read of `g.alive`, `g.emit` and
    # the rest takes the slow lookup, and the flow reads them at every step (5 % of the engine bench,
    # bench/README.md). A new attribute is listed here too.
    __slots__ = (
        "_answers", "_at_once", "_awards", "_batch", "_budgets", "_default_fouls", "_failed", "_first_seat", "_flow",
        "_in_flow", "_inputs", "_notes", "_seconds", "alive", "alive_seats", "ascii_phrases", "black", "cancelled_days",
        "day",
        "day1_vote_left", "deal_source", "doctor_last_heal", "doctor_saved", "doctor_self_heals", "events",
        "forbidden_phrases", "forfeit_pending", "foul_counts", "fouls", "idle_nights", "justified", "kill_order",
        "last_hidden", "leaving_today", "lost_vote", "lover_last_visit", "maniac_ally", "morning_deaths",
        "morning_lover_miss", "n", "night_heal", "night_last_words", "night_mafia_target", "night_maniac_target",
        "night_sheriff_target", "nominators", "nominee_tuple", "nominees", "opener", "outcome", "paused",
        "pending_winner", "phase", "roles", "rules", "seat_roles", "seed", "sheriff_shots", "speaking_night_last_word",
        "view_counts", "view_upto", "vote_decided", "vote_settled", "winner",
    )  # fmt: skip

    def __init__(self, rules: RuleSet, seed: int = 0, roles: list[Role] | None = None) -> None:
        self.rules = rules
        self.seed = seed
        self.n = rules.players
        self.events: list[Event] = []
        self.last_hidden = -1  # seq of the newest event that is not public: a view after it need not filter
        # per viewer (seat s at index s, PUBLIC at -1), where its last view ended: how many events it was numbered up
        # to in its own sequence, and how many of `events` that covers (`view.view` keeps both)
        self.view_counts = [0] * (self.n + 2)
        self.view_upto = [0] * (self.n + 2)
        self._inputs: list[tuple[str, int, Decision | None, str]] = []  # kept light; `inputs` builds the models
        self._seconds: dict[int, int] = {}  # index in `_inputs` -> an extra_time's seconds
        self._awards: dict[int, tuple[AwardKind, float]] = {}  # index in `_inputs` -> an award's kind and points
        self._failed: dict[int, Failed] = {}  # index in `_inputs` -> a reject's or default's failed attempt
        self.paused = False  # the judge has paused the live table
        self.day = 0
        self.phase = Phase.SETUP
        self.winner: Winner | None = None
        self.outcome: Outcome | None = None  # set by `finish`: who won, by which rule
        self.deal_source = "fixed" if roles is not None else "seed"
        self.roles: list[Role] = [Role.CIVILIAN, *self._deal(roles)]  # roles[0]: no seat
        self.alive = [False] + [True] * self.n
        self.alive_seats: tuple[int, ...] = tuple(self.seats())
        self.fouls = [0] * (self.n + 1)
        self.foul_counts: tuple[int, ...] = (0,) * self.n  # fouls[1:] as a tuple (every view reads it)
        self.black: tuple[int, ...] = tuple(s for s in self.seats() if self.is_black(s))
        self._first_seat = {role: s for s, role in reversed(list(enumerate(self.roles))) if s}  # seat_of's table
        self.maniac_ally = rules.maniac_side == "mafia_ally"
        self._budgets: dict[int, tuple[int, int]] = {}  # speech budget by seconds: words, characters (rules frozen)
        # every language's forbidden phrases in the rules' order, and the ones an all-ASCII text can hold
        self.forbidden_phrases = tuple(phrase for phrases in rules.forbidden_words.values() for phrase in phrases)
        self.ascii_phrases = tuple(phrase for phrase in self.forbidden_phrases if phrase.isascii())
        # per seat, fixed at the deal: role, team, black teammates (every view reads them)
        self.seat_roles: list[tuple[Role, Team, tuple[int, ...]]] = [
            (role, base_team(role), tuple(b for b in self.black if b != s) if s in self.black else ())
            for s, role in enumerate(self.roles)
        ]
        # day state
        self.opener = 0
        self.nominees: list[int] = []
        self.nominee_tuple: tuple[int, ...] = ()  # the same as a tuple, kept by the flow (every view hands it out)
        self.nominators: set[int] = set()
        self.vote_settled = False
        self.vote_decided = 0  # R9.5: the nominee today's hands already send out, whatever the rest do (0: none)
        self.leaving_today: set[int] = set()
        self.cancelled_days: set[int] = set()
        self.speaking_night_last_word = 0
        # long-lived state
        self.forfeit_pending: set[int] = set()
        self.lost_vote: set[int] = set()
        self.justified: set[int] = set()
        self.idle_nights = 0
        self.day1_vote_left = 0
        self.morning_deaths: list[int] = []
        self.morning_lover_miss = False
        self.night_last_words: list[int] = []
        self.pending_winner: Winner | None = None
        self.doctor_saved: set[int] = set()
        self.doctor_self_heals = 0
        self.doctor_last_heal = 0
        self.sheriff_shots = 0
        self.kill_order: tuple[int, ...] = ()
        self.lover_last_visit = 0
        self.reset_night()
        # the driver
        self._batch: Batch = {}
        self._answers: Answers = {}
        self._notes: list[tuple[int, EventType, str, Failed | None]] = []
        self._default_fouls: list[int] = []
        self._at_once: dict[int, Callable[[Decision], None]] = {}  # seats whose answer the flow takes at once
        self._in_flow = False
        self._flow: Flow | None = run(self)
        self._advance(None)

    # ----- construction -------------------------------------------------------------------------------------
    def _deal(self, roles: list[Role] | None) -> list[Role]:
        if roles is not None:
            if len(roles) != self.n:
                raise ValueError(f"seating lists {len(roles)} roles but the rules have {self.n} players")
            want = {r: self.rules.count(r) for r in Role}
            got = {r: roles.count(r) for r in Role}
            if want != got:
                raise ValueError(f"seating roles {got} do not match the rules {want}")
            return list(roles)
        # the cards in the roles' declaration order, so that the deal depends on the seed alone, then shuffled
        pool = [role for role in Role for _ in range(self.rules.count(role))]
        random.Random(self.seed).shuffle(pool)
        return pool

    def reset_night(self) -> None:
        """This night's intents, resolved together at its end."""
        self.night_mafia_target: int | None = None
        self.night_maniac_target: int | None = None
        self.night_sheriff_target: int | None = None
        self.night_heal: int | None = None

    @property
    def inputs(self) -> list[Input]:
        """Every input so far, in order: replaying them on a new Game with the same rules and seed rebuilds this one."""
        seconds, awards, failed = self._seconds, self._awards, self._failed
        return [
            Input(op=op, seat=seat, reason=r, award=awards[i][0], points=awards[i][1])
            if i in awards
            else _failed_input(op, seat, r, failed[i])
            if i in failed
            else Input(op=op, seat=seat, decision=d, reason=r, seconds=seconds.get(i, 0))
            for i, (op, seat, d, r) in enumerate(self._inputs)
        ]

    # ----- queries ------------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """The game is decided."""
        return self.winner is not None

    def seats(self) -> range:
        return range(1, self.n + 1)

    def living(self) -> list[int]:
        return list(self.alive_seats)

    def set_dead(self, seat: int) -> None:
        """The one place a seat leaves the living (kept with the tuple of living seats)."""
        self.alive[seat] = False
        self.alive_seats = tuple(s for s in self.alive_seats if s != seat)

    def clockwise_from(self, start: int) -> list[int]:
        """Living seats in speaking order, starting at `start` (or the first living seat after it)."""
        seats = self.alive_seats  # ascending: the ones from `start` on, then the ones before it
        i = bisect_left(seats, start)
        return [*seats[i:], *seats[:i]]

    def seat_of(self, role: Role) -> int:
        """The first seat dealt `role`, or 0."""
        return self._first_seat.get(role, 0)

    def is_black(self, seat: int) -> bool:
        return self.roles[seat] in BLACK_ROLES

    def counts_as_black(self, seat: int) -> bool:
        return self.is_black(seat) or (self.roles[seat] is Role.MANIAC and self.maniac_ally)

    def budget(self, seconds: int) -> tuple[int, int]:
        """A speech of `seconds`: its budget in words, and in characters (`speech.chars` of those words)."""
        budget = self._budgets.get(seconds)
        if budget is None:
            speech = self.rules.speech
            words = speech.words(seconds)
            budget = self._budgets[seconds] = (words, speech.chars(words))
        return budget

    def pending(self) -> list[Request]:
        """The requests still waiting for an answer, in seat order."""
        return [request for seat, request in sorted(self._batch.items()) if seat not in self._answers]

    def request_for(self, seat: int) -> Request | None:
        if seat in self._answers:
            return None
        return self._batch.get(seat)

    # ----- events -------------------------------------------------------------------------------------------
    def emit(
        self,
        type_: EventType,
        vis: Vis = Vis.PUBLIC,
        to: tuple[int, ...] = (),
        *,
        seat: int | None = None,
        target: int | None = None,
        seats: tuple[int, ...] = (),
        counts: tuple[int, ...] = (),
        roles: tuple[str, ...] = (),
        count: int | None = None,
        value: str | None = None,
        text: str | None = None,
        code: str | None = None,
    ) -> Event:
        """Record one state change as an event, with the audience it is for: everyone, the black team, the seats in
        `to`, or the moderator alone (its `mask`: bit s set when seat s sees it)."""
        # `Event(...)` by its slots, and a public event's mask without a call: an event is made at every state change,
        # the dataclass called with fourteen keywords costs five times this (23 % of the engine bench), and the plain
        # form `Vis.PUBLIC` read at every event and `audience_mask` called for all another 3 % (bench/README.md)
        event: Event = object.__new__(Event)
        event.seq = len(self.events)
        event.day = self.day
        event.phase = self.phase
        event.type = type_
        event.vis = vis
        event.seat = seat
        event.target = target
        event.seats = seats
        event.counts = counts
        event.roles = roles
        event.count = count
        event.value = value
        event.text = text
        event.code = code
        if vis is _PUBLIC:
            event.to = to
            event.mask = EVERY_SEAT  # type: ignore[misc]  # the slot is _Audience's
        else:
            if vis is _BLACK:
                to = self.black
            event.to = to
            event.mask = audience_mask(vis, to)  # type: ignore[misc]
            self.last_hidden = event.seq
        self.events.append(event)
        return event

    # ----- inputs -------------------------------------------------------------------------------------------
    def submit(self, seat: int, decision: Decision) -> None:
        """Answer `seat`'s pending request. Raises IllegalDecision, leaving the state unchanged, if not legal."""
        decision = validate(self, self._require_pending(seat), decision)
        self._inputs.append(("decide", seat, decision, ""))
        self._answers[seat] = decision
        self._answered(seat)

    def check(self, seat: int, decision: Decision) -> Decision:
        """Validate without applying: what `submit` would accept. Raises IllegalDecision with the reason."""
        return validate(self, self._require_pending(seat), decision)

    def reject(self, seat: int, reason: str, failed: Failed | None = None) -> None:
        """Record that `seat`'s attempt failed and is asked again (the orchestrator's re-ask, R9.7), as an event:
        `reason` in words, `failed` as data (its code, a time-out's limit; `Failed`)."""
        self._require_pending(seat)
        self._note_failed(failed)
        self._inputs.append(("reject", seat, None, reason))
        self._notes.append((seat, EventType.ACTION_REJECTED, reason, failed))

    def apply_default(self, seat: int, reason: str, failed: Failed | None = None) -> Decision:
        """Apply the rule's default for `seat`'s pending request (R9.7: after bounded re-asks or a timeout), with
        the failed attempt that ended it: `reason` in words, `failed` as data."""
        request = self._require_pending(seat)
        self._note_failed(failed)
        self._inputs.append(("default", seat, None, reason))
        self._notes.append((seat, EventType.DEFAULT_APPLIED, reason, failed))
        # R9.7: a probe never acts; and a decision made at night costs no foul, since a foul is public and, whenever
        # it were announced, it would name a seat that acts at night (a don, a sheriff, a black, ...)
        if self.rules.fouls.illegal_action_foul and request.kind is not Kind.PROBE and self.phase is not Phase.NIGHT:
            self._default_fouls.append(seat)
        self._answers[seat] = request.default
        self._answered(seat)
        return request.default

    def _note_failed(self, failed: Failed | None) -> None:
        if failed is not None:
            self._failed[len(self._inputs)] = failed

    def foul(self, seat: int, reason: str = "judge") -> None:
        """The judge gives `seat` a foul (or warning). May forfeit a speech, cost the vote, or remove him."""
        self._require_living(seat)
        self._inputs.append(("foul", seat, None, reason))
        self._outside_flow(lambda: self.give_foul(seat, reason))

    def remove(self, seat: int, reason: str = "disqualified") -> None:
        """The judge removes `seat` at once, with no last word (R9.3, R9.4)."""
        self._require_living(seat)
        self._inputs.append(("remove", seat, None, reason))
        self._outside_flow(lambda: self.remove_seat(seat, reason))

    def pause(self, reason: str = "") -> None:
        """The judge stops the live table's clocks (a dispute, a break): announced to every seat. The engine has no
        clock: the table waits; the rules do not change."""
        if self.over:
            raise IllegalDecision("game_over", "the game is over")
        if self.paused:
            raise IllegalDecision("paused", "the table is already paused")
        self._inputs.append(("pause", 0, None, reason))
        self.paused = True
        self.emit(EventType.JUDGE, value="pause", text=reason or None)

    def resume(self, reason: str = "") -> None:
        """The judge lets the paused table go on."""
        if not self.paused:
            raise IllegalDecision("not_paused", "the table is not paused")
        self._inputs.append(("resume", 0, None, reason))
        self.paused = False
        self.emit(EventType.JUDGE, value="resume", text=reason or None)

    def extra_time(self, seat: int, seconds: int, reason: str = "") -> None:
        """The judge gives `seat` `seconds` more for its current decision (a speech, mostly): announced to every
        seat, so the table knows why the clock moved."""
        if self.over:
            raise IllegalDecision("game_over", "the game is over")
        if not 1 <= seat <= self.n:
            raise IllegalDecision("not_alive", f"seat {seat} is not at this table")
        if isinstance(seconds, bool) or not isinstance(seconds, int) or not 1 <= seconds <= MAX_EXTRA_TIME_S:
            raise IllegalDecision("bad_seconds", f"extra time is 1 to {MAX_EXTRA_TIME_S} whole seconds")
        self._seconds[len(self._inputs)] = seconds
        self._inputs.append(("extra_time", seat, None, reason))
        self.emit(EventType.JUDGE, seat=seat, value="extra_time", count=seconds, text=reason or None)

    def award(self, seat: int, kind: AwardKind, points: float = 0.0, reason: str = "") -> None:
        """The judge's score sheet: extra points (`extra`, `points` of either sign, in hundredths), a title
        (`best_player`, `best_move`, `no_auto_bonus`: the auto-bonus taken away) or a `yellow_card`, for any seat,
        living or not, at any time after the deal, the end of the game included. It changes nothing in the game;
        the scoring systems read it (docs/scoring.md). Given while the game runs it is the moderator's alone (a
        seat learns nothing of the judge's opinion before the end); given after the end it is public. Refused with
        IllegalDecision: an unknown kind or seat, points out of range or finer than hundredths, points on a title,
        a title the seat holds already, a best player or best move already named for another seat."""
        points = self._check_award(seat, kind, points, reason)
        self._awards[len(self._inputs)] = (kind, points)
        self._inputs.append(("award", seat, None, reason))
        self.emit(
            EventType.AWARD,
            Vis.PUBLIC if self.over else Vis.MODERATOR,
            seat=seat,
            value=kind,
            count=round(points * 100) if kind == "extra" else None,
            text=reason or None,
        )

    def _check_award(self, seat: int, kind: str, points: float, reason: str) -> float:
        if not 1 <= seat <= self.n:
            raise IllegalDecision("bad_award", f"seat {seat} is not at this table (1 to {self.n})")
        if kind not in AWARDS:
            raise IllegalDecision("bad_award", f"unknown award {kind!r}; allowed: {', '.join(AWARDS)}")
        if not isinstance(reason, str) or len(reason) > AWARD_MAX_REASON:
            raise IllegalDecision("bad_award", f"the reason must be text of at most {AWARD_MAX_REASON} characters")
        if kind != "extra":
            if points:
                raise IllegalDecision("bad_award", f"{kind} carries no points (the scoring system gives them)")
            holders = [self._inputs[i][1] for i, (given, _) in self._awards.items() if given == kind]
            if kind != "yellow_card" and seat in holders:
                raise IllegalDecision("bad_award", f"seat {seat} already holds {kind}")
            if kind in _ONE_SEAT_TITLES and holders:
                raise IllegalDecision("bad_award", f"{kind} is already given to seat {holders[0]}")
            return 0.0
        if isinstance(points, bool) or not isinstance(points, int | float) or not math.isfinite(points):
            raise IllegalDecision("bad_award", "extra points must be a finite number")
        hundredths = round(points * 100)
        if abs(points * 100 - hundredths) > 1e-6 or not 0 < abs(points) <= AWARD_MAX_POINTS:
            raise IllegalDecision(
                "bad_award", f"extra points must be nonzero, at most {AWARD_MAX_POINTS:g} either way, in hundredths"
            )
        return hundredths / 100

    def replay(self, inputs: list[Input]) -> None:
        """Feed recorded inputs, in order. Used by verify and resume."""
        for item in inputs:
            if item.op == "decide":
                assert item.decision is not None
                self.submit(item.seat, item.decision)
            elif item.op == "reject":
                self.reject(item.seat, item.reason, item.failed)
            elif item.op == "default":
                self.apply_default(item.seat, item.reason, item.failed)
            elif item.op == "foul":
                self.foul(item.seat, item.reason)
            elif item.op == "pause":
                self.pause(item.reason)
            elif item.op == "resume":
                self.resume(item.reason)
            elif item.op == "extra_time":
                self.extra_time(item.seat, item.seconds, item.reason)
            elif item.op == "award":
                if item.award is None:
                    raise IllegalDecision("bad_award", "an award input names no award")
                self.award(item.seat, item.award, item.points, item.reason)
            else:
                self.remove(item.seat, item.reason)

    def _require_pending(self, seat: int) -> Request:
        if self.over:
            raise IllegalDecision("game_over", "the game is over")
        request = self._batch.get(seat)
        if request is None:
            raise IllegalDecision("not_pending", f"seat {seat} has no decision pending")
        if seat in self._answers:
            raise IllegalDecision("already_answered", f"seat {seat} has already answered this request")
        return request

    def _require_living(self, seat: int) -> None:
        """The judge may discipline a living seat, or a departing one during his own last word (R7.4, R9.5)."""
        if self.over:
            raise IllegalDecision("game_over", "the game is over")
        if not 1 <= seat <= self.n:
            raise IllegalDecision("not_alive", f"seat {seat} is not a living player")
        speaking = seat in self._batch and seat not in self._answers and self._may_speak_dead(seat)
        if not self.alive[seat] and not speaking:
            raise IllegalDecision("not_alive", f"seat {seat} is not a living player")

    # ----- discipline (called from the flow and from the judge) ----------------------------------------------
    def give_foul(self, seat: int, reason: str) -> None:
        """A foul for `seat` (R9.1–R9.3, P31), the judge's or the rules' own (R9.7): the third forfeits his next
        speech, the fourth removes him, and aurora's second costs his vote."""
        f = self.rules.fouls
        self.fouls[seat] += 1
        count = self.fouls[seat]
        self.foul_counts = tuple(self.fouls[1:])
        self.emit(EventType.FOUL, seat=seat, count=count, value=reason)
        if count >= f.removal_at:
            self.remove_seat(seat, "fouls")
            return
        if f.lose_vote_at != "never" and count == f.lose_vote_at:
            self.lost_vote.add(seat)
            self.emit(EventType.VOTE_LOST, seat=seat)
        if f.lose_speech_at != "never" and count == f.lose_speech_at:
            self.forfeit_pending.add(seat)

    def remove_seat(self, seat: int, reason: str) -> None:
        """`seat` leaves at once with no last word (R7.3, R9.3, R9.4): the vote it cancels (R9.5), the win check
        (R9.6), and a decided vote's leaving first (R9.5a)."""
        self.emit(EventType.REMOVED, seat=seat, value=reason)
        self._cancel_vote_for_removal(seat)
        decided = self._decided_other(seat)
        # R9.5a, MR 9.8: today's hands sent `decided` out before this removal, so his leaving is checked first
        by_vote = self.check_win(gone=decided) if decided else None
        if self.alive[seat]:  # a departing speaker has already left the table
            self.eliminate(seat, "removed")
        self._batch.pop(seat, None)
        self._answers.pop(seat, None)
        self._at_once.pop(seat, None)
        self._notes = [note for note in self._notes if note[0] != seat]
        self._default_fouls = [s for s in self._default_fouls if s != seat]
        self._forget_target(seat)
        if seat in self.night_last_words:
            self.night_last_words.remove(seat)
        if self.pending_winner is not None:
            return  # R7.4: removals during the game-end speech do not change the result
        winner = by_vote or self.check_win(gone=decided)
        if winner is None:
            return  # the round goes on; a decided player leaves when it ends (R9.5a)
        if decided:  # R9.5a: the game ends at once, and the player the hands decided has left by the vote
            self.leaving_today.add(decided)
            self.eliminate(decided, "voted")
        self.finish(Outcome(winner, Termination.DAY_VOTE) if by_vote else Outcome(winner, Termination.REMOVAL, seat))

    def _decided_other(self, seat: int) -> int:
        """R9.5a: the living player today's hands already send out, if the judge is removing someone else (0: none)."""
        decided = self.vote_decided
        if self.phase is Phase.DAY and decided and decided != seat and self.alive[decided]:
            return decided
        return 0

    def _forget_target(self, seat: int) -> None:
        """A removed seat leaves every pending request's options (R7.3: he is gone at once)."""
        for other, request in list(self._batch.items()):
            if seat not in request.options and seat not in request.nominate_options:
                continue
            options = tuple(s for s in request.options if s != seat)
            update: dict[str, Any] = {
                "options": options,
                "nominate_options": tuple(s for s in request.nominate_options if s != seat),
            }
            if request.options and not options:  # nobody left to target: "nobody" is then the one legal answer
                update["allow_none"] = True
            if request.default.target == seat:
                fallback = None if request.allow_none or not options else options[0]
                update["default"] = request.default.model_copy(update={"target": fallback})
            if request.default.targets and seat in request.default.targets:
                targets = tuple(s for s in request.default.targets if s != seat)
                update["default"] = request.default.model_copy(update={"targets": targets})
            self._batch[other] = request.model_copy(update=update)

    def _cancel_vote_for_removal(self, seat: int) -> None:
        """R9.5: a removal cancels today's vote while its result is not yet determined, otherwise tomorrow's; none
        when the removed player is leaving anyway: by today's vote, or as the night's victim (⚠ between the shot
        and the morning, and in his morning last word)."""
        if not self.rules.fouls.cancel_vote_on_removal:
            return
        if self.phase is Phase.NIGHT or self.phase is Phase.SETUP:
            if seat in doomed(self):
                return
            day = self.day + 1
        elif seat in self.leaving_today or seat == self.speaking_night_last_word or seat == self.vote_decided:
            return
        else:
            day = self.day + 1 if self.vote_settled or self.vote_decided else self.day
        if day not in self.cancelled_days:
            self.cancelled_days.add(day)

    # ----- shared game actions (used by the flow) -----------------------------------------------------------
    def eliminate(self, seat: int, how: str) -> None:
        self.set_dead(seat)
        self.idle_nights = 0
        self.announce_departure(seat, how)

    def announce_departure(self, seat: int, how: str) -> None:
        """P04: the departure is public; with open cards the card is shown too."""
        self.emit(EventType.ELIMINATED, seat=seat, value=how)
        if self.rules.reveal_on_elimination == "card":
            self.emit(EventType.CARD_REVEALED, seat=seat, value=self.roles[seat].value)

    def check_win(self, gone: int = 0) -> Winner | None:
        """R10 / P34–P37: who has won now, if anyone (counting `gone` as having left already). The maniac is checked
        first (edge precedence)."""
        win = self.rules.win
        alive = tuple(s for s in self.alive_seats if s != gone) if gone else self.alive_seats
        if not alive:
            return "draw"
        black = sum(1 for s in alive if self.counts_as_black(s))  # an allied maniac counts as black
        maniac_free = any(self.roles[s] is Role.MANIAC for s in alive) and not self.maniac_ally
        if win.maniac == "alive_and_at_most_one_other" and maniac_free and len(alive) <= 2:
            return "maniac"
        if black == 0 and (win.town == "no_black" or not maniac_free):
            return "town"
        others = len(alive) - black
        if win.mafia == "black_ge_red" and maniac_free:
            others -= 1
        if black > 0 and black >= others:
            return "mafia"
        return None

    def finish(self, outcome: Outcome) -> None:
        """The game ends (R10): its outcome as data, `game_ended` carrying the termination's code and its number."""
        self.winner = outcome.winner
        self.outcome = outcome
        self.phase = Phase.END
        self.emit(
            EventType.GAME_ENDED,
            target=outcome.seat,
            count=outcome.nights,
            value=outcome.winner,
            code=outcome.termination,
        )
        self._batch = {}
        self._answers = {}
        self._at_once = {}
        raise GameEnded

    # ----- the driver ---------------------------------------------------------------------------------------
    def at_once(self, seat: int, take: Callable[[Decision], None]) -> None:
        """Have the pending batch's answer of `seat` taken by `take` the moment it is given, with its own notes
        first, not when the whole batch is in (R8.1: the don's check is made before the sheriff's). The flow still
        receives it with the others' answers."""
        self._at_once[seat] = take

    def _answered(self, seat: int) -> None:
        """After `seat`'s answer: take it at once if the flow asked for that, then resolve a complete batch."""
        take = self._at_once.pop(seat, None)
        if take is not None:
            try:
                self._flush_notes(seat)
                decision = self._answers.get(seat)  # gone if the foul for his default removed him
                if decision is not None:
                    take(decision)
            except GameEnded:
                self._close()
                return
        if len(self._answers) >= len(self._batch):
            self._resolve()

    def _resolve(self) -> None:
        answers = self._answers
        if self._notes or self._default_fouls:
            try:
                self._flush_notes()
            except GameEnded:
                self._close()
                return
        self._batch = {}
        self._answers = {}
        # the answers of the living, and of the departing who still speak (removed meanwhile: none)
        self._advance({s: d for s, d in answers.items() if self.alive[s] or self._may_speak_dead(s)})

    def _may_speak_dead(self, seat: int) -> bool:
        # the departing speak after leaving: last words and the best move
        return seat in self.leaving_today or seat in self.night_last_words or seat in self.morning_deaths

    def _flush_notes(self, only: int = 0) -> None:
        """The batch's re-asks and defaults as events, then R9.7's fouls for its defaulted decisions, each in seat
        order (`only`: that seat's alone)."""
        notes = sorted((n for n in self._notes if n[0] == only or not only), key=lambda n: n[0])
        fouls = sorted(s for s in self._default_fouls if s == only or not only)
        self._notes = [n for n in self._notes if only and n[0] != only]
        self._default_fouls = [s for s in self._default_fouls if only and s != only]
        for seat, type_, reason, failed in notes:
            if failed is None:
                self.emit(type_, Vis.SEATS, (seat,), seat=seat, value=reason)
            else:  # the code and a time-out's limit, which the pages word (the input keeps the rest)
                self.emit(type_, Vis.SEATS, (seat,), seat=seat, value=reason, code=failed.code, count=failed.limit_ms)
        for seat in fouls:
            if self.alive[seat]:
                self.give_foul(seat, "illegal_action")

    def _outside_flow(self, action: Callable[[], None]) -> None:
        """Run a judge action; if it ends the game, stop the flow; if it completed the batch, move on."""
        try:
            action()
        except GameEnded:
            self._close()
            return
        if self._flow is not None and not self._in_flow and len(self._answers) >= len(self._batch):
            self._resolve()

    def _advance(self, answers: Answers | None) -> None:
        assert self._flow is not None
        self._in_flow = True
        try:
            self._batch = self._flow.send(answers) if answers is not None else next(self._flow)
        except GameEnded:
            self._flow = None
        except StopIteration:  # pragma: no cover - the flow loops until a win or a draw
            self._flow = None
        finally:
            self._in_flow = False

    def _close(self) -> None:
        if self._flow is not None:
            self._flow.close()
            self._flow = None
        self._batch = {}
        self._answers = {}
        self._at_once = {}
