"""Illegal decisions: each gets a typed `IllegalDecision` with a stable `code` and a reason, and leaves the game
exactly as it was.

Why this file exists: the orchestrator re-asks a seat with the engine's reason and, past its bound, applies the
default; that loop is only sound if a refusal never half-applies. So every case here compares the serialized
events, the pending requests, the alive seats, the fouls and the recorded inputs before and after the refusal, and
then shows that a legal answer to the same request still goes through.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from arena.engine import Decision, EventType, Game, IllegalDecision, Kind, Request, Role, SpeechKind, load_rules

C, SH, M, DON = Role.CIVILIAN, Role.SHERIFF, Role.MAFIA, Role.DON
DOC, MAN, LOV = Role.DOCTOR, Role.MANIAC, Role.LOVER
# docs/rules.md §4 standard seatings
F10 = [C, C, M, SH, C, DON, C, M, C, C]  # black {3, 6, 8}, sheriff 4
C10 = [C, DOC, M, C, SH, DON, MAN, C, M, C]  # black {3, 6, 9}, doctor 2, sheriff 5, maniac 7
E12 = [C, LOV, M, SH, C, DON, MAN, C, DOC, C, M, C]  # mafia {3, 6, 11}, lover 2, commissar 4, maniac 7, doctor 9


def quiet(request: Request) -> Decision:
    """The most passive legal answer: silence, a "no" vote, no target where none is allowed, else the default."""
    if request.kind is Kind.VOTE:
        return Decision(vote=False)
    if request.kind is Kind.CHOOSE_SIDE:
        return Decision(action="independent")
    if request.kind in (Kind.SPEECH, Kind.BEST_MOVE, Kind.BLACK_MESSAGE) or request.allow_none:
        return Decision()
    return request.default


def drive(game: Game, stop: Callable[[Request], bool], answer: Callable[[Request], Decision] = quiet) -> Request:
    """Answer every pending request with `answer` until one satisfies `stop`; return that one, unanswered."""
    for _ in range(2000):
        assert not game.over, "the game ended before the situation under test"
        pending = game.pending()
        hit = next((r for r in pending if stop(r)), None)
        if hit is not None:
            return hit
        for request in pending:
            game.submit(request.seat, answer(request))
    raise AssertionError("the situation under test never came")


def kind_is(kind: Kind, seat: int | None = None, speech: SpeechKind | None = None) -> Callable[[Request], bool]:
    def match(r: Request) -> bool:
        return r.kind is kind and (seat is None or r.seat == seat) and (speech is None or r.speech is speech)

    return match


def snapshot(game: Game) -> tuple[object, ...]:
    return (
        [e.model_dump_json() for e in game.events],
        [r.model_dump_json() for r in game.pending()],
        list(game.alive),
        list(game.fouls),
        [i.model_dump_json() for i in game.inputs],
        game.over,
    )


def refused(game: Game, seat: int, decision: Decision, code: str, *words: str) -> IllegalDecision:
    """`submit` (and `check`) refuse `decision` with `code`, a reason naming `words`, and change nothing."""
    before = snapshot(game)
    for attempt in (game.check, game.submit):
        with pytest.raises(IllegalDecision) as info:
            attempt(seat, decision)
        err = info.value
        assert err.code == code, f"expected code {code!r}, got {err.code!r}: {err.reason}"
        assert err.reason and str(err) == err.reason
        for word in words:
            assert word in err.reason, f"the reason {err.reason!r} does not mention {word!r}"
        assert snapshot(game) == before, "a refused decision changed the game"
    return err


def fiim(*overrides: str) -> Game:
    return Game(load_rules("fiim", overrides=list(overrides)), 0, roles=F10)


def day1_with_nominees(game: Game, nominations: dict[int, int]) -> None:
    """Play Night 0 and Day 1's speeches quietly, `nominations` being {speaker: nominee}."""

    def answer(r: Request) -> Decision:
        if r.kind is Kind.SPEECH and r.seat in nominations and r.may_nominate:
            return Decision(nominate=(nominations[r.seat],))
        return quiet(r)

    drive(game, lambda r: r.kind in (Kind.VOTE, Kind.BALLOT), answer)


# ----- targets ----------------------------------------------------------------------------------------------------
def test_shot_at_a_dead_seat() -> None:
    game = fiim()
    drive(game, kind_is(Kind.SPEECH))  # Day 1, seat 1 speaks
    game.remove(10, "judge")
    shot = drive(game, kind_is(Kind.SHOOT, 3))
    assert 10 not in shot.options
    refused(game, 3, Decision(target=10), "dead_target", "10")
    refused(game, 3, Decision(target=11), "no_such_seat", "11")
    refused(game, 3, Decision(target=0), "no_such_seat")
    game.submit(3, Decision(target=1))


def test_check_of_oneself_and_of_a_dead_seat() -> None:
    game = fiim()
    drive(game, kind_is(Kind.SPEECH))
    game.remove(10, "judge")
    drive(game, kind_is(Kind.DON_CHECK, 6))
    refused(game, 6, Decision(target=6), "self_target")
    refused(game, 6, Decision(target=10), "dead_target", "10")
    game.submit(6, Decision(target=4))
    refused(game, 4, Decision(target=4), "self_target")
    refused(game, 4, Decision(target=10), "dead_target")


def test_nomination_of_a_dead_seat() -> None:
    game = fiim()
    speech = drive(game, kind_is(Kind.SPEECH, 2, SpeechKind.REGULAR))
    assert speech.may_nominate
    game.remove(9, "judge")  # while seat 2 is asked; his request was built before
    refused(game, 2, Decision(nominate=(9,)), "dead_target", "9")
    refused(game, 2, Decision(nominate=(5, 9)), "dead_target", "9")
    refused(game, 2, Decision(nominate=(42,)), "no_such_seat", "42")
    game.submit(2, Decision(nominate=(5,)))


# ----- nominations ------------------------------------------------------------------------------------------------
def test_nomination_without_the_right() -> None:
    # R4.5: no nomination in a popil speech or a last word
    game = fiim()
    day1_with_nominees(game, {1: 3, 2: 7})
    votes = {1: 3, 2: 3, 4: 3, 5: 3, 9: 3, 3: 7, 6: 7, 7: 7, 8: 7, 10: 7}  # E05: 5–5

    def answer(r: Request) -> Decision:
        return Decision(vote=votes[r.seat] == r.candidate) if r.kind is Kind.VOTE else quiet(r)

    popil = drive(game, kind_is(Kind.SPEECH, speech=SpeechKind.TIE), answer)
    assert not popil.may_nominate
    refused(game, popil.seat, Decision(nominate=(5,)), "no_nomination_right")
    refused(game, popil.seat, Decision(text="thanks", extra=True), "no_extra")
    votes[10] = 3  # the re-vote: 6–4, #3 leaves
    last = drive(game, kind_is(Kind.SPEECH, 3, SpeechKind.LAST_WORD), answer)
    assert not game.alive[3] and not last.may_nominate
    refused(game, 3, Decision(text="I was red", nominate=(6,)), "no_nomination_right")
    game.submit(3, Decision(text="I was red"))


def test_nomination_where_the_rules_have_none() -> None:
    game = Game(load_rules("club"), 0, roles=C10)
    speech = drive(game, kind_is(Kind.SPEECH, speech=SpeechKind.INTRO))
    refused(game, speech.seat, Decision(nominate=(5,)), "no_nomination_right")
    regular = drive(game, kind_is(Kind.SPEECH, speech=SpeechKind.REGULAR))
    assert not regular.may_nominate and regular.may_request_extra
    refused(game, regular.seat, Decision(nominate=(5,)), "no_nomination_right")
    game.submit(regular.seat, Decision(extra=True))


def test_self_nomination_when_forbidden() -> None:
    game = fiim("nominations.self_allowed=false")
    drive(game, kind_is(Kind.SPEECH, 1, SpeechKind.REGULAR))
    refused(game, 1, Decision(nominate=(1,)), "self_nomination")
    game.submit(1, Decision(nominate=(2,)))


def test_a_second_nomination_is_not_an_error_but_ignored() -> None:
    """R4.2/R4.4: a name already nominated is not accepted, and after an accepted one the rest are ignored."""
    game = fiim()
    drive(game, kind_is(Kind.SPEECH, 1, SpeechKind.REGULAR))
    game.submit(1, Decision(nominate=(5,)))
    drive(game, kind_is(Kind.SPEECH, 2, SpeechKind.REGULAR))
    game.submit(2, Decision(nominate=(5, 8, 9)))
    said = [(e.type, e.seat, e.target, e.value) for e in game.events if e.seat == 2 and e.day == 1]
    assert said[1:] == [
        (EventType.NOMINATION_REJECTED, 2, 5, "already_nominated"),
        (EventType.NOMINATED, 2, 8, None),
        (EventType.NOMINATION_IGNORED, 2, 9, "one_per_day"),
    ]
    assert game.nominees == [5, 8]


# ----- votes ------------------------------------------------------------------------------------------------------
def test_ballot_for_a_non_nominee() -> None:
    game = fiim("voting.protocol=ballot")
    day1_with_nominees(game, {1: 3, 2: 7})
    ballot = game.pending()[0]
    assert ballot.kind is Kind.BALLOT and ballot.options == (3, 7) and not ballot.allow_none
    refused(game, ballot.seat, Decision(target=5), "not_a_candidate", "5")
    refused(game, ballot.seat, Decision(target=None), "target_required")
    game.submit(ballot.seat, Decision(target=7))


def test_missing_vote() -> None:
    game = fiim()
    day1_with_nominees(game, {1: 3, 2: 7})
    vote = game.pending()[0]
    assert vote.kind is Kind.VOTE and vote.candidate == 3
    refused(game, vote.seat, Decision(), "vote_required", "3")
    refused(game, vote.seat, Decision(target=3), "vote_required")
    game.submit(vote.seat, Decision(vote=True))


def test_answering_twice_and_answering_with_nothing_pending() -> None:
    game = fiim()
    day1_with_nominees(game, {1: 3, 2: 7})
    seats = [r.seat for r in game.pending()]
    assert len(seats) == 10
    game.submit(seats[0], Decision(vote=True))
    refused(game, seats[0], Decision(vote=False), "already_answered", str(seats[0]))
    refused(game, 11, Decision(vote=True), "not_pending", "11")
    # a seat with nothing pending: during seat 1's speech, seat 5 has no request
    other = fiim()
    drive(other, kind_is(Kind.SPEECH, 1, SpeechKind.REGULAR))
    refused(other, 5, Decision(text="out of turn"), "not_pending", "5")
    # and the answers already given stay given: the batch still waits for the others
    assert seats[0] not in [r.seat for r in game.pending()]


def test_after_the_game() -> None:
    game = fiim()
    drive(game, kind_is(Kind.SPEECH))
    for seat in (3, 6):
        game.remove(seat, "judge")
    assert not game.over
    game.remove(8, "judge")  # the last black leaves: town wins at once (R9.6, R10.1)
    assert game.over and game.winner == "town"
    refused(game, 1, Decision(text="hello"), "game_over")


# ----- night actions ------------------------------------------------------------------------------------------------
def test_illegal_sheriff_action() -> None:
    game = fiim()
    request = drive(game, kind_is(Kind.SHERIFF, 4))
    assert request.actions == ("check",)
    refused(game, 4, Decision(action="shoot", target=3), "illegal_action", "shoot")
    refused(game, 4, Decision(action="poison", target=3), "illegal_action")
    game.submit(4, Decision(action="check", target=3))


def test_illegal_action_of_a_sheriff_who_may_shoot() -> None:
    game = Game(load_rules("club"), 0, roles=C10)
    request = drive(game, kind_is(Kind.SHERIFF, 5))
    assert set(request.actions) == {"check", "shoot"}
    refused(game, 5, Decision(action="poison", target=3), "illegal_action", "poison")
    refused(game, 5, Decision(action="shoot", target=5), "self_target")
    game.submit(5, Decision(action="shoot", target=3))


def test_choose_side_with_a_bad_value() -> None:
    game = Game(load_rules("club"), 0, roles=C10)
    request = game.pending()[0]
    assert request.kind is Kind.CHOOSE_SIDE and request.seat == 7
    refused(game, 7, Decision(action="neutral"), "illegal_choice", "independent", "mafia_ally")
    refused(game, 7, Decision(), "illegal_choice")
    refused(game, 7, Decision(target=3), "illegal_choice")
    game.submit(7, Decision(action="mafia_ally"))


def edge_nights(game: Game) -> Callable[[Request], Decision]:
    """Quiet edge play in which the mafia (whose don cannot pass) never shoots #1 or the doctor #9."""

    def answer(r: Request) -> Decision:
        if r.kind is Kind.SHOOT and not r.allow_none:
            return Decision(target=next(s for s in r.options if s not in (1, 9)))
        return quiet(r)

    return answer


def test_heal_of_the_same_player_two_nights_running() -> None:
    """Edge P27: the doctor never heals the same player two nights running."""
    game = Game(load_rules("edge"), 0, roles=E12)
    answer = edge_nights(game)
    drive(game, kind_is(Kind.HEAL, 9), answer)
    game.submit(9, Decision(target=1))  # Night 1: #1
    heal = drive(game, kind_is(Kind.HEAL, 9), answer)
    assert game.day == 2 and game.alive[1] and 1 not in heal.options
    refused(game, 9, Decision(target=1), "repeat_heal", "1")
    game.submit(9, Decision(target=5))
    heal = drive(game, kind_is(Kind.HEAL, 9), answer)
    assert game.day == 3 and 1 in heal.options  # the rule is about the night before only
    game.submit(9, Decision(target=1))


def test_second_self_heal() -> None:
    """Edge P27: self-heal at most once per game; the refusal says that, not that self-heals are forbidden."""
    game = Game(load_rules("edge"), 0, roles=E12)
    answer = edge_nights(game)
    drive(game, kind_is(Kind.HEAL, 9), answer)
    game.submit(9, Decision(target=9))  # Night 1: his one self-heal
    heal = drive(game, kind_is(Kind.HEAL, 9), answer)
    assert game.day == 2 and 9 not in heal.options
    game.submit(9, Decision(target=1))
    drive(game, kind_is(Kind.HEAL, 9), answer)
    assert game.day == 3
    refused(game, 9, Decision(target=9), "self_heal_used")


def test_best_move_too_many_or_repeated() -> None:
    game = fiim()

    def answer(r: Request) -> Decision:
        return Decision(target=10) if r.kind is Kind.SHOOT else quiet(r)  # E02: all three shoot #10

    best = drive(game, kind_is(Kind.BEST_MOVE), answer)
    assert best.seat == 10 and best.max_targets == 3
    refused(game, 10, Decision(targets=(3, 6, 8, 1)), "too_many", "3")
    refused(game, 10, Decision(targets=(3, 3)), "duplicate")
    refused(game, 10, Decision(targets=(3, 10)), "self_target")
    game.submit(10, Decision(targets=(3, 6, 8)))


def test_kill_order_from_a_mafioso() -> None:
    game = fiim()
    don = game.pending()[0]
    assert don.kind is Kind.BLACK_MESSAGE and don.seat == 6 and don.may_set_order
    refused(game, 6, Decision(targets=(1, 2, 4, 5)), "too_many")
    game.submit(6, Decision(text="order", targets=(4, 1, 2)))
    mafioso = game.pending()[0]
    assert mafioso.kind is Kind.BLACK_MESSAGE and not mafioso.may_set_order
    refused(game, mafioso.seat, Decision(targets=(5,)), "no_kill_order")
    game.submit(mafioso.seat, Decision(text="ok"))
