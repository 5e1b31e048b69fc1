"""A speech's structured claim: its seats are an enum of the table's seats in the schema, and a claim the rules
cannot record (a seat named twice, a seat outside the table, no role) is dropped with a note to the seat on its
next turn. The speech itself always stands: a bad claim never costs a re-ask, a default or the words (issue #31)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from aiohttp import web
from llmkit import llm_player, llm_spec, play, serve_app
from typer.testing import CliRunner

from arena.agents import resolve_agent
from arena.cli import app
from arena.engine import EventType, Kind, Request, SpeechKind, load_rules
from arena.llm.answer import claim_note
from arena.llm.rebuild import rebuild_call
from arena.llm.records import expand
from arena.llm.schema import answer_schema, claim_problem, stable_schema, to_decision
from arena.players.base import Player
from arena.players.factory import build_player
from arena.standin.answers import valid_answer
from arena.transcript import load

BAD_CLAIMS: list[Any] = [
    {"role": "sheriff", "black": [1], "red": [1]},  # one seat both black and red
    {"role": "sheriff", "black": [-1], "red": []},  # no such seat
    {"role": "sheriff", "black": [4, 4], "red": []},  # the same seat twice
    {"role": "pope", "black": [], "red": []},  # no such role
    "sheriff",  # not an object at all
]


def test_claim_seats_are_an_enum_of_the_tables_seats() -> None:
    speech = Request(seat=3, kind=Kind.SPEECH, max_words=50, speech=SpeechKind.REGULAR)
    claim = answer_schema(speech, 10)["properties"]["claim"]["anyOf"][0]
    for side in ("black", "red"):
        assert claim["properties"][side] == {"type": "array", "items": {"type": "integer", "enum": list(range(1, 11))},
                                             "maxItems": 10}  # fmt: skip
    stable = json.dumps(stable_schema(load_rules("fiim")))
    assert '"black": {"type": "array", "items": {"type": "integer", "enum": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}' in stable


def test_a_bad_claim_is_dropped_and_the_speech_read() -> None:
    speech = Request(seat=3, kind=Kind.SPEECH, max_words=50, speech=SpeechKind.REGULAR)
    for bad in BAD_CLAIMS:
        decision = to_decision(speech, {"speech": "I checked seat 1.", "claim": bad}, players=10)
        assert decision.text == "I checked seat 1." and decision.claim is None
        assert claim_problem(bad, 10) is not None
    eleven = claim_problem({"role": "sheriff", "black": [11], "red": []}, 10)
    assert eleven == "seat 11 is not at this table (seats 1 to 10)"
    good = to_decision(speech, {"speech": "x", "claim": {"role": "sheriff", "black": [2], "red": [5]}}, players=10)
    assert good.claim is not None and (good.claim.black, good.claim.red) == ((2,), (5,))


def _answer(body: dict[str, Any], rng: random.Random, claim: Any) -> dict[str, Any]:
    schema = body["response_format"]["json_schema"]["schema"]
    answer = valid_answer(schema, rng)
    if "speech" in answer:  # every speech: words, and a claim the engine would refuse
        answer.update(speech="I am the sheriff and I checked seat one.", claim=claim)
    message = {"role": "assistant", "content": json.dumps(answer)}
    usage = {"prompt_tokens": 10, "completion_tokens": 5}
    return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "model": "m", "usage": usage}


async def test_a_forced_bad_claim_keeps_the_speech(tmp_path: Path, api_key: str) -> None:
    rng = random.Random(5)
    sent = 0

    async def handler(request: web.Request) -> web.Response:
        nonlocal sent
        sent += 1
        return web.json_response(_answer(await request.json(), rng, BAD_CLAIMS[sent % len(BAD_CLAIMS)]))

    rules = load_rules("fiim")
    runner, port = await serve_app(handler)
    try:
        spec = llm_spec(f"http://127.0.0.1:{port}/v1", "json_schema")
        bot = resolve_agent("bot:heuristic")
        players: dict[int, Player] = {seat: llm_player(spec, seat, rules) for seat in (1, 2, 3)}
        players.update({seat: build_player(bot, seat, seed=2, rules=rules, lang="en") for seat in range(4, 11)})
        path = tmp_path / "game.jsonl"
        await play(rules, 2, players, {s: (spec if s <= 3 else bot) for s in players}, path)
    finally:
        await runner.cleanup()

    t = load(path)
    mine = [i for i in t.inputs if i.seat in (1, 2, 3)]
    assert not [i for i in mine if i.op != "decide"], "a bad claim cost a re-ask or a default"
    speeches = [e for e in t.events if e.type is EventType.SPEECH and e.seat in (1, 2, 3)]
    assert speeches and all(e.text == "I am the sheriff and I checked seat one." and not e.roles for e in speeches)
    dropped = [i for i, c in enumerate(t.calls) if claim_note(c.error)]
    assert len(dropped) == len(speeches)
    full = expand(t.calls)
    told = 0
    for index in dropped:  # the seat's next call says the claim was not recorded, and rebuilds exactly
        seat = t.calls[index].seat
        later = next((j for j in range(index + 1, len(t.calls)) if t.calls[j].seat == seat), None)
        if later is None:
            continue
        last_user = str(full[later][-1]["content"])
        assert "The moderator did not record the claim of your last speech" in last_user
        assert claim_note(t.calls[index].error) in last_user
        assert rebuild_call(t, later).messages == full[later]
        told += 1
    assert told
    verified = CliRunner().invoke(app, ["verify", str(path)])
    assert verified.exit_code == 0, verified.output
