"""Player text as quoted data: neutralise what could pass for the moderator or a chat turn, and flag attempts.

Every player's words reach a prompt only through `quote`: one JSON string literal on one line, so a speech can
never close its quotes, start a new line, or open a moderator line of the game log (see `prompts/*/events.j2`).
Chat-template control tokens (`<|im_start|>`, `[INST]`, `<start_of_turn>` ...) are defanged, because some servers
tokenise them as real turn markers even inside user content. `flags` names what a text tried to imitate, so the
attempt is recorded (the LLM seat puts it in its call record); quoting alone already makes it harmless.

Both see the text after `normalise`: zero-width and bidi characters removed, then NFKC. So `[MOD\u200bERATOR]`
or a full-width `［ＭＯＤＥＲＡＴＯＲ］` is flagged as what it imitates, and reaches a seat as a visible, flagged
`[MODERATOR]` inside its quotes; a full-width quote mark becomes `"`, which the JSON quoting escapes.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache

# Chat-template control tokens of common open models; defanged by swapping their brackets for look-alikes.
_CONTROL = re.compile(
    r"<\|[^|<>\n]{0,40}\|>|</?s>|\[/?INST\]|<<\/?SYS>>|<\/?(?:start|end)_of_turn>|<\/?think>",
    re.IGNORECASE,
)
# Characters that render as nothing or reorder what follows: zero-width spaces and joiners, bidi embeddings,
# overrides, isolates and marks, the soft hyphen, the word joiner and invisible operators, Hangul fillers, the BOM.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
)
_ZWJ = "\u200d"  # joins emoji sequences: removed like the rest, but not a sign of hiding anything
# Latin look-alikes (Cyrillic, Greek) that NFKC keeps: folded only for the English patterns, never in shown text.
_LOOKALIKES = str.maketrans(
    "АВЕКМНОРСТХаеорсухіјѕԁΑΒΕΖΗΙΚΜΝΟΡΤΥΧοιν",
    "ABEKMHOPCTXaeopcyxijsdABEZHIKMNOPTYXoiv",
)
_FLAGS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "imitates_moderator",
        re.compile(
            r"\[\s*(?:moderator|host|judge|narrator|system|game|ведущий|модератор|судья|система)\s*[\]:]"
            r"|^\s*(?:moderator|host|judge|narrator|ведущий|модератор|судья)\s*:"
            r"|\[#\d+",
            re.IGNORECASE | re.MULTILINE,
        ),
    ),
    (
        "imitates_chat_turn",
        re.compile(
            r"(?:^|\n)\s*(?:system|assistant|user|developer)\s*:|<\|[^|<>\n]{0,40}\|>|\[/?INST\]"
            r"|\"role\"\s*:\s*\"(?:system|assistant|user|developer|tool)\"",
            re.IGNORECASE,
        ),
    ),
    (
        "imitates_decision_json",
        re.compile(
            r"\{\s*\"(?:reasoning|vote|target|targets|speech|nominate|action|kill_order|side|message)\"\s*:",
            re.IGNORECASE,
        ),
    ),
    (
        "imitates_seat",  # "Player 3 says: ...", «Игрок 3 говорит…», a line opening "Seat 3:"
        re.compile(
            r"\b(?:player|seat|игрок\w*|мест\w*)\s*(?:#|№|no\.?)?\s*\d+\s*"
            r"(?:\([^()\n]{0,40}\)\s*)?(?:says|said|writes|wrote|говорит|сказал\w*|пишет|заявляет|заявил\w*)"
            r"[^\S\n]*[:\"«“'—–-]|\b(?:says|said|говорит|сказал\w*)[^\S\n]*\.\.\."
            r"|(?:^|\n)\s*(?:player|seat|игрок|место)\s*(?:#|№)?\s*\d+\s*:",
            re.IGNORECASE,
        ),
    ),
    (
        "markup",  # HTML or script tags, event handlers, javascript: URLs
        re.compile(
            r"</?[a-z!][\w:-]*(?:\s[^<>]*)?/?\s*>|\bon[a-z]+\s*=|javascript\s*:",
            re.IGNORECASE,
        ),
    ),
    ("template_syntax", re.compile(r"\{\{|\}\}|\{%|%\}|\{#|#\}|\$\{")),
    ("breaks_lines", re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]")),
)


def normalise(text: str) -> str:
    """The text as it will be read: zero-width and bidi characters removed, then NFKC (full-width forms, ligatures
    and other compatibility characters to their plain equivalents), then invisible characters removed again."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", _INVISIBLE.sub("", text)))


def defang(text: str) -> str:
    """`normalise`, then chat control tokens to harmless look-alikes (‹|im_start|›, ‹INST›), other control chars
    dropped: what a seat is shown of a player's words."""

    def swap(match: re.Match[str]) -> str:
        token = match.group(0)
        return token.replace("<", "‹").replace(">", "›").replace("[", "‹").replace("]", "›")

    text = _CONTROL.sub(swap, normalise(text))
    return "".join(ch for ch in text if ch in "\n\t" or ch.isprintable())


@lru_cache(maxsize=8192)  # every seat that sees a speech quotes it: once per process and text is enough
def quote(text: str | None) -> str:
    """The one way player text enters a prompt: a JSON string literal (quotes, backslashes, newlines escaped)."""
    return json.dumps(defang(text or ""), ensure_ascii=False)


def flags(text: str | None) -> list[str]:
    """What this player text imitates or smuggles, if anything: the moderator, a chat turn, a decision's JSON,
    another seat's words, markup, template syntax, line breaks, hidden characters. Read after `normalise` (before
    control tokens are swapped, so they are still recognised), and once more with look-alike letters folded."""
    if not text:
        return []
    return list(_flags(text))


@lru_cache(maxsize=8192)  # a pure function of the text, asked by every seat that is shown it
def _flags(text: str) -> tuple[str, ...]:
    plain = normalise(text)
    folded = plain.translate(_LOOKALIKES)
    found = [name for name, pattern in _FLAGS if pattern.search(plain) or pattern.search(folded)]
    if _INVISIBLE.search(text.replace(_ZWJ, "")):
        found.append("hidden_characters")
    return tuple(found)
