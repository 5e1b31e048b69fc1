"""The engine's behaviour as one digest per preset: every event, every seat's view, every request and every decision
of many seeded random games, with the judge's fouls and removals, re-asks and defaults among them.

Why this exists: a change meant to keep the engine's behaviour (a refactoring, a speed-up, undoing one) must leave
every one of those byte for byte as it was; the goldens cover one game per preset, this covers hundreds. Compare a
tree with an older one in the same run:

    .venv/bin/python bench/engine_fingerprint.py --games 300                    # this tree's digests
    .venv/bin/python bench/engine_fingerprint.py --games 300 --baseline main    # and main's, beside them

`--baseline REF` checks REF out into a temporary git worktree and plays the same games on its engine with this
script (only the engine's public API is used, so an older engine runs it too). It exits 1 if any digest differs.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import random
import re
import subprocess
import sys
from typing import Any

from baseline import worktree  # the bench directory is not a package

from arena.engine import PRESETS, Decision, Game, IllegalDecision, RuleSet, load_rules, view
from arena.players.random_policy import random_decision

P_DEFAULT, P_REJECT, P_FOUL, P_REMOVE = 0.03, 0.02, 0.02, 0.002  # per answer, as in tests/test_conformance.py


# Engines before the end was data (transcript version 3) ended a game with a sentence in `game_ended`'s `text`; the
# fingerprint hashes the outcome as data (`code`, and the removed seat or the idle nights), so an engine of either
# kind gives the same digest for the same games (the same reading as arena/transcript/reader.py's).
_SENTENCES = {"day vote": ("day_vote", None, None), "night kill": ("night_kill", None, None)}
_REMOVED = re.compile(r"seat (\d+) removed")
_IDLE = re.compile(r"(\d+) nights and the days between passed with nobody leaving")


def _event(event: Any) -> str:
    """An event as JSON, its game end as data whatever the engine's version."""
    data = event.model_dump(mode="json")
    if data.get("code", "") is None:
        del data["code"]  # an event with no code: as an engine without the field wrote it
    if data["type"] == "game_ended" and data.get("text"):
        text = data["text"]
        removed, idle = _REMOVED.fullmatch(text), _IDLE.fullmatch(text)
        code, seat, count = (
            ("removal", int(removed[1]), None) if removed else ("idle_rounds", None, int(idle[1])) if idle
            else _SENTENCES.get(text, (text, None, None))
        )  # fmt: skip
        data.update(target=seat, count=count, text=None, code=code)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _observation(game: Game, seat: int, since: int) -> tuple[str, int]:
    """A seat's view as text (every field of the observation, whatever the engine's version calls them), and where
    its next view starts."""
    obs = view(game, seat, since=since)
    fields = {}
    for field in dataclasses.fields(obs):
        value = getattr(obs, field.name)
        if field.name == "events":
            value = [_event(e) for e in value]
        elif field.name == "request":
            value = value.model_dump_json() if value is not None else None
        fields[field.name] = value
    upto = fields.get("next_number", fields.get("next_seq"))
    assert isinstance(upto, int)  # every tree's Observation has one of the two
    return json.dumps(fields, default=str), upto


def play(rules: RuleSet, seed: int, digest: hashlib._Hash) -> int:
    """One random game with judge actions; every view, request, decision and event goes into `digest`. Returns the
    number of decisions."""
    game = Game(rules, seed)
    rng, judge = random.Random(seed), random.Random(seed + 1_000_003)
    seen = [0] * (game.n + 1)
    decisions = 0
    while not game.over:
        for request in game.pending():
            if game.over or game.request_for(request.seat) is not request:
                continue  # a judge's removal ended the game or withdrew this request
            seat = request.seat
            text, seen[seat] = _observation(game, seat, seen[seat])
            digest.update(text.encode())
            x = judge.random()
            if x < P_FOUL + P_REMOVE:
                living = game.living()
                target = living[judge.randrange(len(living))]
                (game.foul if x < P_FOUL else game.remove)(target, "fingerprint judge")
                digest.update(f"judge {x < P_FOUL} {target}".encode())
                continue  # the batch may have changed: read it again
            decision = random_decision(rng, request)
            y = rng.random()
            if y < P_DEFAULT:
                decision = game.apply_default(seat, "fingerprint default")
            else:
                if y < P_DEFAULT + P_REJECT:
                    game.reject(seat, "fingerprint re-ask")
                try:
                    game.submit(seat, decision)
                except IllegalDecision as exc:  # a random decision is always legal: a change shows here
                    decision = Decision(text=f"refused {exc.code}")
            digest.update(decision.model_dump_json().encode())
            decisions += 1
    for event in game.events:
        digest.update(_event(event).encode())
    return decisions


def digests(presets: list[str], games: int, seed: int) -> dict[str, str]:
    out: dict[str, str] = {}
    for preset in presets:
        digest = hashlib.sha256()
        decisions = sum(play(load_rules(preset), s, digest) for s in range(seed, seed + games))
        out[preset] = f"{digest.hexdigest()[:16]} ({decisions:,} decisions)"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=300, help="games per preset (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=PRESETS, metavar="PRESET")
    parser.add_argument("--baseline", metavar="REF", help="also fingerprint the engine at this git ref, and compare")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one tree's digests, for --baseline
    args = parser.parse_args(argv)
    if args.json:
        print(json.dumps(digests(args.presets, args.games, args.seed)))
        return 0
    print(f"engine fingerprint: {args.games} games per preset from seed {args.seed}, judge fouls and removals on")
    ours = digests(args.presets, args.games, args.seed)
    theirs: dict[str, str] = {}
    if args.baseline:
        with worktree(args.baseline) as tree:
            command = [sys.executable, __file__, "--json", "--games", str(args.games), "--seed", str(args.seed)]
            env = {**os.environ, "PYTHONPATH": str(tree)}
            done = subprocess.run([*command, "--presets", *args.presets], env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"error: the baseline run failed: {done.stderr.strip()[-2000:]}")
            theirs = json.loads(done.stdout.strip().splitlines()[-1])
    width = max(len(p) for p in args.presets)
    for preset in args.presets:
        line = f"{preset:<{width}}  this tree {ours[preset]}"
        if theirs:
            same = "same" if theirs[preset] == ours[preset] else "DIFFERENT"
            line += f"   {args.baseline} {theirs[preset]}   {same}"
        print(line)
    return 1 if theirs and theirs != ours else 0


if __name__ == "__main__":
    raise SystemExit(main())
