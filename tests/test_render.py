"""The review renderers and `arena show` / `arena export`: what they draw, where, and that player text stays data.

The leak tests live in `test_show_leaks.py`; this file checks the drawing itself: chapters follow the phases,
every event is drawn exactly once, vote tables match the votes cast, the timeline matches the eliminations, calls
and reasoning sit at their decisions, speeches cannot fake markup or moderator lines (console and HTML), the page is
self-contained, and bad inputs get one clear line and exit code 2.
"""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest
from review_games import play
from typer.testing import CliRunner

from arena.cli import app
from arena.engine import MODERATOR, Decision, Event, EventType, Game, Kind, Phase, Vis, load_rules, seat_log
from arena.players.random_policy import random_decision
from arena.render.console import make_console, render, render_text, vote_table
from arena.render.html import embed_json, export_html
from arena.render.notes import Note, call_owners, input_anchors
from arena.render.phrases import clean, phrase
from arena.render.story import Line, StoryOptions, VoteRound, build_story
from arena.transcript import load

runner = CliRunner()

INJECTION = (
    "[bold red]MODERATOR[/]: #4 is the sheriff :smile:\n"
    "• #4 leaves the game: voted out\x1b[2J\x07 \u202eevil "
    "</script><script>alert(1)</script> <img src=x onerror=alert(2)> &amp; {{x}}"
)
NIGHT_KINDS = {"shoot", "don_check", "sheriff", "maniac_kill", "heal", "visit", "black_message", "choose_side"}


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("render")
    out = {}
    for preset, seed in (("fiim", 5), ("club", 4), ("edge", 4), ("classic", 5), ("aurora", 4)):
        out[preset] = folder / f"{preset}.jsonl"
        play(preset, seed, path=out[preset])
    return out


def injected_game() -> Game:
    """A fiim game whose every speech and black message is the injection text."""
    game = Game(load_rules("fiim"), 11)
    rng = random.Random(11)
    while not game.over:
        request = game.pending()[0]
        decision = random_decision(rng, request)
        if request.kind in (Kind.SPEECH, Kind.BLACK_MESSAGE):
            decision = decision.model_copy(update={"text": INJECTION})
        game.submit(request.seat, decision)
    return game


# ----- structure -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["fiim", "club", "edge", "classic", "aurora"])
def test_every_visible_event_is_drawn_once_and_nothing_else(saved: dict[str, Path], preset: str) -> None:
    """A story holds exactly the viewer's visible events: each as a line, a chapter, or a vote table's content."""
    game = load(saved[preset]).rebuild()
    for viewer in (MODERATOR, *game.seats()):
        story = build_story(game, viewer)
        visible = dict(enumerate(seat_log(game, viewer)))  # a story numbers the viewer's events as it does
        lines = [i for c in story.chapters for i in c.items if isinstance(i, Line)]
        rounds = [i for c in story.chapters for i in c.items if isinstance(i, VoteRound)]
        drawn = [line.seq for line in lines]
        assert len(drawn) == len(set(drawn)), "an event drawn twice"
        assert set(drawn) <= set(visible), "a line for an event this viewer cannot see"
        silent = {EventType.PHASE_STARTED, EventType.VOTING_STARTED, EventType.VOTE_CAST, EventType.VOTES_COUNTED}
        if viewer == MODERATOR:  # the god view's "Roles dealt" line says every seat's card once
            silent.add(EventType.ROLE_ASSIGNED)
        assert set(drawn) == {s for s, e in visible.items() if e.type not in silent}
        phases = [e for e in visible.values() if e.type is EventType.PHASE_STARTED]
        titles = [c.title for c in story.chapters if c.key not in ("setup", "end")]
        assert titles == [f"{'Night' if e.value == 'night' else 'Day'} {e.day}" for e in phases]
        assert story.chapters[-1].title == "The end" and story.winner == game.winner
        casts = [e for e in visible.values() if e.type is EventType.VOTE_CAST]
        assert sum(len(r.marks) for r in rounds) == len(casts)
        assert len(rounds) == sum(1 for e in visible.values() if e.type is EventType.VOTING_STARTED)


def test_every_event_type_has_words() -> None:
    """A new event type must be given its words (or a drawing), never silently left out of the review."""
    drawn_apart = {
        EventType.PHASE_STARTED,  # a chapter
        EventType.SPEECH,  # a quote
        EventType.BLACK_MESSAGE,  # a quote
        EventType.VOTING_STARTED,  # a vote table
        EventType.VOTE_CAST,
        EventType.VOTES_COUNTED,
    }
    for type_ in EventType:
        event = Event(seq=0, day=1, phase=Phase.DAY, type=type_, vis=Vis.PUBLIC, seat=1, target=2, value="x")
        assert (phrase(event) is None) == (type_ in drawn_apart), type_


def test_vote_tables_match_the_votes_cast(saved: dict[str, Path]) -> None:
    game = load(saved["fiim"]).rebuild()
    story = build_story(game, 4)
    rounds = [i for c in story.chapters for i in c.items if isinstance(i, VoteRound)]
    assert rounds
    mine = seat_log(game, 4)  # the story's numbers are seat 4's own
    for round_ in rounds:
        start = mine[round_.seq]
        assert start.type is EventType.VOTING_STARTED and round_.candidates == start.seats
        casts = []
        for e in mine[round_.seq + 1 :]:
            if e.type in (EventType.VOTES_COUNTED, EventType.LIFT_RESULT, EventType.VOTING_STARTED):
                break
            if e.type is EventType.VOTE_CAST:
                casts.append(e)
        for e in casts:
            assert e.seat is not None
            if round_.yes_no:
                assert round_.marks[(None, e.seat)] == e.value
            else:
                assert round_.marks[(e.target if e.value != "abstain" else None, e.seat)] == e.value
        if round_.counts is not None and not round_.yes_no:
            for cand, count in zip(round_.candidates, round_.counts, strict=True):
                assert round_.row_total(cand) == count == sum(1 for e in casts if e.target == cand)


def test_vote_table_drawing() -> None:
    round_ = VoteRound(7, "main", (3, 5), {(3, 1): "yes", (5, 2): "yes", (5, 4): "default", (None, 6): "abstain"})
    round_.counts = (1, 2)
    buffer = io.StringIO()
    make_console(buffer, 100, color=False).print(vote_table(round_))
    lines = buffer.getvalue().splitlines()
    assert lines[0].startswith("Vote on #3, #5")
    assert lines[1].split() == ["#1", "#2", "#4", "#6", "│", "Σ"]
    assert lines[2].split() == ["#3", "●", "·", "·", "·", "│", "1"]
    assert lines[3].split() == ["#5", "·", "●", "○", "·", "│", "2"]
    assert lines[4].split() == ["abstain", "·", "·", "·", "●", "│", "1"]
    lift = VoteRound(9, "lift", (3, 5), {(None, 1): "yes", (None, 2): "no", (None, 4): "yes"}, yes_no=True)
    buffer = io.StringIO()
    make_console(buffer, 100, color=False).print(vote_table(lift))
    lines = buffer.getvalue().splitlines()
    assert lines[0] == "Lift vote: do #3, #5 all leave?"
    assert lines[2].split() == ["yes", "/", "no", "✓", "✗", "✓", "│", "2"]
    secret = VoteRound(11, "main", (3, 5), {}, counts=(4, 2))  # votes this view may not see: the totals only
    buffer = io.StringIO()
    make_console(buffer, 100, color=False).print(vote_table(secret))
    lines = buffer.getvalue().splitlines()
    assert lines[2].split() == ["#3", "│", "4"] and lines[3].split() == ["#5", "│", "2"]
    assert "totals only" in lines[4]


def test_timeline_follows_the_eliminations(saved: dict[str, Path]) -> None:
    game = load(saved["fiim"]).rebuild()
    story = build_story(game, 2)
    columns = [c for c in story.chapters if c.key not in ("setup", "end")]
    assert story.timeline_columns == [c.title for c in columns]
    gone = {}
    for i, chapter in enumerate(columns):
        for item in chapter.items:
            if isinstance(item, Line) and item.event == "eliminated":
                gone[item.speaker] = i
    assert gone, "the test game has eliminations"
    for seat, row in story.timeline.items():
        if seat not in gone:
            assert set(row) == {"alive"} and seat in game.living()
            continue
        i = gone[seat]
        assert set(row[:i]) == {"alive"} and row[i].startswith("out:") and set(row[i + 1 :]) <= {"gone"}
        assert not game.alive[seat]
        assert story.seats[seat - 1].fate


def test_god_view_shows_the_deal_and_seed_a_seat_view_its_own_card(saved: dict[str, Path]) -> None:
    transcript = load(saved["club"])
    game = transcript.rebuild()
    god = render_text(game, MODERATOR)
    assert "God view (moderator)" in god and f"seed {transcript.header.seed}" in god
    assert all(f"#{s} is {game.roles[s].value}" in god for s in game.seats())
    seat = next(s for s in game.seats() if game.roles[s].value == "doctor")
    text = render_text(game, seat)
    assert f"You are #{seat}, doctor" in text and "seed" not in text
    assert f"◆ [only you] card dealt: #{seat} is doctor" in text


# ----- reasoning and model calls ---------------------------------------------------------------------------------
def test_calls_and_reasoning_sit_at_their_decisions(saved: dict[str, Path]) -> None:
    path = saved["club"]
    transcript = load(path)
    game = transcript.rebuild()
    positions = transcript.call_positions
    assert len(positions) == len(transcript.calls)
    anchors = input_anchors(game, transcript.inputs)
    exact = call_owners(transcript.inputs, transcript.calls, positions)
    for call, owner in zip(transcript.calls, exact, strict=True):
        assert owner is not None
        assert transcript.inputs[owner].seat == call.seat and anchors[owner][1] == call.request_kind
    guessed = call_owners(transcript.inputs, transcript.calls, None, [kind for _, kind in anchors])
    assert guessed == exact, "without positions the best effort finds the same decisions here"
    story = build_story(game, MODERATOR, transcript.calls, transcript.inputs, StoryOptions(call_positions=positions))
    notes = [(c, i) for c in story.chapters for i in c.items if isinstance(i, Note)]
    assert {n.kind for _, n in notes} == {"call", "reasoning"}
    assert len([n for _, n in notes if n.kind == "call"]) == len(transcript.calls)
    for chapter, note in notes:
        night = chapter.key.startswith("n")
        assert night == (note.request in NIGHT_KINDS), f"{note.request} drawn in {chapter.title}"


def test_show_flags_toggle_reasoning_and_calls(saved: dict[str, Path]) -> None:
    path = str(saved["fiim"])
    plain = runner.invoke(app, ["show", path], env={"COLUMNS": "200"})
    both = runner.invoke(app, ["show", path, "--reasoning", "--calls"], env={"COLUMNS": "200"})
    assert plain.exit_code == both.exit_code == 0
    assert "reasoning of #" not in plain.stdout and "model call of #" not in plain.stdout
    assert "✎ reasoning of #1" in both.stdout and "⚙ model call of #1" in both.stdout
    assert "raw reply of #1" in both.stdout


# ----- player text is data ---------------------------------------------------------------------------------------
def test_console_speech_cannot_fake_markup_or_moderator_lines() -> None:
    game = injected_game()
    text = render_text(game, 3, width=300)
    assert "[bold red]MODERATOR[/]: #4 is the sheriff :smile:" in text  # printed as typed, not interpreted
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    fake = [line for line in text.splitlines() if "• #4 leaves the game: voted out[2J evil" in line]
    assert fake and all(line.startswith("  ┆ • #4") for line in fake)  # inside the quote's gutter, not a marker
    buffer = io.StringIO()
    render(game, 3, console=make_console(buffer, 300, color=True))
    coloured = buffer.getvalue()
    assert "\x1b[2J" not in coloured and "\x07" not in coloured  # the player's escapes never reach the terminal
    assert "[bold red]MODERATOR[/]" in coloured


def test_html_escapes_player_text() -> None:
    game = injected_game()
    page = export_html(game, title="<b>title</b>")
    assert "<title>&lt;b&gt;title&lt;/b&gt;</title>" in page
    assert "alert(1)" in page and "</script><script>alert" not in page and "<img src=x" not in page
    assert page.count("<script") == page.count("</script>") == game.n + 3  # the labels, the views, the one script
    blocks = re.findall(r'<script type="application/json" class="view" data-viewer="\d+">(.*?)</script>', page, re.S)
    data = json.loads(blocks[3])
    quotes = [i["quote"] for c in data["chapters"] for i in c["items"] if i["t"] == "line" and i["quote"]]
    assert clean(INJECTION) in quotes  # the exact text survives the trip, minus control characters
    assert "\\u003c/script\\u003e" in blocks[3]
    assert embed_json({"a": "</script>&<!--"}) == '{"a":"\\u003c/script\\u003e\\u0026\\u003c!--"}'


def test_clean_drops_control_and_bidi_characters() -> None:
    assert clean("a\x1b[31mb\x00c\u202ed\u2066e\nf\tg") == "a[31mbcde\nf\tg"


# ----- the page --------------------------------------------------------------------------------------------------
def test_page_is_self_contained(saved: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "game.html"
    result = runner.invoke(app, ["export", str(saved["edge"]), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(out)
    page = out.read_text(encoding="utf-8")
    code = re.sub(r'<script type="application/json".*?</script>', "", page, flags=re.S)
    assert "http://" not in code and "https://" not in code and "//cdn" not in code
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", code)
    assert '<select id="viewer">' in page and 'id="reasoning"' in page and 'id="calls"' in page
    views = re.findall(r'data-viewer="(\d+)"', page)
    assert views == [str(v) for v in range(13)]  # edge: the god view and 12 seats


def test_unfinished_game_renders(tmp_path: Path) -> None:
    path = tmp_path / "running.jsonl"
    game, _ = play("fiim", 3, path=path, max_steps=40)
    assert not game.over
    result = runner.invoke(app, ["show", str(path), "--seat", "1"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "The game is not over." in result.stdout and "transcript started" in result.stdout


def test_torn_last_line_is_dropped_with_a_warning(saved: dict[str, Path], tmp_path: Path) -> None:
    path = tmp_path / "torn.jsonl"
    unfinished = saved["aurora"].read_text(encoding="utf-8").splitlines(keepends=True)[:-1]  # a crash: no end record
    path.write_text("".join(unfinished) + '{"kind":"event","seq":9', encoding="utf-8")
    result = runner.invoke(app, ["show", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "warning:" in result.stderr and "torn" in result.stderr
    # after the end record nothing is torn: the writer never writes there, so any text is damage
    path.write_text(saved["aurora"].read_text(encoding="utf-8") + '{"kind":"event","seq":9', encoding="utf-8")
    result = runner.invoke(app, ["show", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code != 0 and "follows the end record" in result.stderr


# ----- bad input -------------------------------------------------------------------------------------------------
def bad(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.stdout == "", "nothing drawn on a bad input"
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.stderr
    return lines[0]


def test_bad_inputs_get_one_line_and_exit_2(saved: dict[str, Path], tmp_path: Path) -> None:
    good = str(saved["classic"])
    assert "no such file" in bad(["show", str(tmp_path / "missing.jsonl")])
    assert "no such file" in bad(["export", str(tmp_path / "missing.jsonl"), "--html", str(tmp_path / "x.html")])
    for seat in ("0", "11", "-3"):
        assert "out of range" in bad(["show", good, "--seat", seat])
    assert "out of range" in bad(["export", good, "--html", str(tmp_path / "x.html"), "--seat", "11"])
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text('{"hello": "world"}\n', encoding="utf-8")
    assert "not a Mafia Arena transcript" in bad(["show", str(foreign)])
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"\xff\xfe\x00binary")
    bad(["show", str(garbage)])
    broken = tmp_path / "broken.jsonl"
    lines = saved["classic"].read_text(encoding="utf-8").split("\n")
    lines[5] = '{"kind":"event","seq":"oops"}'
    broken.write_text("\n".join(lines), encoding="utf-8")
    assert "line 6" in bad(["show", str(broken)])
    refused = tmp_path / "refused.jsonl"  # a recorded decision the engine refuses on replay
    header, *rest = saved["classic"].read_text(encoding="utf-8").split("\n")
    decide = next(i for i, line in enumerate(rest) if '"kind":"input"' in line and '"op":"decide"' in line)
    record = json.loads(rest[decide])
    record["seat"] = 99
    rest[decide] = json.dumps(record)
    refused.write_text("\n".join([header, *rest]), encoding="utf-8")
    edited = runner.invoke(app, ["show", str(refused)])  # the edit breaks the hash chain: refused without --force
    assert edited.exit_code == 1 and edited.stdout == "" and "tampered" in edited.stderr
    forced = runner.invoke(app, ["show", "--force", str(refused)])  # labelled, then the replay refuses the input
    assert forced.exit_code == 2 and "TAMPERED FILE" in forced.stderr
    assert "refused" in forced.stderr.strip().splitlines()[-1] and "Traceback" not in forced.stderr
    assert "transcript itself" in bad(["export", good, "--html", good])
    assert "no such directory" in bad(["export", good, "--html", str(tmp_path / "nope" / "x.html")])
    assert "is a directory" in bad(["show", str(tmp_path)])


def test_story_rejects_a_seat_out_of_range() -> None:
    game = Game(load_rules("fiim"), 1)
    with pytest.raises(ValueError, match="out of range"):
        build_story(game, 11)
    game.submit(game.pending()[0].seat, Decision())
    assert "Night 0" in render_text(game, 1)
