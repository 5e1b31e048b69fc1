"""The end of the game on every page: all roles, how each seat left, who won, and the game's summary.

Why a module of its own: this is the one place a seat's page shows more than the seat saw, so it is built from the
moderator's view (`view(game, MODERATOR)`) and only for a finished game: `reveal_json` refuses anything else. The
summary (checks by night, role claims, the votes by day) is read from that view's events, as the judge's sheet.
"""

from __future__ import annotations

from typing import Any

from arena.engine import MODERATOR, EventType, Observation, Phase
from arena.web.seats import YES_NO_ROUNDS, departures

E = EventType


class NotOver(RuntimeError):
    """The reveal was asked for a game still in progress (a bug: the caller must check `game.over`)."""


def reveal_json(god: Observation, label: Any) -> dict[str, Any]:
    """Roles, departures, the winner and the summary, from the god view of a finished game. `label(role)` words a
    role in the page's language."""
    if god.seat != MODERATOR:
        raise NotOver("the reveal is built from the moderator's view only")
    if god.phase is not Phase.END or god.winner is None:
        raise NotOver("the reveal opens only when the game has ended")
    roles: list[str] = []
    side: dict[int, str] = {}
    termination = ""
    for event in god.events:
        if event.type is E.ROLES_DEALT:
            roles = list(event.roles)
        elif event.type is E.SIDE_CHOSEN and event.seat is not None and event.value:
            side[event.seat] = event.value
        elif event.type is E.GAME_ENDED:
            termination = event.code or ""  # worded in the page's language by the caller (`state.end_json`)
    gone = departures(god)
    seats = [
        {
            "seat": seat,
            "role": role,
            "label": label(role),
            "black": role in ("mafia", "don") or side.get(seat) == "mafia_ally",
            "side": side.get(seat),
            "out": gone.get(seat),
        }
        for seat, role in enumerate(roles, start=1)
    ]
    return {"winner": god.winner, "termination": termination, "seats": seats, "summary": summary_json(god)}


def summary_json(god: Observation) -> dict[str, Any]:
    """The judge's sheet: every check by night, every structured role claim, and each day's nominations, vote
    rounds (who voted for whom) and departures, each night's morning."""
    checks: list[dict[str, Any]] = []
    claims: list[dict[str, Any]] = []
    days: dict[int, dict[str, Any]] = {}
    current: dict[str, Any] | None = None

    def day(number: int) -> dict[str, Any]:
        return days.setdefault(number, {"day": number, "nominations": [], "rounds": [], "left": [], "morning": None})

    for event in god.events:
        t = event.type
        if t in (E.SHERIFF_CHECK, E.DON_CHECK):
            checks.append(
                {
                    "night": event.day,
                    "by": event.seat,
                    "who": "sheriff" if t is E.SHERIFF_CHECK else "don",
                    "target": event.target,
                    "value": event.value,
                }
            )
        elif t is E.SPEECH and event.roles:
            checked = dict(zip(event.seats, event.counts, strict=False))
            claims.append(
                {
                    "day": event.day,
                    "seat": event.seat,
                    "role": event.roles[0],
                    "black": [s for s, c in checked.items() if c],
                    "red": [s for s, c in checked.items() if not c],
                }
            )
        elif t is E.MORNING:
            day(event.day)["morning"] = {"value": event.value, "seats": list(event.seats)}
        elif event.phase is not Phase.DAY:
            continue
        elif t is E.NOMINATED:
            day(event.day)["nominations"].append({"by": event.seat, "target": event.target})
        elif t is E.VOTING_STARTED:
            current = {"kind": event.value or "main", "candidates": list(event.seats), "votes": [], "counts": None}
            day(event.day)["rounds"].append(current)
        elif t is E.VOTE_CAST and current is not None:
            yes_no = current["kind"] in YES_NO_ROUNDS
            target = None if event.value == "abstain" else event.target
            current["votes"].append({"seat": event.seat, "target": target, "value": event.value, "yes_no": yes_no})
        elif t is E.VOTES_COUNTED and current is not None:
            current["counts"] = list(event.counts)
            current = None
        elif t is E.LIFT_RESULT and current is not None:
            current["counts"] = [event.count or 0]
            current["result"] = event.value
            current = None
        elif t is E.ELIMINATED and event.seat is not None:
            day(event.day)["left"].append({"seat": event.seat, "how": event.value})
    return {"checks": checks, "claims": claims, "days": [days[d] for d in sorted(days)]}
