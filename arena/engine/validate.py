"""The legality oracle: checks one decision against its request and says exactly why it is refused.

Callers never re-check rules; the orchestrator re-asks with `IllegalDecision.reason` and, past its bound, applies
`Request.default`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.engine.decisions import Claim, Decision, IllegalDecision, Kind, Request
from arena.engine.roles import Role
from arena.engine.text import lone_surrogate, with_reasoning_capped

if TYPE_CHECKING:
    from arena.engine.state import GameState as Game  # the Protocol the phase machine needs, not game.Game

_ROLE_NAMES = frozenset(r.value for r in Role)
_TARGETED = {Kind.SHOOT, Kind.DON_CHECK, Kind.MANIAC_KILL, Kind.HEAL, Kind.VISIT, Kind.BALLOT, Kind.SHERIFF}
# The kinds `validate` tells apart at every decision, bound once as globals: on Python 3.11 reading `Kind.SPEECH`
# goes through `EnumType.__getattr__`'s slow path, about ten times the cost of a global.
_SPEECH, _VOTE, _SHERIFF, _BEST_MOVE = Kind.SPEECH, Kind.VOTE, Kind.SHERIFF, Kind.BEST_MOVE
_BLACK_MESSAGE, _PROBE, _CHOOSE_SIDE = Kind.BLACK_MESSAGE, Kind.PROBE, Kind.CHOOSE_SIDE


def _why_not(game: Game, request: Request, target: int) -> IllegalDecision:
    seat = request.seat
    if not 1 <= target <= game.n:
        return IllegalDecision("no_such_seat", f"there is no seat {target}; seats are 1 to {game.n}")
    if request.kind is Kind.BALLOT:
        return IllegalDecision(
            "not_a_candidate", f"seat {target} is not on the ballot; vote for one of {list(request.options)}"
        )
    if not game.alive[target]:
        return IllegalDecision("dead_target", f"seat {target} is not alive")
    if request.kind is Kind.HEAL:
        if target == game.doctor_last_heal and game.rules.night.doctor_no_repeat_target:
            return IllegalDecision("repeat_heal", f"you healed seat {target} last night; pick someone else")
        if target == seat:
            return IllegalDecision("self_heal_used", "you have already used your self-heal")
        return IllegalDecision("not_on_stretchers", f"seat {target} is not among the victims {list(request.options)}")
    if target == seat:
        return IllegalDecision("self_target", f"you cannot target yourself with {request.kind.value}")
    if request.kind is Kind.SHOOT:
        return IllegalDecision("mafia_target", f"seat {target} is not a legal target for the mafia")
    return IllegalDecision(
        "illegal_target", f"seat {target} is not a legal target; choose from {list(request.options)}"
    )


def _check_target(game: Game, request: Request, target: int | None) -> None:
    if target is None:
        if not request.allow_none:
            raise IllegalDecision(
                "target_required", f"{request.kind.value} needs a target: one of {list(request.options)}"
            )
        return
    if target not in request.options or not game.alive[target]:
        raise _why_not(game, request, target)


def _check_speech(game: Game, request: Request, fields: dict[str, Any]) -> None:
    """`fields`: the decision's `__dict__` (see `validate`)."""
    nominate: tuple[int, ...] = fields["nominate"]
    if nominate and not request.may_nominate:
        raise IllegalDecision("no_nomination_right", "this turn carries no right to nominate")
    for target in nominate:
        if not 1 <= target <= game.n:
            raise IllegalDecision("no_such_seat", f"there is no seat {target}; seats are 1 to {game.n}")
        if not game.alive[target]:
            raise IllegalDecision("dead_target", f"seat {target} is not alive and cannot be nominated")
        if target == request.seat and not game.rules.nominations.self_allowed:
            raise IllegalDecision("self_nomination", "you cannot nominate yourself")
    if fields["extra"] and not request.may_request_extra:
        raise IllegalDecision("no_extra", "there is no extra word to ask for in this turn")
    claim: Claim | None = fields["claim"]
    if claim is not None:
        if claim.role not in _ROLE_NAMES:
            raise IllegalDecision("bad_claim", f"claim a role from {sorted(_ROLE_NAMES)}, not {claim.role!r}")
        seats = (*claim.black, *claim.red)
        if any(not 1 <= s <= game.n for s in seats) or len(set(seats)) != len(seats):
            raise IllegalDecision("bad_claim", f"claimed checks name each seat from 1 to {game.n} at most once")


def _check_probe(request: Request, decision: Decision) -> None:
    beliefs = decision.beliefs
    if len(beliefs) != len(request.options):
        raise IllegalDecision(
            "probe_size", f"give one probability for each of seats {list(request.options)}, in that order"
        )
    if any(not (0.0 <= p <= 1.0) for p in beliefs):  # NaN fails both comparisons
        raise IllegalDecision("probe_range", "every probability must be a number from 0 to 1")


def validate(game: Game, request: Request, decision: Decision) -> Decision:
    """Return the decision if it is legal for `request` (its reasoning cut to the cap); raise IllegalDecision
    otherwise."""
    kind = request.kind
    # The fields read once as a dict: every attribute read of a pydantic model goes through BaseModel.__getattr__'s
    # hook (CPython's slow attribute path, about 20 times a slot's cost), and a speech reads five of them here.
    # (The probe's check still takes the decision: it is rare.)
    fields = decision.__dict__
    for name in ("text", "reasoning", "action"):  # what is accepted must be writable (a transcript, a page)
        if fields[name] and (bad := lone_surrogate(fields[name])) is not None:
            raise IllegalDecision("not_text", f"the {name} holds {bad}, half of a surrogate pair, which is no "
                                  "character: send the text itself")  # fmt: skip
    if kind is _SPEECH:
        if fields["nominate"] or fields["extra"] or fields["claim"] is not None:  # else nothing to check
            _check_speech(game, request, fields)
    elif kind is _VOTE:
        if fields["vote"] is None:
            raise IllegalDecision("vote_required", f"answer yes or no on seat {request.candidate}")
    elif kind in _TARGETED:
        if kind is _SHERIFF:
            action = fields["action"] or "check"
            if action not in request.actions:
                raise IllegalDecision("illegal_action", f"choose one of {list(request.actions)}, not {action!r}")
        _check_target(game, request, fields["target"])
    elif kind is _BEST_MOVE or kind is _BLACK_MESSAGE:
        targets: tuple[int, ...] = fields["targets"]
        if targets and kind is _BLACK_MESSAGE and not request.may_set_order:
            raise IllegalDecision("no_kill_order", "only the don sets the kill order, on the first night")
        if len(targets) > request.max_targets:
            raise IllegalDecision("too_many", f"name at most {request.max_targets} seats")
        if len(set(targets)) != len(targets) and kind is _BEST_MOVE:
            raise IllegalDecision("duplicate", "name each seat once")
        for target in targets:
            if target not in request.options or not game.alive[target]:
                raise _why_not(game, request, target)
    elif kind is _PROBE:
        _check_probe(request, decision)
    elif kind is _CHOOSE_SIDE:
        if fields["action"] not in request.choices:
            raise IllegalDecision("illegal_choice", f"choose one of {list(request.choices)}")
    if not fields["reasoning"]:  # most decisions: no reasoning to cut
        return decision
    return with_reasoning_capped(game.rules.speech, decision)  # what is accepted is what is stored
