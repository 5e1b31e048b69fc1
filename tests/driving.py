"""Moving a game to the moment a test needs: random bots play every other seat until one seat is asked a given
kind of question, and a saved game with a human seat is finished at the terminal with piped answers. Shared by the
human-seat tests (terminal and web), so each reaches its moment the same way."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from arena.engine import Game, Kind, Request, view
from arena.players.bots import RandomBot

# the human's answers to every question, cycled: speech, a yes/no, a target, an empty line, a number
PIPED_ANSWERS = "\n".join(["pass", "n", "none", "", "1"] * 400) + "\n"


def until_asked(game: Game, seat: int, kind: Kind, pred: Callable[[Request], bool] | None = None) -> Request:
    """Play random decisions (RandomBot, seed 1) until `seat` is asked `kind` (and `pred` holds): that request."""
    bots = {s: RandomBot(s, 1) for s in game.seats()}
    for _ in range(5000):
        if game.over:
            break
        for request in game.pending():
            if request.seat == seat and request.kind is kind and (pred is None or pred(request)):
                return request
        request = game.pending()[0]
        game.submit(request.seat, asyncio.run(bots[request.seat].decide(view(game, request.seat), request)).decision)
    raise AssertionError("never asked")


def resume_with_piped_answers(path: Path) -> subprocess.CompletedProcess[str]:
    """`arena resume PATH` with the human seat answered from a pipe (PIPED_ANSWERS); the finished process."""
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "resume", str(path), "--allow-piped-human", "--human-timeout", "5"],
        input=PIPED_ANSWERS,
        capture_output=True,
        text=True,
        timeout=240,
    )
