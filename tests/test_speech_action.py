"""Speech against action and reasoning leaks on a hand-built game whose verdicts were worked out by hand.

The seating: black = 3 (don), 6, 8; sheriff = 4; the rest civilians.
Day 1: 8 claims sheriff (structured and in words) and checks 4 black: two lies. 5 says seat 2 was killed, but 2 is
alive: an error. 1 says he will vote 3 and votes 2 (3 is a candidate): an error. 3 says he will vote 2 and does:
true. 6 names 3 as his partner and says "we shoot 10 tonight": a teammate leak and a target leak (the blacks shoot 10
that night); 6 also says his partner 9, a red seat: no leak. 7 says "I will vote 5", 5 not a candidate: not checkable.
Night 1: the sheriff checks 6: black; the blacks shoot 10.
Day 2: 10 was killed. 4 claims sheriff with the check 6 black (structured: true), but his words say "I checked 6,
red": an error. 7 asks seat 10, who is out, to explain: an error. 9 says «Я шериф, проверил пятого — красный»: a red
seat's false claim and a fabricated check: two lies. 3 says "I am the don": a self leak.
"""

from __future__ import annotations

from typing import Any

from handbuilt import ROLES, HandLog

from arena.engine import EventType, Phase, Vis
from arena.research.corpus import GameData
from arena.research.leaks import leaks
from arena.research.metrics import measure, rates
from arena.research.speech_action import speeches

E = EventType


def build() -> GameData:
    log = HandLog()
    ev = log.ev

    def say(day: int, seat: int, text: str, **kw: Any) -> None:
        ev(E.SPEECH, day, seat=seat, text=text, value="regular", **kw)

    ev(E.GAME_STARTED, 0, Phase.SETUP, value="fiim", count=10)
    ev(E.ROLES_DEALT, 0, Phase.SETUP, Vis.MODERATOR, roles=tuple(ROLES.values()), value="fixed")
    ev(E.PHASE_STARTED, 1, value="day")
    say(1, 8, "I am the sheriff. I checked 4: black.", roles=("sheriff",), seats=(4,), counts=(1,))
    say(1, 5, "Seat 2 was killed last night.")
    say(1, 1, "I will vote 3.")
    say(1, 3, "I will vote 2.")
    say(1, 6, "My partner 3 agrees with me. We shoot 10 tonight. My partner 9 knows it.")
    say(1, 7, "I will vote 5.")
    ev(E.NOMINATED, 1, seat=1, target=3)
    ev(E.NOMINATED, 1, seat=6, target=2)
    ev(E.VOTING_STARTED, 1, seats=(3, 2), value="main")
    for voter, target in ((5, 3), (1, 2), (3, 2), (7, 2)):
        ev(E.VOTE_CAST, 1, seat=voter, target=target, value="yes")
    ev(E.PHASE_STARTED, 1, Phase.NIGHT, value="night")
    ev(E.SHERIFF_CHECK, 1, Phase.NIGHT, Vis.SEATS, to=(4,), seat=4, target=6, value="black")
    for shooter in (3, 6, 8):
        ev(E.SHOT, 1, Phase.NIGHT, Vis.SEATS, to=(shooter,), seat=shooter, target=10)
    ev(E.PHASE_STARTED, 2, value="day")
    ev(E.ELIMINATED, 2, seat=10, value="killed")
    say(2, 4, "I am the sheriff. I checked 6, red.", roles=("sheriff",), seats=(6,), counts=(1,))
    say(2, 7, "Seat 10, explain your vote.")
    say(2, 9, "Я шериф, проверил пятого — красный.")
    say(2, 3, "I am the don.")
    ev(E.GAME_ENDED, 2, Phase.END, value="town", text="test")
    return log.game()


def _verdicts() -> dict[tuple[int, int], list[tuple[str, bool | None, bool]]]:
    return {(sp.day, sp.seat): [(str(v.statement), v.false, v.lie) for v in sp.verdicts] for sp in speeches(build())}


def test_each_statement_gets_the_verdict_worked_out_by_hand() -> None:
    v = _verdicts()
    assert v[(1, 8)] == [("role sheriff", True, True), ("check 4 black", True, True)]
    assert v[(1, 5)] == [("dead 2", True, False)]
    assert v[(1, 1)] == [("vote 3", True, False)]
    assert v[(1, 3)] == [("vote 2", False, False)]
    assert ("target 10", None, False) in v[(1, 6)] and ("teammate 3", None, False) in v[(1, 6)]
    assert v[(1, 7)] == [("vote 5", None, False)]  # 5 is no candidate: not checkable
    assert v[(2, 4)] == [("role sheriff", False, False), ("check 6 black", False, False), ("check 6 red", True, False)]
    assert v[(2, 7)] == [("alive 10", True, False)]
    assert v[(2, 9)] == [("role sheriff", True, True), ("check 5 red", True, True)]


def test_the_structured_claim_and_the_words_are_both_read() -> None:
    sources = {(sp.seat, str(x.statement)): x.source for sp in speeches(build()) for x in sp.verdicts}
    assert sources[(8, "role sheriff")] == "claim+text"
    assert sources[(4, "check 6 black")] == "claim"
    assert sources[(4, "check 6 red")] == "text"


def test_leaks_are_the_true_private_facts_only() -> None:
    g = build()
    found = sorted((x.seat, x.kind, x.subject) for x in leaks(g, list(speeches(g))))
    assert found == [(3, "self", 3), (6, "target", 10), (6, "teammate", 3)]  # partner 9 is red: no leak


def test_the_counts_and_rates() -> None:
    m = measure(build())
    t = m.total
    assert (t.speeches, t.speech_statements, t.speech_false) == (10, 12, 8)
    assert (t.speech_lies, t.speech_errors, t.speeches_lying, t.speeches_erring) == (4, 4, 2, 4)
    assert (t.black_speeches, t.leaking_speeches, t.leaks_teammate, t.leaks_self, t.leaks_target) == (4, 2, 1, 1, 1)
    r = rates(t)
    assert r["lie_rate"] == 2 / 10 and r["error_rate"] == 4 / 10 and r["leak_rate"] == 2 / 4
    assert r["false_statement_share"] == 8 / 12
    assert m.seats[8].speeches_lying == 1 and m.seats[4].speeches_erring == 1  # counted on the speaker
