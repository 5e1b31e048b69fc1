"""The seat-isolation test (#16 item 1): no seat-facing output counts an event hidden from the seat.

The attack: the global event numbers (`[#seq]`, `next_seq`, an export's `seq`) had gaps, and a night's gap was the
living shooters, plus the mafia's result, plus the don's check if the don lived, plus the sheriff's check if the
sheriff lived: a civilian read off which departed seat was the don or the sheriff. A page also got a push at other
seats' night actions (its only change was `next_seq`).

The test: two games are replayed from the same inputs, except that in the second the don and the sheriff pass
every night instead of checking (a pass leaves no event). For every other seat the two games hold the same events
in the same order; only the count of hidden events differs. So each of that seat's outputs must be byte-identical
in both: its web state after every event and the pushes its page gets, its LLM prompts in both schema styles (also
a compacted one, whose notes come from `summary.j2`), the terminal human seat's screen, the turns a remote seat's
program is sent (docs/remote.md; also over real HTTP, at the end of this file), its story (`arena export --seat`
JSON, `arena show --seat` text) built in-process and through the CLI from written transcripts. Any global
number, any push at a hidden event, any count of the game's events differs between the two. (The end's reveal, every
role and night action for every page once the game is over, is left out of the comparison.) A second check reads
the numbers themselves: every `seq` a seat is shown is its own event of that number, and `next_seq` is its count.
"""

from __future__ import annotations

import io
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from remotekit import remote_game
from rich.console import Console
from typer.testing import CliRunner
from virtual_time import VirtualClock

from arena.agents import BUILTIN
from arena.cli import app
from arena.engine import (
    PRESETS,
    Decision,
    Event,
    EventType,
    Game,
    IllegalDecision,
    Input,
    Kind,
    Role,
    load_rules,
    seat_log,
    view,
)
from arena.llm.conversation import Conversation
from arena.llm.modes import Mode
from arena.orchestrator import run_game
from arena.players.base import Answer, Player
from arena.players.bots import RandomBot
from arena.players.human import HumanPlayer
from arena.players.random_policy import random_decision
from arena.prompts import load_prompt_set
from arena.remote.protocol import over_body, turn_body
from arena.render.html import story_json
from arena.render.story import build_story
from arena.transcript import TranscriptWriter, make_header
from arena.web.routes.channel import state_key
from arena.web.table import Table

CHECKS = (Kind.DON_CHECK, Kind.SHERIFF)
STYLES = ((Mode.JSON_SCHEMA, "per_request"), (Mode.PROMPT, "stable"))
_VIEW = re.compile(r'<script type="application/json" class="view" data-viewer="\d+">(.*?)</script>', re.S)
runner = CliRunner()


def checking_game(preset: str, seed: int) -> Game:
    """A random game in which the don and the sheriff check a living seat every night they may."""
    rules = load_rules(preset)
    game = Game(rules, seed)
    rng = random.Random(seed)
    step = 0
    while not game.over:
        step += 1
        request = game.pending()[0]
        decision = random_decision(rng, request)
        if request.kind in CHECKS and request.options:
            decision = Decision(target=rng.choice(request.options), action="check" if request.actions else None)
        decision = decision.model_copy(update={"reasoning": f"reasoning of #{request.seat} at {step}"})
        try:
            game.submit(request.seat, decision)
        except IllegalDecision as exc:
            game.apply_default(request.seat, exc.reason)
    return game


def passing(inputs: list[Input], game: Game) -> list[Input]:
    """The same inputs, but the don's and the sheriff's checks are passes (no target: no event)."""
    checkers = {game.seat_of(Role.DON), game.seat_of(Role.SHERIFF)}
    fresh = Game(game.rules, game.seed)
    out = []
    for item in inputs:
        request = fresh.request_for(item.seat)
        if item.seat in checkers and request is not None and request.kind in CHECKS and item.decision is not None:
            item = item.model_copy(update={"decision": Decision(reasoning=item.decision.reasoning)})
        out.append(item)
        fresh.replay([item])
    return out


@dataclass
class SeatOutputs:
    """Everything one seat was shown while a game was replayed."""

    # the web state after each input that showed the seat an event, and the states its page was pushed
    # (channel.push's rule); both without the end's reveal, which is every seat's once the game is over
    states: list[str] = field(default_factory=list)
    pushes: list[str] = field(default_factory=list)
    hidden_pushes: list[int] = field(default_factory=list)  # inputs (their first event) that showed it nothing, yet
    # changed its state
    prompts: dict[str, list[list[dict[str, Any]]]] = field(default_factory=dict)  # per schema style, per decision
    terminal: str = ""
    remote: list[str] = field(default_factory=list)  # each turn a remote seat's program is sent, then the end's
    story: str = ""
    show: str = ""
    export: str = ""


def replay(
    game: Game, inputs: list[Input], seats: list[int], path: Path
) -> tuple[Game, dict[int, SeatOutputs], list[dict[str, Any]]]:
    """Replay `inputs` into a fresh game, collecting every seat-facing output of `seats`; the transcript goes to
    `path`. Also returns each web state of each seat, for the direct checks."""
    rules = game.rules
    fresh = Game(rules, game.seed)
    specs = {s: BUILTIN["bot:random"] for s in fresh.seats()}
    header = make_header(rules, game.seed, specs, game_id="isolation", started_at="2026-01-01T00:00:00Z", version="t")
    writer = TranscriptWriter.create(path, header)
    table = Table(game=fresh, seats=specs, lang="en")
    out = {s: SeatOutputs() for s in seats}
    keys = {s: "" for s in seats}
    convs = {
        s: {
            style: Conversation(load_prompt_set("default", "en"), rules, s, mode, None, style) for mode, style in STYLES
        }
        for s in seats
    }
    screens = {s: io.StringIO() for s in seats}
    humans = {s: HumanPlayer(s, console=Console(file=screens[s], width=200), rules=rules) for s in seats}
    since = dict.fromkeys(seats, 0)
    states: list[dict[str, Any]] = []
    last_turn: dict[int, tuple[Any, Any]] = {}
    shown = 0
    for item in inputs:
        request = fresh.request_for(item.seat)
        if item.seat in out and item.op == "decide" and request is not None:
            seat = item.seat
            obs = view(fresh, seat, since[seat])
            since[seat] = obs.next_number
            humans[seat].show(obs)
            body = turn_body(obs, request, turn=len(out[seat].remote) + 1, attempt=1, problem=None, deadline_s=60.0)
            out[seat].remote.append(json.dumps(body, sort_keys=True))
            for style, conv in convs[seat].items():
                turn = conv.turn(obs, request)
                out[seat].prompts.setdefault(style, []).append(conv.request_messages(turn))
                conv.commit(turn, Conversation.answer_messages(json.dumps(item.decision.model_dump(mode="json"))))
                last_turn[seat] = (turn, obs)
        fresh.replay([item])
        writer.input(item)
        writer.sync_events(fresh)
        new = fresh.events[shown:]
        for event in new:
            table.on_event(event)  # the orchestrator calls it for each event once the input is applied
        for seat in seats:
            state = table.state(seat)
            states.append(state)
            key = state_key(state)
            seen = any(e.visible_to(seat) for e in new)
            # the end's reveal (every role and night action) is the moderator's, shown once the game is over
            assert state.get("end") is None or fresh.over
            during = json.dumps({k: v for k, v in state.items() if k != "end"}, sort_keys=True)
            if key != keys[seat]:  # channel.push sends exactly then
                keys[seat] = key
                out[seat].pushes.append(during)
                if not seen:
                    out[seat].hidden_pushes.append(new[0].seq if new else -1)
            if seen:
                out[seat].states.append(during)
        shown = len(fresh.events)
    writer.end(fresh, {}, timing=False)
    writer.close()
    for seat in seats:
        for style, conv in convs[seat].items():  # a compaction at the seat's last turn: its notes are summary.j2
            turn, obs = last_turn[seat]
            conv.cursor = 0
            compacted = conv.fit(conv.turn(obs, fresh.request_for(seat)), obs, 64, force=True)
            out[seat].prompts[style].append(conv.request_messages(compacted))
        out[seat].terminal = screens[seat].getvalue()
        out[seat].remote.append(json.dumps(over_body(view(fresh, seat, since[seat])), sort_keys=True))
        story = build_story(fresh, seat, (), fresh.inputs)
        out[seat].story = json.dumps(story_json(story), sort_keys=True)
        shown_cli = runner.invoke(app, ["show", str(path), "--seat", str(seat), "--reasoning"], env={"COLUMNS": "200"})
        assert shown_cli.exit_code == 0, shown_cli.output
        out[seat].show = shown_cli.stdout
        page = path.with_suffix(f".{seat}.html")
        exported = runner.invoke(app, ["export", str(path), "--html", str(page), "--seat", str(seat)])
        assert exported.exit_code == 0, exported.output
        out[seat].export = "\n".join(_VIEW.findall(page.read_text(encoding="utf-8")))
    return fresh, out, states


def _check_numbers(game: Game, seat: int, state: dict[str, Any], story: dict[str, Any]) -> None:
    """Every number a seat is shown is its own: a state's log line n is its event n, `next_seq` its count."""
    mine = seat_log(game, seat)
    assert state["next_seq"] == len(mine), f"seat {seat}: next_seq {state['next_seq']}, it saw {len(mine)} events"
    for line in state["log"]:
        assert line["seq"] < len(mine) and mine[line["seq"]].day == line["day"], f"seat {seat}: {line}"
    for chapter in story["chapters"]:
        for item in chapter["items"]:
            assert 0 <= item["seq"] <= len(mine), f"seat {seat}: story item {item}"
            if item["t"] == "line":
                assert mine[item["seq"]].type.value == item["event"], f"seat {seat}: {item} is not its event"
            elif item["t"] == "vote":
                assert mine[item["seq"]].type is EventType.VOTING_STARTED, f"seat {seat}: {item}"


def _hidden_counts(a: Game, b: Game, seat: int) -> tuple[int, int]:
    def hidden(g: Game) -> int:
        return sum(not e.visible_to(seat) for e in g.events)

    return hidden(a), hidden(b)


@pytest.mark.parametrize("preset", PRESETS)
def test_no_seat_output_counts_hidden_events(preset: str, tmp_path: Path) -> None:
    game = checking_game(preset, seed=11)
    checks = [e for e in game.events if e.type in (EventType.DON_CHECK, EventType.SHERIFF_CHECK)]
    assert checks, "the game must hold checks for the test to mean anything"
    checkers = {game.seat_of(Role.DON), game.seat_of(Role.SHERIFF)}
    others = [s for s in game.seats() if s not in checkers][:3]
    a, out_a, states = replay(game, list(game.inputs), others, tmp_path / "a.jsonl")
    b, out_b, _ = replay(game, passing(list(game.inputs), game), others, tmp_path / "b.jsonl")
    assert not [e for e in b.events if e.type in (EventType.DON_CHECK, EventType.SHERIFF_CHECK)]
    problems: list[str] = []
    for seat in others:
        same = [[e.model_copy(update={"seq": 0}) for e in seat_log(g, seat)] for g in (a, b)]
        assert same[0] == same[1], "the seat's events must agree (but for their moderator's numbers)"
        more, fewer = _hidden_counts(a, b, seat)
        assert more > fewer, "the games must differ in what is hidden from the seat"
        oa, ob = out_a[seat], out_b[seat]
        if oa.hidden_pushes:
            problems.append(f"seat {seat}: a push at inputs that showed it nothing (events {oa.hidden_pushes[:5]})")
        outputs = {"web state": "states", "pushes": "pushes", "terminal screen": "terminal", "story": "story"}
        outputs |= {"`arena export --seat`": "export", "`arena show --seat`": "show", "remote turns": "remote"}
        for name, attr in outputs.items():
            if getattr(oa, attr) != getattr(ob, attr):
                problems.append(f"seat {seat}: its {name} counts hidden events")
        for style in oa.prompts:
            if oa.prompts[style] != ob.prompts[style]:
                problems.append(f"seat {seat}: its {style} prompts count hidden events")
    assert not problems, "\n".join(problems)
    for seat in others:
        _check_numbers(a, seat, json.loads(out_a[seat].states[-1]), json.loads(out_a[seat].story))
    assert len(states) > 100


def test_the_comparison_sees_a_global_number() -> None:
    """The test is not vacuous: a state numbered with the moderator's numbers differs between the two games."""
    game = checking_game("fiim", seed=11)
    seat = next(s for s in game.seats() if s not in {game.seat_of(Role.DON), game.seat_of(Role.SHERIFF)})
    b = Game(game.rules, game.seed)
    b.replay(passing(list(game.inputs), game))
    ours = [[e.model_copy(update={"seq": n}) for n, e in enumerate(seat_log(g, seat))] for g in (game, b)]
    assert ours[0] == ours[1]
    moderators: list[list[Event]] = [list(seat_log(g, seat)) for g in (game, b)]
    assert [e.seq for e in moderators[0]] != [e.seq for e in moderators[1]]


# ----- push timing: how long a night lasts in `arena serve` --------------------------------------------------------
async def _paced_nights(preset: str, seed: int) -> tuple[list[float], list[int]]:
    """Each night's length on the table's clock (from its start to the next day's), and how many decisions it took."""
    rules = load_rules(preset)
    clock = VirtualClock()
    table = Table(game=Game(rules, seed), seats={s: BUILTIN["bot:random"] for s in range(1, rules.players + 1)},
                  lang="en", bot_delay=1.0, clock=clock, pause=clock.pause)  # fmt: skip
    starts: list[float] = []
    lengths: list[float] = []
    hook = table.on_event

    def timed(event: Event) -> None:
        hook(event)
        if event.type is EventType.PHASE_STARTED:
            if event.phase.value == "night":
                starts.append(clock.now)
            elif starts and len(lengths) < len(starts):
                lengths.append(clock.now - starts[-1])

    table.on_event = timed  # type: ignore[method-assign]
    await clock.run(table.start({s: RandomBot(s, seed) for s in table.game.seats()}))
    night_inputs: dict[int, int] = {}
    fresh = Game(rules, seed)
    for item in table.game.inputs:
        if fresh.phase.value == "night":
            night_inputs[fresh.day] = night_inputs.get(fresh.day, 0) + 1
        fresh.replay([item])
    return lengths, list(night_inputs.values())


async def test_a_night_of_bots_lasts_the_same_whoever_lives() -> None:
    """A page's pushes come when its own view changes; the morning comes when the night ends. With a pause per bot
    decision, a night whose don or sheriff had died was shorter (fewer decisions), and the table could tell. Now
    every night of a preset lasts the same on the table's clock, whoever lives: each night wake-up takes a slot, a
    dead role's too (`arena/pacing.py`; with model seats: tests/test_night_pacing.py)."""
    lengths: dict[tuple[str, int], set[float]] = {}
    decisions: set[int] = set()
    for preset in PRESETS:
        for seed in (1, 2, 3):
            nights, counts = await _paced_nights(preset, seed)
            for night, length in enumerate(nights):
                lengths.setdefault((preset, min(night, 1)), set()).add(round(length, 6))
            decisions |= set(counts)
    assert len(decisions) > 2, "the nights must differ in how many decisions they took"
    uneven = {night: sorted(seen) for night, seen in lengths.items() if len(seen) > 1}
    assert not uneven, f"nights whose length on the table's clock varied: {uneven}"


def test_a_prompt_template_gets_only_the_seats_numbers() -> None:
    """A prompt set may be anyone's: what its templates receive (`events`, `obs`) carries the seat's numbers only,
    so not even `{{ obs.events[0].seq }}` is the moderator's number (a turn's and a compaction's summary alike)."""
    game = checking_game("fiim", seed=11)
    partial = Game(game.rules, game.seed)
    partial.replay(list(game.inputs)[:150])
    seat = next(s for s in partial.seats() if s not in {partial.seat_of(Role.DON), partial.seat_of(Role.SHERIFF)})
    prompts = load_prompt_set("default", "en")
    given: list[dict[str, Any]] = []

    class Recording(type(prompts)):  # type: ignore[misc]
        def render(self, template: str, **context: Any) -> str:
            given.append(context)
            return super().render(template, **context)

    recording = Recording.__new__(Recording)
    recording.__dict__.update(prompts.__dict__)
    conversation = Conversation(recording, game.rules, seat)
    obs = view(partial, seat)
    turn = conversation.turn(obs, None)
    conversation.commit(turn, Conversation.answer_messages("{}"))
    conversation.commit(conversation.turn(obs, None), Conversation.answer_messages("{}"))
    conversation.fit(conversation.turn(obs, None), obs, 64, force=True)
    mine = len(seat_log(partial, seat))
    assert mine < len(partial.events)
    numbers = [e.seq for c in given for key in ("events", "obs") if key in c for e in getattr(c[key], "events", c[key])]
    assert numbers and max(numbers) == mine - 1, (max(numbers), mine)
    assert any("obs" in c and c["obs"].events for c in given)
    for c in given:
        if "obs" in c:
            assert [e.seq for e in c["obs"].events] == list(range(c["obs"].since, c["obs"].next_number))


# ----- a remote seat over HTTP: the bytes its program is sent ------------------------------------------------------
class _Scripted(Player):
    """Answers each request with the seat's next recorded decision (a default was an answer the engine refused)."""

    def __init__(self, seat: int, decisions: list[Decision]) -> None:
        self.seat = seat
        self.decisions = iter(decisions)

    async def decide(self, observation: Any, request: Any, problem: str | None = None) -> Answer:
        return Answer(decision=next(self.decisions, request.default))


def _scripts(inputs: list[Input]) -> dict[int, list[Decision]]:
    refused = Decision(target=999, targets=(999,), action="nothing")  # refused by every request that reads it
    out: dict[int, list[Decision]] = {}
    for item in inputs:
        if item.op == "decide" and item.decision is not None:
            out.setdefault(item.seat, []).append(item.decision)
        elif item.op == "default":
            out.setdefault(item.seat, []).append(refused)
    return out


async def _remote_bytes(game: Game, inputs: list[Input], seat: int) -> tuple[Game, list[bytes]]:
    """Play the recorded decisions again through the orchestrator, `seat` played over HTTP by an agent answering
    with its own; every body the agent was sent, as bytes."""
    scripts = _scripts(inputs)
    fresh = Game(game.rules, game.seed)
    mine = iter(scripts.get(seat, []))

    def policy(turn: dict[str, Any]) -> dict[str, Any]:
        return next(mine, Decision()).model_dump(mode="json")

    async with remote_game(fresh.rules, {seat: policy}, deadline_s=60.0) as (table, remote, agents):
        players: dict[int, Player] = {s: _Scripted(s, scripts.get(s, [])) for s in fresh.seats() if s != seat}
        await run_game(fresh, players | dict(remote), None, timeout_s=None, max_reasks=0)
        table.finish(fresh)
    return fresh, agents[seat].bodies


@pytest.mark.parametrize("preset", ["fiim", "club"])
async def test_a_remote_seats_program_is_sent_the_same_bytes_whatever_is_hidden(preset: str) -> None:
    """The program at a remote seat gets turns (and the end) over real HTTP, only when asked: no push at another
    seat's action, no clock time. Two games that differ only in the don's and the sheriff's hidden checks send it
    the same bytes, but for the seconds left on each turn's deadline (which depend on when it fetched the turn)."""
    game = checking_game(preset, seed=11)
    checkers = {game.seat_of(Role.DON), game.seat_of(Role.SHERIFF)}
    turns = 0
    for seat in [s for s in game.seats() if s not in checkers][:3]:
        a, sent_a = await _remote_bytes(game, list(game.inputs), seat)
        b, sent_b = await _remote_bytes(game, passing(list(game.inputs), game), seat)
        more, fewer = _hidden_counts(a, b, seat)
        assert more > fewer, "the games must differ in what is hidden from the seat"
        bodies = [[json.loads(raw) for raw in sent] for sent in (sent_a, sent_b)]
        for body in bodies[0] + bodies[1]:
            left = body.pop("seconds_left", 0.0)
            assert left is not None and 0 <= left <= 60.0
        assert bodies[0][-1]["status"] == "over"
        turns += len(bodies[0]) - 1
        assert bodies[0] == bodies[1], f"seat {seat}: what its program is sent counts hidden events"
        numbers = [e["seq"] for body in bodies[0] for e in body["observation"]["events"]]
        assert numbers == list(range(len(seat_log(a, seat)))), "the seat's own numbers, each event once"
    assert turns > 20
