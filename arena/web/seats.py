"""The club table a page draws: each seat's marks, the live vote tally, tonight's own action, read from one view.

Why a module of its own: the table shows more than the seat list (whose check said what, who is a teammate, who
nominated whom, how the hands went, where tonight's shot went), and every bit of it must come from the one
Observation the engine computed for that seat (`arena.engine.view`), so the isolation tests check one input. Nothing
here reads the game: a mark exists only because its event is in the seat's own view.
"""

from __future__ import annotations

from typing import Any

from arena.engine import Event, EventType, Observation, Phase

E = EventType
CHECKS = (E.SHERIFF_CHECK, E.DON_CHECK)
NIGHT_ACTS = (E.SHOT, E.SHERIFF_SHOT, E.MANIAC_KILL, E.HEAL, E.VISIT, E.SHERIFF_CHECK, E.DON_CHECK)
YES_NO_ROUNDS = ("lift", "acquittal", "threshold")


def marks(obs: Observation) -> dict[int, list[dict[str, Any]]]:
    """Per seat, what this view knows of it: check results (`sheriff_check` black/red/yes/no, `don_check`
    sheriff/not_sheriff, with the night), a role shown (the black team's cards, an open card), all from its events."""
    out: dict[int, list[dict[str, Any]]] = {}
    for event in obs.events:
        if event.type in CHECKS and event.target is not None:
            out.setdefault(event.target, []).append(
                {"kind": event.type.value, "value": event.value, "night": event.day, "by": event.seat}
            )
        elif event.type is E.BLACK_TEAM:
            for seat in event.seats:
                out.setdefault(seat, []).append({"kind": "team", "value": "don" if seat == event.target else "mafia"})
        elif event.type is E.CARD_REVEALED and event.seat is not None:
            out.setdefault(event.seat, []).append({"kind": "card", "value": event.value})
    return out


def departures(obs: Observation) -> dict[int, dict[str, Any]]:
    """Seats that left, how (voted, killed, removed, ...) and when, from the public departures in the view."""
    out: dict[int, dict[str, Any]] = {}
    for event in obs.events:
        if event.type is E.ELIMINATED and event.seat is not None:
            out[event.seat] = {"how": event.value, "day": event.day, "phase": event.phase.value}
        elif event.type is E.REMOVED and event.seat is not None:
            out.setdefault(event.seat, {"how": "removed", "day": event.day, "phase": event.phase.value})
    return out


def _today(obs: Observation) -> list[Event]:
    """The view's events since the current phase began (the last phase banner it saw)."""
    events = obs.events
    for i in range(len(events) - 1, -1, -1):
        if events[i].type is E.PHASE_STARTED:
            return list(events[i + 1 :])
    return list(events)


def nominations(obs: Observation) -> dict[int, int]:
    """Today's nominee -> the seat that nominated him (public nominations since the day began)."""
    if obs.phase is not Phase.DAY:
        return {}
    return {e.target: e.seat for e in _today(obs) if e.type is E.NOMINATED and e.target is not None and e.seat}


def tally(obs: Observation) -> dict[str, Any] | None:
    """Today's latest vote round as this view saw it: hands per nominee as they were given, who voted for whom
    where the votes are public, abstentions, and the final counts once counted. None outside a vote."""
    round_: dict[str, Any] | None = None
    for event in _today(obs):
        t = event.type
        if t is E.VOTING_STARTED:
            kind = event.value or "main"
            round_ = {
                "kind": kind,
                "yes_no": kind in YES_NO_ROUNDS,
                "candidates": [{"seat": s, "hands": 0, "voters": []} for s in event.seats],
                "yes": [],
                "no": [],
                "abstain": [],
                "counted": False,
                "result": None,
            }
        elif round_ is None:
            continue
        elif t is E.VOTE_CAST and event.seat is not None:
            if round_["yes_no"]:
                round_["yes" if event.value == "yes" else "no"].append(event.seat)
            elif event.target is None or event.value == "abstain":
                round_["abstain"].append(event.seat)
            else:
                for cand in round_["candidates"]:
                    if cand["seat"] == event.target:
                        cand["hands"] += 1
                        cand["voters"].append({"seat": event.seat, "default": event.value == "default"})
        elif t is E.VOTES_COUNTED:
            round_["counted"] = True
            for cand, count in zip(round_["candidates"], event.counts, strict=False):
                cand["hands"] = count  # the judge's count: also what a view that saw no ballot is told
        elif t in (E.TIE, E.LIFT_RESULT, E.ELIMINATED, E.NO_VOTE, E.ACQUITTED, E.VOTE_CANCELLED):
            round_["counted"] = True
            round_["result"] = {"type": t.value, "seats": list(event.seats), "seat": event.seat, "value": event.value}
    return round_


def tonight(obs: Observation) -> list[dict[str, Any]]:
    """The night actions this view saw tonight (its own, and the black team's open shots): the seat's night on the
    table. Events of a past night are in the log only."""
    if obs.phase is not Phase.NIGHT:
        return []
    return [
        {"kind": e.type.value, "seat": e.seat, "target": e.target, "value": e.value}
        for e in _today(obs)
        if e.type in NIGHT_ACTS
    ]


def lost_vote(obs: Observation) -> set[int]:
    return {e.seat for e in obs.events if e.type is E.VOTE_LOST and e.seat is not None}
