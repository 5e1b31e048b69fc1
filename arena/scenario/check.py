"""Compares a played scenario with its expectations, using only the engine's own events (the god view).

Every expectation is read back from what the engine emitted, never from the script, so a scenario checks the
engine's behaviour and not the runner's. Mismatches fail the scenario; warnings flag script entries that had no
effect (a decision never asked for, a vote that did not happen, a judge action whose moment never came), which a
strict run also fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine import Event, EventType, Game
from arena.scenario.driver import Played
from arena.scenario.format import (
    DayExpect,
    DayScript,
    Departure,
    EventMatch,
    NightExpect,
    NightScript,
    PhaseExpect,
    Scenario,
)
from arena.scenario.notation import PhaseRef, parse_phase

_TURN_KINDS = ("regular", "short", "nominate_only", "intro")
_ANSWER_ALIASES = {"yes": "yes", "no": "no", "true": "yes", "false": "no"}


@dataclass(frozen=True)
class Mismatch:
    where: str
    expected: str
    actual: str


@dataclass
class _Round:
    kind: str
    candidates: list[int]
    votes: dict[int, list[int]] = field(default_factory=dict)  # candidate → voters (yes and default)
    cast: list[int] = field(default_factory=list)  # every seat with a VOTE_CAST
    yes: list[int] = field(default_factory=list)  # yes/no rounds: the yes voters


def _show(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_show(v)}" for k, v in value.items()) + "}"
    return str(value)


def _answer(value: object, don: bool) -> str:
    text = _ANSWER_ALIASES.get(str(value).lower(), str(value).lower())
    if don:
        return {"yes": "sheriff", "no": "not_sheriff"}.get(text, text)
    return text


class Checker:
    """Builds the list of mismatches and warnings for one played scenario."""

    def __init__(self, sc: Scenario, game: Game, played: Played) -> None:
        self.sc, self.game, self.played = sc, game, played
        self.mismatches: list[Mismatch] = [Mismatch("start" if e.startswith("start") else "judge", "—", e)
                                           for e in played.errors]  # fmt: skip
        self.warnings: list[str] = []
        self.by_phase: dict[int, list[Event]] = {}
        last = 0
        for e in game.events:
            ordinal = last if e.type is EventType.GAME_ENDED else PhaseRef.of(e.day, e.phase).ordinal
            self.by_phase.setdefault(ordinal, []).append(e)
            last = ordinal
        self.departures: list[tuple[int, Departure]] = []  # (phase ordinal it belongs to, departure)
        for ordinal, events in sorted(self.by_phase.items()):
            for e in events:
                if e.type is EventType.ELIMINATED and e.seat is not None:
                    when = ordinal - 1 if e.value == "killed" else ordinal  # a kill belongs to its night
                    how = e.value if e.value in ("voted", "lifted", "single_nominee", "killed", "removed") else "voted"
                    self.departures.append((when, Departure(seat=e.seat, how=how, when=str(PhaseRef(when)))))

    # ----- helpers -------------------------------------------------------------------------------------------------
    def cmp(self, where: str, expected: Any, actual: Any) -> None:
        if expected != actual:
            self.mismatches.append(Mismatch(where, _show(expected), _show(actual)))

    def _alive_after(self, ordinal: int) -> list[int]:
        gone = {d.seat for when, d in self.departures if when <= ordinal}
        return [s for s in self.game.seats() if s not in gone]

    def _fouls_after(self, ordinal: int) -> dict[int, int]:
        out: dict[int, int] = {}
        for o, events in self.by_phase.items():
            if o <= ordinal:
                for e in events:
                    if e.type is EventType.FOUL and e.seat is not None:
                        out[e.seat] = max(out.get(e.seat, 0), e.count or 0)
        return out

    @staticmethod
    def _rounds(events: Sequence[Event]) -> list[_Round]:
        rounds: list[_Round] = []
        for e in events:
            if e.type is EventType.VOTING_STARTED:
                rounds.append(_Round(e.value or "", list(e.seats), {c: [] for c in e.seats}))
            elif e.type is EventType.VOTE_CAST and rounds and e.seat is not None:
                r = rounds[-1]
                r.cast.append(e.seat)
                if e.value == "yes":
                    r.yes.append(e.seat)
                if e.target is not None and e.value in ("yes", "default"):
                    r.votes.setdefault(e.target, []).append(e.seat)
        return rounds

    def _events(self, where: str, events: Sequence[Event], want: list[EventMatch], absent: list[EventMatch]) -> None:
        pos = 0
        for m in want:
            found = next((i for i in range(pos, len(events)) if m.matches(events[i])), None)
            if found is None:
                near = [str(e.type.value) for e in events if e.type is m.type]
                self.cmp(f"{where} › events", str(m), f"not found in order (events of that type: {len(near)})")
            else:
                pos = found + 1
        for m in absent:
            hits = [e for e in events if m.matches(e)]
            if hits:
                self.cmp(f"{where} › no_events", f"no {m}", f"{len(hits)} found, first #{hits[0].seq}")

    # ----- the run -------------------------------------------------------------------------------------------------
    def run(self) -> tuple[list[Mismatch], list[str]]:
        for k, day in sorted(self.sc.days.items()):
            self._phase(PhaseRef.day(k), day)
        for k, night in sorted(self.sc.nights.items()):
            self._phase(PhaseRef.night(k), night)
        self._refusals()
        self._global()
        self.mismatches.sort(key=lambda m: _order(m.where))
        return self.mismatches, self.warnings

    def _phase(self, ref: PhaseRef, script: DayScript | NightScript) -> None:
        events = self.by_phase.get(ref.ordinal, [])
        where = str(ref)
        exp = script.expect
        self._unused(ref, script, events)
        if not events:
            if _has_checks(exp):
                self.cmp(where, "reached", f"not reached (the run stopped at {self.played.stopped_at})")
            return
        if isinstance(exp, DayExpect):
            self._day(where, exp, events)
        elif isinstance(exp, NightExpect):
            self._night(ref, where, exp, events)
        self._common(ref, where, exp, events)

    def _common(self, ref: PhaseRef, where: str, exp: PhaseExpect, events: Sequence[Event]) -> None:
        if exp.leaves is not None:
            # a kill belongs to its night; a day that lists one means the kill announced that morning
            morning = not ref.is_night and any(d.how == "killed" for d in exp.leaves)
            got = [f"{d.seat} {d.how}" for when, d in self.departures
                   if when == ref.ordinal or (morning and when == ref.ordinal - 1 and d.how == "killed")]  # fmt: skip
            self.cmp(f"{where} › leaves", [f"{d.seat} {d.how}" for d in exp.leaves], got)
        if exp.alive is not None:
            self.cmp(f"{where} › alive", sorted(exp.alive), self._alive_after(ref.ordinal))
        if exp.fouls is not None:
            fouls = self._fouls_after(ref.ordinal)
            self.cmp(f"{where} › fouls", dict(exp.fouls), {s: fouls.get(s, 0) for s in exp.fouls})
        self._events(where, events, exp.events, exp.no_events)

    def _day(self, where: str, exp: DayExpect, events: Sequence[Event]) -> None:
        def seats_of(type_: EventType, value: str | None = None) -> list[int]:
            return [e.seat for e in events if e.type is type_ and (value is None or e.value == value) and e.seat]

        turns = [e for e in events if e.type is EventType.SPEECH and e.value in _TURN_KINDS]
        rounds = self._rounds(events)
        main = next((r for r in rounds if r.kind == "main"), None)
        checks: list[tuple[str, Any, Callable[[], Any]]] = [
            ("opener", exp.opener, lambda: self.played.openers.get(events[0].day)),
            ("speakers", exp.speakers, lambda: [e.seat for e in turns]),
            ("speech_kinds", exp.speech_kinds,
             lambda: {s: next((e.value for e in turns if e.seat == s), None) for s in exp.speech_kinds or {}}),
            ("forfeited", exp.forfeited, lambda: seats_of(EventType.SPEECH_FORFEITED)),
            ("extras", exp.extras, lambda: seats_of(EventType.SPEECH, "extra")),
            ("last_words", exp.last_words, lambda: seats_of(EventType.SPEECH, "last_word")),
            ("tie_speeches", exp.tie_speeches, lambda: seats_of(EventType.SPEECH, "tie")),
            ("nominees", exp.nominees, lambda: [e.target for e in events if e.type is EventType.NOMINATED]),
            ("candidates", exp.candidates, lambda: main.candidates if main else None),
            ("voters", None if exp.voters is None else sorted(exp.voters), lambda: sorted(main.cast) if main else None),
            ("ties", exp.ties, lambda: [list(e.seats) for e in events if e.type is EventType.TIE]),
            ("no_vote", exp.no_vote, lambda: next((e.value for e in events if e.type is EventType.NO_VOTE), False)),
            ("vote_cancelled", exp.vote_cancelled, lambda: any(e.type is EventType.VOTE_CANCELLED for e in events)),
            ("lift_yes", exp.lift_yes, lambda: next((e.count for e in events if e.type is _LIFT), None)),
            ("acquitted", exp.acquitted, lambda: seats_of(EventType.ACQUITTED)),
            ("vote_lost", exp.vote_lost, lambda: seats_of(EventType.VOTE_LOST)),
        ]  # fmt: skip
        for name, want, get in checks:
            if want is not None:
                self.cmp(f"{where} › {name}", want, get())
        if exp.lift is not None:
            got = next((e.value for e in events if e.type is EventType.LIFT_RESULT), "none") or "none"
            want = exp.lift
            self.cmp(f"{where} › lift", want, got.split(":")[0] if ":" not in want else got)
        if exp.not_accepted is not None:
            self._not_accepted(where, exp.not_accepted, events)
        if exp.tally is not None:
            self._tally(where, exp.tally, [r for r in rounds if r.kind in ("main", "revote")])
        if exp.morning is not None:
            self._morning(where, exp, events)

    def _not_accepted(self, where: str, want: list[dict[str, Any]], events: Sequence[Event]) -> None:
        kinds = (EventType.NOMINATION_REJECTED, EventType.NOMINATION_IGNORED)
        got = [{"seat": e.seat, "target": e.target, "reason": e.value} for e in events if e.type in kinds]
        shown = [{k: g[k] for k in ("seat", "target", "reason") if k in w} for w, g in zip(want, got, strict=False)]
        if len(want) != len(got) or any(w != s for w, s in zip(want, shown, strict=False)):
            self.cmp(f"{where} › not_accepted", want, got)

    def _tally(self, where: str, want: list[dict[int, int | list[int]]], rounds: list[_Round]) -> None:
        for i, expected in enumerate(want):
            name = "vote" if i == 0 else f"revote {i}"
            if i >= len(rounds):
                self.cmp(f"{where} › tally › {name}", _show(expected), "not held")
                continue
            votes = rounds[i].votes
            for nominee, value in expected.items():
                voters = votes.get(nominee, [])
                got: int | list[int] = len(voters) if isinstance(value, int) else sorted(voters)
                self.cmp(
                    f"{where} › tally › {name} › #{nominee}", value if isinstance(value, int) else sorted(value), got
                )

    def _morning(self, where: str, exp: DayExpect, events: Sequence[Event]) -> None:
        want = exp.morning
        assert want is not None
        morning = next((e for e in events if e.type is EventType.MORNING), None)
        if morning is None:
            self.cmp(f"{where} › morning", "a morning announcement", "none")
            return
        if want.deaths is not None:
            self.cmp(f"{where} › morning › deaths", want.deaths, list(morning.seats))
        if want.announce is not None:
            self.cmp(f"{where} › morning › announce", want.announce, morning.value)
        if want.mafia_missed is not None:
            missed = any(e.type is EventType.MAFIA_MISS_ANNOUNCED for e in events)
            self.cmp(f"{where} › morning › mafia_missed", want.mafia_missed, missed)
        if want.cards is not None:
            cards = {e.seat: e.value for e in events if e.type is EventType.CARD_REVEALED and e.seat in morning.seats}
            self.cmp(f"{where} › morning › cards", dict(want.cards), cards)

    def _night(self, ref: PhaseRef, where: str, exp: NightExpect, events: Sequence[Event]) -> None:
        def first(type_: EventType) -> Event | None:
            return next((e for e in events if e.type is type_), None)

        def target_or_none(type_: EventType) -> int | str:
            e = first(type_)
            return "none" if e is None or e.target is None else e.target

        def checks_of(type_: EventType, don: bool) -> dict[int, str] | str:
            got = {e.target: _answer(e.value, don) for e in events if e.type is type_ and e.target is not None}
            return got or "none"

        mafia = first(EventType.MAFIA_RESULT)
        side = first(EventType.SIDE_CHOSEN)
        order = first(EventType.KILL_ORDER)
        stretchers = first(EventType.STRETCHERS)
        best = first(EventType.BEST_MOVE)
        morning = next((e for e in self.by_phase.get(ref.ordinal + 1, []) if e.type is EventType.MORNING), None)
        checks: list[tuple[str, Any, Callable[[], Any]]] = [
            ("side", exp.side, lambda: side.value if side else None),
            ("kill_order", exp.kill_order, lambda: list(order.seats) if order else []),
            ("visit", exp.visit, lambda: target_or_none(EventType.VISIT)),
            ("blocked", exp.blocked, lambda: [e.seat for e in events if e.type is EventType.BLOCKED]),
            ("mafia", exp.mafia, lambda: (mafia.target or "miss") if mafia else None),
            ("mafia_result", exp.mafia_result, lambda: mafia.value if mafia else None),
            ("miss_announced", exp.miss_announced, lambda: first(EventType.MAFIA_MISS_ANNOUNCED) is not None),
            ("sheriff_shot", exp.sheriff_shot, lambda: target_or_none(EventType.SHERIFF_SHOT)),
            ("maniac_kill", exp.maniac_kill, lambda: target_or_none(EventType.MANIAC_KILL)),
            ("stretchers", exp.stretchers, lambda: list(stretchers.seats) if stretchers else []),
            ("heal", exp.heal, lambda: target_or_none(EventType.HEAL)),
            ("saved", exp.saved, lambda: self._saved(events)),
            ("best_move", "none" if exp.best_move is False else exp.best_move,
             lambda: list(best.seats) if best else "none"),
            ("deaths", exp.deaths, lambda: list(morning.seats) if morning else []),
        ]  # fmt: skip
        for name, want, get in checks:
            if want is not None:
                self.cmp(f"{where} › {name}", want, get())
        for name, want_checks, type_, don in (
            ("don_check", exp.don_check, EventType.DON_CHECK, True),
            ("sheriff_check", exp.sheriff_check, EventType.SHERIFF_CHECK, False),
        ):
            if want_checks is not None:
                want_norm = want_checks if isinstance(want_checks, str) else {
                    t: _answer(a, don) for t, a in want_checks.items()
                }  # fmt: skip
                self.cmp(f"{where} › {name}", want_norm, checks_of(type_, don))

    @staticmethod
    def _saved(events: Sequence[Event]) -> int | str:
        """The seat a save kept alive: the club's SAVE_RESULT, or a blind heal on a seat that was attacked."""
        for e in events:
            if e.type is EventType.SAVE_RESULT:
                return e.target if e.target is not None else "none"
        attacked = {e.target for e in events if e.target is not None and e.type in _ATTACKS}
        heal = next((e.target for e in events if e.type is EventType.HEAL and e.target is not None), None)
        return heal if heal is not None and heal in attacked else "none"

    def _refusals(self) -> None:
        grouped: dict[int, list[tuple[int, str]]] = {}
        for r in self.played.refused:
            grouped.setdefault(r.phase.ordinal, []).append((r.seat, r.code))
        for ordinal in grouped:
            ref = PhaseRef(ordinal)
            script = self.sc.nights.get(ref.number) if ref.is_night else self.sc.days.get(ref.number)
            want = script.expect.refused if script is not None else None
            if want is None:
                for r in self.played.refused:
                    if r.phase.ordinal == ordinal:
                        self.cmp(f"{ref} › refused", "no refusal", f"seat {r.seat}: {r.code} ({r.reason})")
        for ordinal, script in self._scripts():
            want = script.expect.refused
            if want is None:
                continue
            got = grouped.get(ordinal, [])
            shown = [(s, c if w.code is not None else None) for w, (s, c) in zip(want, got, strict=False)]
            if len(got) != len(want) or shown != [(w.seat, w.code) for w in want]:
                self.cmp(f"{PhaseRef(ordinal)} › refused", [f"{w.seat}: {w.code}" for w in want],
                         [f"{s}: {c}" for s, c in got])  # fmt: skip

    def _scripts(self) -> list[tuple[int, DayScript | NightScript]]:
        out: list[tuple[int, DayScript | NightScript]] = [(PhaseRef.day(k).ordinal, d) for k, d in self.sc.days.items()]
        out += [(PhaseRef.night(k).ordinal, n) for k, n in self.sc.nights.items()]
        return out

    def _global(self) -> None:
        exp, g = self.sc.expect, self.game
        tested = self.sc.start.phase.ordinal
        if exp.winner is not None:
            self.cmp("winner", exp.winner, g.winner or "continues")
        if exp.ends is not None:
            end = next((o for o, evs in self.by_phase.items() for e in evs if e.type is EventType.GAME_ENDED), None)
            self.cmp("ends", exp.ends, str(PhaseRef(end)) if end is not None else "not ended")
        if exp.leaves is not None:
            got = [str(d) for when, d in self.departures if when >= tested]
            self.cmp("leaves", [str(_kill_at_night(d)) for d in exp.leaves], got)
        if exp.alive is not None:
            self.cmp("alive", sorted(exp.alive), g.living())
        if exp.fouls is not None:
            self.cmp("fouls", dict(exp.fouls), {s: g.fouls[s] for s in exp.fouls})
        events = [e for o, evs in sorted(self.by_phase.items()) if o >= tested for e in evs]
        self._events("game", events, exp.events, exp.no_events)

    # ----- warnings: script entries that did nothing ----------------------------------------------------------------
    def _unused(self, ref: PhaseRef, script: DayScript | NightScript, events: Sequence[Event]) -> None:
        used = {item for o, item in self.played.used if o == ref.ordinal}
        items: list[str] = []
        if isinstance(script, DayScript):
            items += [f"nominate {s}" for s in script.nominate] + [f"say {m}" for m in script.say]
            items += [f"extra {s}" for s in script.extra]
            self._unused_votes(ref, script, events)
        else:
            simple = ("maniac_side", "visit", "don_check", "sheriff_check", "sheriff_shoot", "maniac_kill", "heal",
                      "best_move")  # fmt: skip
            items += [name for name in simple if getattr(script, name) is not None]
            items += [f"meeting {s}" for s in script.meeting] + (["kill_order"] if script.kill_order else [])
            if isinstance(script.shoot, int):
                items.append("shoot")
            elif isinstance(script.shoot, dict):
                items += [f"shoot {s}" for s in script.shoot]
        reached = bool(events)
        for item in items:
            if item not in used:
                why = "was never asked for" if reached else "not reached"
                self.warnings.append(f"{ref}: scripted {item} {why}")
        for i, action in enumerate(script.judge):
            if (ref.ordinal, i) not in self.played.fired:
                self.warnings.append(f"{ref}: judge {action}: that moment never came")

    def _unused_votes(self, ref: PhaseRef, day: DayScript, events: Sequence[Event]) -> None:
        rounds = self._rounds(events)
        votes = [r for r in rounds if r.kind in ("main", "revote")]
        for i, scripted in enumerate(day.votes):
            name = "vote" if i == 0 else f"revote {i}"
            if i >= len(votes):
                self.warnings.append(f"{ref}: scripted {name} was not held")
                continue
            for nominee, voters in scripted.items():
                got = votes[i].votes.get(nominee, [])
                if isinstance(voters, int):
                    if voters != len(got):
                        self.warnings.append(f"{ref}: scripted {name}: {voters} for #{nominee}, but {len(got)} voted")
                    continue
                missing = [s for s in voters if s not in got]
                if missing:
                    self.warnings.append(f"{ref}: scripted {name} for #{nominee} by {missing} did not happen")
        for kind in ("lift", "acquittal", "threshold"):
            yes: list[int] = getattr(day, kind)
            held = [r for r in rounds if r.kind == kind]
            if yes and not held:
                self.warnings.append(f"{ref}: scripted {kind} vote was not held")
            elif yes:
                missing = [s for s in yes if s not in held[0].yes]
                if missing:
                    self.warnings.append(f"{ref}: scripted yes of {missing} in the {kind} vote did not happen")


_LIFT = EventType.LIFT_RESULT
_ATTACKS = (EventType.MAFIA_RESULT, EventType.MANIAC_KILL, EventType.SHERIFF_SHOT)


def _kill_at_night(d: Departure) -> Departure:
    """'10 killed day 2' (the morning it was announced) is the kill of night 1."""
    if d.how == "killed" and d.when is not None and not parse_phase(d.when).is_night:
        return d.model_copy(update={"when": str(PhaseRef(parse_phase(d.when).ordinal - 1))})
    return d


def _has_checks(exp: PhaseExpect) -> bool:
    return any(getattr(exp, name) not in (None, []) for name in type(exp).model_fields if name != "no_events")


def _order(where: str) -> tuple[int, str]:
    head = where.split(" › ")[0]
    try:
        return parse_phase(head).ordinal, where
    except ValueError:
        return (-1 if head in ("start", "judge") else 10_000), where


def check(sc: Scenario, game: Game, played: Played) -> tuple[list[Mismatch], list[str]]:
    """Mismatches (failures) and warnings (script entries without effect) of one played scenario."""
    return Checker(sc, game, played).run()
