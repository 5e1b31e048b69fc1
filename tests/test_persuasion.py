"""`arena persuasion`: the causal effect of a speech, by re-asking its listeners with the speech replaced.

On scripted games (arena/research/planted.py: a speaker whose sheriff claims the heuristic bots follow, and one who
only says it suspects the same seat) the planted persuasive speaker ranks first, with an interval above zero. On the
stand-in, the command's estimate of its model calls is within 10 % of the calls it makes, `--dry-run` makes none,
`--budget` stops it, and its records are written."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.engine import EventType, Game
from arena.llm.injection import quote
from arena.players.factory import build_player
from arena.research.persuasion import (
    COUNTERFACTUAL,
    BotAsker,
    Item,
    Outcome,
    Session,
    arm_inputs,
    load_items,
    neutral_text,
    ranking,
    run,
    sample,
    seat_number,
    substituted,
    summarise,
)
from arena.research.planted import config_name, play

ROOT = Path(__file__).resolve().parent.parent
ARENA = [sys.executable, "-m", "arena.cli"]


def _bots(item: Item, seat: int) -> BotAsker:
    t = item.game.transcript
    spec = next(e.agent for e in t.header.seats if e.seat == seat)
    return BotAsker(lambda s: build_player(spec, s, seed=t.header.seed, rules=t.rules, lang=t.header.lang))


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Item], Outcome]:
    folder = tmp_path_factory.mktemp("persuader")
    play("persuader", 24, folder)
    items = sample(load_items(folder), 120, seed=0)
    return items, asyncio.run(run(items, _bots))


def test_the_planted_persuasive_speaker_ranks_first_with_an_interval_above_zero(
    scripted: tuple[list[Item], Outcome],
) -> None:
    _, outcome = scripted
    rows = summarise(outcome.effects)
    persuasive, neutral = config_name("persuader", 1.0), config_name("persuader", 0.0)
    for effect in ("p_accused", "vote_accused"):
        ranked = ranking(rows, effect)
        first = ranked[0]
        assert first.config == persuasive, [(r.config, r.interval.value) for r in ranked]
        assert first.interval.low > 0, first.interval
        mild = next(r for r in ranked if r.config == neutral)
        assert abs(mild.interval.value) < 0.02  # the bots do not act on "I suspect seat N a little"
    assert not outcome.unanswered and outcome.calls == 0 and outcome.bot_asks > 0


def test_the_counterfactual_changes_the_speech_and_nothing_before_the_decision(
    scripted: tuple[list[Item], Outcome],
) -> None:
    items, _ = scripted
    item = next(i for i in items if i.event.roles)  # a claim, removed with the words
    t = item.game.transcript
    factual, counterfactual = (Game(t.rules, t.header.seed, roles=t.header.roles) for _ in range(2))
    upto = max(target.index for target in item.targets)
    factual.replay(t.inputs[:upto])
    counterfactual.replay(arm_inputs(item, COUNTERFACTUAL)[:upto])
    changed = [(a.seq, a.type) for a, b in zip(factual.events, counterfactual.events, strict=True) if a != b]
    assert [seq for seq, _ in changed] == [item.event.seq]
    speech = counterfactual.events[item.event.seq]
    assert speech.type is EventType.SPEECH and not speech.roles and speech.text == item.neutral.text
    assert len(speech.text.split()) == len((item.event.text or "").split())


def test_neutral_text_has_the_speechs_length_and_names_no_seat() -> None:
    for text in ("I am the sheriff. My checks: seat 4 black. Vote with me against seat 4.", "Да", "", "x " * 80):
        for lang in ("en", "ru"):
            neutral = neutral_text(text, lang)
            assert len(neutral.split()) == len(text.split()) and not re.search(r"\d", neutral)
    speech = "I am the sheriff. My checks: seat 4 black. Vote with me against seat 4."
    assert len(neutral_text(speech, "en")) <= len(speech) and len(neutral_text(speech, "ru")) <= len(speech)
    assert len(neutral_text("a b c d e f g h", "en", max_chars=10)) <= 10  # within the speech's character limit


def test_a_history_shows_the_neutral_speech_where_it_showed_the_real_one() -> None:
    old, new = 'I am the sheriff. Seat 4 is "black".', "I have listened to everyone"
    line = f"[#12] Seat 3: {quote(old)} [claims: sheriff; checks: 4 black]\n[#13] Seat 4: {quote('hi')}"
    messages = [{"role": "user", "content": line}, {"role": "assistant", "content": quote(old)}]
    rewritten, count = substituted(messages, old, new, 12)
    assert count == 1
    assert rewritten[0]["content"] == f"[#12] Seat 3: {quote(new)}\n[#13] Seat 4: {quote('hi')}"
    assert rewritten[1] == messages[1]  # the seat's own words stay its own
    again = [{"role": "user", "content": f"[#40] Seat 3: {quote(old)}"}]
    assert substituted(again, old, new, 12) == (again, 0)  # the same words in another speech stay


# ----- the stand-in -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stand_in_games(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, object]:
    import arena
    from arena.standin import FakeServer

    root = tmp_path_factory.mktemp("stand-in")
    agents = root / "agents"
    agents.mkdir()
    server = FakeServer()
    server.__enter__()
    (agents / "fake.toml").write_text(
        f'kind = "llm"\nmodel = "m"\nbase_url = "{server.base_url}"\nprice_input_per_m = 1.0\n'
        'price_cached_per_m = 0.5\nprice_output_per_m = 2.0\n'
    )
    for seed in (1, 2):
        arena.play(dict.fromkeys(range(1, 6), "fake"), seed=seed, out=root / "games", agents_dir=agents,
                   rule=["probes.daily=true"])  # fmt: skip
    yield root / "games", agents, server
    server.__exit__(None, None, None)


def _persuasion(games: Path, agents: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, "persuasion", str(games), "--sample", "8", "--agents-dir", str(agents), *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)  # fmt: skip


def test_on_the_stand_in_the_estimate_is_within_10_percent_of_the_calls_made(
    stand_in_games: tuple[Path, Path, object],
) -> None:
    games, agents, server = stand_in_games
    before = server.stats.requests  # type: ignore[attr-defined]
    dry = _persuasion(games, agents, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert server.stats.requests == before  # type: ignore[attr-defined]  # a dry run calls nobody
    estimated = int(re.search(r"model calls: (\d+)", dry.stdout).group(1))  # type: ignore[union-attr]
    done = _persuasion(games, agents, "--out", str(games.parent / "records"))
    assert done.returncode == 0, done.stderr
    made = server.stats.requests - before  # type: ignore[attr-defined]
    print(f"\nstand-in: {estimated} calls estimated, {made} made ({(made - estimated) / estimated:+.1%})")
    assert estimated > 20 and abs(made - estimated) <= 0.1 * estimated
    assert f"Model calls made: {made} (estimated {estimated}" in done.stdout
    lines = [json.loads(x) for x in (games.parent / "records" / "persuasion.jsonl").read_text().splitlines()]
    assert {x["arm"] for x in lines} == {"factual", "counterfactual"}
    assert sum(x["calls"] for x in lines) == made
    assert (games.parent / "records" / "persuasion.md").read_text().startswith("# Persuasion")


def test_the_budget_stops_the_run(stand_in_games: tuple[Path, Path, object]) -> None:
    games, agents, server = stand_in_games
    before = server.stats.requests  # type: ignore[attr-defined]
    done = _persuasion(games, agents, "--budget", "0.02", "--out", str(games.parent / "budget"))
    assert done.returncode == 0, done.stderr
    cost = float(re.search(r"cost \$([\d.]+)", done.stdout.split("Model calls made")[1]).group(1))  # type: ignore[union-attr]
    assert 0 < cost <= 0.02
    assert "(budget)" in done.stdout
    assert 0 < server.stats.requests - before < 60  # type: ignore[attr-defined]


def test_a_model_listeners_history_is_rewritten(stand_in_games: tuple[Path, Path, object]) -> None:
    from arena.research.reask import Budget, ModelAsker
    from arena.trust import resume_seats

    games, agents, _ = stand_in_games
    items = load_items(games)
    checked = 0
    for item in items:
        t = item.game.transcript
        for target in item.targets:
            calls_between = [c for c, pos in zip(t.calls, t.call_positions, strict=True)
                             if c.seat == target.listener and item.index < pos < target.index]  # fmt: skip
            if not calls_between or not item.event.text:
                continue
            local = resume_seats({target.listener: t.header.seats[target.listener - 1].agent}, agents)
            asker = ModelAsker(local, Budget(None), {})
            history = asker.history(Session(item, COUNTERFACTUAL, target.index), target.listener, target.index)
            assert history is not None
            shown = " ".join(str(m.get("content")) for c in history[0] for m in c.messages if m.get("role") == "user")
            line = re.search(r"\[#" + str(seat_number(item, target.listener)) + r"\] [^\n]*", shown)
            assert line is not None and quote(item.neutral.text) in line.group(0), line
            assert quote(item.event.text) not in line.group(0)
            checked += 1
    assert checked > 0
