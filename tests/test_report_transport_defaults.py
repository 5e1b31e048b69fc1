"""`arena report` never counts a game made of transport failures (#31): a finished game in which more than
`TRANSPORT_SHARE` of one model seat's decisions were defaults after attempts that got no answer is skipped and listed
with the count; a game with fewer is counted. The arena itself now stops such a game instead of finishing it, so
these files are written as an older arena wrote them: model seats whose failed attempts still ended in defaults."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.agents import AgentSpec, resolve_agent
from arena.engine import Game, Observation, Request, load_rules
from arena.orchestrator import FailedAttempt, _Outcome, _Runner, run_game
from arena.players.base import Answer, ModelCall, Player, PlayerError, transport_failure
from arena.players.bots import HeuristicBot
from arena.research.corpus import TRANSPORT_SHARE, load_folder, made_of_failures
from arena.transcript import TranscriptWriter, load, make_header

MODEL = AgentSpec(name="old-model", kind="llm", model="m", base_url="http://127.0.0.1:9/v1")


class Unreachable(Player):
    """A model seat that plays like a bot, except that at the decisions numbered in `failing` it could not reach its
    model (and, as an older arena did, the default stood in)."""

    model_seat = True

    def __init__(self, seat: int, seed: int, failing: set[int]) -> None:
        self.seat, self.bot, self.failing, self.asked = seat, HeuristicBot(seat, seed, load_rules("fiim")), failing, 0

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        if problem is None:
            self.asked += 1
        if self.asked in self.failing:
            raise PlayerError("the model could not be reached: connection error: refused", final=True, reached=False)
        return await self.bot.decide(observation, request, problem)


def _old_final(
    seat: int, rejects: list[FailedAttempt], calls: list[ModelCall], failed: FailedAttempt, fix: str
) -> _Outcome:
    """An older arena's end of a decision whose last attempt got no answer from the seat's model: the default."""
    return _Outcome(None, rejects, calls, default=failed)


def _game(folder: Path, seed: int, failing: set[int]) -> Path:
    rules = load_rules("fiim")
    bot = resolve_agent("bot:heuristic")
    specs = {s: MODEL if s == 3 else bot for s in range(1, 11)}
    players: dict[int, Player] = {s: HeuristicBot(s, seed, rules) for s in range(1, 11)}
    players[3] = Unreachable(3, seed, failing)
    path = folder / f"game-{seed}-{len(failing)}.jsonl"
    writer = TranscriptWriter.create(path, make_header(rules, seed, specs))
    with pytest.MonkeyPatch.context() as patch:  # the old behaviour: the default, not the stop
        patch.setattr(_Runner, "_final", staticmethod(_old_final))
        asyncio.run(run_game(Game(rules, seed), players, writer))
    writer.close()
    return path


def test_a_game_made_of_transport_defaults_is_not_counted_and_is_listed(tmp_path: Path) -> None:
    failing = _game(tmp_path, 1, set(range(3, 100, 3)))  # a third of seat 3's decisions
    healthy = _game(tmp_path, 2, set())
    transcript = load(failing)
    defaults = [i for i in transcript.inputs if i.seat == 3 and i.op == "default"]
    assert defaults and all(transport_failure(i) for i in defaults)
    decisions = sum(1 for i in transcript.inputs if i.seat == 3 and i.op in ("decide", "default"))
    assert len(defaults) > TRANSPORT_SHARE * decisions
    why = made_of_failures(transcript)
    assert why == (
        f"seat 3: {len(defaults)} of {decisions} decisions were transport defaults (its model gave no answer), more "
        f"than 10%: a result made of failures is not counted"
    )
    corpus = load_folder(tmp_path)
    assert [g.path for g in corpus.games] == [str(healthy)]
    assert corpus.skipped == [(str(failing), why)]


def test_a_model_seat_below_the_share_counts(tmp_path: Path) -> None:
    # one default among at least ten decisions: the first seeded game where seat 3 lives that long
    for seed in range(6, 40):
        path = _game(tmp_path, seed, {2})
        transcript = load(path)
        mine = [i for i in transcript.inputs if i.seat == 3 and i.op in ("decide", "default")]
        if TRANSPORT_SHARE * len(mine) >= 1:
            break
        path.unlink()
    assert sum(i.op == "default" for i in mine) == 1 and TRANSPORT_SHARE * len(mine) >= 1
    assert made_of_failures(transcript) is None
    assert [g.path for g in load_folder(tmp_path).games] == [str(path)]
