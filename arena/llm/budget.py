"""Token budgets: a speech's word limit mapped to `max_tokens`, on top of the seat's budget for reasoning.

The answer is one JSON object holding the private reasoning and the public text, so the limit must fit both: the
agent's `max_tokens` covers reasoning and fields, and a speech adds its word limit times a per-language rate (Cyrillic
costs about twice the tokens of English in common BPE vocabularies). The limit only stops a runaway answer; the
engine cuts a speech at its word limit and records that with a `speech_truncated` event.
"""

from __future__ import annotations

import math

from arena.engine import Kind, Request

DEFAULT_BASE_TOKENS = 600
TOKENS_PER_WORD = {"en": 1.6, "ru": 3.2}


def max_tokens_for(request: Request, base: int | None, lang: str) -> int:
    """`base` (or the default) plus room for the words the request allows."""
    budget = base or DEFAULT_BASE_TOKENS
    if request.kind in (Kind.SPEECH, Kind.BLACK_MESSAGE) and request.max_words > 0:
        budget += math.ceil(request.max_words * TOKENS_PER_WORD.get(lang, 2.0)) + 16
    return budget
