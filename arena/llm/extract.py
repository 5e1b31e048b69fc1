"""Robust extraction of one JSON object from a model's text.

Models answer in JSON more or less faithfully: bare, inside a ```json fence, after a sentence of preamble, with a
trailing comma, or cut off by the token limit mid-string. `extract_object` recovers the first JSON object it can
and says how (so the call record shows when text had to be salvaged); it never guesses values.

Its time is linear in the answer: an answer (or a crafted transcript's `raw`) of 250,000 opening braces once took
40 s, because a decode was tried at every brace and each failed decode counted the lines of the whole text for its
error message. Now every search is one pass (`str.find`, or a pattern that never backtracks past one string), at
most `MAX_STARTS` decodes are tried (the first opening braces, the first fences), and each decode reads a slice that
starts at its own brace, so a failure's message counts only that slice.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_TRAILING_COMMA = re.compile(r",\s*([}\]])")
MAX_STARTS = 16  # decodes tried per search: an answer with more stray braces before its object is not read
_DECODER = json.JSONDecoder()


@dataclass(frozen=True, slots=True)
class Extracted:
    """The object found, and how: `exact`, `fenced`, `embedded`, `repaired` (trailing commas) or `closed` (cut off)."""

    value: dict[str, Any]
    how: str


class NoJSON(ValueError):
    """The text holds no JSON object that could be recovered."""


def _loads_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _first_embedded(text: str) -> dict[str, Any] | None:
    """The first `{...}` in the text that parses as an object, trying the first MAX_STARTS opening braces. Each
    decode reads the slice from its brace, so a failure's error message counts that slice's lines only."""
    start = text.find("{")
    for _ in range(MAX_STARTS):
        if start == -1:
            return None
        try:
            value, _end = _DECODER.raw_decode(text[start:])
        except (json.JSONDecodeError, RecursionError):
            value = None
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def _fenced(text: str) -> list[str]:
    """The blocks between pairs of ``` marks (a leading `json` or `JSON` dropped), the first MAX_STARTS of them."""
    blocks: list[str] = []
    start = text.find("```")
    while start != -1 and len(blocks) < MAX_STARTS:
        end = text.find("```", start + 3)
        if end == -1:
            break
        body = text[start + 3 : end]
        blocks.append(body[4:] if body.startswith(("json", "JSON")) else body)
        start = text.find("```", end + 3)
    return blocks


def _without_think(text: str) -> str:
    """The text without its `<think>...</think>` blocks (reasoning models served raw, e.g. via llama.cpp)."""
    kept: list[str] = []
    done = 0
    while (start := text.find("<think>", done)) != -1:
        end = text.find("</think>", start + 7)
        if end == -1:
            break
        kept.append(text[done:start])
        done = end + 8
    kept.append(text[done:])
    return "".join(kept)


def close_truncated(text: str) -> str | None:
    """Close a JSON object cut off mid-way: end an open string, drop a dangling key or comma, close the brackets.

    Returns None when the text does not start like an object. Scans once, tracking strings and escapes.
    """
    start = text.find("{")
    if start == -1:
        return None
    body = text[start:]
    stack: list[str] = []
    in_string = False
    escaped = False
    for ch in body:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack:
                return None
            stack.pop()
            if not stack:
                return None  # the object was complete: nothing to close
    if escaped:
        body = body[:-1]
    if in_string:
        body += '"'
    body = body.rstrip()
    # a dangling `"key"` or `"key":` or `,` cannot be closed into a value: drop it
    body = re.sub(r',\s*"(?:[^"\\]|\\.)*"\s*:?\s*$', "", body)
    body = re.sub(r'([{,])\s*"(?:[^"\\]|\\.)*"\s*:\s*$', r"\1", body)
    body = re.sub(r"[,:]\s*$", "", body)
    return body + "".join(reversed(stack))


def extract_object(text: str | None, *, truncated: bool = False) -> Extracted:
    """Find the JSON object in `text`. With `truncated` (finish_reason == length) also try closing a cut-off one."""
    if not text or not text.strip():
        raise NoJSON("the answer is empty")
    text = _without_think(text).strip()
    value = _loads_object(text)
    if value is not None:
        return Extracted(value, "exact")
    for block in _fenced(text):
        value = _loads_object(block.strip())
        if value is not None:
            return Extracted(value, "fenced")
    value = _first_embedded(text)
    if value is not None:
        return Extracted(value, "embedded")
    repaired = _TRAILING_COMMA.sub(r"\1", text)
    if repaired != text:
        value = _loads_object(repaired) or _first_embedded(repaired)
        if value is not None:
            return Extracted(value, "repaired")
    if truncated:
        closed = close_truncated(text)
        if closed is not None:
            value = _loads_object(closed) or _loads_object(_TRAILING_COMMA.sub(r"\1", closed))
            if value is not None:
                return Extracted(value, "closed")
    snippet = text[:80].replace("\n", " ")
    raise NoJSON(f"no JSON object found in the answer (it starts {snippet!r})")
