"""The terminal seat's traps found when a person played a day and a night (issue #20), each pinned by a test."""

from __future__ import annotations

import asyncio
import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from driving import until_asked
from rich.console import Console
from terminal_io import arena_on_a_pty, pipe, pty_pair, read_until

from arena.engine import Failed, Failure, Game, Kind, Phase, Request, load_rules, view
from arena.human.form import build_form, spoken_nomination, vote_rule
from arena.live import EventPrinter, status_line
from arena.orchestrator import RunStats, run_game
from arena.players.base import Player
from arena.players.bots import RandomBot
from arena.players.human import CallableLines, HumanPlayer, TerminalLines, status_text
from arena.web.state import LogWriter, observation_json

ARENA = [sys.executable, "-m", "arena.cli"]


def _human(seat: int, answers: list[str], *, interactive: bool = False) -> tuple[HumanPlayer, io.StringIO]:
    out = io.StringIO()
    feed: Iterator[str] = iter(answers)

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    console = Console(file=out, width=300, color_system=None)
    lines = CallableLines(read, interactive=interactive)
    return HumanPlayer(seat, console=console, rules=load_rules("fiim"), lines=lines), out


# ----- type-ahead -------------------------------------------------------------------------------------------------
def test_keys_typed_before_a_prompt_do_not_answer_it() -> None:
    """A double Enter at one prompt: the second Enter must not become the next decision's answer."""
    with pty_pair() as (master, slave):
        lines = TerminalLines(Console(file=io.StringIO()), fd=slave)
        assert lines.interactive

        async def go() -> tuple[str, int, str]:
            os.write(master, b"4\n\n")
            first = await lines.line("Whom to check? ")
            await asyncio.sleep(0.1)
            dropped = lines.discard_typeahead()  # what a new decision does before its first prompt
            os.write(master, b"1 2\n")
            return first, dropped, await lines.line("Best move? ")

        first, dropped, second = asyncio.run(go())
        assert first == "4"
        assert dropped == 1
        assert second == "1 2"


def test_piped_answers_are_never_discarded() -> None:
    with pipe() as (read_fd, write_fd):
        lines = TerminalLines(Console(file=io.StringIO()), fd=read_fd)
        os.write(write_fd, b"4\n\n")

        async def go() -> list[str]:
            got = [await lines.line("a? ")]
            assert lines.discard_typeahead() == 0  # a script's lines are answers in order
            got.append(await lines.line("b? "))
            return got

        assert asyncio.run(go()) == ["4", ""]


def test_the_reported_repro_a_double_enter_at_whom_to_check(tmp_path: Path) -> None:
    """`arena play --seat 3=human --seed 3` in a real terminal: "4" and two Enters at the sheriff's check. The
    second Enter used to answer the next prompt (the best move, then Day 2's speech) as empty."""
    args = ("play", "--seat", "3=human", "--seed", "3", "--out", str(tmp_path))
    with arena_on_a_pty(*args, term="dumb") as (_, fd):
        assert b"[#3] >" in read_until(fd, rb"\[#3\] > ", 240)
        os.write(fd, b"I am the sheriff.\n\n")
        assert b"[y/n]" in read_until(fd, rb"\[y/n\] ", 240)
        os.write(fd, b"n\n")
        assert b"Whom to check?" in read_until(fd, rb"Whom to check\?[^\n]*\] ", 240)
        os.write(fd, b"4\n\n")
        shown = read_until(fd, rb"Enter for none\) ", 240)
        assert b"Best move" in shown, shown[-800:]
        later = read_until(fd, rb"best move names", 2.0)  # the stray Enter must not answer it
        assert b"best move names" not in later, later[-800:]
        os.write(fd, b"1 2\n")
        assert b"best move names #1, #2" in read_until(fd, rb"best move names #1, #2", 240)


def test_an_empty_first_line_at_a_terminal_is_asked_about_not_taken_as_silence() -> None:
    game = Game(load_rules("fiim"), 3)
    request = until_asked(game, 1, Kind.SPEECH)
    human, out = _human(1, ["", "My words after all.", ""], interactive=True)
    decision = asyncio.run(human.decide(view(game, 1), request)).decision
    assert decision.text == "My words after all."
    assert "press Enter again to stay silent" in out.getvalue()
    silent, _ = _human(1, ["", ""], interactive=True)  # a second Enter confirms the silence
    assert asyncio.run(silent.decide(view(game, 1), request)).decision.text == ""
    piped, _ = _human(1, [""])  # a script's empty line ends the speech as before
    assert asyncio.run(piped.decide(view(game, 1), request)).decision.text == ""


# ----- a nomination said inside a speech ------------------------------------------------------------------------
def test_a_nomination_said_in_a_sentence_is_taken_and_kept_in_the_speech() -> None:
    game = Game(load_rules("fiim"), 3)
    request = until_asked(game, 1, Kind.SPEECH, lambda r: r.may_nominate)
    target = next(s for s in request.nominate_options if s not in game.nominee_tuple)
    human, out = _human(1, [f"Seat {target} is quiet. I nominate {target}.", ""])
    decision = asyncio.run(human.decide(view(game, 1), request)).decision
    assert decision.nominate == (target,)
    assert decision.text == f"Seat {target} is quiet. I nominate {target}."
    assert f"heard a nomination: nominating #{target}" in out.getvalue()
    game.submit(1, decision)


def test_a_spoken_nomination_that_cannot_be_taken_gets_a_one_line_hint() -> None:
    game = Game(load_rules("fiim"), 3)
    request = until_asked(game, 1, Kind.SPEECH, lambda r: r.may_nominate)
    human, out = _human(1, ["I nominate 11.", ""])
    decision = asyncio.run(human.decide(view(game, 1), request)).decision
    assert decision.nominate == () and decision.text == "I nominate 11."
    assert "(heard a nomination of #11, not taken: #11 cannot be nominated" in out.getvalue()
    no_right = request.model_copy(update={"may_nominate": False, "nominate_options": ()})
    human, out = _human(1, ["I nominate 2.", ""])
    assert asyncio.run(human.decide(view(game, 1), no_right)).decision.nominate == ()
    assert "this turn carries no right to nominate" in out.getvalue()


def test_spoken_nomination_forms() -> None:
    said = {
        "I nominate seat 5.": 5,
        "My nomination is seat 3.": 3,
        "Я выставляю игрока номер 7": 7,
        "выставляю №10": 10,
        "I would not nominate 4": None,
        "не выставляю 5": None,
        "seat 5 is quiet": None,
    }
    assert {text: spoken_nomination(text) for text in said} == said


# ----- the status line --------------------------------------------------------------------------------------------
def test_the_status_line_names_the_night_as_its_banner_does() -> None:
    game = Game(load_rules("fiim"), 19)  # seat 3 is the sheriff, and these bots let him check on Night 1
    until_asked(game, 3, Kind.SHERIFF)
    assert game.phase is Phase.NIGHT and game.day == 1
    assert status_text(view(game, 3)).startswith("night 1 · alive:")
    assert "day 1" not in status_text(view(game, 3))
    assert "· night 1 ·" in status_line(game).plain and "day 1" not in status_line(game).plain


# ----- the vote explained -----------------------------------------------------------------------------------------
def test_the_vote_is_explained_as_each_preset_counts_it() -> None:
    fiim = load_rules("fiim")
    request = Request(seat=1, kind=Kind.VOTE, subject="nominee", candidate=4, candidates=(4, 7, 2))
    assert vote_rule(fiim, request) == (
        "You have one vote in this round; yes gives it to #4. A vote not given by the last nominee goes to him, #2."
    )
    aurora = load_rules("aurora")  # votes are optional there: an unused vote is no vote
    assert "you may also vote for nobody" in vote_rule(aurora, request)
    assert "последней кандидатуры" in vote_rule(fiim, request, "ru")
    ballot = load_rules("fiim", overrides=["voting.protocol=ballot"])
    pick = Request(seat=1, kind=Kind.BALLOT, options=(4, 7, 2), candidates=(4, 7, 2))
    assert (
        vote_rule(ballot, pick)
        == "One secret ballot: pick one nominee; a ballot not cast goes to the last nominee, #2."
    )
    lift = Request(seat=1, kind=Kind.VOTE, subject="lift", candidates=(4, 7))
    assert "more than half of the living players (half fails)" in vote_rule(fiim, lift)
    assert build_form(request, fiim).to_json()["rule"] == vote_rule(fiim, request)


def test_the_terminal_says_how_the_vote_counts_once_per_round() -> None:
    game = Game(load_rules("fiim"), 3)
    request = until_asked(game, 3, Kind.VOTE)
    human, out = _human(3, ["n", "n"])
    asyncio.run(human.decide(view(game, 3), request))
    assert out.getvalue().count("You have one vote in this round") == 1
    asyncio.run(human.decide(view(game, 3), request.model_copy(update={"candidate": request.candidates[-1]})))
    assert out.getvalue().count("You have one vote in this round") == 1  # the next nominee of the same round


# ----- a timeout is a timeout -------------------------------------------------------------------------------------
def test_a_timeout_is_logged_once_as_a_timeout_not_as_a_refusal() -> None:
    with pipe() as (read_fd, _write_fd):  # the write end stays open: input never ends, it only never comes
        rules = load_rules("fiim")
        game = Game(rules, 4)
        out = io.StringIO()
        console = Console(file=out, width=200, color_system=None)
        human = HumanPlayer(2, console=console, rules=rules, lines=TerminalLines(console, fd=read_fd))
        players: dict[int, Player] = {s: RandomBot(s, 4) for s in game.seats()}
        players[2] = human
        asyncio.run(run_game(game, players, timeouts={2: 0.05}, max_reasks=2, stats=RunStats()))
        human.show(view(game, 2))  # what `arena play` shows each human at the end
    shown = out.getvalue()
    assert "refused: no answer within" not in shown
    assert "#2: no answer within 0.05 s (time is up); the rule's default applies" in shown
    rejects = sum(1 for e in game.events if e.type.value == "action_rejected" and e.seat == 2)
    defaults = sum(1 for e in game.events if e.type.value == "default_applied" and e.seat == 2)
    assert rejects == 2 * defaults  # two re-asks per decision in the record ...
    assert shown.count("(time is up)") == defaults  # ... and one line per decision on screen
    for lang, words in (("en", "(time is up); the rule's default applies"), ("ru", "(время вышло)")):
        lines = [line["text"] for line in observation_json(view(game, 2), game.n, LogWriter(rules, lang))["log"]]
        timeouts = [line for line in lines if "#2:" in line and ("time is up" in line or "время вышло" in line)]
        assert len(timeouts) == defaults and all(words in line for line in timeouts), timeouts[:3]
        assert not any("answer of #2 refused" in line or "ответ #2 не принят" in line for line in lines)


def test_the_live_printer_still_shows_a_timed_out_reask_that_was_answered_later() -> None:
    game = Game(load_rules("fiim"), 3)
    request = until_asked(game, 1, Kind.SPEECH)
    game.reject(1, "no answer within 5 s", Failed(Failure.TIMEOUT, 5000))  # the code, as the orchestrator records it
    game.submit(1, request.default)
    out = io.StringIO()
    printer = EventPrinter(Console(file=out, width=200, color_system=None), game.rules)
    for event in view(game, 1).events:
        printer(event)
    printer.flush_votes()
    assert "#1: no answer within 5 s (time is up); asked again" in out.getvalue()
