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
from typing import Any

from arena.engine.decisions import Decision, Kind, Request

# Speech filler. Deliberately free of role names and of the presets' forbidden words, so a random speech never
# claims a role and never draws a foul: the conformance tests rely on both.
WORDS: tuple[str, ...] = (
    "i", "think", "seat", "is", "quiet", "today", "vote", "with", "me", "please", "no", "yes", "maybe", "look",
    "at", "the", "table", "again", "nothing", "to", "add", "trust", "town", "pass", "thanks", "suspicious",
)  # fmt: skip

MAX_WORDS = 12  # random speeches stay short: the engine's budgets are far larger, and speed matters here
_VARIANTS = 16
_VARIANT_BITS = _VARIANTS.bit_length()  # what `_below(rng, _VARIANTS)` draws with (randrange's own choice)
# Built once: phrases of 0..MAX_WORDS words, several of each length (cheaper than joining words at every speech).
_PHRASES: tuple[tuple[str, ...], ...] = tuple(
    tuple(" ".join(random.Random(n * 100 + v).choices(WORDS, k=n)) for v in range(_VARIANTS))
    for n in range(MAX_WORDS + 1)
)

# The request kinds, bound once as globals: on Python 3.11 reading `Kind.SPEECH` goes through
# `EnumType.__getattr__`'s slow path, about ten times the cost of a global, and this runs at every decision.
_SPEECH, _VOTE, _SHERIFF, _BEST_MOVE = Kind.SPEECH, Kind.VOTE, Kind.SHERIFF, Kind.BEST_MOVE
_BLACK_MESSAGE, _PROBE, _CHOOSE_SIDE = Kind.BLACK_MESSAGE, Kind.PROBE, Kind.CHOOSE_SIDE

_RANDOM = random.Random  # the generator whose randrange `_below` reproduces

# Decisions are frozen, so the common ones are built once and shared.
_NO_DECISION = Decision()
_VOTE_YES = Decision(vote=True)
_VOTE_NO = Decision(vote=False)

_new = object.__new__
_set = object.__setattr__  # Decision is frozen: its own __setattr__ refuses
_DEFAULTS: dict[str, Any] = dict(_NO_DECISION.__dict__)  # every field at its default, in declaration order


def _trusted(values: dict[str, Any]) -> Decision:
    """`Decision(**values)` for values this policy made itself (seats drawn from a request's tuples, its own filler
    texts, floats): the model pydantic's validation gives for them, fields set included, at a third of the cost.
    Only for this policy's own values: a decision from outside (an LLM, a form, a transcript) is always validated.
    `tests/test_random_policy.py` checks it against `Decision(**values)` for every kind of draw."""
    decision: Decision = _new(Decision)
    fields = _DEFAULTS.copy()
    fields.update(values)
    _set(decision, "__dict__", fields)
    _set(decision, "__pydantic_fields_set__", set(values))
    _set(decision, "__pydantic_extra__", None)
    _set(decision, "__pydantic_private__", None)
    return decision


@lru_cache(maxsize=1024)
def _aimed(target: int | None, action: str | None = None) -> Decision:
    return _trusted({"target": target, "action": action})


@lru_cache(maxsize=8192)
def _said(text: str, nominate: tuple[int, ...], extra: bool) -> Decision:
    return _trusted({"text": text, "nominate": nominate, "extra": extra})


def _below(rng: random.Random, n: int) -> int:
    """`rng.randrange(n)` for n > 0: the same draw from the same state, one call cheaper. For a plain
    `random.Random` this is what `randrange` does after its checks (`Random._randbelow_with_getrandbits`); any other
    generator is left to its own `randrange`."""
    if type(rng) is not _RANDOM:
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
    # rng.randint(0, m) draws as rng.randrange(m + 1)
    n = min(max_words, MAX_WORDS) + 1
    if type(rng) is not _RANDOM:
        return _PHRASES[_below(rng, n)][_below(rng, _VARIANTS)]
    return _plain_text(rng.getrandbits, n)


def _plain_text(getrandbits: Callable[[int], int], n: int) -> str:
    """`random_text`'s two draws for a plain `random.Random`, `_below`'s written out (this runs at every speech, and
    a call costs more than the draw): a phrase of 0..n-1 words, one of its variants."""
    k = n.bit_length()
    length = getrandbits(k)
    while length >= n:
        length = getrandbits(k)
    variant = getrandbits(_VARIANT_BITS)
    while variant >= _VARIANTS:
        variant = getrandbits(_VARIANT_BITS)
    return _PHRASES[length][variant]


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


def _plain_speech(rng: random.Random, request: Request) -> Decision:
    """`_speech` for a plain `random.Random`, with `random_text`'s and `_below`'s draws written out: the same draws
    in the same order (checked against `_speech` with another generator in tests/test_random_policy.py). A speech is
    two decisions in five, and a call costs more than a draw."""
    getrandbits = rng.getrandbits
    max_words = request.max_words
    text = _plain_text(getrandbits, min(max_words, MAX_WORDS) + 1) if max_words > 0 else ""
    nominate: tuple[int, ...] = ()
    options = request.nominate_options
    if request.may_nominate and options and rng.random() < 0.5:
        n = len(options)
        k = n.bit_length()
        first = getrandbits(k)
        while first >= n:
            first = getrandbits(k)
        if rng.random() < 0.1:  # now and then a second name in the same speech (rejected or ignored, not an error)
            second = getrandbits(k)
            while second >= n:
                second = getrandbits(k)
            nominate = (options[first], options[second])
        else:
            nominate = (options[first],)
    extra = request.may_request_extra and rng.random() < 0.3
    if not text and not nominate and not extra:
        return _NO_DECISION
    return _said(text, nominate, extra)


def random_decision(rng: random.Random, request: Request) -> Decision:
    """A decision drawn at random from what `request` allows. Every draw comes from `rng`, so a seeded `rng` gives
    the same decisions for the same requests."""
    kind = request.kind
    if kind is _SPEECH:
        return _plain_speech(rng, request) if type(rng) is _RANDOM else _speech(rng, request)
    if kind is _VOTE:
        return _VOTE_YES if rng.random() < 0.5 else _VOTE_NO
    if kind is _SHERIFF:
        actions = request.actions or ("check",)
        action = actions[_below(rng, len(actions))]
        return _aimed(_pick(rng, request.options, request.allow_none), action)
    if kind is _BEST_MOVE:
        return _trusted({"targets": _some(rng, request.options, request.max_targets)})
    if kind is _BLACK_MESSAGE:
        targets = _some(rng, request.options, request.max_targets) if request.may_set_order else ()
        return _trusted({"text": random_text(rng, request.max_words), "targets": targets})
    if kind is _PROBE:  # thousandths, so the recorded probe event holds exactly what was drawn
        return _trusted({"beliefs": tuple(_below(rng, 1001) / 1000 for _ in request.options)})  # rng.randint(0, 1000)
    if kind is _CHOOSE_SIDE:
        choices = request.choices
        return _aimed(None, choices[_below(rng, len(choices))]) if choices else request.default
    # the one-target kinds: BALLOT, SHOOT, DON_CHECK, MANIAC_KILL, HEAL, VISIT
    if not request.options and not request.allow_none:
        return request.default
    return _aimed(_pick(rng, request.options, request.allow_none))
