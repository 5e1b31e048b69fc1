"""Deception and detection metrics (issue 9) on a hand-built game whose values were worked out by hand.

The seating: black = 3 (don), 6, 8 (mafia); sheriff = 4; the rest civilians. The story, day by day:
Day 1: 1 nominates 3, 6 nominates 2; votes 1,2,5 -> 3 and 4,7,9,10 -> 2 (red: 3 of 7 on black), 3,6 -> 2 (black:
none on black) and 8 -> 3 by the rules' default (a default vote, counted apart); 2 is voted out.
Night 1: the sheriff (4) checks 6: black.
Day 2: 10 was killed and names 3, 5, 6 (two blacks); 8 claims sheriff falsely, calling 4 black; 4 counter-claims
truly, calling 6 black; 4 nominates 6, 8 nominates 4; red votes 1,4,5,9 -> 6 and 7 -> 4 (4 of 5 on black),
blacks 3,6,8 -> 4; 6 is voted out. Probes at the end of day 2: seat 1 gives 3: .8, 4: .1, 5: .3; seat 3 gives 0, 0.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest
from handbuilt import ROLES, HandLog

from arena.engine import Event, EventType, Phase, Vis
from arena.players.base import ModelCall
from arena.research.corpus import GameData
from arena.research.metrics import measure, rates
from arena.transcript import SeatCounters

E = EventType


def build() -> GameData:
    log = HandLog()
    ev = log.ev

    def vote(day: int, voter: int, target: int, value: str = "yes") -> None:
        ev(E.VOTE_CAST, day, seat=voter, target=target, value=value)

    ev(E.GAME_STARTED, 0, Phase.SETUP, value="fiim", count=10)
    ev(E.ROLES_DEALT, 0, Phase.SETUP, Vis.MODERATOR, roles=tuple(ROLES.values()), value="fixed")
    ev(E.PHASE_STARTED, 1, value="day")
    ev(E.SPEECH, 1, seat=4, text="hello", value="regular")
    ev(E.NOMINATED, 1, seat=1, target=3)
    ev(E.NOMINATED, 1, seat=6, target=2)
    ev(E.VOTING_STARTED, 1, seats=(3, 2), value="main")
    for voter in (1, 2, 5):
        vote(1, voter, 3)
    for voter in (4, 7, 9, 10, 3, 6):
        vote(1, voter, 2)
    vote(1, 8, 3, "default")
    ev(E.VOTE_CAST, 1, seat=9, value="no")  # not a vote on anyone
    ev(E.ELIMINATED, 1, seat=2, value="voted")
    ev(E.PHASE_STARTED, 1, Phase.NIGHT, value="night")
    ev(E.SHERIFF_CHECK, 1, Phase.NIGHT, Vis.SEATS, to=(4,), seat=4, target=6, value="black")
    ev(E.PHASE_STARTED, 2, value="day")
    ev(E.ELIMINATED, 2, seat=10, value="killed")
    ev(E.BEST_MOVE, 2, seat=10, seats=(3, 5, 6))
    ev(E.SPEECH, 2, seat=8, text="I am the sheriff", value="regular", roles=("sheriff",), seats=(4,), counts=(1,))
    ev(E.SPEECH, 2, seat=4, text="No, I am", value="regular", roles=("sheriff",), seats=(6,), counts=(1,))
    ev(E.SPEECH, 2, seat=4, text="again", value="extra", roles=("sheriff",), seats=(6,), counts=(1,))  # repeat
    ev(E.NOMINATED, 2, seat=4, target=6)
    ev(E.NOMINATED, 2, seat=8, target=4)
    ev(E.VOTING_STARTED, 2, seats=(6, 4), value="main")
    for voter in (1, 4, 5, 9):
        vote(2, voter, 6)
    for voter in (7, 3, 6, 8):
        vote(2, voter, 4)
    ev(E.ELIMINATED, 2, seat=6, value="voted")
    ev(E.PROBE, 2, vis=Vis.SEATS, to=(1,), seat=1, seats=(3, 4, 5), counts=(800, 100, 300))
    ev(E.PROBE, 2, vis=Vis.SEATS, to=(3,), seat=3, seats=(1, 4), counts=(0, 0))
    ev(E.PROBES_TAKEN, 2, count=2)
    ev(E.PHASE_STARTED, 2, Phase.NIGHT, value="night")
    ev(E.GAME_ENDED, 3, Phase.END, value="town", text="test")
    call = ModelCall(seat=1, request_kind="vote", prompt_tokens=100, completion_tokens=20, cost_usd=0.01)
    return log.game(counters={1: SeatCounters(decisions=10)}, calls=[call])


@pytest.fixture(scope="module")
def game() -> Any:
    return measure(build())


def test_vote_accuracy_and_bussing_by_day(game: Any) -> None:
    d1, d2 = game.days[1], game.days[2]
    assert (d1.red_votes, d1.red_votes_on_black) == (7, 3)
    assert (d1.black_votes, d1.black_votes_on_black) == (2, 0)  # chosen votes only
    assert (d1.black_default_votes, d1.black_default_votes_on_black) == (1, 1)  # 8 -> 3, cast by the rules
    assert (d2.red_votes, d2.red_votes_on_black) == (5, 4)
    assert (d2.black_votes, d2.black_votes_on_black) == (3, 0)
    r = rates(game.total)
    assert r["vote_accuracy"] == pytest.approx(7 / 12)
    assert r["bussing_rate"] == 0.0  # the one black vote on black was the rules' default, not bussing
    assert math.isnan(r["default_vote_accuracy"])  # no red seat had a vote cast for it
    assert r["self_vote_rate"] == 0.0
    assert rates(game.seats[1])["vote_accuracy"] == 1.0  # seat 1 voted 3, then 6
    assert rates(game.seats[7])["vote_accuracy"] == 0.0


def test_default_and_self_votes_are_counted_apart() -> None:
    data = build()
    events = list(data.events)
    extra = [(5, 5, "yes"), (3, 3, "yes"), (7, 6, "default"), (9, 2, "default")]  # red self, black self, defaults
    for i, (voter, target, value) in enumerate(extra):
        events.insert(-1, Event(seq=len(events) + i, day=2, phase=Phase.DAY, type=E.VOTE_CAST, vis=Vis.PUBLIC,
                                seat=voter, target=target, value=value))  # fmt: skip
    t = measure(replace(data, events=events)).total
    assert (t.red_self_votes, t.black_self_votes) == (1, 1)
    assert (t.red_default_votes, t.red_default_votes_on_black) == (2, 1)
    assert (t.red_votes, t.red_votes_on_black, t.black_votes, t.black_votes_on_black) == (12, 7, 5, 0)  # unchanged
    r = rates(t)
    assert r["vote_accuracy"] == pytest.approx(7 / 12)
    assert r["default_vote_accuracy"] == pytest.approx(1 / 2)
    assert r["self_vote_rate"] == pytest.approx(2 / 19)
    assert r["bussing_rate"] == 0.0  # the black self-vote (3 -> 3) is no bussing


def test_probe_rank_auc(game: Any) -> None:
    """Seat 1 (red) rates 3 (black) .8 above 4 (.1) and 5 (.3): 2 of 2 pairs concordant; seat 3 (black) rates two
    reds: no black target, no pair."""
    t = game.total
    assert (t.probe_auc_pairs, t.probe_auc_concordant) == (2, 2.0)
    assert (t.red_probe_auc_pairs, t.red_probe_auc_concordant) == (2, 2.0)
    assert rates(t)["detection_auc"] == 1.0
    from arena.research.metrics import auc_counts

    assert auc_counts([(0.5, True), (0.5, False), (0.9, False), (0.2, True)]) == (4, 0.5)  # a tie counts a half


def test_mafia_survival_by_day(game: Any) -> None:
    assert game.blacks_alive == {1: 3, 2: 2}
    assert game.left_on_day == {2: 1, 10: 2, 6: 2}


def test_nominations_on_black(game: Any) -> None:
    t = game.total
    assert (t.nominations, t.nominations_on_black, t.red_nominations, t.red_nominations_on_black) == (4, 2, 2, 2)


def test_sheriff_checks_and_how_the_table_used_them(game: Any) -> None:
    t = game.total
    assert (t.sheriff_checks, t.sheriff_checks_black, t.checks_announced, t.checked_black_voted_out) == (1, 1, 1, 1)
    assert game.seats[4].sheriff_checks == 1


def test_claims_true_false_counter_and_the_votes_after(game: Any) -> None:
    t = game.total
    assert (t.claims, t.sheriff_claims_true, t.sheriff_claims_false, t.counter_claims) == (2, 1, 1, 1)
    assert game.seats[8].sheriff_claims_false == 1 and game.seats[8].counter_claims == 0
    assert game.seats[4].sheriff_claims_true == 1 and game.seats[4].counter_claims == 1
    # the next round's red votes: 5 for each claim; on 8: none, on 4: seat 7; on the accused: 4 <- 7, 6 <- 1,4,5,9
    assert (game.seats[8].claim_votes_red, game.seats[8].claim_votes_red_on_claimant) == (5, 0)
    assert game.seats[8].claim_votes_red_on_accused == 1
    assert (game.seats[4].claim_votes_red_on_claimant, game.seats[4].claim_votes_red_on_accused) == (1, 4)
    assert t.claimants_voted_out == 0


def test_best_move_hit_rate(game: Any) -> None:
    assert (game.total.best_move_named, game.total.best_move_hits) == (3, 2)
    assert rates(game.total)["best_move_hit_rate"] == pytest.approx(2 / 3)


def test_probe_scores_deception_and_detection(game: Any) -> None:
    r = rates(game.total)
    assert game.total.probe_pairs == 5
    assert r["probe_brier"] == pytest.approx((0.04 + 0.01 + 0.09) / 5)
    assert r["probe_uniform_brier"] == pytest.approx((0.49 + 4 * 0.09) / 5)
    assert r["detection_brier"] == pytest.approx(0.14 / 3)  # red seats only: seat 1
    assert r["deception"] == pytest.approx(0.8)  # red seat 1 gave black seat 3 a 0.8
    assert game.seats[3].red_on_black_pairs == 1 and game.seats[1].red_on_black_pairs == 0  # counted on the black
    loss = -(math.log(0.8) + math.log(0.9) + math.log(0.7) + 2 * math.log(0.999))
    assert r["probe_logloss"] == pytest.approx(loss / 5)
    assert game.days[2].probe_pairs == 5 and game.days[1].probe_pairs == 0


def test_tokens_and_cost_per_game_and_decision(game: Any) -> None:
    t = game.total
    assert (t.calls, t.prompt_tokens, t.completion_tokens, t.decisions) == (1, 100, 20, 10)
    r = rates(t)
    assert r["tokens_per_decision"] == pytest.approx(12.0)
    assert r["cost_per_decision"] == pytest.approx(0.001)
    assert math.isnan(rates(game.seats[2])["cost_per_decision"])  # no decisions recorded: no rate, not zero
