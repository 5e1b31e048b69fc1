"""The day vote: nominees, sequential or ballot votes, popil and re-votes, the lift vote, the club acquittal.

docs/rules.md §1.5–§1.7 and P10–P19. Every sub-procedure is a generator; one that returns None means today's vote was
cancelled by a removal while it ran (R9.5).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

from arena.engine.decisions import Decision, Kind, Request, SpeechKind, request_record
from arena.engine.events import EventType
from arena.engine.outcome import Outcome, Termination
from arena.engine.speech import one_speech

if TYPE_CHECKING:
    from arena.engine.state import Answers, Batch, Flow, GameState

Tally = dict[int, list[int]]
TallyFlow = Generator["Batch", "Answers", Tally | None]
YesFlow = Generator["Batch", "Answers", list[int] | None]

_NO = Decision(vote=False)


def _voters(g: GameState) -> list[int]:
    """Every living player votes, except one who lost the right (aurora's warnings, P31)."""
    return [s for s in g.alive_seats if s not in g.lost_vote]


def _cancelled(g: GameState) -> bool:
    """R9.5: a removal has cancelled today's vote."""
    return g.day in g.cancelled_days


def _abort(g: GameState) -> None:
    """R9.5: today's vote is cancelled: nobody leaves by it, and night falls."""
    g.emit(EventType.VOTE_CANCELLED, count=g.day)


def _abort_if_cancelled(g: GameState) -> bool:
    """R9.5: if a removal has cancelled today's vote, say so (`_abort`) and return True: the caller stops there."""
    if _cancelled(g):
        _abort(g)
        return True
    return False


def _settle(g: GameState, reason: str | None = None) -> None:
    """R9.5a: today's vote is over with nobody leaving (R5.2, R5.3, R6.5, ...: `reason` says which)."""
    g.vote_settled = True
    if reason is not None:
        g.emit(EventType.NO_VOTE, value=reason)


def _ballot_request(g: GameState, seat: int, candidates: tuple[int, ...]) -> Request:
    """§5.2: one secret ballot; the voter himself is an option only where self-votes are allowed, a missing ballot
    goes to the last candidate where the rules count it so (R5.7), and abstaining is allowed where voting is not
    mandatory (P11) or nobody is left to vote for."""
    v = g.rules.voting
    options = candidates if v.self_vote_allowed else tuple(c for c in candidates if c != seat)
    default = Decision(target=options[-1]) if v.default == "last_candidate" and options else Decision()
    allow_none = not v.mandatory or not options
    return request_record(
        seat,
        Kind.BALLOT,
        options=options,
        allow_none=allow_none,
        subject="nominee",
        candidates=candidates,
        default=default,
    )


def _vote_request(seat: int, subject: str, candidate: int | None, candidates: tuple[int, ...]) -> Request:
    """Yes or no on `candidate` (a nominee as he is called, the lift vote, the acquittal, a lone nominee)."""
    return request_record(seat, Kind.VOTE, subject=subject, candidate=candidate, candidates=candidates, default=_NO)


def _counts(tally: Tally, candidates: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(len(tally[c]) for c in candidates)


def vote_round(g: GameState, candidates: list[int], round_kind: str) -> TallyFlow:
    """One vote over `candidates` (R5.5–R5.10): one secret ballot each, or hands raised nominee by nominee. None
    if a removal cancelled the vote meanwhile (R9.5), which it announces."""
    cands = tuple(candidates)
    g.emit(EventType.VOTING_STARTED, seats=cands, value=round_kind)
    if g.rules.voting.protocol == "ballot":
        tally = yield from ballot_round(g, cands)
    else:
        tally = yield from hands_round(g, cands, round_kind)
    if tally is None:
        _abort(g)
    return tally


def ballot_round(g: GameState, cands: tuple[int, ...]) -> TallyFlow:
    """R5.10, §5.12 (`voting.protocol = "ballot"`): every voter names one candidate at once, in secret; the ballots are
    opened together, in seat order."""
    tally: Tally = {c: [] for c in cands}
    answers = yield {s: _ballot_request(g, s, cands) for s in _voters(g)}
    if _cancelled(g):
        return None
    for s in sorted(answers):
        target = answers[s].target
        if target is not None and g.alive[s]:
            tally[target].append(s)
            g.emit(EventType.VOTE_CAST, seat=s, target=target, value="yes")
        elif g.alive[s]:
            g.emit(EventType.VOTE_CAST, seat=s, target=None, value="abstain")
    g.emit(EventType.VOTES_COUNTED, seats=cands, counts=_counts(tally, cands))
    return tally


def hands_round(g: GameState, cands: tuple[int, ...], round_kind: str) -> TallyFlow:
    """R5.5–R5.7, R5.10: the nominees are called in order and each voter raises a hand once, seeing the running
    counts; whoever has not voted when the last nominee is called votes for him."""
    v = g.rules.voting
    auto_last = v.mandatory and v.default == "last_candidate"
    # R9.5a: whether this round's clear leader leaves (not the club's, who justifies first), so its hands can decide
    decides = round_kind == "revote" or not g.rules.ties.leader_justification
    alive = g.alive
    tally: Tally = {c: [] for c in cands}
    remaining = _voters(g)
    called: list[int] = []
    for i, c in enumerate(cands):
        if not remaining:
            break
        if not alive[c]:  # R9.5, R7.3: removed while a decided vote stands; he is called no more
            continue
        if auto_last and not any(alive[x] for x in cands[i + 1 :]):
            break  # R5.7: the last nominee is not called: the rest go to him (below)
        still = yield from _call(g, tally, c, cands, remaining, called)
        if still is None:
            return None
        remaining = still
        if decides and called and not g.vote_decided:
            g.vote_decided = _decided(g, tally, called, len(remaining))
    if auto_last:
        remaining = _rest_to_last(g, tally, cands, remaining)
    for s in remaining:
        g.emit(EventType.VOTE_CAST, seat=s, target=None, value="abstain")
    g.emit(EventType.VOTES_COUNTED, seats=cands, counts=_counts(tally, cands))
    return tally


def _call(
    g: GameState, tally: Tally, nominee: int, cands: tuple[int, ...], remaining: list[int], called: list[int]
) -> YesFlow:
    """R5.5, R5.6: one nominee called: each voter who has not voted yet raises a hand for him or not. Returns the
    voters still to vote, or None if a removal cancelled the vote meanwhile (R9.5)."""
    # §5.2: where self-votes are off, nobody is asked about (or defaulted to) himself; he may abstain
    askable = [s for s in remaining if g.rules.voting.self_vote_allowed or s != nominee]
    if not askable:
        return remaining
    answers = yield {s: _vote_request(s, "nominee", nominee, cands) for s in askable}
    if _cancelled(g):
        return None
    if g.alive[nominee]:  # R7.3: a nominee removed during his own call gets no hands
        called.append(nominee)
        _raise_hands(g, tally, nominee, answers)
    return [s for s in remaining if g.alive[s] and s not in tally[nominee]]


def _raise_hands(g: GameState, tally: Tally, nominee: int, answers: Answers) -> None:
    """R5.6: the hands raised for the nominee being called, public, in seat order (a voter removed meanwhile has
    left, R7.3)."""
    for s in sorted(answers):
        if answers[s].vote and g.alive[s]:
            tally[nominee].append(s)
            g.emit(EventType.VOTE_CAST, seat=s, target=nominee, value="yes")


def _rest_to_last(g: GameState, tally: Tally, cands: tuple[int, ...], remaining: list[int]) -> list[int]:
    """R5.7: whoever has not voted goes to the last nominee left (§5.2: never to himself where self-votes are off).
    Returns the voters still without a vote."""
    living = [c for c in cands if g.alive[c]]
    if not remaining or not living:
        return remaining
    last = living[-1]
    for s in remaining:
        if g.rules.voting.self_vote_allowed or s != last:
            tally[last].append(s)
            g.emit(EventType.VOTE_CAST, seat=s, target=last, value="default")
    return [s for s in remaining if s not in tally[last]]


def _decided(g: GameState, tally: Tally, called: list[int], still: int) -> int:
    """R9.5: the nominee whom the hands already cast send out whatever the `still` voters yet to vote do, or 0. He
    has more hands than any other nominee called so far, and more than the voters yet to vote (under a majority of
    the votes cast: more than all the other hands, cast and to come)."""
    hands = sorted((len(tally[c]), c) for c in called)
    top, leader = hands[-1]
    others = [n for n, _ in hands[:-1]]
    if g.rules.voting.majority == "more_than_half_of_votes_cast":
        return leader if top > sum(others) + still else 0
    return leader if top > max(others, default=0) and top > still else 0


def yes_no_round(g: GameState, subject: str, candidate: int | None, candidates: tuple[int, ...]) -> YesFlow:
    """Every voter answers yes or no at once: the lift vote, the acquittal re-vote, a lone nominee's threshold. None
    if a removal cancelled the vote meanwhile (R9.5), which it announces."""
    g.emit(EventType.VOTING_STARTED, seats=candidates, value=subject)
    answers = yield {s: _vote_request(s, subject, candidate, candidates) for s in _voters(g)}
    if _cancelled(g):
        _abort(g)
        return None
    yes = [s for s in sorted(answers) if answers[s].vote and g.alive[s]]
    for s in sorted(answers):
        if g.alive[s]:
            g.emit(EventType.VOTE_CAST, seat=s, target=candidate, value="yes" if s in yes else "no")
    return yes


def leave(g: GameState, seats: list[int], how: str) -> Flow:
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
    if winner is None or g.rules.win.game_end_last_word:
        for s in seats:
            yield from one_speech(g, s, SpeechKind.LAST_WORD, g.rules.speech.last_word_voted_s)
    if winner is not None:
        g.finish(Outcome(winner, Termination.DAY_VOTE))


def _leaders(candidates: list[int], tally: Tally) -> tuple[list[int], int]:
    """R5.8–R5.9: the candidates with the most votes, and that count."""
    top = max(len(tally[c]) for c in candidates)
    return [c for c in candidates if len(tally[c]) == top], top


def day_vote(g: GameState) -> Flow:
    """§1.5: the day's vote, unless cancelled (R9.5) or nobody is nominated (R5.2); one nominee (R5.3, R5.4, P12);
    otherwise a round (R5.5): a sole leader leaves (R5.8) under plurality or a majority of the votes cast (P13),
    after the club's justification (P18); a tie goes to §1.6 (R5.9). With nominations off, every living player is
    a candidate (P10)."""
    if _abort_if_cancelled(g):
        return
    candidates = [c for c in g.nominees if g.alive[c]] if g.rules.nominations.enabled else g.living()
    if not candidates:
        _settle(g, "no_nominees")
        return
    if g.rules.nominations.enabled and len(candidates) == 1:
        yield from _single_nominee(g, candidates[0])
        return
    tally = yield from vote_round(g, candidates, "main")
    if tally is None:
        return
    leaders, top = _leaders(candidates, tally)
    if top == 0:
        _settle(g, "no_votes")
        return
    if len(leaders) == 1:
        cast = sum(len(v) for v in tally.values())
        if g.rules.voting.majority == "more_than_half_of_votes_cast" and top * 2 <= cast:
            _settle(g, "no_majority")
        elif g.rules.ties.leader_justification:
            yield from _justification(g, leaders[0], top)
        else:
            yield from leave(g, leaders, "voted")
        return
    yield from _tie(g, leaders)


def _single_nominee(g: GameState, nominee: int) -> Flow:
    """R5.3, R5.4, P12: Day 1 no vote; later days he leaves; aurora needs more than half of the living."""
    v = g.rules.voting
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
        return
    g.emit(EventType.VOTES_COUNTED, seats=(nominee,), counts=(len(yes),))
    if len(yes) * 2 > living:
        yield from leave(g, [nominee], "voted")
    else:
        _settle(g, "below_threshold")


def _justification(g: GameState, leader: int, first_votes: int) -> Flow:
    """P18 (club): a sole leader justifies, then a yes/no re-vote; fewer votes acquit him, once per game."""
    if g.rules.ties.one_justification_per_game and leader in g.justified:
        yield from leave(g, [leader], "voted")
        return
    g.justified.add(leader)
    yield from one_speech(g, leader, SpeechKind.TIE, g.rules.speech.tie_s)
    if _abort_if_cancelled(g):
        return
    yes = yield from yes_no_round(g, "acquittal", leader, (leader,))
    if yes is None:
        return
    g.emit(EventType.VOTES_COUNTED, seats=(leader,), counts=(len(yes),))
    if len(yes) < first_votes:
        g.vote_settled = True
        g.emit(EventType.ACQUITTED, seat=leader)
    else:
        yield from leave(g, [leader], "voted")


def _tie(g: GameState, tied: list[int]) -> Flow:
    """R6.1–R6.4, P14–P17: popil speeches, a re-vote among the tied, a new popil for a strict subset."""
    t = g.rules.ties
    g.emit(EventType.TIE, seats=tuple(tied))
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
            yield from one_speech(g, s, SpeechKind.TIE, g.rules.speech.tie_s)
        if _abort_if_cancelled(g):
            return
        tally = yield from vote_round(g, current, "revote")
        if tally is None:
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


def _repeated_tie(g: GameState, tied: list[int]) -> Flow:
    """R6.5–R6.6, P16: the lift vote (yes > living/2) unless the preset forbids it here."""
    t = g.rules.ties
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
        return
    passed = len(yes) * 2 > living
    g.emit(EventType.LIFT_RESULT, seats=tuple(tied), count=len(yes), value="passed" if passed else "failed")
    if passed:
        yield from leave(g, tied, "lifted")
    else:
        g.vote_settled = True
