"""Player text as quoted data: neutralise what could pass for the moderator or a chat turn, and flag attempts.

Every player's words reach a prompt only through `quote`: one JSON string literal on one line, so a speech can
never close its quotes, start a new line, or open a moderator line of the game log (see `prompts/*/events.j2`).
Chat-template control tokens (`<|im_start|>`, `[INST]`, `<start_of_turn>` ...) are defanged, because some servers
tokenise them as real turn markers even inside user content. `flags` names what a text tried to imitate, so the
attempt is recorded (the LLM seat puts it in its call record); quoting alone already makes it harmless.
"""

from __future__ import annotations

import json
import re

# Chat-template control tokens of common open models; defanged by swapping their brackets for look-alikes.
_CONTROL = re.compile(
    r"<\|[^|<>\n]{0,40}\|>|</?s>|\[/?INST\]|<<\/?SYS>>|<\/?(?:start|end)_of_turn>|<\/?think>",
    re.IGNORECASE,
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
    ("breaks_lines", re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]")),
)


def defang(text: str) -> str:
    """Replace chat control tokens with harmless look-alikes (‹|im_start|›, ‹INST›) and drop other control chars."""

    def swap(match: re.Match[str]) -> str:
        token = match.group(0)
        return token.replace("<", "‹").replace(">", "›").replace("[", "‹").replace("]", "›")

    text = _CONTROL.sub(swap, text)
    return "".join(ch for ch in text if ch in "\n\t" or ch.isprintable())


def quote(text: str | None) -> str:
    """The one way player text enters a prompt: a JSON string literal (quotes, backslashes, newlines escaped)."""
    return json.dumps(defang(text or ""), ensure_ascii=False)


def flags(text: str | None) -> list[str]:
    """What this player text imitates, if anything: the moderator, a chat turn, a decision's JSON, line breaks."""
    if not text:
        return []
    return [name for name, pattern in _FLAGS if pattern.search(text)]
