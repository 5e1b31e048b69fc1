"""The judge's awards (`Game.award`): extra points, titles and cards on the score sheet are engine inputs, recorded
in the transcript, replayed by verify, refused with a reason when they make no sense, hidden from the seats while the
game runs, and they change nothing in the game."""

from __future__ import annotations

import asyncio
import io
import random

import pytest

from arena.agents import BUILTIN
from arena.engine import AWARDS, JUDGE_OPS, MODERATOR, EventType, Game, IllegalDecision, Input, Vis, load_rules, view
from arena.orchestrator import counters_from_inputs, run_game
from arena.players.factory import build_player
from arena.players.random_policy import random_decision
from arena.transcript import TranscriptWriter, make_header, parse, verify

RULES = load_rules("fiim")


def _played(seed: int = 5) -> tuple[Game, TranscriptWriter, io.StringIO]:
    """A bots game played to its end, its transcript open (no end record yet): the judge's sheet comes after."""
    seats = dict.fromkeys(range(1, 11), BUILTIN["bot:heuristic"])
    out = io.StringIO()
    writer = TranscriptWriter.to_stream(out, make_header(RULES, seed, seats, game_id="awards"))
    game = Game(RULES, seed)
    players = {s: build_player(seats[s], s, seed=seed, rules=RULES, lang="en") for s in seats}
    asyncio.run(run_game(game, players, writer, end_record=False))
    return game, writer, out


def _seal(game: Game, writer: TranscriptWriter, out: io.StringIO, since: int) -> str:
    for item in game.inputs[since:]:
        writer.input(item)
    writer.sync_events(game)
    writer.end(game, {})
    return out.getvalue()


def test_awards_after_the_end_are_recorded_replayed_and_verified() -> None:
    game, writer, out = _played()
    assert game.over
    before, events = len(game.inputs), len(game.events)
    game.award(3, "extra", 0.4, "found both blacks")
    game.award(3, "extra", -0.1)
    game.award(5, "best_player")
    game.award(7, "best_move")
    game.award(2, "no_auto_bonus", reason="voted at random")
    game.award(2, "yellow_card")
    game.award(2, "yellow_card")
    text = _seal(game, writer, out, before)
    transcript = parse(text)
    verdict = verify(transcript)
    assert verdict.ok and verdict.outcome == "complete", verdict.message
    awards = [i for i in transcript.inputs if i.op == "award"]
    assert [(i.seat, i.award, i.points, i.reason) for i in awards] == [
        (3, "extra", 0.4, "found both blacks"),
        (3, "extra", -0.1, ""),
        (5, "best_player", 0.0, ""),
        (7, "best_move", 0.0, ""),
        (2, "no_auto_bonus", 0.0, "voted at random"),
        (2, "yellow_card", 0.0, ""),
        (2, "yellow_card", 0.0, ""),
    ]
    recorded = transcript.events[events:]
    assert [(e.type, e.vis, e.seat, e.value, e.count) for e in recorded[:2]] == [
        (EventType.AWARD, Vis.PUBLIC, 3, "extra", 40),
        (EventType.AWARD, Vis.PUBLIC, 3, "extra", -10),
    ]
    assert recorded[2].count is None and recorded[0].text == "found both blacks"
    assert transcript.end is not None and transcript.end.inputs == len(transcript.inputs)
    # the winner and the reason stand: an award changes nothing in the game
    rebuilt = transcript.rebuild()
    assert (rebuilt.winner, rebuilt.outcome) == (game.winner, game.outcome)


def test_an_edited_award_fails_verify() -> None:
    game, writer, out = _played()
    before = len(game.inputs)
    game.award(4, "extra", 0.3)
    text = _seal(game, writer, out, before)
    forged = text.replace('"points":0.3', '"points":0.5')
    assert forged != text
    assert not verify(parse(forged)).ok


@pytest.mark.parametrize(
    ("seat", "kind", "points", "reason", "why"),
    [
        (0, "extra", 0.3, "", "not at this table"),
        (11, "extra", 0.3, "", "not at this table"),
        (3, "mvp", 0.0, "", "unknown award"),
        (3, "extra", 0.0, "", "nonzero"),
        (3, "extra", 0.333, "", "hundredths"),
        (3, "extra", 10.5, "", "at most 10"),
        (3, "extra", float("nan"), "", "finite"),
        (3, "extra", float("inf"), "", "finite"),
        (3, "best_player", 0.5, "", "carries no points"),
        (3, "extra", 0.3, "x" * 301, "300 characters"),
    ],
)
def test_nonsense_awards_are_refused_with_a_reason(seat: int, kind: str, points: float, reason: str, why: str) -> None:
    game = Game(RULES, 1)
    events, inputs = len(game.events), len(game.inputs)
    with pytest.raises(IllegalDecision) as refused:
        game.award(seat, kind, points, reason)  # type: ignore[arg-type]  # an unknown kind is the point
    assert refused.value.code == "bad_award" and why in refused.value.reason
    assert (len(game.events), len(game.inputs)) == (events, inputs)  # nothing recorded


def test_a_title_is_given_once() -> None:
    game = Game(RULES, 1)
    game.award(3, "best_player")
    game.award(4, "best_move")
    game.award(4, "no_auto_bonus")
    game.award(6, "yellow_card")
    game.award(6, "yellow_card")  # cards add up
    refused = (
        (3, "best_player", "already holds"),
        (5, "best_player", "already given to seat 3"),
        (6, "best_move", "already given to seat 4"),
        (4, "no_auto_bonus", "already holds"),
    )
    for seat, kind, why in refused:
        with pytest.raises(IllegalDecision, match=why):
            game.award(seat, kind)  # type: ignore[arg-type]


def test_an_award_while_the_game_runs_is_the_moderators_alone() -> None:
    """A seat must not learn the judge's opinion before the end: the event is the moderator's, and every seat's view
    is exactly what it was before the award."""
    game = Game(RULES, 1)
    before = {s: view(game, s).events for s in range(1, 11)}
    pending = game.pending()
    game.award(3, "extra", 0.2, "mid-game note")
    event = game.events[-1]
    assert event.type is EventType.AWARD and event.vis is Vis.MODERATOR
    assert all(view(game, s).events == before[s] for s in range(1, 11))
    assert event in view(game, MODERATOR).events
    assert game.pending() == pending  # no request moved


def test_a_game_with_awards_along_the_way_replays_byte_for_byte() -> None:
    """Awards interleaved with decisions (a judge at a live table) replay to the same events."""
    game = Game(RULES, 7)
    rng = random.Random(7)
    step = 0
    while not game.over:
        request = game.pending()[0]
        game.submit(request.seat, random_decision(rng, request))
        step += 1
        if step % 17 == 0:
            game.award(step % 10 + 1, "extra", 0.05)
    game.award(1, "best_player")
    copy = Game(RULES, 7)
    copy.replay(game.inputs)
    assert [e.model_dump_json() for e in copy.events] == [e.model_dump_json() for e in game.events]
    assert sum(1 for i in game.inputs if i.op == "award") == step // 17 + 1


def test_awards_are_judge_inputs_not_the_seats() -> None:
    assert "award" in JUDGE_OPS and set(AWARDS) == {"extra", "best_player", "best_move", "no_auto_bonus", "yellow_card"}
    inputs = [Input(op="award", seat=3, award="extra", points=0.3), Input(op="decide", seat=3)]
    counters = counters_from_inputs(inputs)
    assert counters[3].attempts == 1  # the award is not an attempt of seat 3


def test_an_award_input_without_its_kind_is_refused_on_replay() -> None:
    with pytest.raises(IllegalDecision, match="names no award"):
        Game(RULES, 1).replay([Input(op="award", seat=3)])


def test_the_awards_log_lines_in_russian_keep_the_abbreviation_and_quote_the_judge() -> None:
    """The web log's Russian line: the decimal comma only in the number ("доп. балла", not "доп, балла"), and the
    judge's reason quoted as data, as a foul's is (the club test found both)."""
    from arena.engine import Event, Phase
    from arena.render.phrases_ru import judge_phrase

    def line(value: str, count: int | None, text: str) -> str:
        event = Event(seq=0, day=5, phase=Phase.END, type=EventType.AWARD, vis=Vis.PUBLIC, seat=8, value=value,
                      count=count, text=text)
        return "".join(span.text for span in judge_phrase(event))

    assert line("extra", 50, "a phone at the table") == "судья: #8 — +0,50 доп. балла («a phone at the table»)"
    assert line("extra", -125, "") == "судья: #8 — -1,25 доп. балла"
    assert line("best_player", None, "") == "судья: #8 — лучший игрок"
