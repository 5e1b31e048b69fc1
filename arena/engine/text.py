"""Caps on the text a seat gives: the one place a speech, a black message or private reasoning is cut to its budget.

Text is also checked here for what no file can hold: a surrogate code point (`lone_surrogate`), which `validate`
refuses in any decision's text, reasoning or action, so one character can never stop a game's transcript.

A budget is counted in words (R3.4: seconds mapped to words) and in characters (`speech.chars_per_word` characters
per word of the budget), because a single "word" of 10,000 letters would otherwise pass any word limit and reach
every other seat's prompt whole. A cut keeps the text as written (line breaks included, so what a text imitates is
still seen and flagged) up to the last word allowed, then up to the character cap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.engine.events import EventType, Vis

if TYPE_CHECKING:
    from arena.engine.decisions import Decision
    from arena.engine.ruleset import Speech
    from arena.engine.state import GameState

_WORD = re.compile(r"\S+")
# a code point of the UTF-16 surrogate range: a Python string holds one only from an escape (`\ud800` in JSON, an
# undecodable terminal byte); it is no character, UTF-8 cannot encode it, and no file or page could hold the text
_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(text: str) -> str | None:
    """The first surrogate code point in `text`, as `U+D800`, or None when the text is writable Unicode."""
    found = _SURROGATE.search(text)
    return f"U+{ord(found.group()):04X}" if found else None


def scrubbed(text: str) -> str:
    """`text` with every surrogate code point replaced by U+FFFD: for what is recorded as it came (a model's raw
    answer, an error message), never for a decision, which is refused instead (`validate`)."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


@dataclass(frozen=True, slots=True)
class Capped:
    """A text after its cap: the text kept, and what was given, for the `speech_truncated` event."""

    text: str
    words: int  # words given
    chars: int  # characters given
    cut: bool  # over either limit


def cut_words(text: str, max_words: int) -> str:
    """The text up to the end of its `max_words`-th word, whitespace kept as written."""
    if max_words <= 0:
        return ""
    for index, match in enumerate(_WORD.finditer(text), start=1):
        if index == max_words:
            return text[: match.end()]
    return text


def cap(text: str, max_words: int, max_chars: int) -> Capped:
    """`text` within `max_words` words and `max_chars` characters (cut at the words first, then the characters)."""
    words = len(text.split())
    chars = len(text)
    if words <= max_words and chars <= max_chars:
        return Capped(text, words, chars, False)
    kept = cut_words(text, max_words)[:max_chars].rstrip()
    return Capped(kept, words, chars, True)


def accept_text(
    g: GameState, seat: int, text: str, max_words: int, max_chars: int, vis: Vis = Vis.PUBLIC
) -> tuple[str, bool]:
    """The one place a seat's speech or black message is cut to its budget in words and characters (R3.4;
    `max_chars` is the request's, `speech.chars(max_words)`). A cut is logged as `speech_truncated`, seen by exactly
    those who see the text, so every one of them is shown the same cut text. Returns the text kept and whether it was
    cut."""
    length = len(text)
    # most texts: within both caps, nothing to log (a text of at most max_words characters has at most that many
    # words, so only a longer one is split to count them)
    if length <= max_chars and (length <= max_words or len(text.split()) <= max_words):
        return text, False
    capped = cap(text, max_words, max_chars)
    if capped.cut:
        counts = (capped.chars, max_chars)
        g.emit(EventType.SPEECH_TRUNCATED, vis, seat=seat, count=capped.words, value=str(max_words), counts=counts)
    return capped.text, capped.cut


def reasoning_cap(speech: Speech, reasoning: str) -> str:
    """Private reasoning within `speech.reasoning_words` words and their characters (no event: nobody else sees it)."""
    return cap(reasoning, speech.reasoning_words, speech.chars(speech.reasoning_words)).text


def with_reasoning_capped(speech: Speech, decision: Decision) -> Decision:
    """The decision as it is accepted and stored: its reasoning cut to the cap."""
    if not decision.reasoning:  # most decisions: nothing to cut
        return decision
    reasoning = reasoning_cap(speech, decision.reasoning)
    if reasoning == decision.reasoning:
        return decision
    return decision.model_copy(update={"reasoning": reasoning})
