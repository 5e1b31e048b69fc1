"""A random legal decision for any request: the one policy the random bot, the conformance tests and the engine
benchmark share.

It reads only the `Request` (the legal options the engine put in it), never the game, so it is as cheap as a
decision can be and exercises every branch a request allows: speeches with and without nominations (including a
second name, which the rules ignore), the extra word, yes/no votes, ballots with abstentions, shots and checks with
and without a target, the sheriff's shot, best moves and kill orders of every length, the maniac's side, and belief
probes.
Dependency-free (the standard library and the engine's own types) so a bot can build on it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache

from arena.engine.decisions import Decision, Kind, Request

# Speech filler. Deliberately free of role names and of the presets' forbidden words, so a random speech never
# claims a role and never draws a foul: the conformance tests rely on both.
_FILLER = (
    "i think seat is quiet today vote with me please no yes maybe look at the table again nothing to add trust town "
    "pass thanks suspicious"
)
WORDS: tuple[str, ...] = tuple(_FILLER.split())

MAX_WORDS = 12  # random speeches stay short: the engine's budgets are far larger, and speed matters here
_VARIANTS = 16
# Built once: phrases of 0..MAX_WORDS words, several of each length (cheaper than joining words at every speech).
_PHRASES: tuple[tuple[str, ...], ...] = tuple(
    tuple(" ".join(random.Random(n * 100 + v).choices(WORDS, k=n)) for v in range(_VARIANTS))
    for n in range(MAX_WORDS + 1)
)

# Decisions are frozen, so the common ones are built once and shared.
_NO_DECISION = Decision()
_VOTE_YES = Decision(vote=True)
_VOTE_NO = Decision(vote=False)


@lru_cache(maxsize=1024)
def _aimed(target: int | None, action: str | None = None) -> Decision:
    return Decision(target=target, action=action)


@lru_cache(maxsize=8192)
def _said(text: str, nominate: tuple[int, ...], extra: bool) -> Decision:
    return Decision(text=text, nominate=nominate, extra=extra)


def _below(rng: random.Random, n: int) -> int:
    """`rng.randrange(n)` for n > 0: the same draw from the same state. For a plain `random.Random` it is what
    `randrange` does after its argument checks (`Random._randbelow_with_getrandbits`), which cost as much again as
    the draw: 3 % of the engine bench, where every decision draws (bench/README.md). Any other generator is left to
    its own `randrange`."""
    if type(rng) is not random.Random:
        return rng.randrange(n)
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def random_text(rng: random.Random, max_words: int) -> str:
    """Up to `max_words` (and at most MAX_WORDS) filler words; sometimes silence."""
    if max_words <= 0:
        return ""
    length = _below(rng, min(max_words, MAX_WORDS) + 1)  # rng.randint(0, m)
    return _PHRASES[length][_below(rng, _VARIANTS)]


def _pick(rng: random.Random, options: tuple[int, ...], allow_none: bool) -> int | None:
    """One of `options`; None a fifth of the time when the request allows no target."""
    if not options or (allow_none and rng.random() < 0.2):
        return None
    return options[_below(rng, len(options))]


def _some(rng: random.Random, options: tuple[int, ...], most: int) -> tuple[int, ...]:
    """0..most distinct seats from `options`, in random order."""
    most = min(most, len(options))
    if most <= 0:
        return ()
    return tuple(rng.sample(options, _below(rng, most + 1)))  # rng.randint(0, most)


def _speech(rng: random.Random, request: Request) -> Decision:
    text = random_text(rng, request.max_words)
    nominate: tuple[int, ...] = ()
    options = request.nominate_options
    if request.may_nominate and options and rng.random() < 0.5:
        first = options[_below(rng, len(options))]
        # now and then a second name in the same speech (R4.2/R4.4: rejected or ignored, never an error)
        nominate = (first, options[_below(rng, len(options))]) if rng.random() < 0.1 else (first,)
    extra = request.may_request_extra and rng.random() < 0.3
    if not text and not nominate and not extra:
        return _NO_DECISION
    return _said(text, nominate, extra)


def _vote(rng: random.Random, request: Request) -> Decision:
    return _VOTE_YES if rng.random() < 0.5 else _VOTE_NO


def _sheriff(rng: random.Random, request: Request) -> Decision:
    actions = request.actions or ("check",)
    action = actions[_below(rng, len(actions))]
    return _aimed(_pick(rng, request.options, request.allow_none), action)


def _best_move(rng: random.Random, request: Request) -> Decision:
    return Decision(targets=_some(rng, request.options, request.max_targets))


def _black_message(rng: random.Random, request: Request) -> Decision:
    targets = _some(rng, request.options, request.max_targets) if request.may_set_order else ()
    return Decision(text=random_text(rng, request.max_words), targets=targets)


def _probe(rng: random.Random, request: Request) -> Decision:
    """Thousandths, so the recorded probe event holds exactly what was drawn."""
    return Decision(beliefs=tuple(_below(rng, 1001) / 1000 for _ in request.options))  # rng.randint(0, 1000)


def _side(rng: random.Random, request: Request) -> Decision:
    choices = request.choices
    return _aimed(None, choices[_below(rng, len(choices))]) if choices else request.default


def _one_target(rng: random.Random, request: Request) -> Decision:
    """A ballot, a shot, a check, a kill, a heal or a visit."""
    if not request.options and not request.allow_none:
        return request.default
    return _aimed(_pick(rng, request.options, request.allow_none))


_DRAWS: dict[Kind, Callable[[random.Random, Request], Decision]] = {
    Kind.SPEECH: _speech,
    Kind.VOTE: _vote,
    Kind.SHERIFF: _sheriff,
    Kind.BEST_MOVE: _best_move,
    Kind.BLACK_MESSAGE: _black_message,
    Kind.PROBE: _probe,
    Kind.CHOOSE_SIDE: _side,
}


def random_decision(rng: random.Random, request: Request) -> Decision:
    """A decision drawn at random from what `request` allows. Every draw comes from `rng`, so a seeded `rng` gives
    the same decisions for the same requests."""
    return _DRAWS.get(request.kind, _one_target)(rng, request)
