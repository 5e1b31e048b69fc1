"""The leak test: in games of every preset, no seat is ever sent a fact hidden from it.

Every seat is an LLM seat against the local server. Its prompts are read three ways: the messages recorded in the
transcript's call records, what `arena prompt` prints for it (the command researchers audit with), and what that
command's rebuild gives at several more points. Every moderator line of the game log carries its event's seq
("[#57] ..."), so a hidden event reaching a prompt would show its seq: the seqs in a seat's prompts, outside player
quotes, must all be events `visible_to` that seat. The role prompt must name teammates only to black seats, and each
seat only its own role.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from llmkit import llm_player, llm_spec, outside_quotes, play
from typer.testing import CliRunner

from arena.cli import app
from arena.engine import MODERATOR, PRESETS, Game, Role, load_rules, view
from arena.llm.conversation import Conversation
from arena.llm.rebuild import seat_prompt
from arena.llm.records import expand
from arena.players.base import Player
from arena.players.random_policy import random_decision
from arena.prompts import load_prompt_set
from arena.standin import FakeServer
from arena.transcript import load

_SEQ = re.compile(r"^\[#(\d+)\] ", re.MULTILINE)
_ROLE_LINE = {"en": "Your role: ", "ru": "Ваша роль: "}
_MATES = {"en": "Your black teammates", "ru": "Ваши чёрные напарники"}


def _seqs(messages: list[dict[str, object]]) -> set[int]:
    text = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
    return {int(n) for n in _SEQ.findall(outside_quotes(text))}


def _check_seat(game: Game, seat: int, prompts: list[list[dict[str, object]]], lang: str) -> int:
    visible = {e.seq for e in game.events if e.visible_to(seat)}
    hidden = {e.seq for e in game.events} - visible
    checked = 0
    for messages in prompts:
        shown = _seqs(messages)
        assert not shown & hidden, f"seat {seat} was shown hidden events {sorted(shown & hidden)}"
        assert shown <= visible
        intro = str(messages[1]["content"]) if len(messages) > 1 else ""
        roles_named = intro.count(_ROLE_LINE[lang])
        assert roles_named <= 1, f"seat {seat}: more than one role line"
        if not game.is_black(seat):
            assert _MATES[lang] not in intro, f"seat {seat} (red) was told of black teammates"
        checked += len(shown)
    return checked


@pytest.mark.parametrize("schema", ["per_request", "stable"])
@pytest.mark.parametrize("preset", [*PRESETS, "fiim+probes"])
async def test_no_seat_is_sent_a_hidden_fact(preset: str, schema: str, tmp_path: Path, api_key: str) -> None:
    lang = "ru" if preset == "club" else "en"
    name, _, probes = preset.partition("+")
    rules = load_rules(name, overrides=["probes.daily=true"] if probes else None)  # +probes: other seats' probes
    with FakeServer() as server:
        spec = llm_spec(server.base_url, schema=schema)
        players: dict[int, Player] = {s: llm_player(spec, s, rules, lang) for s in range(1, rules.players + 1)}
        path = tmp_path / f"{name}.jsonl"
        game, _ = await play(rules, 3, players, {s: spec for s in players}, path, lang=lang)
    assert game.over
    assert not probes or any(e.type.value == "probe" for e in game.events)
    transcript = load(path)
    rebuilt_game = transcript.rebuild()
    full = expand(transcript.calls)
    points = [len(rebuilt_game.events) * k // 4 for k in (1, 2, 3)] + [len(rebuilt_game.events)]
    total = 0
    runner = CliRunner()
    for seat in range(1, rules.players + 1):
        recorded = [m for c, m in zip(transcript.calls, full, strict=True) if c.seat == seat]
        rebuilt = [seat_prompt(transcript, seat, at).messages for at in points]
        printed = runner.invoke(app, ["prompt", str(path), "--seat", str(seat), "--at", str(points[1]), "--json"])
        assert printed.exit_code == 0, printed.output
        assert recorded, f"seat {seat} made no call"
        total += _check_seat(rebuilt_game, seat, [*recorded, *rebuilt, json.loads(printed.stdout)], lang)
        # each seat hears its own role, and only its own
        role = rebuilt_game.roles[seat]
        assert _ROLE_LINE[lang] in str(recorded[0][1]["content"])
        if role in (Role.MAFIA, Role.DON) and len(rebuilt_game.black) > 1:
            assert _MATES[lang] in str(recorded[0][1]["content"])
    assert total > 100  # the check saw real prompts


def test_the_check_catches_a_prompt_built_from_the_god_view() -> None:
    """The detector is not vacuous: a turn built from the moderator's view is caught at once."""
    import random

    rules = load_rules("fiim")
    game = Game(rules, seed=3)
    rng = random.Random(3)
    for _ in range(3):
        for request in game.pending():
            game.submit(request.seat, random_decision(rng, request))
    conversation = Conversation(load_prompt_set("default", "en"), rules, 3)
    honest = conversation.request_messages(conversation.turn(view(game, 3), game.request_for(3)))
    _check_seat(game, 3, [honest], "en")
    god = view(game, MODERATOR)
    leaky = conversation.request_messages(conversation.turn(god, None))
    with pytest.raises(AssertionError, match="hidden events"):
        _check_seat(game, 3, [leaky], "en")
