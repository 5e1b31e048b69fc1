"""The seeds the arena draws itself: `arena play` without `--seed`, a table of `arena serve` without one, a tournament
file that names none. Imports nothing of `arena`.

A game is a pure function of its rules, its seed and its inputs: the deal is `random.Random(seed).shuffle` and every
bot decision is drawn from a generator keyed by the seed and what the bot has seen. So whoever knows the seed knows
every card, and whoever can try every seed can find the one that deals his own card and makes the bots say what
they said: a seed drawn from a million values was found in 118 s by a civilian (issue 30). A drawn seed therefore
has 128 random bits from the operating system's generator (`secrets`): nothing a seat sees narrows 2**128 seeds
down to a number anyone can try. Every draw uses the whole seed (an integer seed seeds the Mersenne Twister with all
its bits, a string key is hashed with SHA-512), so no part of it can be searched apart from the rest.

An explicit seed (`--seed N`, a tournament's `seed = N`) is the user's choice and is used as given: the same seed and
decisions give byte-identical transcripts. A small explicit seed can be found by search like any small number, so
use one to reproduce a game, not to hide its deal from the players (docs/security.md, "What a seat can infer").
"""

from __future__ import annotations

import secrets

SEED_BITS = 128  # a search over 2**128 seeds is out of anyone's reach (2**64 at a billion a second is 585 years)


def draw_seed() -> int:
    """A fresh seed of SEED_BITS random bits from the operating system."""
    return secrets.randbits(SEED_BITS)
