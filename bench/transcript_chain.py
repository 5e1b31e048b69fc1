"""What the hash chain costs: writing a game's transcript with and without it, and `load` + `verify` per file.

Why this exists: every line of every transcript is now hashed (SHA-256 over the previous hash and the line's
canonical JSON), and verify also pairs every model call with its input. This prints what that costs per game and
per line, on heuristic-bot games written to memory, so a slowdown shows up as a figure, not a guess.

    .venv/bin/python bench/transcript_chain.py --games 20
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import statistics
import time

from arena.agents import BUILTIN
from arena.engine import Game, load_rules
from arena.orchestrator import run_game
from arena.players.factory import build_player
from arena.transcript import GENESIS, TranscriptWriter, chain_hash, make_header, parse, verify


def _game_text(seed: int, version: int, key: bytes | None) -> tuple[str, float]:
    rules = load_rules("fiim")
    seats = dict.fromkeys(range(1, rules.players + 1), BUILTIN["bot:heuristic"])
    header = make_header(rules, seed, seats).model_copy(update={"version": version})
    stream = io.StringIO()
    players = {s: build_player(seats[s], s, seed=seed, rules=rules, lang="en") for s in seats}
    started = time.perf_counter()
    writer = TranscriptWriter.to_stream(stream, header, sign_key=key)
    asyncio.run(run_game(Game(rules, seed), players, writer, timing=False))
    return stream.getvalue(), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    seeds = range(1, args.games + 1)
    rows = []
    for label, version, key in (("v1, no chain", 1, None), ("v2, chain", 2, None), ("v2, chain + HMAC", 2, b"k")):
        times, lines, texts = [], 0, []
        for seed in seeds:
            text, spent = _game_text(seed, version, key)
            times.append(spent)
            lines += text.count("\n")
            texts.append(text)
        started = time.perf_counter()
        for text in texts:
            assert verify(parse(text)).ok
        check = time.perf_counter() - started
        rows.append((label, statistics.median(times) * 1000, lines / len(texts), check / len(texts) * 1000))
    lines_all = [line for text in texts for line in text.splitlines()]
    started = time.perf_counter()
    previous = GENESIS
    for line in lines_all:  # exactly the writer's extra work per line: parse back, canonical JSON, SHA-256
        previous = chain_hash(previous, json.loads(line))
    per_line = (time.perf_counter() - started) / len(lines_all) * 1e6
    print(f"{args.games} fiim games of 10 heuristic bots, written to memory")
    print(f"the chain alone: {per_line:.1f} µs per line ({len(lines_all)} lines)")
    print(f"{'format':<20} {'play+write ms/game':>19} {'lines/game':>11} {'load+verify ms/game':>20}")
    for label, write_ms, per_game, check_ms in rows:
        print(f"{label:<20} {write_ms:>19.1f} {per_game:>11.0f} {check_ms:>20.1f}")


if __name__ == "__main__":
    main()
