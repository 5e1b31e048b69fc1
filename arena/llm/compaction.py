"""Keeping a seat's conversation inside its model's context: a deterministic, rare compaction.

A seat's conversation only grows (`conversation.py`), and a real server has a context window (llama.cpp's per-slot
`n_ctx`, 4k-8k on most local setups; 8k-128k on hosted models). Before a request would pass the seat's budget
(`context_tokens`: from the server where it says so, else the agent file), the conversation is rewritten once, in
one large step: the system prompt, then one user message holding the role prompt and a summary built from the
seat's own log only (the events its `view` showed it: living seats, each day's nominations, votes and departures,
claims, its own checks and actions, the black team's chat for a black seat; the words of the speeches are left
out), then the most recent exchanges, then the new turn. The rewritten prefix then stays as it is until the next
compaction, so the server's prefix cache keeps working; compacting to about half the budget makes the next one come
only after as many turns again.

Everything here is a function of the conversation's text and the budget, never of a clock or the server's counts,
so `arena prompt --rebuild` and the prompt check of `arena verify` rebuild exactly what was sent. Sizes are
estimated from characters (`CHARS_PER_TOKEN`, set below the ratio measured on Gemma 3's tokenizer, so the estimate
runs high); a server that still says the prompt does not fit (`errors.overflow_of`) gets one compacted new attempt,
recorded as `compaction = "overflow"` on its call record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine import Event, EventType

Message = dict[str, object]

# measured on this game's English prompts with llama.cpp's Gemma 3 tokenizer: 3.4 characters per token on a first
# turn, falling to 2.9 as the log (seat numbers, brackets) grows; the estimate uses a lower figure, so it errs on the
# side of compacting early (Russian text takes about twice the tokens per word)
CHARS_PER_TOKEN = {"en": 2.5, "ru": 1.8}
PER_MESSAGE = 6  # the chat template's turn markers, per message
KEEP_SHARE = 0.25  # the recent exchanges kept verbatim: at most this share of the budget
TARGET_SHARE = 0.6  # a compacted request (with its answer budget) aims at this share of the budget

# log lines left out of the summary: the words (a claim is kept), and bookkeeping the seat needs no more
_LEFT_OUT = frozenset(
    {
        EventType.SPEECH_TRUNCATED,
        EventType.EXTRA_REQUESTED,
        EventType.PROBE,
        EventType.PROBES_TAKEN,
        EventType.ACTION_REJECTED,
        EventType.DEFAULT_APPLIED,
        EventType.VOTING_STARTED,
        EventType.WOKE_TO_BE_SEEN,
    }
)


@dataclass(frozen=True, slots=True)
class Budget:
    """A seat's context budget in tokens and how its prompts' sizes are estimated."""

    context_tokens: int
    chars_per_token: float = CHARS_PER_TOKEN["en"]

    @classmethod
    def of(cls, context_tokens: int | None, lang: str) -> Budget | None:
        if not context_tokens:
            return None
        return cls(context_tokens, CHARS_PER_TOKEN.get(lang, 1.8))

    def tokens(self, messages: Sequence[Message]) -> int:
        """The estimated prompt size of `messages` (rounded up)."""
        chars = sum(len(str(m.get("content") or "")) for m in messages)
        return int(chars / self.chars_per_token) + 1 + PER_MESSAGE * len(messages)

    def fits(self, messages: Sequence[Message], max_tokens: int) -> bool:
        """True if `messages` plus an answer of `max_tokens` stay within the budget."""
        return self.tokens(messages) + max_tokens <= self.context_tokens


def summary_events(events: Sequence[Event]) -> list[Event]:
    """The events of the seat's own log that its summary keeps: speeches only where they claim a role."""
    return [
        e for e in events if e.type not in _LEFT_OUT and (e.type is not EventType.SPEECH or bool(e.roles))
    ]


def kept_exchanges(
    exchanges: Sequence[tuple[Message, Message]], budget: Budget, room: int
) -> int:
    """How many of the latest exchanges (user turn, answer) fit verbatim in `room` estimated tokens."""
    kept = 0
    used = 0
    for user, answer in reversed(exchanges):
        used += budget.tokens([user, answer])
        if used > room:
            break
        kept += 1
    return kept

