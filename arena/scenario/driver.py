"""Plays a scenario: every seat's scripted decisions and the judge's fouls and removals, fed into one Game.

The driver is a scripted player for all seats at once plus the judge. At each step it looks at the engine's pending
requests, fires any judge action due at this moment, then answers one request from the script, or with the
documented default when the script is silent. It decides nothing on its own, so a scenario's outcome is the
engine's. A scripted decision the engine refuses is recorded and replaced by the rule's default, as the orchestrator
would after its re-asks; the checker then reports it unless the scenario expects it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.engine import Decision, EventType, Game, IllegalDecision, Kind, Request, SpeechKind
from arena.scenario.format import DayScript, NightScript, Scenario
from arena.scenario.notation import Moment, PhaseRef

_SPEECH_MOMENT = {
    SpeechKind.REGULAR: "speech",
    SpeechKind.SHORT: "speech",
    SpeechKind.NOMINATE_ONLY: "speech",
    SpeechKind.INTRO: "intro",
    SpeechKind.EXTRA: "extra",
    SpeechKind.TIE: "tie speech",
    SpeechKind.LAST_WORD: "last word",
}
_NIGHT_MOMENT = {
    Kind.CHOOSE_SIDE: "side",
    Kind.BLACK_MESSAGE: "meeting",
    Kind.VISIT: "visit",
    Kind.SHOOT: "shot",
    Kind.BEST_MOVE: "best move",
}
# the night's checks batch is answered in R8.1's order (the don's check is taken the moment he gives it), each a
# moment of its own; any other batch in seat order
_CHECK_ORDER = {Kind.DON_CHECK: 0, Kind.SHERIFF: 1, Kind.MANIAC_KILL: 2, Kind.HEAL: 3}
_CHECK_MOMENT = {Kind.DON_CHECK: "don check", Kind.SHERIFF: "sheriff check"}
MAX_STEPS = 20_000  # far beyond any real game: a guard against a flow that never ends


class ScenarioRunError(Exception):
    """The scenario could not be played to its end (the engine raised, or the game never stopped)."""


@dataclass
class Refused:
    phase: PhaseRef
    seat: int
    code: str
    reason: str
    decision: Decision


@dataclass
class Played:
    """What a run leaves for the checker besides the game's own events."""

    stopped_at: PhaseRef = field(default_factory=lambda: PhaseRef(0))
    openers: dict[int, int] = field(default_factory=dict)  # day → the engine's opener, seen at its first speech
    refused: list[Refused] = field(default_factory=list)
    used: set[tuple[int, str]] = field(default_factory=set)  # (phase ordinal, script item) consumed
    fired: set[tuple[int, int]] = field(default_factory=set)  # (phase ordinal, judge index) done
    errors: list[str] = field(default_factory=list)  # start and judge problems: always failures


class Driver:
    """Runs one scenario on one game. `play()` returns when the game is over or the stop phase is passed."""

    def __init__(self, scenario: Scenario, game: Game) -> None:
        self.sc = scenario
        self.game = game
        self.out = Played()
        self._seen: set[int] = set()
        start = scenario.start
        self._fouls_due = dict(start.fouls)
        self._removals_due = start.alive is not None or start.removed is not None
        self._start_checked = False
        self._rounds: dict[tuple[int, int], dict[int, list[int]]] = {}  # resolved vote rounds

    # ----- the loop -----------------------------------------------------------------------------------------------
    def play(self, stop: PhaseRef | None) -> Played:
        g = self.game
        here = self._here()
        for _ in range(MAX_STEPS):
            here = self._here()
            if g.over or (stop is not None and here > stop):
                break
            pending = g.pending()
            if not pending:
                raise ScenarioRunError(f"{here}: the engine is not over but waits for nobody")
            if self._prelude(here, pending):
                continue
            self._check_start(here)
            req = min(pending, key=lambda r: _CHECK_ORDER.get(r.kind, -1))  # the first in seat order, but R8.1
            if self._judge(here, req):
                continue
            self._answer(here, req)
        else:
            raise ScenarioRunError(f"the game did not stop within {MAX_STEPS} decisions")
        if not self._start_checked and self.sc.start.phase.ordinal > 0:
            self.out.errors.append(f"start: the game never reached {self.sc.start.phase} (it ended in the prelude)")
        self.out.stopped_at = here
        return self.out

    def _here(self) -> PhaseRef:
        return PhaseRef.of(self.game.day, self.game.phase)

    # ----- start: the prelude that reaches a mid-game position -----------------------------------------------------
    def _prelude(self, here: PhaseRef, pending: list[Request]) -> bool:
        g = self.game
        acted = False
        for seat, count in list(self._fouls_due.items()):
            if any(r.seat == seat for r in pending):
                continue  # a foul during his own speech would forfeit the next one instead: wait a moment
            del self._fouls_due[seat]
            for _ in range(count):
                self._judge_act(here, "start", "foul", seat, "scenario start")
            acted = True
        start = self.sc.start
        if self._removals_due and here >= start.removal_phase:
            self._removals_due = False
            acted = True
            if here > start.removal_phase:
                self.out.errors.append(f"start: {start.removal_phase} had no moment at which to remove seats")
            else:
                for seat in self._removal_order():
                    if g.alive[seat] and not g.over:
                        self._judge_act(here, "start", "remove", seat, "scenario start")
        return acted

    def _removal_order(self) -> list[int]:
        g, start = self.game, self.sc.start
        if start.removed is not None:
            out = list(start.removed)
        else:
            out = [s for s in g.seats() if s not in (start.alive or [])]
        # blacks first: removing reds first could reach parity and end the game inside the prelude
        return sorted(out, key=lambda s: (not g.counts_as_black(s), s))

    def _check_start(self, here: PhaseRef) -> None:
        start = self.sc.start
        if self._start_checked or here < start.phase:
            return
        self._start_checked = True
        g, errors = self.game, self.out.errors
        if self._fouls_due or self._removals_due:
            errors.append(f"start: reached {here} before the prelude was done")
            return
        if start.alive is not None or start.removed is not None:
            want = start.alive if start.alive is not None else [s for s in g.seats() if s not in (start.removed or [])]
            if sorted(want) != g.living():
                errors.append(f"start: alive at {start.phase} is {g.living()}, not {sorted(want)}")
        for seat, count in start.fouls.items():
            if g.fouls[seat] != count:
                errors.append(f"start: seat {seat} has {g.fouls[seat]} fouls at {start.phase}, not {count}")
            if seat in g.forfeit_pending and start.phase > PhaseRef.day(1):
                errors.append(f"start: seat {seat}'s forfeited speech (fouls) falls after {start.phase}")
        first_day = start.phase.number + (1 if start.phase.is_night else 0)
        late = sorted(d for d in g.cancelled_days if d >= first_day)
        if late and start.phase.ordinal > 0:
            errors.append(f"start: the prelude cancels the vote of day {late[0]}")

    # ----- the judge ----------------------------------------------------------------------------------------------
    def _judge(self, here: PhaseRef, req: Request) -> bool:
        script = self._script(here)
        moments = self._moments(here, req)
        self._seen.add(here.ordinal)
        acted = False
        for i, action in enumerate(script.judge if script else []):
            key = (here.ordinal, i)
            if key in self.out.fired or action.moment not in moments:
                continue
            self.out.fired.add(key)
            acted = True
            g = self.game
            if action.foul is not None:
                for i in range(action.times):
                    if i and (g.over or not g.alive[action.foul]):
                        break  # an earlier foul of this entry removed him (or ended the game)
                    self._judge_act(here, str(action), "foul", action.foul, action.reason or "judge")
            elif action.remove is not None:
                self._judge_act(here, str(action), "remove", action.remove, action.reason or "judge")
            if g.over:
                break
        return acted

    def _judge_act(self, here: PhaseRef, what: str, op: str, seat: int, reason: str) -> None:
        try:
            if op == "foul":
                self.game.foul(seat, reason)
            else:
                self.game.remove(seat, reason)
        except IllegalDecision as exc:
            self.out.errors.append(f"{here}: judge {what}: the engine refused: {exc.reason}")

    def _moments(self, here: PhaseRef, req: Request) -> set[Moment]:
        """The moments at which the driver is about to answer `req`."""
        out = set() if here.ordinal in self._seen else {Moment("start")}
        kind = req.kind
        if kind is Kind.SPEECH and req.speech is not None:
            out.add(Moment(_SPEECH_MOMENT[req.speech], req.seat))
        elif kind in (Kind.VOTE, Kind.BALLOT) and req.subject == "nominee":
            rnd = self._round()
            out.add(Moment("vote", round=rnd))
            if req.candidate is not None:
                out.add(Moment("vote", round=rnd, on=req.candidate))
        elif kind is Kind.VOTE:
            out.add(Moment(req.subject or "vote"))
        elif kind in _NIGHT_MOMENT:
            out.add(Moment(_NIGHT_MOMENT[kind]))
        elif kind is Kind.HEAL and self.game.rules.night.doctor == "sees_victims":
            out.add(Moment("doctor"))
        else:
            out.add(Moment("checks"))
            if kind in _CHECK_MOMENT:
                out.add(Moment(_CHECK_MOMENT[kind]))
        return out

    def _round(self) -> int:
        """Index of the vote round now running today: 0 for the main vote, k for the k-th re-vote."""
        count = 0
        for event in reversed(self.game.events):
            if event.type is EventType.PHASE_STARTED:
                break
            if event.type is EventType.VOTING_STARTED and event.value in ("main", "revote"):
                count += 1
        return max(count - 1, 0)

    # ----- answers ------------------------------------------------------------------------------------------------
    def _script(self, here: PhaseRef) -> DayScript | NightScript | None:
        if here.is_night:
            return self.sc.nights.get(here.number)
        return self.sc.days.get(here.number)

    def _answer(self, here: PhaseRef, req: Request) -> None:
        g = self.game
        if req.kind is Kind.SPEECH and req.speech in (SpeechKind.REGULAR, SpeechKind.SHORT, SpeechKind.NOMINATE_ONLY):
            self.out.openers.setdefault(g.day, g.opener)
        if req.kind is Kind.SPEECH and req.speech is SpeechKind.INTRO:
            self.out.openers.setdefault(g.day, g.opener)
        script = self._script(here)
        if self._quiet_vote(script, req):
            # a vote over all living players on a day that scripts no votes: each votes for himself, so the vote
            # is an all-way tie and nobody leaves (the rule's default would send the last seat out every day)
            decision = Decision(vote=req.candidate == req.seat) if req.kind is Kind.VOTE else Decision(target=req.seat)
        elif isinstance(script, DayScript):
            decision = self._day(here, script, req)
        elif isinstance(script, NightScript):
            decision = self._night(here, script, req)
        else:
            decision = self._silent(req)
        try:
            g.submit(req.seat, decision)
        except IllegalDecision as exc:
            self.out.refused.append(Refused(here, req.seat, exc.code, exc.reason, decision))
            g.reject(req.seat, exc.reason)
            g.apply_default(req.seat, "scenario: the scripted decision was refused")

    def _quiet_vote(self, script: DayScript | NightScript | None, req: Request) -> bool:
        if req.kind not in (Kind.VOTE, Kind.BALLOT) or req.subject != "nominee":
            return False
        if self.game.rules.nominations.enabled or (isinstance(script, DayScript) and script.votes):
            return False
        return req.kind is Kind.VOTE or req.seat in req.options

    def _voters(self, here: PhaseRef, day: DayScript) -> dict[int, list[int]]:
        """This round's scripted voters per nominee. A count takes that many of the round's voters not named
        elsewhere in it, in seat order, nominee by nominee; it is fixed when the round's first question comes."""
        rnd = self._round()
        key = (here.ordinal, rnd)
        if key not in self._rounds:
            scripted = day.votes[rnd] if rnd < len(day.votes) else {}
            named = {s for v in scripted.values() if isinstance(v, list) for s in v}
            free = [r.seat for r in self.game.pending() if r.seat not in named]
            out: dict[int, list[int]] = {}
            for nominee, voters in scripted.items():
                if isinstance(voters, list):
                    out[nominee] = voters
                else:
                    out[nominee], free = free[:voters], free[voters:]
            self._rounds[key] = out
        return self._rounds[key]

    def _use(self, here: PhaseRef, item: str) -> None:
        self.out.used.add((here.ordinal, item))

    @staticmethod
    def _silent(req: Request) -> Decision:
        """The documented default of an unscripted seat: silence, 'no', no action; the rule's default where a
        choice is required (a mandatory ballot, the club doctor's pick, a don who must shoot)."""
        if req.kind is Kind.VOTE:
            return Decision(vote=False)
        if req.kind in (Kind.SPEECH, Kind.BEST_MOVE, Kind.BLACK_MESSAGE):
            return Decision()
        if req.kind is Kind.CHOOSE_SIDE or not req.allow_none:
            return req.default
        return Decision()

    def _day(self, here: PhaseRef, day: DayScript, req: Request) -> Decision:
        seat = req.seat
        if req.kind is Kind.SPEECH and req.speech is not None:
            moment = str(Moment(_SPEECH_MOMENT[req.speech], seat))
            text = day.say.get(moment, "")
            if moment in day.say:
                self._use(here, f"say {moment}")
            if _SPEECH_MOMENT[req.speech] != "speech":
                return Decision(text=text)
            noms = day.nominate.get(seat)
            targets = tuple(noms if isinstance(noms, list) else [noms]) if noms is not None else ()
            if noms is not None:
                self._use(here, f"nominate {seat}")
            if seat in day.extra:
                self._use(here, f"extra {seat}")
            return Decision(text=text, nominate=targets, extra=seat in day.extra)
        if req.kind is Kind.VOTE:
            if req.subject == "nominee":
                voters = self._voters(here, day).get(req.candidate or 0, [])
                return Decision(vote=seat in voters)
            yes = {"lift": day.lift, "acquittal": day.acquittal, "threshold": day.threshold}.get(req.subject or "", [])
            return Decision(vote=seat in yes)
        if req.kind is Kind.BALLOT:
            for nominee, voters in self._voters(here, day).items():
                if seat in voters:
                    return Decision(target=nominee)
            return req.default
        return self._silent(req)

    def _night(self, here: PhaseRef, night: NightScript, req: Request) -> Decision:
        seat, kind = req.seat, req.kind
        target: int | None = None
        if kind is Kind.SHOOT:
            if isinstance(night.shoot, int):
                target = night.shoot
                self._use(here, "shoot")
            elif isinstance(night.shoot, dict) and seat in night.shoot:
                target = night.shoot[seat]
                self._use(here, f"shoot {seat}")
        elif kind is Kind.SHERIFF:
            action = "shoot" if night.sheriff_shoot is not None else "check"
            target = night.sheriff_shoot if night.sheriff_shoot is not None else night.sheriff_check
            if target is not None:
                self._use(here, f"sheriff_{action}")
                return Decision(action=action, target=target)
        elif kind in _SIMPLE:
            name = _SIMPLE[kind]
            target = getattr(night, name)
            if target is not None:
                self._use(here, name)
        elif kind is Kind.BEST_MOVE:
            if night.best_move is not None:
                self._use(here, "best_move")
            return Decision(targets=tuple(night.best_move or ()))
        elif kind is Kind.BLACK_MESSAGE:
            order = tuple(night.kill_order) if req.may_set_order else ()
            if order:
                self._use(here, "kill_order")
            if seat in night.meeting:
                self._use(here, f"meeting {seat}")
            return Decision(text=night.meeting.get(seat, ""), targets=order)
        elif kind is Kind.CHOOSE_SIDE:
            if night.maniac_side is None:
                return req.default
            self._use(here, "maniac_side")
            return Decision(action=night.maniac_side)
        if target is None:
            return self._silent(req)
        return Decision(target=target)


_SIMPLE = {Kind.DON_CHECK: "don_check", Kind.MANIAC_KILL: "maniac_kill", Kind.HEAL: "heal", Kind.VISIT: "visit"}
