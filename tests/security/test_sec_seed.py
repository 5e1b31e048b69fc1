"""Issue 30, security round 3 (high): the seed gave away every role. A table's seed was drawn from 1,000,000 values
and the deal and the bots' choices are functions of it, so a seat that tried every seed against its own card and
the bots' day-1 speeches found the live table's seed (118 s for a civilian, 10 s for a mafioso). Now every seed the
arena draws itself (`arena play` without --seed, a web table, a tournament file without `seed`) has 128 random
bits, and every draw uses the whole seed, so nothing a seat sees narrows it to a number anyone can try.

The attack is played here at small scale: a civilian's search of the old space finds the seed of a table drawn the
old way, and the same search cannot even be posed for today's tables (the space is 2**128)."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path

from seckit import cli

from arena.agents import BUILTIN
from arena.engine import Game, load_rules, view
from arena.engine.events import Phase
from arena.engine.roles import Role
from arena.players.bots import HeuristicBot, decision_rng
from arena.seeds import SEED_BITS, draw_seed
from arena.transcript import load
from arena.web.server import ServeConfig, Server

LARGE = 2**100  # a seed below this from a 128-bit draw: a chance of 2**-28 per draw


def _deal(seed: int) -> tuple[Role, ...]:
    return tuple(Game(load_rules("fiim"), seed).roles[1:])


async def _seen(seed: int, seat: int) -> list[tuple[object, ...]]:
    """What `seat` sees of a game of ten heuristic bots dealt by `seed`, up to the end of day 1."""
    rules = load_rules("fiim")
    game = Game(rules, seed)
    bots = {s: HeuristicBot(s, seed, rules) for s in range(1, rules.players + 1)}
    while not game.over and not (game.day == 1 and game.phase is Phase.NIGHT):
        for request in game.pending():
            answer = await bots[request.seat].decide(view(game, request.seat), request)
            game.submit(request.seat, answer.decision)
    return [(e.type, e.seat, e.target, e.text, e.value, e.seats) for e in view(game, seat).events]


def test_a_searchable_seed_gives_the_deal_away_to_a_civilian() -> None:
    """The attack, at small scale: a civilian who knows the space the seed came from keeps the seeds that deal it its
    own card, replays day 1 with the bots for each, and the one that makes them say and do what it saw is the seed:
    every card follows. (200 seeds here; the old draw had a million, a two-minute search.)"""
    space = range(200)
    secret = random.Random(30).choice(space)
    deal = _deal(secret)
    seat = next(s for s, r in enumerate(deal, 1) if r is Role.CIVILIAN)
    heard = asyncio.run(_seen(secret, seat))
    fits = [s for s in space if _deal(s)[seat - 1] is Role.CIVILIAN]
    found = [s for s in fits if asyncio.run(_seen(s, seat)) == heard]
    assert found == [secret] and _deal(found[0]) == deal


def test_the_arena_draws_seeds_from_a_space_no_one_can_search(tmp_path: Path) -> None:
    assert SEED_BITS >= 128
    drawn = [draw_seed() for _ in range(64)]
    assert len(set(drawn)) == 64 and all(0 <= s < 2**SEED_BITS for s in drawn)
    assert sum(s >= LARGE for s in drawn) == 64, "a 128-bit seed below 2**100 has a chance of 2**-28 per draw"
    # `arena play` without --seed
    code, out, err = cli("play", "--quiet", "--out", str(tmp_path))
    assert code == 0, err
    header = load(out.strip().splitlines()[-1].removeprefix("transcript: ")).header
    assert header.seed >= LARGE
    # a table of `arena serve` without a seed (the create page's empty seed, or --seat without --seed)
    bots = dict.fromkeys(range(1, 11), BUILTIN["bot:random"])

    async def table_seed() -> int:
        server = Server(ServeConfig(out_dir=tmp_path / "web", bot_delay=0.0, human_timeout=None))
        table = server.add(*server.build(load_rules("fiim"), bots))
        assert table.task is not None
        await table.task
        return table.game.seed

    assert asyncio.run(table_seed()) >= LARGE


def test_every_draw_uses_the_whole_seed() -> None:
    """No part of a seed can be searched apart from the rest: seeds that share their low 64 bits deal differently
    (as often as two unrelated seeds do) and key different bot generators."""
    rng = random.Random(5)
    pairs = [(low, low + (rng.getrandbits(64) << 64)) for low in (rng.getrandbits(64) for _ in range(300))]
    same_deal = sum(_deal(a) == _deal(b) for a, b in pairs)
    assert same_deal <= 3, same_deal  # fiim has 2,520 deals: about 0.1 of 300 pairs share one by chance
    obs = type("Obs", (), {"next_number": 4})()
    request = type("Req", (), {"kind": "speech", "speech": "regular", "subject": "", "candidate": 0, "options": ()})()
    draws = [
        (decision_rng("heuristic", a, 3, obs, request, None).random(),  # type: ignore[arg-type]
         decision_rng("heuristic", b, 3, obs, request, None).random())  # type: ignore[arg-type]
        for a, b in pairs
    ]  # fmt: skip
    assert all(x != y for x, y in draws)


def test_a_tournament_without_a_seed_draws_one_and_keeps_it(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text(
        'name = "seeds"\ngames = 2\n[[pool]]\nlabel = "a"\nagent = "bot:random"\n', encoding="utf-8"
    )
    out = tmp_path / "out"
    code, _, err = cli("tournament", str(tmp_path / "t.toml"), "--out", str(out), "--no-progress", "--processes", "0")
    assert code == 0, err
    manifest = json.loads((out / "tournament.json").read_text(encoding="utf-8"))
    seed = manifest["seed"]
    assert seed >= LARGE
    assert load(out / "game-0002.jsonl").header.seed == seed + 1
    # a second run on the same folder is the same tournament: it finds every game played, with the same seed
    code, _, err = cli("tournament", str(tmp_path / "t.toml"), "--out", str(out), "--no-progress", "--processes", "0")
    assert code == 0, err
    assert json.loads((out / "tournament.json").read_text(encoding="utf-8"))["seed"] == seed


def test_an_explicit_seed_still_reproduces_the_game_byte_for_byte(tmp_path: Path) -> None:
    texts = []
    for run in ("a", "b"):
        code, out, err = cli("play", "--quiet", "--seed", "7", "--out", str(tmp_path / run))
        assert code == 0, err
        path = Path(out.strip().splitlines()[-1].removeprefix("transcript: "))
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        # the chain's hashes start from the header, which holds the game id and the time: the rest is the game
        texts.append([{**line, "hash": None} for line in lines if line["kind"] in ("event", "input")])
        assert lines[0]["seed"] == 7
    assert texts[0] == texts[1]


def test_a_person_at_the_terminal_is_not_shown_the_seed(tmp_path: Path) -> None:
    """`arena play` printed `fiim · seed N` at the start: a person at that terminal read the deal from it."""
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "play", "--seat", "1=human", "--allow-piped-human", "--out", str(tmp_path)],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # the closed input stops the game, saved
    (path,) = tmp_path.iterdir()
    seed = load(path).header.seed
    assert "fiim · seed at the end" in done.stdout
    assert str(seed) not in done.stdout + done.stderr
