"""The terminal seat, driven by a scripted input stream and a recording console."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator

import pytest
from rich.console import Console

from arena.engine import Game, Kind, Role, load_rules, view
from arena.orchestrator import RunStats, run_game
from arena.players.base import Player
from arena.players.bots import RandomBot
from arena.players.human import HumanPlayer


def _human(seat: int, answers: list[str], rules_preset: str = "fiim") -> tuple[HumanPlayer, io.StringIO, list[str]]:
    out = io.StringIO()
    prompts: list[str] = []
    feed: Iterator[str] = iter(answers)

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(feed)

    console = Console(file=out, width=200, color_system=None)
    return HumanPlayer(seat, console=console, read=read, rules=load_rules(rules_preset)), out, prompts


def _first_request(game: Game, seat: int, kind: Kind) -> None:
    """Answer for every other seat at random until `seat` is asked for `kind`."""
    bots = {s: RandomBot(s, 1) for s in game.seats()}
    while not game.over:
        for request in game.pending():
            if request.seat == seat and request.kind is kind:
                return
        request = game.pending()[0]
        decision = asyncio.run(bots[request.seat].decide(view(game, request.seat), request)).decision
        game.submit(request.seat, decision)
    raise AssertionError("never asked")


def test_speech_with_a_nomination_ends_on_pass() -> None:
    game = Game(load_rules("fiim"), 3)
    _first_request(game, 1, Kind.SPEECH)
    human, out, prompts = _human(1, ["I think seat 5 is quiet.", "nominate 5", "Watch the votes.", "спасибо"])
    request = game.request_for(1)
    assert request is not None
    decision = asyncio.run(human.decide(view(game, 1), request)).decision
    assert decision.text == "I think seat 5 is quiet. Watch the votes."
    assert decision.nominate == (5,)
    shown = out.getvalue()
    assert f"You are seat #1, {game.roles[1].value}" in shown
    assert "'nominate N' nominates" in shown
    assert len(prompts) == 4 and prompts[0].startswith("[#1]")


def test_bad_input_is_asked_again_with_the_reason() -> None:
    for seed in range(20):  # a seed whose don lives to make a check
        game = Game(load_rules("fiim"), seed)
        don = game.seat_of(Role.DON)
        try:
            _first_request(game, don, Kind.DON_CHECK)
            break
        except AssertionError:
            continue
    human, out, prompts = _human(don, ["seven", "7"])
    request = game.request_for(don)
    assert request is not None
    decision = asyncio.run(human.decide(view(game, don), request)).decision
    assert decision.target == 7
    assert "Cannot read that: expected a seat number or none, got 'seven'" in out.getvalue()
    assert len(prompts) == 2


def test_engine_reason_is_shown_on_a_reask() -> None:
    game = Game(load_rules("fiim"), 3)
    _first_request(game, 1, Kind.SPEECH)
    human, out, _ = _human(1, ["pass"])
    request = game.request_for(1)
    assert request is not None
    asyncio.run(human.decide(view(game, 1), request, problem="seat 11 does not exist"))
    assert "Not accepted: seat 11 does not exist. Try again." in out.getvalue()


def test_a_human_sees_only_their_own_view_in_a_full_game() -> None:
    """Seat 2 plays a whole game through the orchestrator, typing 'pass', 'n', 'none' or a seat as asked."""
    rules = load_rules("fiim")
    game = Game(rules, 5)
    out = io.StringIO()

    def read(prompt: str) -> str:
        if "[y/n]" in prompt:
            return "n"
        if "Best move" in prompt or "Kill order" in prompt:
            return ""
        if "or none]" in prompt:
            return "none"
        if prompt.endswith("> "):
            return "pass"
        return prompt.split("[")[-1].split(",")[0].strip("] ")  # the first legal seat

    human = HumanPlayer(2, console=Console(file=out, width=200, color_system=None), read=read, rules=rules)
    players: dict[int, Player] = {s: RandomBot(s, 5) for s in game.seats()}
    players[2] = human
    stats = RunStats()
    asyncio.run(run_game(game, players, timeouts={2: None}, stats=stats))
    assert game.over and stats.counters[2].defaults == 0
    shown = out.getvalue()
    hidden = [s for s in game.seats() if s != 2 and not (game.is_black(2) and game.is_black(s))]
    for seat in hidden:  # no other seat's card, and no private result of another seat
        assert f"card dealt: #{seat} is" not in shown
    assert "Roles dealt" not in shown


def test_the_terminal_probe_reads_seat_probability_pairs_and_fills_the_rest() -> None:
    from arena.engine import Kind, Request
    from arena.players.human import PROBE_GUESS, InputError, parse_probe, probe_prompt

    req = Request(seat=3, kind=Kind.PROBE, options=(1, 2, 4))
    assert "1, 2, 4" in probe_prompt(req)
    assert parse_probe("1:0.8, 4:10%", req) == {"1": 0.8, "2": PROBE_GUESS, "4": 0.1}
    assert parse_probe("", req) == dict.fromkeys(("1", "2", "4"), PROBE_GUESS)
    for bad in ("1=0.5", "x:0.5", "1:lots"):
        with pytest.raises(InputError):
            parse_probe(bad, req)
