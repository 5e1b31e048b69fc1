"""Games for the review tests: random legal play with the judge's fouls and removals, re-asks, defaults, and fake
model calls and reasoning, written as real transcripts through `TranscriptWriter`.

Every private thing a seat produces is marked with its seat (`secret reasoning of #3`, `raw reply of #3`), so a
test can tell whose it is when it shows up in someone else's view.
"""

from __future__ import annotations

import random
from pathlib import Path

from arena.agents import BUILTIN
from arena.engine import Decision, Game, IllegalDecision, Input, load_rules
from arena.players.base import ModelCall
from arena.players.random_policy import random_decision
from arena.transcript import TranscriptWriter, make_header


def reasoning_of(seat: int, step: int) -> str:
    return f"secret reasoning of #{seat} step {step}"


def reply_of(seat: int, step: int) -> str:
    return f"raw reply of #{seat} step {step}"


def prompt_of(seat: int, step: int) -> str:
    return f"secret prompt of #{seat} step {step}"


def play(
    preset: str,
    seed: int,
    *,
    judge: bool = True,
    path: Path | None = None,
    llm_seats: frozenset[int] | None = None,
    max_steps: int | None = None,
    overrides: list[str] | None = None,
) -> tuple[Game, list[ModelCall]]:
    """Play one random game; with `path`, write its transcript there. `llm_seats` (default: the odd seats) make a
    fake model call for each request, sometimes a transport retry too, and give reasoning with each decision.
    With `max_steps` the game stops early and the transcript has no end record (a game still running)."""
    rules = load_rules(preset, overrides=overrides)
    game = Game(rules, seed)
    rng = random.Random(seed * 7919 + 1)
    seats = range(1, game.n + 1)
    llm = llm_seats if llm_seats is not None else frozenset(s for s in seats if s % 2)
    writer = None
    if path is not None:
        header = make_header(
            rules,
            seed,
            {s: BUILTIN["bot:random"] for s in seats},
            game_id="review",
            started_at="2025-01-01T00:00:00Z",
            version="test",
        )
        writer = TranscriptWriter.create(path, header)
    calls: list[ModelCall] = []

    def record(op: str, seat: int, decision: Decision | None = None, reason: str = "") -> None:
        """Write the input just given (the game's own list is rebuilt on every read: too slow to poll)."""
        if writer is not None:
            writer.input(Input.model_validate({"op": op, "seat": seat, "decision": decision, "reason": reason}))
            writer.sync_events(game)

    step = 0
    while not game.over and (max_steps is None or step < max_steps):
        step += 1
        living = game.living()
        roll = rng.random()
        if judge and roll < 0.012 and living:
            seat = rng.choice(living)
            game.foul(seat, "judge: a test foul")
            record("foul", seat, reason="judge: a test foul")
            continue
        if judge and roll < 0.014 and len(living) > 5:
            seat = rng.choice(living)
            game.remove(seat, "judge: a test removal")
            record("remove", seat, reason="judge: a test removal")
            continue
        request = game.pending()[0]
        seat = request.seat
        if seat in llm:
            made = [ModelCall(seat=seat, request_kind=request.kind.value, attempt=1, model="fake-model")]
            if rng.random() < 0.1:  # a transport retry: the same logical call, attempt 2
                made.append(made[0].model_copy(update={"attempt": 2}))
            made[-1] = made[-1].model_copy(
                update={
                    "messages": [{"role": "user", "content": prompt_of(seat, step)}],
                    "raw": reply_of(seat, step),
                    "prompt_tokens": 100,
                    "completion_tokens": 20,
                    "latency_ms": 850.0,
                }
            )
            calls += made
            if writer is not None:
                for call in made:
                    writer.call(call)
        if rng.random() < 0.03:
            reason = f"not a legal answer from #{seat} (test)"
            game.reject(seat, reason)
            record("reject", seat, reason=reason)
        decision = random_decision(rng, request)
        if seat in llm:
            decision = decision.model_copy(update={"reasoning": reasoning_of(seat, step)})
        if rng.random() < 0.03:
            reason = f"no answer from #{seat} in time (test)"
            game.apply_default(seat, reason)
            record("default", seat, reason=reason)
            continue
        try:
            game.submit(seat, decision)
        except IllegalDecision as exc:  # a request issued before a removal may still offer the removed seat
            game.apply_default(seat, exc.reason)
            record("default", seat, reason=exc.reason)
        else:
            record("decide", seat, decision)
    if writer is not None:
        assert writer.inputs_written == len(game.inputs), "the transcript must hold every input"
        if game.over:
            writer.end(game, {}, timing=False)
        writer.close()
    return game, calls
