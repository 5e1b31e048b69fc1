"""The random policy's cheaper draw gives exactly the draws of `Random.randrange` / `randint` (fuzz seeds and golden
transcripts depend on the policy's decisions staying the same for the same seed), and its decisions, built without
running pydantic's validator, are exactly what the validating constructor builds."""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from arena.engine import PRESETS, Game, load_rules
from arena.engine.decisions import Decision, Kind, Request
from arena.players.random_policy import (
    _PHRASES,
    _VARIANTS,
    MAX_WORDS,
    _below,
    _plain_speech,
    _speech,
    _trusted,
    random_decision,
    random_text,
)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 8, 13, 16, 17, 100, 1001, 2**40 + 3])
def test_below_draws_what_randrange_draws(n: int) -> None:
    ours, theirs = random.Random(n), random.Random(n)
    for _ in range(300):
        assert _below(ours, n) == theirs.randrange(n)
    assert ours.getstate() == theirs.getstate()  # and leaves the generator in the same state


def test_below_draws_what_randint_draws() -> None:
    ours, theirs = random.Random(7), random.Random(7)
    for m in list(range(0, 40)) * 5:
        assert _below(ours, m + 1) == theirs.randint(0, m)


class _Counting(random.Random):
    """A generator of another kind: `_below` must use its own randrange."""

    calls = 0

    def randrange(self, *args: int) -> int:  # type: ignore[override]
        self.calls += 1
        return super().randrange(*args)


def test_below_defers_to_another_generators_randrange() -> None:
    rng = _Counting(3)
    assert _below(rng, 10) == random.Random(3).randrange(10)
    assert rng.calls == 1


def test_trusted_decisions_are_what_validation_builds() -> None:
    """Every decision the policy draws in these games (built without running pydantic's validator) equals the validated
    `Decision(**fields)`: the same fields, the same fields set, the same dump, and it is accepted by the engine."""
    kinds = set()
    for preset in sorted(PRESETS):
        rules = load_rules(preset)
        for seed in range(6):
            game, rng = Game(rules, seed), random.Random(seed)
            while not game.over:
                for request in game.pending():
                    decision = random_decision(rng, request)
                    fields = {name: getattr(decision, name) for name in decision.model_fields_set}
                    validated = Decision(**fields)
                    assert decision == validated
                    assert decision.model_fields_set == validated.model_fields_set
                    assert decision.model_dump_json() == validated.model_dump_json()
                    assert decision.__dict__ == validated.__dict__
                    assert list(decision.__dict__) == list(validated.__dict__)
                    assert decision.__pydantic_extra__ is None and decision.__pydantic_private__ is None
                    kinds.add(request.kind)
                    game.submit(request.seat, decision)
    assert {Kind.SPEECH, Kind.VOTE, Kind.SHOOT, Kind.SHERIFF, Kind.BLACK_MESSAGE, Kind.CHOOSE_SIDE} <= kinds


@pytest.mark.parametrize(
    "values",
    [
        {"text": "i think", "nominate": (3,), "extra": True},
        {"text": "", "nominate": (), "extra": False},
        {"target": None, "action": "shoot"},
        {"targets": (1, 5)},
        {"text": "x", "targets": ()},
        {"beliefs": (0.0, 0.5, 1.0)},
    ],
)
def test_trusted_matches_the_validating_constructor(values: dict[str, object]) -> None:
    trusted, validated = _trusted(dict(values)), Decision(**values)  # type: ignore[arg-type]
    assert trusted == validated and trusted.model_fields_set == validated.model_fields_set
    assert repr(trusted) == repr(validated)
    with pytest.raises(ValidationError):  # still frozen
        trusted.text = "changed"  # type: ignore[misc]


def test_random_text_draws_what_randrange_draws() -> None:
    """`random_text` writes its two draws out for a plain generator: the same phrase and generator state as
    `randrange`'s draws."""
    for seed in range(40):
        ours, theirs = random.Random(seed), random.Random(seed)
        for max_words in (1, 2, 3, 5, 7, 12, 13, 150):
            n = min(max_words, MAX_WORDS) + 1
            assert random_text(ours, max_words) == _PHRASES[theirs.randrange(n)][theirs.randrange(_VARIANTS)]
        assert ours.getstate() == theirs.getstate()


def test_plain_speech_draws_what_the_generic_speech_draws() -> None:
    """`_plain_speech` (a plain generator, the draws written out) gives `_speech`'s decision and generator state."""
    shapes = [
        {"max_words": 150, "may_nominate": True, "nominate_options": (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)},
        {"max_words": 25, "may_nominate": True, "nominate_options": (2, 5, 7), "may_request_extra": True},
        {"max_words": 3, "may_nominate": False, "nominate_options": ()},
        {"max_words": 0, "may_nominate": True, "nominate_options": (4,), "may_request_extra": True},
        {"max_words": 12, "may_nominate": True, "nominate_options": ()},
    ]
    for seed in range(60):
        for shape in shapes:
            request = Request(seat=1, kind=Kind.SPEECH, **shape)  # type: ignore[arg-type]
            ours, theirs = random.Random(seed), _Counting(seed)
            for _ in range(5):
                assert _plain_speech(ours, request) == _speech(theirs, request)
            assert ours.getstate() == theirs.getstate()
