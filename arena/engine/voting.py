"""The day vote: nominees, sequential or ballot votes, popil and re-votes, the lift vote, the club acquittal.

docs/rules.md §1.5–§1.7 and P10–P19. Every sub-procedure is a generator; one that returns None means today's vote was
cancelled by a removal while it ran (R9.5).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

from arena.engine.decisions import Decision, Kind, Request, SpeechKind, vote_request_record
from arena.engine.events import EventType

if TYPE_CHECKING:
    from arena.engine.state import Answers, Batch, Flow
    from arena.engine.state import GameState as Game  # the Protocol the phase machine needs, not game.Game

Tally = dict[int, list[int]]
TallyFlow = Generator["Batch", "Answers", Tally | None]
YesFlow = Generator["Batch", "Answers", list[int] | None]

_NO = Decision(vote=False)
# Enum members read in every vote, bound once as globals: on Python 3.11 reading `EventType.VOTE_CAST` goes through
# `EnumType.__getattr__`'s slow path, about ten times the cost of a global (3.12 dropped that hook).
_VOTE_CAST, _VOTES_COUNTED, _VOTING_STARTED = EventType.VOTE_CAST, EventType.VOTES_COUNTED, EventType.VOTING_STARTED
_LAST_WORD, _TIE_SPEECH, _TIE = SpeechKind.LAST_WORD, SpeechKind.TIE, EventType.TIE


def _voters(g: Game) -> list[int]:
    lost = g.lost_vote
    return [s for s in g.alive_seats if s not in lost] if lost else list(g.alive_seats)


def _cancelled(g: Game) -> bool:
    return g.day in g.cancelled_days


def _abort(g: Game) -> None:
    g.emit(EventType.VOTE_CANCELLED, count=g.day)


def _settle(g: Game, reason: str | None = None) -> None:
    g.vote_settled = True
    if reason is not None:
        g.emit(EventType.NO_VOTE, value=reason)


def _ballot_request(g: Game, seat: int, candidates: tuple[int, ...]) -> Request:
    v = g.voting_rules
    options = candidates if v.self_vote_allowed else tuple(c for c in candidates if c != seat)
    default = Decision(target=options[-1]) if v.default == "last_candidate" and options else Decision()
    return Request(
        seat=seat, kind=Kind.BALLOT, options=options, allow_none=not v.mandatory or not options, max_words=0,
        speech=None, may_nominate=False, nominate_options=(), may_request_extra=False, candidate=None,
        subject="nominee", candidates=candidates, max_targets=0, may_set_order=False, actions=(), choices=(),
        default=default,
    )  # fmt: skip


def vote_round(g: Game, candidates: list[int], round_kind: str) -> TallyFlow:
    """One vote over `candidates` (R5.5–R5.10): per nominee with running counts, or one secret ballot each."""
    v = g.voting_rules
    cands = tuple(candidates)
    g.emit(_VOTING_STARTED, seats=cands, value=round_kind)
    tally: Tally = {c: [] for c in cands}
    remaining = _voters(g)
    if v.protocol == "ballot":
        answers = yield {s: _ballot_request(g, s, cands) for s in remaining}
        if _cancelled(g):
            return None
        for s in sorted(answers):
            target = answers[s].target
            if target is not None and g.alive[s]:
                tally[target].append(s)
                g.emit(_VOTE_CAST, seat=s, target=target, value="yes")
            elif g.alive[s]:
                g.emit(_VOTE_CAST, seat=s, target=None, value="abstain")
        g.emit(_VOTES_COUNTED, seats=cands, counts=tuple(map(len, map(tally.__getitem__, cands))))
        return tally
    auto_last = v.mandatory and v.default == "last_candidate"
    self_vote = v.self_vote_allowed
    # R9.5: whether this round's clear leader leaves (not the club's, who justifies first), so its hands can decide
    decides = round_kind == "revote" or not g.ties_rules.leader_justification
    alive = g.alive
    called: list[int] = []
    # plain loops, no comprehensions: this runs for every nominee, and each comprehension is a new function and
    # frame, and makes every variable it reads a cell for the whole round
    for i, c in enumerate(cands):
        if not remaining:
            break
        if not alive[c]:  # R9.5, R7.3: removed while a decided vote stands; he is called no more
            continue
        if auto_last and not any(alive[x] for x in cands[i + 1 :]):
            break  # R5.7: the last nominee is not called: the rest go to him (below)
        # §5.2: where self-votes are off, nobody is asked about (or defaulted to) himself; he may abstain
        askable = remaining if self_vote else [s for s in remaining if s != c]
        if not askable:
            continue
        batch: Batch = {}
        for s in askable:
            batch[s] = vote_request_record(s, "nominee", c, cands, _NO)
        answers = yield batch
        if g.day in g.cancelled_days:  # `_cancelled(g)`
            return None
        votes = tally[c]
        if alive[c]:  # R7.3: a nominee removed during his own call gets no hands
            called.append(c)
            for s in sorted(answers):
                if answers[s].vote and alive[s]:
                    votes.append(s)
                    g.emit(_VOTE_CAST, seat=s, target=c, value="yes")
        still: list[int] = []
        for s in remaining:
            if alive[s] and s not in votes:
                still.append(s)
        remaining = still
        if decides and called and not g.vote_decided:
            g.vote_decided = _decided(g, tally, called, len(remaining))
    living = [c for c in cands if alive[c]]
    if auto_last and remaining and living:  # R5.7: whoever has not voted goes to the last nominee (left)
        last = living[-1]
        for s in remaining if self_vote else [s for s in remaining if s != last]:
            tally[last].append(s)
            g.emit(_VOTE_CAST, seat=s, target=last, value="default")
        remaining = [s for s in remaining if s not in tally[last]]
    for s in remaining:
        g.emit(_VOTE_CAST, seat=s, target=None, value="abstain")
    g.emit(_VOTES_COUNTED, seats=cands, counts=tuple(map(len, map(tally.__getitem__, cands))))
    return tally


def _decided(g: Game, tally: Tally, called: list[int], still: int) -> int:
    """R9.5: the nominee whom the hands already cast send out whatever the `still` voters yet to vote do, or 0. He
    has more hands than any other nominee called so far, and more than the voters yet to vote (under a majority of
    the votes cast: more than all the other hands, cast and to come)."""
    hands = sorted((len(tally[c]), c) for c in called)
    top, leader = hands[-1]
    others = [n for n, _ in hands[:-1]]
    if g.voting_rules.majority == "more_than_half_of_votes_cast":
        return leader if top > sum(others) + still else 0
    return leader if top > max(others, default=0) and top > still else 0


def yes_no_round(g: Game, subject: str, candidate: int | None, candidates: tuple[int, ...]) -> YesFlow:
    """Every voter answers yes or no at once: the lift vote, the acquittal re-vote, a lone nominee's threshold."""
    g.emit(_VOTING_STARTED, seats=candidates, value=subject)
    answers = yield {s: vote_request_record(s, subject, candidate, candidates, _NO) for s in _voters(g)}
    if _cancelled(g):
        return None
    yes = [s for s in sorted(answers) if answers[s].vote and g.alive[s]]
    for s in sorted(answers):
        if g.alive[s]:
            g.emit(_VOTE_CAST, seat=s, target=candidate, value="yes" if s in yes else "no")
    return yes


def leave(g: Game, seats: list[int], how: str) -> Flow:
    """R5.8, R6.7, R7.1, R7.4: they leave, the win is checked, last words in order, then a decided result."""
    g.vote_settled = True
    seats = [s for s in seats if g.alive[s]]  # R9.5: one the judge removed while his decided vote stood has left
    if not seats:
        g.emit(EventType.NO_VOTE, value="leader_removed")
        return
    g.leaving_today.update(seats)
    if g.day == 1:
        g.day1_vote_left += len(seats)
    for s in seats:
        g.eliminate(s, how)
    winner = g.check_win()
    g.pending_winner = winner
    if winner is None or g.win_rules.game_end_last_word:
        for s in seats:
            yield from g.speech(s, _LAST_WORD, g.rules.speech.last_word_voted_s)
    if winner is not None:
        g.finish(winner, "day vote")


def _leaders(candidates: list[int], tally: Tally) -> tuple[list[int], int]:
    top = max(len(tally[c]) for c in candidates)
    return [c for c in candidates if len(tally[c]) == top], top


def day_vote(g: Game) -> Flow:
    if _cancelled(g):
        _abort(g)
        return
    candidates = [c for c in g.nominees if g.alive[c]] if g.nominations_rules.enabled else g.living()
    if not candidates:
        _settle(g, "no_nominees")
        return
    if g.nominations_rules.enabled and len(candidates) == 1:
        yield from _single_nominee(g, candidates[0])
        return
    tally = yield from vote_round(g, candidates, "main")
    if tally is None:
        _abort(g)
        return
    leaders, top = _leaders(candidates, tally)
    if top == 0:
        _settle(g, "no_votes")
        return
    if len(leaders) == 1:
        cast = sum(len(v) for v in tally.values())
        if g.voting_rules.majority == "more_than_half_of_votes_cast" and top * 2 <= cast:
            _settle(g, "no_majority")
        elif g.ties_rules.leader_justification:
            yield from _justification(g, leaders[0], top)
        else:
            yield from leave(g, leaders, "voted")
        return
    yield from _tie(g, leaders)


def _single_nominee(g: Game, nominee: int) -> Flow:
    """R5.3, R5.4, P12: Day 1 no vote; later days he leaves; aurora needs more than half of the living."""
    v = g.voting_rules
    mode = v.single_nominee_day1 if g.day == 1 else v.single_nominee_later
    if mode == "no_vote":
        _settle(g, "single_nominee")
        return
    if mode == "eliminated":
        yield from leave(g, [nominee], "single_nominee")
        return
    living = len(g.living())
    yes = yield from yes_no_round(g, "threshold", nominee, (nominee,))
    if yes is None:
        _abort(g)
        return
    g.emit(_VOTES_COUNTED, seats=(nominee,), counts=(len(yes),))
    if len(yes) * 2 > living:
        yield from leave(g, [nominee], "voted")
    else:
        _settle(g, "below_threshold")


def _justification(g: Game, leader: int, first_votes: int) -> Flow:
    """P18 (club): a sole leader justifies, then a yes/no re-vote; fewer votes acquit him, once per game."""
    if g.ties_rules.one_justification_per_game and leader in g.justified:
        yield from leave(g, [leader], "voted")
        return
    g.justified.add(leader)
    yield from g.speech(leader, SpeechKind.TIE, g.rules.speech.tie_s)
    if _cancelled(g):
        _abort(g)
        return
    yes = yield from yes_no_round(g, "acquittal", leader, (leader,))
    if yes is None:
        _abort(g)
        return
    g.emit(_VOTES_COUNTED, seats=(leader,), counts=(len(yes),))
    if len(yes) < first_votes:
        g.vote_settled = True
        g.emit(EventType.ACQUITTED, seat=leader)
    else:
        yield from leave(g, [leader], "voted")


def _tie(g: Game, tied: list[int]) -> Flow:
    """R6.1–R6.4, P14–P17: popil speeches, a re-vote among the tied, a new popil for a strict subset."""
    t = g.ties_rules
    g.emit(_TIE, seats=tuple(tied))
    if t.max_tied_for_speeches != "any" and len(tied) > t.max_tied_for_speeches:
        _settle(g, "tie")
        return
    current = tied
    while True:
        for s in current:
            if not g.alive[s]:
                continue
            if t.leader_justification and t.one_justification_per_game:
                if s in g.justified:
                    continue
                g.justified.add(s)
            yield from g.speech(s, _TIE_SPEECH, g.rules.speech.tie_s)
        if _cancelled(g):
            _abort(g)
            return
        tally = yield from vote_round(g, current, "revote")
        if tally is None:
            _abort(g)
            return
        leaders, top = _leaders(current, tally)
        if top > 0 and len(leaders) == 1:
            yield from leave(g, leaders, "voted")
            return
        if top == 0 or set(leaders) == set(current):
            yield from _repeated_tie(g, current)
            return
        if t.subset_retie == "nobody":
            _settle(g, "tie_again")
            return
        g.emit(EventType.TIE, seats=tuple(leaders))
        current = leaders


def _repeated_tie(g: Game, tied: list[int]) -> Flow:
    """R6.5–R6.6, P16: the lift vote (yes > living/2) unless the preset forbids it here."""
    t = g.ties_rules
    if t.repeat == "nobody":
        _settle(g, "repeated_tie")
        return
    living = len(g.living())
    reason = ""
    if t.lift_forbidden_all_living_tied and len(tied) == living:
        reason = "all_living_tied"
    elif t.lift_forbidden_nine_living_three_tied and living == 9 and len(tied) == 3:
        reason = "nine_living_three_tied"
    elif t.lift_forbidden_four_living_two_tied and living == 4 and len(tied) == 2:
        reason = "four_living_two_tied"
    if reason:
        g.vote_settled = True
        g.emit(EventType.LIFT_RESULT, seats=tuple(tied), value=f"not_held:{reason}")
        return
    yes = yield from yes_no_round(g, "lift", None, tuple(tied))
    if yes is None:
        _abort(g)
        return
    passed = len(yes) * 2 > living
    g.emit(EventType.LIFT_RESULT, seats=tuple(tied), count=len(yes), value="passed" if passed else "failed")
    if passed:
        yield from leave(g, tied, "lifted")
    else:
        g.vote_settled = True
