"""Every trap a new user found in the terminal seat, each pinned by a test (issue #10)."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from driving import resume_with_piped_answers, until_asked
from rich.console import Console
from terminal_io import arena_on_a_pty, pipe, read_until

from arena.engine import Game, Kind, Request, Role, load_rules, view
from arena.orchestrator import RunStats, run_game
from arena.players.base import Player
from arena.players.bots import RandomBot
from arena.players.human import HumanPlayer, InputClosed, TerminalLines
from arena.transcript import load, verify

ARENA = [sys.executable, "-m", "arena.cli"]


class Script:
    """Feeds lines and records, at every prompt, what had been printed so far (to prove a reply came at once)."""

    def __init__(self, answers: list[str], out: io.StringIO) -> None:
        self.feed: Iterator[str] = iter(answers)
        self.out = out
        self.prompts: list[str] = []
        self.shown_at_prompt: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        self.shown_at_prompt.append(self.out.getvalue())
        try:
            return next(self.feed)
        except StopIteration:
            raise EOFError from None


def _human(seat: int, answers: list[str], preset: str = "fiim") -> tuple[HumanPlayer, io.StringIO, Script]:
    out = io.StringIO()
    script = Script(answers, out)
    console = Console(file=out, width=300, color_system=None)
    return HumanPlayer(seat, console=console, read=script, rules=load_rules(preset)), out, script


def _speech_with_nomination(seed: int = 3) -> tuple[Game, int, Request]:
    game = Game(load_rules("fiim"), seed)
    request = until_asked(game, 1, Kind.SPEECH, lambda r: r.may_nominate)
    return game, 1, request


def test_an_illegal_nomination_is_refused_at_once_and_the_speech_is_kept() -> None:
    game, seat, request = _speech_with_nomination()
    human, out, script = _human(seat, ["I think five is quiet.", "nominate 11", "Watch the votes.", ""])
    decision = asyncio.run(human.decide(view(game, seat), request)).decision
    # the refusal was on screen before the next line was asked for, not after the speech
    assert "Nomination refused: #11 cannot be nominated" in script.shown_at_prompt[2]
    assert "nominating #11" not in out.getvalue()
    assert decision.text == "I think five is quiet. Watch the votes."
    assert decision.nominate == ()


def test_a_second_nomination_is_refused_and_nominate_abc_is_not_speech() -> None:
    game, seat, request = _speech_with_nomination()
    first, second = [s for s in request.nominate_options if s != seat][:2]
    human, out, script = _human(seat, [f"nominate {first}", f"nominate {second}", "nominate abc", "My words.", ""])
    decision = asyncio.run(human.decide(view(game, seat), request)).decision
    shown = out.getvalue()
    assert f"one nomination per speech: you already nominate #{first}" in script.shown_at_prompt[2]
    assert "'nominate' needs a seat number" in script.shown_at_prompt[3]
    assert decision.nominate == (first,)
    assert decision.text == "My words."
    assert "abc" not in decision.text
    assert f"(nominating #{first}; 'withdraw' takes it back)" in shown
    game.submit(seat, decision)  # the engine takes what the form accepted


def test_withdraw_then_nominate_another() -> None:
    game, seat, request = _speech_with_nomination()
    first, second = [s for s in request.nominate_options if s != seat][:2]
    human, _, _ = _human(seat, [f"nominate {first}", "withdraw", f"nominate {second}", ""])
    decision = asyncio.run(human.decide(view(game, seat), request)).decision
    assert decision.nominate == (second,)


def test_already_nominated_hint_and_refusal() -> None:
    game = Game(load_rules("fiim"), 3)
    request = until_asked(game, 1, Kind.SPEECH, lambda r: r.may_nominate)
    obs = view(game, 1)
    obs.nominees = (5, 7)  # the seat's view of today's list, as the form reads it
    human, out, _ = _human(1, ["nominate 5", ""])
    decision = asyncio.run(human.decide(obs, request)).decision
    assert "(already nominated: 5, 7)" in out.getvalue()
    assert "Nomination refused: #5 is already nominated" in out.getvalue()
    assert decision.nominate == ()


def _don_night0(seed_range: range = range(40)) -> tuple[Game, int, Request]:
    for seed in seed_range:
        game = Game(load_rules("fiim"), seed)
        don = game.seat_of(Role.DON)
        try:
            return game, don, until_asked(game, don, Kind.BLACK_MESSAGE, lambda r: r.may_set_order)
        except AssertionError:
            continue
    raise AssertionError("no seed where the don sets a kill order")


def test_the_dons_kill_order_reask_asks_only_the_order_and_accepts_none() -> None:
    game, don, request = _don_night0()
    human, out, script = _human(don, ["Shoot in this order.", "abc", "99", "none"])
    decision = asyncio.run(human.decide(view(game, don), request)).decision
    assert decision.text == "Shoot in this order."
    assert decision.targets == ()
    assert [p for p in script.prompts if "Message to your team" in p] == [script.prompts[0]]
    assert sum("Kill order" in p for p in script.prompts) == 3  # only the order was asked again
    assert "expected seat numbers" in out.getvalue() and "#99 is not a legal choice" in out.getvalue()
    game.submit(don, decision)


def test_a_legal_kill_order_is_taken() -> None:
    game, don, request = _don_night0()
    order = [s for s in request.options][: request.max_targets]
    human, _, _ = _human(don, ["go", " ".join(map(str, order))])
    decision = asyncio.run(human.decide(view(game, don), request)).decision
    assert decision.targets == tuple(order)


def test_ctrl_d_stops_the_seat_with_a_clear_error_not_a_default() -> None:
    game, seat, request = _speech_with_nomination()
    human, _, _ = _human(seat, [])  # the script raises EOFError at once, as Ctrl-D does
    with pytest.raises(InputClosed, match="input was closed"):
        asyncio.run(human.decide(view(game, seat), request))


def test_forbidden_phrases_are_shown_at_start_and_on_a_speech_prompt_and_flagged() -> None:
    game, seat, request = _speech_with_nomination()
    human, out, script = _human(seat, ["I swear I am red.", ""])
    asyncio.run(human.decide(view(game, seat), request))
    shown = out.getvalue()
    assert shown.count("Forbidden phrases (each costs a foul): «i swear»") == 2  # the intro and the speech prompt
    assert "«i swear» is a forbidden phrase and costs a foul" in script.shown_at_prompt[1]


def test_the_character_cap_refuses_a_line_and_keeps_the_rest() -> None:
    game, seat, request = _speech_with_nomination()
    human, out, _ = _human(seat, ["short words", "x" * 5000, ""])
    decision = asyncio.run(human.decide(view(game, seat), request)).decision
    assert decision.text == "short words"
    assert "over the cap of" in out.getvalue()


def test_a_silent_human_at_a_pipe_gets_the_default_and_the_game_ends() -> None:
    """The seat reads a real descriptor that never delivers a line: the time limit applies the default."""
    with pipe() as (read_fd, _write_fd):  # the write end stays open: input never ends, it only never comes
        rules = load_rules("fiim")
        game = Game(rules, 4)
        console = Console(file=io.StringIO(), width=200, color_system=None)
        human = HumanPlayer(2, console=console, rules=rules, lines=TerminalLines(console, fd=read_fd))
        players: dict[int, Player] = {s: RandomBot(s, 4) for s in game.seats()}
        players[2] = human
        stats = RunStats()
        asyncio.run(run_game(game, players, timeouts={2: 0.05}, max_reasks=2, stats=stats))
        assert game.over
        count = stats.counters[2]
        assert count.timeouts >= 1 and count.defaults == count.decisions
        assert count.timeouts == count.attempts  # every attempt, re-asks included, ended as a timeout
        assert "(time is up: the rule's default applies)" in console.file.getvalue()  # type: ignore[attr-defined]


def test_a_late_line_answers_the_next_prompt_not_a_lost_one() -> None:
    with pipe() as (read_fd, write_fd):
        console = Console(file=io.StringIO(), width=200, color_system=None)
        lines = TerminalLines(console, fd=read_fd)

        async def go() -> str:
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.05):
                    await lines.line("first? ")
            os.write(write_fd, b"typed late\n")
            return await lines.line("second? ")

        assert asyncio.run(go()) == "typed late"


# ----- the command line -----------------------------------------------------------------------------------------------
def _run(args: list[str], tmp_path: Path, stdin: int | None = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ARENA, *args, "--out", str(tmp_path)], stdin=stdin, capture_output=True, text=True, timeout=120
    )


def test_piped_human_is_refused_without_the_flag(tmp_path: Path) -> None:
    done = _run(["play", "--seat", "1=human", "--seed", "1"], tmp_path)
    assert done.returncode == 2
    assert "error: seat 1 is human but stdin is not a terminal; pass --allow-piped-human" in done.stderr
    assert not list(tmp_path.iterdir())


def test_two_human_seats_on_one_terminal_are_refused(tmp_path: Path) -> None:
    done = _run(["play", "--seat", "1=human", "--seat", "4=human", "--allow-piped-human"], tmp_path)
    assert done.returncode == 2
    assert "error: only one human seat per terminal (seats 1, 4 are human)" in done.stderr


def test_closed_stdin_stops_the_game_saved_instead_of_defaulting(tmp_path: Path) -> None:
    done = _run(["play", "--seat", "1=human", "--seed", "1", "--allow-piped-human"], tmp_path)
    assert done.returncode == 1, done.stderr
    assert "error: seat #1's input was closed" in done.stderr
    assert "Traceback" not in done.stderr and "EOFError" not in done.stderr
    (path,) = tmp_path.iterdir()
    transcript = load(path)
    assert transcript.status != "complete"
    assert not [i for i in transcript.inputs if i.seat == 1 and i.op == "default"]  # nothing defaulted silently


def test_piped_input_ending_at_a_vote_prints_the_one_error_line_and_stays_resumable(tmp_path: Path) -> None:
    """The review's repro: the pipe ends while seat 1 votes, in a batch asked concurrently with the bots."""
    piped = tmp_path / "long.txt"
    piped.write_text("A" * 200000 + "\n" + "\n" * 5, encoding="utf-8")
    out = tmp_path / "games"
    with piped.open("rb") as stdin:
        done = _run(["play", "--seat", "1=human", "--seed", "3", "--allow-piped-human"], out, stdin=stdin.fileno())
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: seat #1's input was closed"), done.stderr[-3000:]
    (path,) = out.iterdir()
    transcript = load(path)
    assert transcript.status == "started" and transcript.chain == "ok"
    assert any(e.type.value == "voting_started" for e in transcript.events)  # it did end at a vote
    assert verify(transcript).outcome == "unfinished"


def test_piped_answers_play_a_whole_game_and_resume_works(tmp_path: Path) -> None:
    """--allow-piped-human: a seat answers from a pipe; when the pipe ends the game stops saved, and resumes."""
    first = subprocess.run(
        [*ARENA, "play", "--seat", "1=human", "--seed", "2", "--allow-piped-human", "--out", str(tmp_path)],
        input="pass\n" * 2,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert first.returncode == 1 and "input was closed" in first.stderr, first.stderr[-2000:]
    (path,) = tmp_path.iterdir()
    assert load(path).status != "complete"
    again = resume_with_piped_answers(path)
    assert again.returncode == 0, again.stderr[-2000:]
    assert load(path).status == "complete"


def test_ctrl_c_at_a_prompt_stops_at_once_without_enter(tmp_path: Path) -> None:
    """In a real terminal (a pty), Ctrl-C at the human's prompt ends the game at once, saved and resumable."""
    with arena_on_a_pty("play", "--seat", "1=human", "--seed", "1", "--out", str(tmp_path)) as (pid, fd):
        shown = read_until(fd, rb"\[#1\]", 240)
        assert b"[#1]" in shown, shown[-500:]
        os.write(fd, b"\x03")  # Ctrl-C, and no Enter after it
        # without an Enter, or it would never come (the limit only guards a hang: a loaded machine is slow)
        rest = read_until(fd, rb"arena resume", 120)
        assert b"interrupted; the game is saved" in rest, rest[-500:]
        _, status = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(status) == 130
    (path,) = tmp_path.iterdir()
    assert load(path).status != "complete"
