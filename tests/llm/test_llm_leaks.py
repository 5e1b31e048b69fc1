"""The leak test: in games of every preset, no seat is ever sent a fact hidden from it, nor a count of them.

Every seat is an LLM seat against the local server. Its prompts are read three ways: the messages recorded in the
transcript's call records, what `arena prompt` prints for it (the command researchers audit with), and what that
command's rebuild gives at several more points. Every moderator line of the game log opens with its event's number
in the seat's own sequence ("[#57] ..."), so each line is checked against the seat's own events: line `[#n]` is the
seat's event n, worded exactly as the prompt set words it, and the numbers run 0, 1, 2, ... with a gap only where one
line folds a run of votes (`vote_runs`). So no hidden event reaches a prompt, and no number counts one (a global
number would: a night's gap counted the living shooters and checkers). The role prompt must name teammates only to
black seats, and each seat only its own role.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from llmkit import llm_player, llm_spec, outside_quotes, play
from typer.testing import CliRunner

from arena.cli import app
from arena.engine import MODERATOR, PRESETS, Event, EventType, Game, Role, load_rules, seat_log, view
from arena.llm.conversation import Conversation
from arena.llm.rebuild import events_after_inputs, seat_prompt
from arena.llm.records import expand
from arena.players.base import Player
from arena.players.random_policy import random_decision
from arena.prompts import load_prompt_set
from arena.standin import FakeServer
from arena.transcript import load

_LINE = re.compile(r"^\[#(\d+)\] .*$", re.MULTILINE)
_ROLE_LINE = {"en": "Your role: ", "ru": "Ваша роль: "}
_MATES = {"en": "Your black teammates", "ru": "Ваши чёрные напарники"}
_NOTES = {
    "en": ("Your notes of the game so far", "\n(end of your notes)"),
    "ru": ("Ваши заметки об игре", "\n(конец заметок)"),
}


def _lines(messages: list[dict[str, object]], lang: str) -> list[tuple[int, str, bool]]:
    """Each moderator log line of the user turns, in order: its number, its text (player quotes emptied), and
    whether it is one of a compaction's notes (which leave out speeches without a claim, and other kinds)."""
    out = []
    mark, end = _NOTES[lang]
    for m in messages:
        if m.get("role") != "user":
            continue
        text = outside_quotes(str(m.get("content") or ""))
        cut = text.find(end, text.find(mark)) if mark in text else 0
        out += [(int(n.group(1)), n.group(0), n.start() < cut) for n in _LINE.finditer(text)]
    return out


def _same_run(a: Event, b: Event) -> bool:
    return a.type is b.type is EventType.VOTE_CAST and (a.target, a.value) == (b.target, b.value)


def _check_seat(game: Game, seat: int, prompts: list[list[dict[str, object]]], lang: str) -> int:
    mine = [e.model_copy(update={"seq": n}) for n, e in enumerate(seat_log(game, seat))]  # as the seat numbers them
    env = load_prompt_set("default", lang).env
    line = env.get_template("events.j2").module.line  # type: ignore[attr-defined]
    checked = 0
    for messages in prompts:
        expected, previous, notes = 0, None, False  # the next line's number; the line before: its event, a note?
        notes = any(_NOTES[lang][0] in str(m.get("content")) for m in messages if m.get("role") == "user")
        # (a compacted prompt: its first line may come after a gap, the turns the notes condensed)
        for number, text, note in _lines(messages, lang):
            assert number < len(mine), f"seat {seat} was shown event #{number}; it saw {len(mine)} events"
            assert number >= expected, f"seat {seat}: #{number} after #{expected - 1}"
            # a gap only where the line before folded a run of votes, or in a compaction's notes (and where
            # the notes end and the verbatim turns begin): what a fold skips is that run's votes
            skipped = mine[expected:number]
            folded = previous is not None and all(_same_run(previous, e) for e in skipped)
            assert note or not skipped or folded or notes, f"seat {seat}: #{expected} to #{number - 1} never shown"
            event = mine[number]
            words = outside_quotes(str(line(event, seat, game.rules))).split("\n")[0]
            if note and event.type is EventType.SPEECH and not (event.seat == seat and text == words):
                # the notes keep a speech's claim only, but the words of the seat's own latest speeches
                assert event.roles and text.startswith(f"[#{number}] "), f"seat {seat}: note #{number}: {text!r}"
            elif event.type is not EventType.VOTE_CAST:  # a fold's words depend on its run; the rest are exact
                assert text == words, f"seat {seat}: line #{number} is not its event #{number}: {text!r}"
            expected, previous, notes = number + 1, event, note
            checked += 1
        intro = str(messages[1]["content"]) if len(messages) > 1 else ""
        roles_named = intro.count(_ROLE_LINE[lang])
        assert roles_named <= 1, f"seat {seat}: more than one role line"
        if not game.is_black(seat):
            assert _MATES[lang] not in intro, f"seat {seat} (red) was told of black teammates"
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
        first = transcript.call_positions[next(i for i, c in enumerate(transcript.calls) if c.seat == seat)]
        at = events_after_inputs(transcript, seat)[1][first] - 1  # `--at` takes the seat's own numbering
        printed = runner.invoke(app, ["prompt", str(path), "--seat", str(seat), "--at", str(at), "--json"])
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
    with pytest.raises(AssertionError, match="is not its event"):
        _check_seat(game, 3, [leaky], "en")
