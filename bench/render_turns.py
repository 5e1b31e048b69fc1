"""The CPU of a seat's turn with Jinja's per-item work done once (`arena/template_speed.py` and the built-in calls
of `_Sandbox.call`) against the same prompt set on Jinja's own filters, loop variable and calls, in one process,
alternated round by round so the host's drift falls on both alike.

Why this exists: callgrind counts instructions, and on this host instructions did not carry over to CPU time one for
one; a whole tournament wave moves by more than a render's share from one minute to the next. Rendering the turns of
the same seeded games in one process, the two ways in turn, measures the render's part alone.

    python bench/render_turns.py                 # 8 rounds of 3 games (fiim), CPU µs per turn each way
    python bench/render_turns.py --rounds 12 --games 5 --preset club

A turn here is what a model seat's call renders (`Conversation.turn`: the seat's view from its last one on, as the
orchestrator asks it, its numbering, the new log lines and the decision), plus the game's own step between turns, the
same both ways; both ways give the same text (checked before timing).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import time
from typing import Any

import jinja2.runtime
from jinja2.runtime import Macro

from arena.engine import Game, IllegalDecision, load_rules, view
from arena.llm.conversation import Conversation
from arena.players.random_policy import random_decision
from arena.prompts import ENV_OPTIONS, PromptSet, _Sandbox, load_prompt_set
from arena.sandbox import DataSandbox
from arena.template_speed import SYNC_FILTERS


class _JinjasOwn(_Sandbox):
    """The prompt sets' sandbox as it was before: Jinja's filters and loop variable, the sandbox's call for all but
    the template's own macros."""

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if type(__obj) is Macro:
            return super().call(__context, __obj, *args, **kwargs)
        return DataSandbox.call(__self, __context, __obj, *args, **kwargs)


def jinjas_own(fast: PromptSet) -> PromptSet:
    env = _JinjasOwn(loader=fast.env.loader, **ENV_OPTIONS)
    env.filters.update({name: f for name, f in fast.env.filters.items() if name not in SYNC_FILTERS})
    env.loop_class = jinja2.runtime.LoopContext
    return dataclasses.replace(fast, env=env)


def turns(prompts: PromptSet, preset: str, seed: int) -> list[str]:
    """The text of every turn of one seeded game whose seats decide at random."""
    rules = load_rules(preset)
    game, rng = Game(rules, seed), random.Random(seed)
    seats = {s: Conversation(prompts, rules, s) for s in range(1, rules.players + 1)}
    since = dict.fromkeys(seats, 0)  # each seat's view from its last one on, as the orchestrator asks it
    texts = []
    while not game.over:
        request = game.pending()[0]
        conversation = seats[request.seat]
        observation = view(game, request.seat, since[request.seat])
        since[request.seat] = observation.next_number
        turn = conversation.turn(observation, request, None)
        conversation.commit(turn, Conversation.answer_messages('{"reasoning": "x"}'))
        texts.append(str(turn.user["content"]))
        try:
            game.submit(request.seat, random_decision(rng, request))
        except IllegalDecision as exc:
            game.apply_default(request.seat, exc.reason)
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--games", type=int, default=3, help="games per way per round")
    parser.add_argument("--preset", default="fiim")
    args = parser.parse_args()
    fast = load_prompt_set("default", "en")
    ways = {"template_speed": fast, "jinja's own": jinjas_own(fast)}
    for seed in range(args.games):
        assert turns(ways["template_speed"], args.preset, seed) == turns(ways["jinja's own"], args.preset, seed)
    spent: dict[str, list[float]] = {name: [] for name in ways}
    for round_ in range(args.rounds):
        order = list(ways) if round_ % 2 == 0 else list(reversed(ways))
        for name in order:
            started, count = time.process_time(), 0
            for seed in range(args.games):
                count += len(turns(ways[name], args.preset, seed))
            spent[name].append((time.process_time() - started) / count * 1e6)
    for name, values in spent.items():
        rounds = " ".join(f"{v:.1f}" for v in values)
        print(f"{name:<15} CPU µs per turn: mean {statistics.mean(values):.1f}, median {statistics.median(values):.1f}"
              f"  ({rounds})")  # fmt: skip
    ratio = statistics.median(spent["template_speed"]) / statistics.median(spent["jinja's own"])
    print(f"template_speed / jinja's own, medians: {ratio:.3f}")


if __name__ == "__main__":
    main()
