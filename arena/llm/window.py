"""Before play: does each model seat's context window hold its first turn? (issue #31)

A conversation about to pass its budget is compacted (`compaction.py`), but never below the system prompt, the role
prompt, the seat's notes and the decision, plus the answer's `max_tokens`. A window smaller than that fails every
call (llama.cpp answers HTTP 400), so `arena play` and `arena resume` refuse it before the first call, with the
number needed. The game is played forward with random legal decisions from where it stands (the deal is the
seed's, a resumed game is the real one) until every model seat has been asked once; each seat's first turn is then
compacted as far as the compaction goes, with the agent's own prompt set, language, mode and answer budget. The
sizes are the compaction's estimates (characters per token, set to err high), so what passes here also passes
there.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass

from arena.agents import AgentError, AgentSpec
from arena.engine import Game, Kind, Observation, Request, view
from arena.llm.budget import max_tokens_for
from arena.llm.compaction import CHARS_PER_TOKEN, Budget
from arena.llm.conversation import Conversation
from arena.llm.modes import Mode
from arena.prompts import load_prompt_set

_MODEL_KINDS = ("llm", "langchain")
_FILLER = "words "  # a drawn speech's text: its words go into the notes, so their length does not matter
_STEPS = 5000  # a bound on the decisions played forward (a 10-seat game takes a few hundred)


@dataclass(frozen=True, slots=True)
class Need:
    """The fewest tokens one seat's first turn takes, compacted as far as it goes, with its answer."""

    seat: int
    tokens: int
    kind: str
    window: int


def _smallest(spec: AgentSpec, lang: str, game: Game, request: Request) -> int:
    """The estimated tokens of `request`'s first turn for `spec` at `game`'s point, compacted to the least, plus the
    answer budget."""
    language = spec.language or lang
    conversation = Conversation(
        load_prompt_set(spec.prompt_set, language), game.rules, request.seat, Mode(spec.structured), spec.persona,
        spec.schema_style,
    )  # fmt: skip
    observation: Observation = view(game, request.seat)
    turn = conversation.turn(observation, request)
    max_tokens = max_tokens_for(request, spec.max_tokens, language)
    conversation.budget = budget = Budget(1, CHARS_PER_TOKEN.get(language, 2.3))  # no plan meets it: the least
    fitted = conversation.fit(turn, observation, max_tokens)
    return budget.tokens(conversation.request_messages(fitted)) + max_tokens


def first_turn_needs(seats: Mapping[int, AgentSpec], game: Game, lang: str, seed: int = 0) -> list[Need]:
    """Per model seat with a window (`context_tokens`), what its first turn from `game`'s point needs. `game` is
    not changed: a copy is played forward with random legal decisions."""
    windows = {s: spec for s, spec in seats.items() if spec.kind in _MODEL_KINDS and spec.context_tokens}
    if not windows:
        return []
    ahead = Game(game.rules, game.seed, roles=list(game.roles[1:]))
    ahead.replay(game.inputs)
    rng = random.Random(seed)
    needs: dict[int, Need] = {}
    from arena.players.random_policy import random_decision

    for _ in range(_STEPS):
        if ahead.over or len(needs) == len(windows):
            break
        for request in ahead.pending():
            spec = windows.get(request.seat)
            if spec is not None and request.seat not in needs:
                tokens = _smallest(spec, lang, ahead, request)
                needs[request.seat] = Need(request.seat, tokens, request.kind.value, spec.context_tokens or 0)
            decision = random_decision(rng, request)
            if request.kind in (Kind.SPEECH, Kind.BLACK_MESSAGE) and request.max_words:
                decision = decision.model_copy(update={"text": _FILLER * request.max_words, "claim": None})
            ahead.submit(request.seat, decision)
    return sorted(needs.values(), key=lambda n: n.seat)


def suggested_window(tokens: int) -> int:
    """A window to suggest for a first turn of `tokens`: half as much again for the notes to grow, in 512s."""
    return max(512, math.ceil(tokens * 1.5 / 512) * 512)


def check_windows(seats: Mapping[int, AgentSpec], game: Game, lang: str) -> None:
    """AgentError naming every agent whose window is smaller than one of its seats' first turns, and the size
    needed; nothing when all fit (or no seat has a known window)."""
    short: dict[str, Need] = {}
    for need in first_turn_needs(seats, game, lang):
        if need.tokens > need.window:
            name = seats[need.seat].name
            if name not in short or need.tokens > short[name].tokens:
                short[name] = need
    if not short:
        return
    lines = []
    for name, need in sorted(short.items()):
        spec = next(s for s in seats.values() if s.name == name)
        served = spec.server_slots is not None  # the window came from the server itself (llama.cpp's /props)
        where = "the server's window per slot" if served else "its context_tokens"
        fix = (
            f"restart the server with a larger window, e.g. `arena local-model --ctx {suggested_window(need.tokens)}`"
            if served
            else f"give it a window (context_tokens in its agent file) of at least {need.tokens}"
        )
        lines.append(
            f"agent {name}: {where} is {need.window} tokens, but seat {need.seat}'s first turn ({need.kind}) needs "
            f"at least {need.tokens} (estimated, erring high: the rules, its role, its notes and the decision, "
            f"compacted as far as they go, plus the answer's budget); {fix}"
        )
    raise AgentError("the model's context window is too small for this game:\n  " + "\n  ".join(lines))
