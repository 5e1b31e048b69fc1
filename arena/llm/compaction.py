"""Keeping a seat's conversation inside its model's context: a deterministic, rare compaction.

A seat's conversation only grows (`conversation.py`), and a real server has a context window (llama.cpp's per-slot
`n_ctx`, 4k-8k on most local setups; 8k-128k on hosted models). Before a request would pass the seat's budget
(`context_tokens`: from the server where it says so, else the agent file), a first turn included, the conversation
is rewritten once, in one large step: the system prompt, then one user message holding the role prompt and the
seat's notes (its own log only, the events its `view` showed it, with the words of its own latest speeches and of no
other: `summary_events`), then the latest exchanges verbatim, then the new turn, whose oldest events join the notes
when it alone is too long. `plan_compactions` lists the ways to do it, richest first; `Conversation.fit` sends the
first that meets its target (half the room beside the system prompt, role prompt, decision and answer), else the
smallest. The rewritten prefix then stays as it is until the next compaction, so the server's prefix cache keeps
working, and the half left free makes the next one come only after as many turns again.

Everything here is a function of the conversation's text and the budget, never of a clock or the server's counts,
so `arena prompt --rebuild` and the prompt check of `arena verify` rebuild exactly what was sent. Sizes are
estimated from characters (`CHARS_PER_TOKEN`, set below the ratio measured on Gemma 3's tokenizer, so the estimate
runs high); a server that still says the prompt does not fit (`errors.overflow_of`) gets one compacted new attempt,
recorded as `compaction = "overflow"` on its call record.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

from arena.engine import Event, EventType

Message = dict[str, object]

# measured on this game's prompts with llama.cpp's Gemma 3 tokenizer (`/apply-template` and `/tokenize`): in English
# 3.4 characters per token on a first turn (3.35 over 10 first turns of a fiim game, 4 Dec 2026), falling to 2.9 as
# the log (seat numbers, brackets) grows; in Russian 3.1 over the same first turns (the system prompt 4,836
# characters, 1,440 tokens). The estimate uses lower figures, so it errs on the side of compacting early
CHARS_PER_TOKEN = {"en": 2.5, "ru": 2.3}
PER_MESSAGE = 6  # the chat template's turn markers, per message
OWN_SPEECHES = 3  # the seat's own latest speeches whose words its notes keep

# log lines left out of the summary: the words (a claim is kept), and bookkeeping the seat needs no more (the role
# prompt says the role; a vote's count is its runs of votes; a refused nomination changed nothing)
_LEFT_OUT = frozenset(
    {
        EventType.GAME_STARTED,
        EventType.ROLE_ASSIGNED,
        EventType.NOMINATION_REJECTED,
        EventType.NOMINATION_IGNORED,
        EventType.VOTES_COUNTED,
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

# what the briefest notes leave out of the days before the last: how the votes went (who left stays)
BRIEF = frozenset(
    {
        EventType.NOMINATED,
        EventType.VOTE_CAST,
        EventType.TIE,
        EventType.NO_VOTE,
        EventType.LIFT_RESULT,
        EventType.ACQUITTED,
        EventType.EXTRA_REQUESTED,
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
        return cls(context_tokens, CHARS_PER_TOKEN.get(lang, 2.3))

    def tokens(self, messages: Sequence[Message]) -> int:
        """The estimated prompt size of `messages` (rounded up)."""
        chars = sum(len(str(m.get("content") or "")) for m in messages)
        return int(chars / self.chars_per_token) + 1 + PER_MESSAGE * len(messages)

    def fits(self, messages: Sequence[Message], max_tokens: int) -> bool:
        """True if `messages` plus an answer of `max_tokens` stay within the budget."""
        return self.tokens(messages) + max_tokens <= self.context_tokens


@dataclass(frozen=True, slots=True)
class Plan:
    """One way to compact: keep the last `keep` exchanges verbatim (0: none, and then the new turn's first `split`
    events go into the notes too), with the words of the seat's own `own` latest speeches in the notes."""

    keep: int
    split: int = 0
    own: int = OWN_SPEECHES
    brief: bool = False  # the days before the last one without their nominations and votes (`BRIEF`)


def plan_compactions(exchanges: int, turn_events: int) -> Iterator[Plan]:
    """The compactions to try, richest first; `Conversation.fit` takes the first that meets its target, else the
    last. The first exchange holds the role prompt (or an earlier summary), so it is never kept."""
    for keep in range(exchanges - 1, 0, -1):
        yield Plan(keep)
    for split in range(turn_events + 1):
        yield Plan(0, split)
    yield Plan(0, turn_events, 1)  # the notes with only the seat's last speech in words
    yield Plan(0, turn_events, 1, brief=True)  # the least: and the earlier days without their votes


def summary_events(events: Sequence[Event], words: Collection[int] = (), *, brief: bool = False) -> list[Event]:
    """The events of the seat's own log that its summary keeps: speeches only where they claim a role, or where
    their words are kept (`words`: the seqs of the seat's own speeches shown in full). `brief`: the days before
    the last one keep only what `BRIEF` leaves (who left and how, claims, the seat's own night)."""
    last = max((e.day for e in events), default=0)
    return [
        e
        for e in events
        if e.type not in _LEFT_OUT
        and (e.type is not EventType.SPEECH or bool(e.roles) or e.seq in words)
        and not (brief and e.day < last and e.type in BRIEF)
    ]
