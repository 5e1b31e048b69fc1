"""The random policy's cheaper draw gives exactly the draws of `Random.randrange` / `randint`: fuzz seeds and golden
transcripts depend on the policy's decisions staying the same for the same seed."""

from __future__ import annotations

import random

import pytest

from arena.players.random_policy import _PHRASES, _VARIANTS, MAX_WORDS, _below, random_text


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


def test_random_text_draws_what_randrange_draws() -> None:
    """`random_text`'s two draws are `randrange`'s: the same phrase and generator state."""
    for seed in range(40):
        ours, theirs = random.Random(seed), random.Random(seed)
        for max_words in (1, 2, 3, 5, 7, 12, 13, 150):
            n = min(max_words, MAX_WORDS) + 1
            assert random_text(ours, max_words) == _PHRASES[theirs.randrange(n)][theirs.randrange(_VARIANTS)]
        assert ours.getstate() == theirs.getstate()
