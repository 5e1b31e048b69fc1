"""The remote seat (#33 item 5, docs/remote.md) in process: a game with one seat played over real HTTP by an agent
on the test's loop (tests/remotekit.py). Each exchange is in the transcript, verify rebuilds every turn and rereads
every answer, and an edit of either is caught; a refused or unreadable answer comes back with the reason, as the
one invalid-action policy re-asks any seat; a turn fetched and not answered in time gets the rule's default."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from forgery import rechain
from remotekit import Policy, legal, remote_game

from arena.agents import BUILTIN
from arena.engine import Game, Request, load_rules, view
from arena.orchestrator import GameStopped, run_game
from arena.players.bots import RandomBot
from arena.players.random_policy import random_decision
from arena.remote.protocol import AnswerError, Exchange, digest, read_answer, turn_body
from arena.transcript import TranscriptWriter, make_header, parse, verify

SEAT = 3


async def _play(
    policy: Policy, *, seed: int = 7, deadline_s: float | None = None, max_reasks: int = 2, preset: str = "fiim"
) -> tuple[Game, str, Any]:
    """A game of random bots with SEAT remote; its transcript's text and the seat's agent."""
    rules = load_rules(preset)
    game = Game(rules, seed)
    specs = {s: BUILTIN["bot:random"] for s in game.seats()} | {SEAT: BUILTIN["remote"]}
    header = make_header(rules, seed, specs, game_id="remote", started_at="2026-01-01T00:00:00Z", version="t")
    stream = io.StringIO()
    writer = TranscriptWriter.to_stream(stream, header)
    async with remote_game(rules, {SEAT: policy}, deadline_s=deadline_s, record=writer.exchange) as (
        table,
        remote,
        agents,
    ):
        players = {s: RandomBot(s, seed) for s in game.seats() if s != SEAT} | dict(remote)
        await run_game(game, players, writer, timeout_s=None, max_reasks=max_reasks)
        table.finish(game)
    return game, stream.getvalue(), agents[SEAT]


def _lines(text: str) -> list[str]:
    return [line + "\n" for line in text.splitlines()]


async def test_a_remote_seat_plays_a_full_game_that_verifies() -> None:
    game, text, agent = await _play(legal(1))
    assert game.over and agent.end is not None and agent.end["status"] == "over"
    assert agent.end["winner"] == game.winner
    transcript = parse(text)
    verdict = verify(transcript)
    assert verdict.ok and verdict.outcome == "complete", verdict.message
    mine = [i for i in transcript.inputs if i.seat == SEAT and i.op in ("decide", "reject", "default")]
    assert len(transcript.exchanges) == len(mine) > 5
    assert all(e.outcome == "answered" and e.delivered for e in transcript.exchanges)
    turns = [json.loads(b) for b in agent.bodies if json.loads(b)["status"] == "turn"]
    assert [t["turn"] for t in turns] == [e.turn for e in transcript.exchanges]
    # what the seat was sent is what the record's digest says (the one field left out: the time left)
    for sent, exchange in zip(turns, transcript.exchanges, strict=True):
        assert sent.pop("seconds_left") is None
        assert digest(sent) == exchange.sent


async def test_each_turn_is_the_seats_own_view_rebuilt_from_the_replay() -> None:
    game, text, agent = await _play(legal(2), seed=11)
    transcript = parse(text)
    replay = Game(game.rules, game.seed)
    turns = iter(json.loads(b) for b in agent.bodies)
    for index, item in enumerate(transcript.inputs):
        if item.seat == SEAT and item.op != "foul":
            sent = next(turns)
            request = replay.request_for(SEAT)
            assert request is not None
            obs = view(replay, SEAT, sent["observation"]["since"])
            expected = turn_body(obs, request, turn=sent["turn"], attempt=sent["attempt"], problem=sent["problem"],
                                 deadline_s=None)  # fmt: skip
            sent.pop("seconds_left")
            assert sent == json.loads(json.dumps(expected)), f"input {index}"
        replay.replay([item])
    assert next(turns)["status"] == "over"


def _refuse_first(turn: dict[str, Any]) -> dict[str, Any] | bytes:
    """Answers every first ask with a seat that does not exist, then a legal decision."""
    if turn["attempt"] == 1:
        return {"target": 99, "vote": None} if turn["request"]["kind"] != "speech" else {"text": "hi", "nominate": [99]}
    return random_decision(__import__("random").Random(0), Request.model_validate(turn["request"])).model_dump(
        mode="json"
    )


async def test_a_refusal_comes_back_with_the_engines_reason_and_the_agent_answers_again() -> None:
    _game, text, agent = await _play(_refuse_first, seed=3)
    transcript = parse(text)
    assert verify(transcript).ok
    turns = [json.loads(b) for b in agent.bodies if json.loads(b)["status"] == "turn"]
    reasks = [t for t in turns if t["attempt"] == 2]
    assert reasks, "some first answer must have been refused"
    rejects = [i.reason for i in transcript.inputs if i.seat == SEAT and i.op == "reject"]
    assert [t["problem"] for t in reasks] == rejects
    assert all(t["problem"] and "the player failed" not in t["problem"] for t in reasks)


async def test_garbage_is_a_failed_attempt_with_its_reason_then_the_default() -> None:
    _game, text, agent = await _play(lambda turn: b"{not json", max_reasks=1)
    transcript = parse(text)
    assert verify(transcript).ok, verify(transcript).message
    assert {status for status, _ in agent.answers} == {422}
    assert all("not JSON" in body["error"] for _, body in agent.answers)
    mine = [i for i in transcript.inputs if i.seat == SEAT]
    assert {i.op for i in mine} <= {"reject", "default", "foul"}
    assert all("RemoteAnswerError: the answer is not JSON" in i.reason for i in mine if i.op != "foul")
    turns = [json.loads(b) for b in agent.bodies if json.loads(b)["status"] == "turn"]
    assert all(t["problem"] is None or "not JSON" in t["problem"] for t in turns)
    assert all(e.outcome == "unreadable" for e in transcript.exchanges)


async def test_a_turn_fetched_and_not_answered_gets_the_rules_default() -> None:
    """The agent takes the turn and never answers: the deadline gives the rule's default, and the re-ask of that
    decision is not sent again (one time limit per decision)."""
    game, text, _agent = await _play(lambda turn: None, deadline_s=0.2, max_reasks=2, seed=5)
    transcript = parse(text)
    assert game.over and verify(transcript).ok
    mine = [i for i in transcript.inputs if i.seat == SEAT and i.op in ("reject", "default")]
    assert mine and all(i.reason.startswith("no answer within") for i in mine)
    outcomes = [e.outcome for e in transcript.exchanges]
    assert set(outcomes) == {"timeout", "expired"} and outcomes.count("timeout") * 3 == len(outcomes)
    assert not [i for i in transcript.inputs if i.seat == SEAT and i.op == "decide"]


@pytest.mark.parametrize(
    "edit",
    ["answer", "sent", "since", "decision", "reasoning", "drop"],
)
async def test_an_edited_exchange_or_its_input_fails_verify(edit: str) -> None:
    """Each edit is re-chained as a forger would: the replay alone cannot see most of them."""
    _game, text, _ = await _play(legal(4), seed=9)
    lines = _lines(text)
    spot = next(n for n, line in enumerate(lines) if '"kind":"exchange"' in line and '"vote"' in line)
    record = json.loads(lines[spot])
    if edit == "answer":
        answer = json.loads(record["answer"])
        answer["decision"]["vote"] = not answer["decision"]["vote"]
        record["answer"] = json.dumps(answer)
    elif edit == "sent":
        record["sent"] = "0" * 64
    elif edit == "since":
        record["since"] = record.get("since", 0) + 1
    if edit in ("answer", "sent", "since"):
        lines[spot] = json.dumps(record) + "\n"
    elif edit == "drop":
        del lines[spot]
    else:  # the input the answer became
        mine = '{"kind":"input","op":"decide","seat":3,'
        after = next(n for n in range(spot, len(lines)) if lines[n].startswith(mine))
        item = json.loads(lines[after])
        if edit == "decision":
            item["decision"]["vote"] = not item["decision"].get("vote", False)
        else:
            item["decision"]["reasoning"] = "edited afterwards"
        lines[after] = json.dumps(item) + "\n"
    verdict = verify(parse("".join(rechain(lines))))
    assert not verdict.ok, edit
    assert verify(parse("".join(rechain(_lines(text))))).ok  # re-chaining alone changes nothing


def test_an_answer_is_read_strictly() -> None:
    assert read_answer('{"turn": 2, "decision": {"vote": true}}')[0] == 2
    bad = {
        "[]": "JSON object",
        "{": "not JSON",
        '{"turn": 1}': "decision",
        '{"turn": true, "decision": {}}': "turn",
        '{"turn": 1, "decision": {"vote": "maybe"}}': "vote",
        '{"turn": 1, "decision": {"votes": true}}': "votes",
        '{"turn": 1, "decision": {}, "seat": 4}': "unknown field",
        '{"turn": 1, "turn": 2, "decision": {}}': "twice",
        '{"turn": 1, "decision": {"text": ' + "[" * 40 + "]" * 40 + "}}": "deeper",
        '{"turn": 1, "decision": {"target": ' + "9" * 5000 + "}}": "not JSON",
    }
    for text, said in bad.items():
        with pytest.raises(AnswerError, match=said):
            read_answer(text)


def test_the_exchange_record_round_trips() -> None:
    record = Exchange(seat=3, turn=1, request_kind="vote", sent="a" * 64, outcome="answered", answer="{}")
    assert Exchange.model_validate_json(record.model_dump_json()) == record


def test_a_remote_seat_outside_play_and_resume_fails_clearly(tmp_path: Path) -> None:
    from arena.players.factory import PlayerBuildError, build_player

    with pytest.raises(PlayerBuildError, match="remote agent"):
        build_player(BUILTIN["remote"], 3, seed=1, rules=load_rules("fiim"), lang="en")


def test_a_tournament_refuses_a_remote_agent_before_anything_starts(tmp_path: Path) -> None:
    from arena.tournament.model import TournamentError, load_tournament

    pool = '[[pool]]\nlabel = "a"\nagent = "bot:heuristic"\n[[pool]]\nlabel = "b"\nagent = "remote"\n'
    (tmp_path / "t.toml").write_text("games = 4\n" + pool, encoding="utf-8")
    with pytest.raises(TournamentError, match="remote agent"):
        load_tournament(tmp_path / "t.toml")
    (tmp_path / "f.toml").write_text('games = 4\nfiller = "remote"\n' + pool.replace("remote", "bot:random"))
    with pytest.raises(TournamentError, match="remote agent cannot fill"):
        load_tournament(tmp_path / "f.toml")


async def test_an_agent_that_goes_away_stops_the_game_saved() -> None:
    """The agent fetches two turns, answers them, then fetches a third and is gone: that turn (fetched, never
    answered) gets the rule's default; the next one nobody fetches stops the game, as a model that cannot be reached
    does (`GameStopped`, a stop record), instead of playing the rest on defaults. The file verifies as unfinished,
    ready to resume."""
    rules = load_rules("fiim")
    game = Game(rules, 7)
    specs = {s: BUILTIN["bot:random"] for s in game.seats()} | {SEAT: BUILTIN["remote"]}
    stream = io.StringIO()
    writer = TranscriptWriter.to_stream(stream, make_header(rules, 7, specs, game_id="gone", version="t"))
    with pytest.raises(GameStopped, match="seat 3: RemoteGone: its remote agent did not fetch its turn"):
        async with remote_game(rules, {SEAT: legal(1)}, deadline_s=0.3, record=writer.exchange,
                               stop_after={SEAT: 2}) as (_, remote, _agents):  # fmt: skip
            players = {s: RandomBot(s, 7) for s in game.seats() if s != SEAT} | dict(remote)
            await run_game(game, players, writer, timeout_s=None)
    transcript = parse(stream.getvalue())
    verdict = verify(transcript)
    assert verdict.ok and verdict.outcome == "unfinished", verdict.message
    outcomes = [e.outcome for e in transcript.exchanges]
    assert outcomes[:2] == ["answered", "answered"] and outcomes[2] == "timeout" and outcomes[-1] == "undelivered"
    assert not game.over
    [stop] = transcript.stops
    assert stop.seat == SEAT and "did not fetch its turn" in stop.reason and "start the agent" in stop.fix
    assert "stopped on seat 3" in verdict.message


def test_an_agent_file_of_kind_remote_names_a_remote_seat_and_nights_are_paced_for_it(tmp_path: Path) -> None:
    from arena.cli.game import night_pacer
    from arena.cli.seats import build_players, parse_seat_specs
    from arena.players.remote import RemotePlayer
    from arena.remote.server import RemoteTable

    (tmp_path / "my-agent.toml").write_text('kind = "remote"\n', encoding="utf-8")
    rules = load_rules("fiim")
    seats = parse_seat_specs(["3,7=my-agent"], rules.players, tmp_path)
    assert (seats[3].name, seats[3].kind, seats[7].kind) == ("my-agent", "remote", "remote")
    table = RemoteTable(rules)
    try:
        players = build_players(seats, seed=1, rules=rules, lang="en", delay=0.5, remote=table)
        assert isinstance(players[3], RemotePlayer) and isinstance(players[7], RemotePlayer)  # never delayed
        assert table.lines[3].token != table.lines[7].token
        pacer = night_pacer(Game(rules, 1), players, {3, 7})
        assert pacer is not None and pacer.timed == frozenset(set(range(1, 11)) - {3, 7})
        assert night_pacer(Game(rules, 1), players, set()) is None
    finally:
        table.sock.close()
