"""Character caps in LLM prompts: a 10,000-letter "word" (a speech, a black message) reaches no seat's prompt whole.

Two seats shout 10,000 letters in every speech and black message; the other eight are LLM seats against the local
server. Every prompt that was sent (the call records) and every prompt `arena prompt` rebuilds, for every seat at
several points, holds the shouted text only as cut by the engine, and the cut is logged as `speech_truncated`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from llmkit import llm_player, llm_spec, play

from arena.agents import AgentSpec
from arena.engine import EventType, Game, Vis, load_rules
from arena.llm.rebuild import seat_prompt
from arena.llm.records import expand
from arena.players.base import Player
from arena.standin import FakeServer
from arena.transcript import load

sys.path.insert(0, str(Path(__file__).parents[1]))
from test_text_caps import Shouter  # the one shouting seat, shared with the engine's caps test

RUN = re.compile("A{100,}")


def _longest_run(messages: list[dict[str, object]]) -> int:
    return max((len(m) for message in messages for m in RUN.findall(str(message.get("content") or ""))), default=0)


async def test_no_prompt_holds_more_than_the_cap(tmp_path: Path, server: FakeServer, api_key: str) -> None:
    rules = load_rules("fiim")
    seed = 21
    black = Game(rules, seed).black
    red = next(s for s in range(1, 11) if s not in black)
    shouters = (black[0], red)
    spec = llm_spec(server.base_url)
    bot = AgentSpec(name="shouter", kind="bot", bot="random")
    players: dict[int, Player] = {s: Shouter(s) if s in shouters else llm_player(spec, s, rules) for s in range(1, 11)}
    specs = {s: bot if s in shouters else spec for s in players}
    path = tmp_path / "caps.jsonl"
    game, _ = await play(rules, seed, players, specs, path)
    assert game.over

    transcript = load(path)
    cuts = [e for e in transcript.events if e.type is EventType.SPEECH_TRUNCATED]
    assert {e.seat for e in cuts} == set(shouters)
    assert any(e.vis is Vis.BLACK for e in cuts) and any(e.vis is Vis.PUBLIC for e in cuts)
    speech = rules.speech
    cap = max(speech.chars(speech.words(s)) for s in (speech.regular_s, speech.last_word_voted_s,
              speech.last_word_night_s, speech.tie_s, rules.night0.message_s))  # fmt: skip
    shouted = [e for e in transcript.events if e.type in (EventType.SPEECH, EventType.BLACK_MESSAGE) and e.seat in
               shouters and e.text]  # fmt: skip
    assert shouted and max(len(e.text or "") for e in shouted) <= cap

    sent = expand(transcript.calls)
    assert sent
    longest_sent = max(_longest_run(messages) for messages in sent)
    assert 0 < longest_sent <= cap  # the cut text was shown, never more

    ends = len(transcript.events)
    for seat in range(1, 11):
        for at in (ends // 2, ends):
            assert _longest_run(seat_prompt(transcript, seat, at).messages) <= cap, (seat, at)
