"""The legality oracle: checks one decision against its request and says exactly why it is refused.

Callers never re-check rules; the orchestrator re-asks with `IllegalDecision.reason` and, past its bound, applies
`Request.default`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from arena.engine.decisions import Decision, IllegalDecision, Kind, Request
from arena.engine.roles import Role
from arena.engine.text import lone_surrogate, with_reasoning_capped

if TYPE_CHECKING:
    from arena.engine.state import GameState

_ROLE_NAMES = frozenset(r.value for r in Role)


def validate(game: GameState, request: Request, decision: Decision) -> Decision:
    """Return the decision if it is legal for `request` (its reasoning cut to the cap); raise IllegalDecision
    otherwise."""
    for name, text in (("text", decision.text), ("reasoning", decision.reasoning), ("action", decision.action)):
        if text and (bad := lone_surrogate(text)) is not None:  # what is accepted must be writable (a file, a page)
            message = f"the {name} holds {bad}, half of a surrogate pair, which is no character: send the text itself"
            raise IllegalDecision("not_text", message)
    _CHECKS[request.kind](game, request, decision)
    if decision.reasoning:  # what is accepted is what is stored: the reasoning within its cap
        decision = with_reasoning_capped(game.rules.speech, decision)
    return decision


def _why_not(game: GameState, request: Request, target: int) -> IllegalDecision:
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


def _check_target(game: GameState, request: Request, decision: Decision) -> None:
    """A shot, a check, a kill, a heal, a visit or a ballot: one of the request's living options, or nobody where
    the rule allows it."""
    target = decision.target
    if target is None:
        if not request.allow_none:
            raise IllegalDecision(
                "target_required", f"{request.kind.value} needs a target: one of {list(request.options)}"
            )
        return
    if target not in request.options or not game.alive[target]:
        raise _why_not(game, request, target)


def _check_sheriff(game: GameState, request: Request, decision: Decision) -> None:
    """The sheriff checks (or, where the rules let him, shoots) one other living player (R8.4, P26)."""
    action = decision.action or "check"
    if action not in request.actions:
        raise IllegalDecision("illegal_action", f"choose one of {list(request.actions)}, not {action!r}")
    _check_target(game, request, decision)


def _check_speech(game: GameState, request: Request, decision: Decision) -> None:
    """A speech: nominations only in a turn that carries the right (R4.1–R4.5), the extra word only where offered,
    and a well-formed claim."""
    if decision.nominate and not request.may_nominate:
        raise IllegalDecision("no_nomination_right", "this turn carries no right to nominate")
    for target in decision.nominate:
        if not 1 <= target <= game.n:
            raise IllegalDecision("no_such_seat", f"there is no seat {target}; seats are 1 to {game.n}")
        if not game.alive[target]:
            raise IllegalDecision("dead_target", f"seat {target} is not alive and cannot be nominated")
        if target == request.seat and not game.rules.nominations.self_allowed:
            raise IllegalDecision("self_nomination", "you cannot nominate yourself")
    if decision.extra and not request.may_request_extra:
        raise IllegalDecision("no_extra", "there is no extra word to ask for in this turn")
    claim = decision.claim
    if claim is not None:
        if claim.role not in _ROLE_NAMES:
            raise IllegalDecision("bad_claim", f"claim a role from {sorted(_ROLE_NAMES)}, not {claim.role!r}")
        seats = (*claim.black, *claim.red)
        if any(not 1 <= s <= game.n for s in seats) or len(set(seats)) != len(seats):
            raise IllegalDecision("bad_claim", f"claimed checks name each seat from 1 to {game.n} at most once")


def _check_vote(game: GameState, request: Request, decision: Decision) -> None:
    if decision.vote is None:
        raise IllegalDecision("vote_required", f"answer yes or no on seat {request.candidate}")


def _check_seats(game: GameState, request: Request, decision: Decision) -> None:
    """A best move (R8.7) or the don's kill order (R2.2): at most `max_targets` living options, each once."""
    targets = decision.targets
    if targets and request.kind is Kind.BLACK_MESSAGE and not request.may_set_order:
        raise IllegalDecision("no_kill_order", "only the don sets the kill order, on the first night")
    if len(targets) > request.max_targets:
        raise IllegalDecision("too_many", f"name at most {request.max_targets} seats")
    if len(set(targets)) != len(targets) and request.kind is Kind.BEST_MOVE:
        raise IllegalDecision("duplicate", "name each seat once")
    for target in targets:
        if target not in request.options or not game.alive[target]:
            raise _why_not(game, request, target)


def _check_probe(game: GameState, request: Request, decision: Decision) -> None:
    beliefs = decision.beliefs
    if len(beliefs) != len(request.options):
        raise IllegalDecision(
            "probe_size", f"give one probability for each of seats {list(request.options)}, in that order"
        )
    if any(not (0.0 <= p <= 1.0) for p in beliefs):  # NaN fails both comparisons
        raise IllegalDecision("probe_range", "every probability must be a number from 0 to 1")


def _check_side(game: GameState, request: Request, decision: Decision) -> None:
    if decision.action not in request.choices:
        raise IllegalDecision("illegal_choice", f"choose one of {list(request.choices)}")


# what each kind of request checks (validate's one lookup per decision)
_CHECKS: dict[Kind, Callable[[GameState, Request, Decision], None]] = {
    Kind.SPEECH: _check_speech,
    Kind.VOTE: _check_vote,
    Kind.BALLOT: _check_target,
    Kind.SHOOT: _check_target,
    Kind.DON_CHECK: _check_target,
    Kind.SHERIFF: _check_sheriff,
    Kind.MANIAC_KILL: _check_target,
    Kind.HEAL: _check_target,
    Kind.VISIT: _check_target,
    Kind.BEST_MOVE: _check_seats,
    Kind.BLACK_MESSAGE: _check_seats,
    Kind.CHOOSE_SIDE: _check_side,
    Kind.PROBE: _check_probe,
}
