"""The words the console and the HTML page print: each defect a newcomer reported, checked where the text is made."""

from __future__ import annotations

import asyncio
import io
import json
import random
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from arena.agents import AgentError, resolve_agent
from arena.cli import app
from arena.cli.game import failure_line
from arena.engine import Event, EventType, Game, Kind, Phase, RulesError, Vis, load_rules, view
from arena.live import EventPrinter
from arena.players.base import ModelCall
from arena.players.human import HumanPlayer, status_text
from arena.players.random_policy import random_decision
from arena.render.console import make_console, render_text, vote_table
from arena.render.html import export_html
from arena.render.phrases import phrase
from arena.render.story import StoryOptions, VoteRound, build_story


def _event(type_: EventType, **fields: object) -> Event:
    return Event(seq=0, day=2, phase=Phase.NIGHT, type=type_, vis=Vis.MODERATOR, **fields)  # type: ignore[arg-type]


def _text(event: Event) -> str:
    return "".join(span.text for span in phrase(event) or [])


# ----- the human seat ----------------------------------------------------------------------------------------------
def test_speech_prompt_names_a_speech() -> None:
    game = Game(load_rules("fiim"), 3)
    request = game.pending()[0]
    while request.kind is not Kind.SPEECH:  # play randomly up to the first speech
        game.submit(request.seat, random_decision(random.Random(1), request))
        request = game.pending()[0]
    out = io.StringIO()
    lines = iter(["pass"])
    human = HumanPlayer(request.seat, console=Console(file=out, width=200), read=lambda _: next(lines))
    asyncio.run(human.decide(view(game, request.seat), request))
    assert f"Your regular speech, up to {request.max_words} words" in out.getvalue()
    assert "Your regular," not in out.getvalue()


def _revote_game() -> tuple[Game, int]:
    """A fiim game driven until a re-vote or lift vote is pending; returns it and a seat asked to vote."""
    for seed in range(200):
        game, rng = Game(load_rules("fiim"), seed), random.Random(seed)
        while not game.over:
            pending = game.pending()
            voting = [e for e in game.events if e.type is EventType.VOTING_STARTED]
            if voting and voting[-1].value in ("revote", "lift") and pending[0].kind is Kind.VOTE:
                return game, pending[0].seat
            game.submit(pending[0].seat, random_decision(rng, pending[0]))
    raise AssertionError("no re-vote in 200 seeds")


def test_status_line_names_only_the_players_on_a_revote() -> None:
    game, seat = _revote_game()
    started = [e for e in game.events if e.type is EventType.VOTING_STARTED][-1]
    obs = view(game, seat)
    assert set(started.seats) < set(obs.nominees), "the re-vote should be between fewer players than were nominated"
    out = io.StringIO()
    human = HumanPlayer(seat, console=Console(file=out, width=300), read=lambda _: "n")
    human.show(obs)
    shown = out.getvalue().splitlines()[-1]
    on_vote = ", ".join(f"#{s}" for s in started.seats)
    label = "re-vote" if started.value == "revote" else "lift vote"
    assert shown.endswith(f"{label}: {on_vote}")
    assert "nominees:" not in shown
    # before any vote of the day, the status line still lists the nominees
    assert status_text(obs, None).endswith("nominees: " + ", ".join(f"#{s}" for s in obs.nominees))


# ----- the end-of-game counts -------------------------------------------------------------------------------------
def test_failure_counts_are_pluralised() -> None:
    assert failure_line(3, 0, 0, 1, 0) == "seat 3: 1 error"
    assert failure_line(4, 1, 2, 0, 1) == "seat 4: 1 refused answer, 2 timeouts, 1 default applied"
    assert failure_line(5, 2, 1, 3, 2) == "seat 5: 2 refused answers, 1 timeout, 3 errors, 2 defaults applied"
    assert failure_line(6, 0, 0, 0, 0) is None


# ----- the review: model calls, the deal, vote tables, the club doctor ----------------------------------------------
def test_failed_calls_carry_the_models_name() -> None:
    game = Game(load_rules("fiim"), 1)
    calls = [
        ModelCall(seat=2, request_kind="speech", model="qwen-7b-2026", prompt_tokens=10),
        ModelCall(seat=2, request_kind="vote", error="transport: connection error"),
        ModelCall(seat=5, request_kind="vote", error="transport: timeout"),
    ]
    story = build_story(game, 0, calls, [], StoryOptions(models={5: "gpt-test"}))
    notes = [item.text for c in story.chapters for item in c.items if getattr(item, "kind", "") == "call"]
    assert notes[0].startswith("qwen-7b-2026 ·")
    assert notes[1].startswith("qwen-7b-2026 ·") and "error: transport: connection error" in notes[1]
    assert notes[2].startswith("gpt-test ·")
    bare = build_story(game, 0, calls[2:], [])
    (note,) = [item.text for c in bare.chapters for item in c.items if getattr(item, "kind", "") == "call"]
    assert note.startswith("seat 5's model ·") and not note.startswith("model ·")


def test_god_view_says_the_deal_once() -> None:
    game = Game(load_rules("club"), 4)
    deal_lines = [e for e in game.events if e.type is EventType.ROLE_ASSIGNED]
    assert len(deal_lines) == 10
    text = render_text(game, 0)
    assert "Roles dealt" in text and "card dealt" not in text
    assert "card dealt: #3 is" in render_text(game, 3)  # a seat's own view still shows its card
    out = io.StringIO()
    printer = EventPrinter(Console(file=out, width=300), game.rules)
    for event in game.events:
        printer(event)
    live = out.getvalue()
    assert live.count("Roles dealt") == 1 and "card dealt" not in live
    out = io.StringIO()
    seat_printer = EventPrinter(Console(file=out, width=300), game.rules)
    for event in view(game, 3).events:
        seat_printer(event)
    assert "card dealt: #3 is" in out.getvalue()


def test_vote_tables_have_a_legend() -> None:
    round_ = VoteRound(7, "main", (3, 5), {(3, 1): "yes", (5, 2): "yes", (5, 4): "default", (None, 6): "abstain"})
    round_.counts = (1, 2)
    buffer = io.StringIO()
    make_console(buffer, 200, color=False).print(vote_table(round_))
    legend = buffer.getvalue().splitlines()[-1]
    assert "● a vote" in legend and "○ a vote counted by default" in legend and "· nothing" in legend
    assert "abstain row" in legend
    plain = VoteRound(8, "main", (3, 5), {(3, 1): "yes", (5, 2): "yes"}, counts=(1, 1))
    assert "○" not in plain.legend and "· nothing" in plain.legend
    lift = VoteRound(9, "lift", (3, 5), {(None, 1): "yes", (None, 2): "no"}, yes_no=True)
    assert lift.legend == "✓ yes   ✗ no"
    assert VoteRound(11, "main", (3, 5), {}, counts=(4, 2)).legend == ""  # nothing shown, nothing to explain


def test_html_vote_tables_carry_the_legend() -> None:
    game, rng = Game(load_rules("fiim"), 5), random.Random(5)
    while not game.over:
        request = game.pending()[0]
        game.submit(request.seat, random_decision(rng, request))
    page = export_html(game)
    blocks = re.findall(r'<script type="application/json" class="view" data-viewer="0">(.*?)</script>', page, re.S)
    data = json.loads(blocks[0].replace("\\u003c", "<"))
    votes = [item for chapter in data["chapters"] for item in chapter["items"] if item.get("t") == "vote"]
    assert votes and all(v["legend"].startswith(("● a vote", "✓ yes")) for v in votes if v["voters"])
    assert "item.legend" in page  # the page draws it


def test_club_doctor_arms_crossed_reads_as_one_story() -> None:
    heal = _text(_event(EventType.HEAL, seat=10, target=4, value="arms_crossed"))
    nobody = _text(_event(EventType.SAVE_RESULT, target=None))
    passed = _text(_event(EventType.SAVE_RESULT, target=7))
    assert heal == "doctor #10 picks #4, who was saved once already: arms crossed, the save passes on"
    assert "heals #4" not in heal
    assert nobody == "nobody on the stretchers can be saved tonight"
    assert passed == "the doctor's save goes to #7"
    assert _text(_event(EventType.HEAL, seat=10, target=4, value="saved")) == "doctor #10 heals #4 (saved)"


# ----- agent files and rules files fail alike -------------------------------------------------------------------
def test_agent_file_errors_look_like_rules_file_errors(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('kind = "llm"\nmodel = "m"\ntemperature = 9\n')
    (tmp_path / "bad_rules.toml").write_text("[speech]\nregular_s = -5\n")
    with pytest.raises(AgentError) as agent_error:
        resolve_agent("bad", tmp_path, check_env=False)
    with pytest.raises(RulesError) as rules_error:
        load_rules(path=tmp_path / "bad_rules.toml")
    agent_lines, rules_lines = str(agent_error.value).splitlines(), str(rules_error.value).splitlines()
    assert agent_lines[0] == f"invalid agent in {tmp_path / 'bad.toml'}:"
    assert rules_lines[0] == f"invalid rules in {tmp_path / 'bad_rules.toml'}:"
    assert re.fullmatch(r"  temperature: Input should be less than or equal to 2; got 9", agent_lines[1])
    assert re.fullmatch(r"  speech\.regular_s: .*; got -5", rules_lines[1])
    # a key pasted into the file is never echoed back
    (tmp_path / "leaky.toml").write_text('kind = "llm"\nmodel = "m"\napi_key = "sk-do-not-print"\n')
    (tmp_path / "leaky2.toml").write_text('kind = "llm"\nmodel = "m"\napi_key_env = "sk-do-not-print"\n')
    for name in ("leaky", "leaky2"):
        with pytest.raises(AgentError) as leaked:
            resolve_agent(name, tmp_path, check_env=False)
        assert "sk-do-not-print" not in str(leaked.value) and str(leaked.value).startswith("invalid agent in ")
    (tmp_path / "broken.toml").write_text("kind = \n")
    result = CliRunner().invoke(app, ["play", "--seat", "1=broken", "--agents-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: agent file {tmp_path / 'broken.toml'} is not valid TOML")
