"""Sports scoring checked against its source.

1. mafiaratings' FIIM scoring (scoring system 19, version 7, in szotin/mafiaratings `db/alter152.sql`) reproduced on
   cases read from the site's public source: each case names the matter of `arena/scoring/systems/fiim.toml` it
   exercises, the source line and the rule. Every matter of the file has a case.
2. The facts (mafiaratings' matters) as `include/game_players_stats.php` computes them, from real engine games.
3. The score sheet of scripted games (tests/scoring/*.yaml), computed by hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena.engine import Game, load_rules
from arena.scenario import run_file
from arena.scoring import FLAGS, ScoringError, SeatFacts, build_sheet, load_system, score_facts, score_game, seat_facts
from arena.scoring.points import Counter, php_round
from arena.scoring.system import validate

FIIM = load_system("fiim")
MWC = load_system("mwc")
RULES = load_rules("fiim")
HERE = Path(__file__).parent
MR = "szotin/mafiaratings"
V7 = f"{MR} db/alter152.sql line 1 (scoring 19, version 7)"


@dataclass(frozen=True)
class Case:
    """One seat's game as mafiaratings' `add_player_score` sees it: its role, its flags (matters), its bonus()
    points and the counters; `groups` the points expected per group (the rest 0)."""

    name: str
    matters: tuple[str, ...]  # the fiim.toml matters it exercises
    source: str
    rule: str
    role: str
    flags: frozenset[str]
    groups: dict[str, float]
    extra: float = 0.0
    counter: Counter | None = None
    team: str = field(default="")

    def facts(self) -> SeatFacts:
        team = self.team or ("black" if self.role in ("mafia", "don") else "red")
        return SeatFacts(1, self.role, team, frozenset({"played", *self.flags}), extra_points=self.extra)


def _case(name: str, matters: tuple[str, ...], source: str, rule: str, role: str, flags: set[str],
          groups: dict[str, float], **kw: object) -> Case:  # fmt: skip
    return Case(name, matters, source, rule, role, frozenset(flags), groups, **kw)  # type: ignore[arg-type]


# fmt: off
CASES = [
    _case("a red win", ("win", "auto_bonus"),
          f"{V7}: main [{{matter 2, points 1}}]; extra [{{matter 1, 'matter(24) ? 0 : 0.3'}}]",
          "R10.1; mafiaratings rules 1.4", "civilian", {"win"}, {"main": 1.0, "extra": 0.3}),
    _case("a black win", ("win", "auto_bonus"), f"{V7}: main [{{matter 2, points 1}}] (no roles: every role)",
          "R10.2; mafiaratings rules 1.4", "don", {"win"}, {"main": 1.0, "extra": 0.3}),
    _case("a loss", ("auto_bonus",), f"{V7}: no policy on matter 4 (SCORING_FLAG_LOSE); the auto-bonus stands",
          "R10.1; mafiaratings rules 1.4", "sheriff", {"loss"}, {"extra": 0.3}),
    _case("a draw", ("auto_bonus",), f"{V7}: no policy on matter 26 (SCORING_FLAG_TIE)",
          "R10.4; mafiaratings rules 1.5", "civilian", {"draw"}, {"extra": 0.3}),
    _case("extra points", ("bonus", "auto_bonus"), f"{V7}: extra [{{matter 4194304, points 'bonus()'}}]; "
          f"{MR} include/game_players_stats.php: bonus numbers summed into extra_points",
          "mafiaratings rules 8.20", "civilian", {"loss", "bonus"}, {"extra": 0.7}, extra=0.4),
    _case("negative extra points", ("bonus", "auto_bonus"), f"{V7}: extra 'bonus()' takes either sign (rules 8.20: "
          "'Points can be both positive and negative')", "mafiaratings rules 8.20", "mafia", {"win", "bonus"},
          {"main": 1.0, "extra": 0.1}, extra=-0.2),
    _case("the auto-bonus taken away", ("auto_bonus", "bonus"), f"{V7}: extra 'matter(24) ? 0 : 0.3'; a worstMove "
          "bonus sets SCORING_FLAG_EXTRA_POINTS with bonus() = 0 (game_players_stats.php)", "mafiaratings rules 8.20",
          "civilian", {"win", "bonus", "no_auto_bonus"}, {"main": 1.0}),
    _case("a title gives no points", ("bonus", "auto_bonus"), f"{V7}: no policy on matter 5 (best player) or 6 (best "
          "move); their bonus sets matter 22 with bonus() = 0", "mafiaratings rules 8.20", "don",
          {"win", "bonus", "best_player"}, {"main": 1.0, "extra": 0.3}),
    _case("legacy: three blacks", ("legacy_3",), f"{V7}: legacy [{{matter 1, 'matter(10) ? 0.7 : ...', roles 3}}]",
          "R8.7; mafiaratings rules 8.17", "civilian", {"loss", "legacy_3", "killed_first_night"},
          {"legacy": 0.7, "extra": 0.3, "night1": 0.5}),
    _case("legacy: two blacks", ("legacy_2",), f"{V7}: legacy '... (matter(11) ? 0.5 : 0)', roles 3",
          "R8.7; mafiaratings rules 8.17", "sheriff", {"win", "legacy_2", "killed_first_night"},
          {"main": 1.0, "legacy": 0.5, "extra": 0.3}),
    _case("legacy: one black scores nothing", ("legacy_2", "legacy_3"), f"{V7}: legacy gives 0 unless matter 10 or "
          "11; matter 23 (one guessed) has no policy", "R8.7; mafiaratings rules 8.17", "civilian",
          {"win", "legacy_1"}, {"main": 1.0, "extra": 0.3}),
    _case("legacy of a black victim", ("legacy_3",), f"{V7}: legacy roles 3 = SCORING_ROLE_FLAGS_RED (civilian "
          f"and sheriff, {MR} include/scoring.php): a shot black scores no legacy", "R8.2 (a self-shot), R8.7",
          "mafia", {"win", "legacy_3", "killed_first_night"}, {"main": 1.0, "extra": 0.3}),
    _case("four fouls", ("removed_by_fouls",), f"{V7}: penalty [{{matter 1, 'matter(12) || matter(13) || "
          "matter(14) ? -0.5 : (matter(25) ? -0.7 : 0)'}}]", "R9.3; mafiaratings rules 9.7", "civilian",
          {"win", "removed_by_fouls"}, {"main": 1.0, "extra": 0.3, "penalty": -0.5}),
    _case("a kick-out", ("kicked_out",), f"{V7}: the same penalty, matter(13)", "R9.4; mafiaratings rules 9.3, 9.7",
          "don", {"loss", "kicked_out"}, {"extra": 0.3, "penalty": -0.5}),
    _case("a surrender", ("surrendered",), f"{V7}: the same penalty, matter(14)", "mafiaratings death type giveUp",
          "civilian", {"loss", "surrendered"}, {"extra": 0.3, "penalty": -0.5}),
    _case("a team kick-out", ("team_kicked_out",), f"{V7}: the same penalty's else branch, matter(25) -0.7",
          "mafiaratings rules 9.3 (team defeat)", "mafia", {"loss", "team_kicked_out"},
          {"extra": 0.3, "penalty": -0.7}),
    _case("a team kick-out with a kick-out", ("team_kicked_out", "kicked_out"), f"{V7}: 'matter(12) || matter(13) "
          "|| matter(14) ? -0.5 : (matter(25) ? -0.7 : 0)': the first branch wins", "mafiaratings rules 9.3",
          "mafia", {"loss", "team_kicked_out", "kicked_out"}, {"extra": 0.3, "penalty": -0.5}),
    _case("Ci, one game", ("first_night_compensation",), f"{V7}: night1 'max(min(counter(0,1)*0.5/round(counter(0,0)"
          f"*0.4),0.5),0)': round(0.4) = 0, and {MR} include/evaluator.php divides x > 0 by 0 as EV_MAX_VALUE",
          "R8.9; mafiaratings rules 8.5", "civilian", {"loss", "killed_first_night"}, {"extra": 0.3, "night1": 0.5},
          counter=Counter(1, 1)),
    _case("Ci, 4 games, shot once", ("first_night_compensation",), f"{V7}: 1*0.5/round(1.6) = 0.25",
          "R8.9; mafiaratings rules 8.5", "sheriff", {"loss", "killed_first_night"}, {"extra": 0.3, "night1": 0.25},
          counter=Counter(4, 1)),
    _case("Ci, 10 games, shot once", ("first_night_compensation",), f"{V7}: 1*0.5/round(4) = 0.125",
          "R8.9; mafiaratings rules 8.5", "civilian", {"loss", "killed_first_night"},
          {"extra": 0.3, "night1": 0.125}, counter=Counter(10, 1)),
    _case("Ci capped", ("first_night_compensation",), f"{V7}: min(5*0.5/round(4), 0.5) = 0.5",
          "R8.9; mafiaratings rules 8.5", "civilian", {"loss", "killed_first_night"}, {"extra": 0.3, "night1": 0.5},
          counter=Counter(10, 5)),
    _case("no Ci for a win", ("first_night_compensation",), f"{V7}: night1 matter 260 = LOSE (4) | "
          "KILLED_FIRST_NIGHT (256): both must be set", "R8.9", "civilian", {"win", "killed_first_night"},
          {"main": 1.0, "extra": 0.3}, counter=Counter(1, 1)),
    _case("no Ci for a black", ("first_night_compensation",), f"{V7}: night1 roles 3 (red only)", "R8.2 (a self-shot)",
          "mafia", {"loss", "killed_first_night"}, {"extra": 0.3}, counter=Counter(1, 0)),
]


def test_every_matter_of_the_fiim_file_has_a_case_that_cites_its_source() -> None:
    covered = {m for c in CASES for m in c.matters}
    assert {m.id for m in FIIM.matters} <= covered
    for case in CASES:
        assert MR in case.source and case.rule, case.name
    for matter in FIIM.matters:  # and the file itself cites both
        assert MR.split("/")[1] in matter.source or "db/alter152.sql" in matter.source, matter.id
        assert matter.rule, matter.id


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_mafiaratings_scoring_is_reproduced(case: Case) -> None:
    score = score_facts(FIIM, case.facts(), case.counter)
    expected = {g: case.groups.get(g, 0.0) for g in FIIM.groups}
    assert score.groups == pytest.approx(expected), case.source
    assert score.total == pytest.approx(sum(case.groups.values()))
    assert score.total == pytest.approx(sum(score.groups.values()))


def test_php_rounds_half_away_from_zero() -> None:
    """mafiaratings' round() is PHP's (half away from zero); Python's rounds half to even."""
    assert [php_round(x) for x in (0.4, 0.5, 1.5, 2.5, -2.5, 1.6)] == [0, 1, 2, 3, -3, 2]
    assert round(2.5) == 2  # why the function exists


# ----- 2. the facts, from real engine games --------------------------------------------------------------------------


def _played(path: str) -> Game:
    result = run_file(HERE / "scoring" / path)
    assert result.ok(strict=True) and result.cases[0].game is not None, result.cases[0].mismatches
    return result.cases[0].game


def _flags(game: Game) -> dict[int, set[str]]:
    return {f.seat: set(f.flags) for f in seat_facts(game.events, game.rules)}


def test_facts_of_a_town_win() -> None:
    """S1 against include/game_players_stats.php: clear win and loss, survivors (winners only), votes from Day 2 on
    (round 0 is 'mostly splitting'), the legacy count, and the sheriff found on Night 1 and shot on Night 2 while the
    kill order had not arranged it."""
    game = _played("S1_town_wins_legacy.yaml")
    flags = _flags(game)
    red, black = (1, 2, 4, 5, 7, 9, 10), (3, 6, 8)
    shared = {"played", "sheriff_killed_after_finding", "sheriff_found_first_night"}
    assert all(shared <= flags[s] for s in range(1, 11))
    assert all({"win", "clear_win"} <= flags[s] for s in red)  # only blacks left by day
    assert all({"loss", "clear_loss"} <= flags[s] for s in black)
    assert {s for s in range(1, 11) if "survived" in flags[s]} == {1, 2, 5, 7, 9}  # blacks never 'survive'
    assert {s for s in range(1, 11) if "all_votes_vs_mafia" in flags[s]} == {1, 2, 5}  # 3 votes from Day 2, all black
    assert {s for s in range(1, 11) if "all_votes_vs_civ" in flags[s]} == {8}  # 7, 7, 7
    assert "legacy_2" in flags[10] and "killed_first_night" in flags[10]
    assert "killed_night" in flags[4] and "killed_first_night" not in flags[4]
    assert not any("black_checks" in f or "red_checks" in f for f in flags.values())  # two checks only


def test_an_arranged_kill_is_not_a_kill_after_finding() -> None:
    """`death_round != arranged`: the don's Night-0 order had the sheriff for Night 2 (game_players_stats.php)."""
    text = (HERE / "scoring" / "S1_town_wins_legacy.yaml").read_text(encoding="utf-8")
    path = HERE / "scoring" / "_arranged.yaml"
    try:
        path.write_text(text.replace("kill_order: [10, 1, 2]", "kill_order: [10, 4, 2]"), encoding="utf-8")
        flags = _flags(_played(path.name))
    finally:
        path.unlink()
    assert "sheriff_killed_after_finding" not in flags[1] and "sheriff_found_first_night" in flags[1]


def test_facts_of_a_removal_and_a_parity_win() -> None:
    game = _played("S2_parity_fouls_awards.yaml")
    flags = _flags(game)
    assert "removed_by_fouls" in flags[7] and "kicked_out" not in flags[7]
    assert "legacy_2" in flags[1] and {"loss", "killed_first_night"} <= flags[1]
    assert not any("sheriff_killed_after_finding" in f for f in flags.values())  # the don never found him
    # everyone who left by day (#2 voted, #7 removed: a removal is a 'day kill' there) was red
    assert all("clear_win" in flags[s] for s in (3, 6, 8)) and all("clear_loss" in flags[s] for s in (2, 5, 9))


def test_a_judge_removal_is_a_kick_out() -> None:
    game = Game(RULES, 3)
    game.remove(5, "oath")
    facts = {f.seat: f for f in seat_facts(game.events, RULES)}
    assert "kicked_out" in facts[5].flags and facts[5].departure is not None
    assert facts[5].departure.how == "kicked_out" and facts[5].departure.reason == "oath"


def test_every_fact_a_file_names_is_known() -> None:
    with pytest.raises(ScoringError, match="unknown fact"):
        validate({"name": "x", "title": "x", "source": "x", "groups": ["main"],
                  "matters": [{"id": "a", "group": "main", "when": ["wins"], "points": 1, "rule": "r",
                               "source": "s"}]}, "a test")  # fmt: skip
    with pytest.raises(ScoringError, match="not one of the groups"):
        validate({"name": "x", "title": "x", "source": "x", "groups": ["main"],
                  "matters": [{"id": "a", "group": "extra", "when": ["win"], "points": 1, "rule": "r",
                               "source": "s"}]}, "a test")  # fmt: skip
    with pytest.raises(ScoringError, match="unknown"):
        load_system("nope")
    assert set(FLAGS) >= {f for m in (*FIIM.matters, *MWC.matters) for f in (*m.when, *m.unless)}


# ----- 3. the score sheet of scripted games, by hand ----------------------------------------------------------------


def test_the_sheet_of_a_town_win_by_hand() -> None:
    game = _played("S1_town_wins_legacy.yaml")
    sheet = build_sheet(game.events, game.rules, FIIM)
    points = {s.seat: s.points for s in sheet.seats}
    # reds: win 1 + auto-bonus 0.3; #10 also 0.5 for two blacks in his best move; blacks 0.3
    assert points == pytest.approx({1: 1.3, 2: 1.3, 3: 0.3, 4: 1.3, 5: 1.3, 6: 0.3, 7: 1.3, 8: 0.3, 9: 1.3, 10: 1.8})
    assert sheet.seats[9].groups == {"main": 1.0, "extra": 0.3, "legacy": 0.5, "penalty": 0.0, "night1": 0.0}
    r = sheet.result
    assert (r.winner, r.code, r.seat, r.how, r.by) == ("town", "last_black", 8, "voted", "day_vote")
    left = {s.seat: (s.left.how, s.left.day, s.left.phase) for s in sheet.seats if s.left}
    assert left == {3: ("voted", 1, "day"), 10: ("killed", 1, "night"), 6: ("voted", 2, "day"),
                    4: ("killed", 2, "night"), 8: ("voted", 3, "day")}  # fmt: skip
    night1 = sheet.nights[1]
    assert [(a.type, a.by, a.target, a.value) for a in night1.actions] == [
        ("shot", 6, 10, ""), ("shot", 8, 10, ""),  # #3 was voted out on Day 1
        ("don_check", 6, 4, "sheriff"), ("sheriff_check", 4, 6, "black"),
    ]  # fmt: skip
    assert night1.best_move is not None and night1.best_move.hits == (6, 8) and night1.killed == (10,)
    day2 = sheet.days[1]
    assert [r.kind for r in day2.rounds] == ["main", "revote"]
    revote = day2.rounds[1]  # Day 2 opens with #2, who nominates #7 before #1 nominates #6
    assert revote.candidates == (7, 6) and revote.counts == (3, 5) and revote.voters_for(6) == [1, 2, 4, 5, 9]
    assert [o.type for o in day2.outcome] == ["tie", "left"]


def test_the_sheet_of_a_parity_win_with_fouls_and_awards_by_hand() -> None:
    game = _played("S2_parity_fouls_awards.yaml")
    game.award(6, "best_player")
    game.award(3, "extra", 0.25, "led the mafia")
    game.award(9, "no_auto_bonus", reason="voted without reason")
    sheet = build_sheet(game.events, game.rules, FIIM)
    points = {s.seat: s.points for s in sheet.seats}
    assert points == pytest.approx({
        1: 0.3 + 0.5 + 0.5,  # auto-bonus, two blacks named, first-night compensation (one game)
        2: 0.3, 3: 1.0 + 0.3 + 0.25, 4: 0.3, 5: 0.3, 6: 1.3, 7: 0.3 - 0.5, 8: 1.3, 9: 0.0, 10: 0.3,
    })  # fmt: skip
    assert all(math.isclose(s.points or 0, sum(s.groups.values())) for s in sheet.seats)
    r = sheet.result
    assert (r.winner, r.code, r.black, r.red, r.by) == ("mafia", "parity", 3, 3, "day_vote")
    seven = sheet.seats[6]
    assert seven.fouls == 4 and seven.left is not None and seven.left.how == "fouls"
    assert [(x.seat, x.by_fouls) for x in sheet.removals] == [(7, True)]
    assert [(a.seat, a.kind, a.points, a.after_end) for a in sheet.awards] == [
        (6, "best_player", 0.0, True), (3, "extra", 0.25, True), (9, "no_auto_bonus", 0.0, True)]  # fmt: skip
    assert [o.type for o in sheet.days[1].outcome] == ["cancelled"]  # the removal cancelled Day 2's vote
    mwc = {s.seat: s.total for s in score_game(game.events, game.rules, MWC)}
    # 4 a win, 1 a loss; the don +0.5 and best player +2; the sheriff -0.5; four fouls -1
    assert mwc == pytest.approx({1: 1, 2: 1, 3: 4, 4: 0.5, 5: 1, 6: 6.5, 7: 0, 8: 4, 9: 1, 10: 1})
    final = {s.seat: s.total for s in score_game(game.events, game.rules, MWC, stage="final")}
    assert final[6] == pytest.approx(6.5 * 1.5)


def test_an_unfinished_game_has_a_sheet_but_no_points() -> None:
    game = Game(RULES, 2)
    sheet = build_sheet(game.events, RULES, FIIM)
    assert not sheet.finished and sheet.result.code == "unfinished"
    assert all(s.points is None for s in sheet.seats)
    with pytest.raises(ScoringError, match="not ended"):
        score_game(game.events, RULES, FIIM)
