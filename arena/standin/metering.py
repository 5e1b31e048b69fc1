"""The stand-in's metering: prompt, cached and schema tokens, counted as a prefix cache would count them.

Cached tokens are the tokens a request shares with the previous request of the same conversation (same system prompt
and first user turn). A tournament bench sends thousands of requests a second, and the stand-in shares the machine's
cores with the client, so the metering keeps what it can between requests (a message's tokens, a schema's tokens,
what two conversations share, which is fixed once they differ), with the same figures as counting afresh
(`tests/test_stand_in_http.py` checks them against the plain definition; `bench/standin.py` measures the CPU).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate
from typing import Any, TypeVar

_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokens(text: str) -> list[str]:
    """A crude tokenizer (words and punctuation), enough to count and compare prompts."""
    return _TOKEN.findall(text)


@dataclass
class ServerStats:
    """What the server counted: requests (per schema name), the faults it injected, the tokens it metered and the
    Authorization headers it was sent (so a test can check which key reached it)."""

    requests: int = 0
    by_schema: Counter[str] = field(default_factory=Counter)
    injected: list[tuple[str, str, int]] = field(default_factory=list)  # (fault, schema, n-th)
    prompt_tokens: int = 0
    cached_tokens: int = 0
    schema_tokens: int = 0  # tokens of the schemas (response_format / tools) sent with the requests
    cached_schema_first: int = 0  # cached tokens if the schema were cached as the prompt's first part (OpenAI)
    authorization_seen: set[str] = field(default_factory=set)
    peak_in_flight: int = 0  # the most requests held at once, read and not yet answered (a provider's limit)


class Meter:
    """What the server remembers to meter prompts: per conversation start, the latest prompts of the conversations
    that share it (concurrent games can), with and without the schema as their first part; every call runs on the
    server's loop."""

    def __init__(self, stats: ServerStats) -> None:
        self.stats = stats
        self.last_prompt: dict[tuple[Any, ...], list[_Prompt]] = {}
        self.last_schema_first: dict[tuple[Any, ...], list[_Schematised]] = {}

    def prompt_size(self, body: dict[str, Any]) -> int:
        """The request's prompt tokens, counted as `usage` counts them (nothing is metered)."""
        return sum(len(m) for m in _prompt_tokens(body.get("messages") or []))

    def usage(self, body: dict[str, Any], text: str, raw: bytes) -> dict[str, Any]:
        """The `usage` of a completion of `text` for this request, counted into `stats`."""
        messages = body.get("messages") or []
        prompt = _Prompt(_prompt_tokens(messages))
        size = prompt.totals[-1]
        schema_part: dict[str, Any] = {k: body[k] for k in ("response_format", "tools") if k in body}
        schema_toks = _schema_part_tokens(raw, schema_part) if schema_part else ()
        key = _conversation(messages)
        shared_with: dict[int, int] = {}
        cached = _remember(self.last_prompt.setdefault(key, []), prompt, shared_with)
        with_schema = _Schematised(schema_toks, prompt)
        cached_first = _remember_schematised(self.last_schema_first.setdefault(key, []), with_schema, shared_with)
        stats = self.stats
        stats.prompt_tokens += size
        stats.cached_tokens += cached
        stats.schema_tokens += len(schema_toks)
        stats.cached_schema_first += cached_first
        completion = len(tokens(text))
        return {
            "prompt_tokens": size,
            "completion_tokens": completion,
            "total_tokens": size + completion,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0},
        }


def _conversation(messages: list[Any]) -> tuple[Any, ...]:
    """Which conversation start a request belongs to: its first two messages, as (role, content) when that is all
    they hold (no need to serialise them), else as canonical JSON (a str never equals a tuple)."""
    key: list[Any] = []
    for message in messages[:2]:
        role, content = message.get("role"), message.get("content")
        if type(role) is str and type(content) is str and len(message) == 2:
            key.append((role, content))
        else:
            key.append(json.dumps(message, sort_keys=True))
    return tuple(key)


_SCHEMA_PARTS: dict[bytes, tuple[dict[str, Any], tuple[str, ...]]] = {}


def _schema_part_tokens(raw: bytes, part: dict[str, Any]) -> tuple[str, ...]:
    """`part`'s tokens, found by the body's bytes from its schema on (a hint: the schema is mostly sent last, and
    checked against the parsed part, so a wrong hint only costs a lookup); no JSON written for a schema seen before."""
    found = [raw.rfind(b'"%s"' % key.encode()) for key in part]  # only the keys it has: a miss scans the body
    hint = raw[max(min(found), 0) :]
    hit = _SCHEMA_PARTS.get(hint)
    if hit is not None and hit[0] == part:
        return hit[1]
    if len(_SCHEMA_PARTS) >= 4096:
        _SCHEMA_PARTS.clear()
    toks = _schema_tokens(json.dumps(part))
    _SCHEMA_PARTS[hint] = (part, toks)
    return toks


@lru_cache(maxsize=256)
def _schema_tokens(text: str) -> tuple[str, ...]:
    """A request's schema tokens, as of its canonical (sorted) JSON; cached by its JSON as sent, since a seat sends
    the same schema (the stable one) on most requests."""
    return tuple(tokens(json.dumps(json.loads(text), sort_keys=True)))


_TOKENS: dict[tuple[str, str], tuple[str, ...]] = {}


def _prompt_tokens(messages: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """Each message's tokens (its role first); remembered, since every request repeats the conversation so far. One
    tuple per distinct message, so most comparisons of equal messages below are identity checks."""
    out = []
    known = _TOKENS.get
    for message in messages:
        role, content = message.get("role", ""), message.get("content")
        if type(content) is not str or (len(message) > 2 and message.get("tool_calls")):
            content = message_text(message)
        key = (role if type(role) is str else str(role), content)
        found = known(key)
        if found is None:
            if len(_TOKENS) >= 65536:  # a bound; a message seen again is then counted afresh (a new tuple, equal)
                _TOKENS.clear()
            found = _TOKENS[key] = (key[0], *tokens(content))
        out.append(found)
    return out


class _Prompt:
    """A prompt as its messages' tokens, with the running totals: `totals[i]` tokens in the first i messages."""

    __slots__ = ("messages", "totals")

    def __init__(self, messages: list[tuple[str, ...]]) -> None:
        self.messages = messages
        self.totals = [0, *accumulate(map(len, messages))]


class _Schematised:
    """A prompt with the request's schema tokens as its first part (as OpenAI caches `response_format` and tools)."""

    __slots__ = ("prompt", "schema", "total")

    def __init__(self, schema: tuple[str, ...], prompt: _Prompt) -> None:
        self.schema = schema
        self.prompt = prompt
        self.total = len(schema) + prompt.totals[-1]


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


_COMMON: dict[tuple[int, int], tuple[tuple[str, ...], tuple[str, ...], int]] = {}


def _common_of(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """`_common(a, b)`, remembered: the same two messages meet again at every turn of two conversations. Keyed by
    identity; the entry keeps both alive, so the ids cannot be reused while it holds."""
    key = (id(a), id(b))
    hit = _COMMON.get(key)
    if hit is not None and hit[0] is a and hit[1] is b:
        return hit[2]
    if len(_COMMON) >= 65536:
        _COMMON.clear()
    n = _common(a, b)
    _COMMON[key] = (a, b, n)
    return n


def _cached_prefix(previous: _Prompt, current: _Prompt) -> int:
    """Tokens `current` shares as a prefix with `previous`: whole equal messages, then the common start of the first
    differing one. Equal messages are mostly one object (`_message_tokens`), so the checks are mostly identities."""
    before, now = previous.messages, current.messages
    m = len(before)
    if m <= len(now) and (m == 0 or before[-1] is now[m - 1]) and now[:m] == before:
        return current.totals[m]  # the whole earlier prompt (the same conversation a turn on, or its twin)
    limit = min(m, len(now))
    i = 0
    while i < limit and (before[i] is now[i] or before[i] == now[i]):
        i += 1
    if i == limit:
        return current.totals[i]
    return current.totals[i] + _common_of(before[i], now[i])


T = TypeVar("T")
_KEPT = 32  # prompts remembered per conversation start: a prefix cache holds many conversations at once


def _keep(recent: list[T], item: T, where: int) -> None:
    """`item` in place of `recent[where]` (its own conversation, one turn on), or beside the others (-1), the
    `_KEPT` latest kept."""
    if where >= 0:
        recent[where] = item
    else:
        recent.append(item)
        del recent[:-_KEPT]


def _remember(recent: list[_Prompt], prompt: _Prompt, shared_with: dict[int, int]) -> int:
    """The cached tokens of `prompt`: its longest shared prefix with a remembered prompt, which it then replaces
    (the same conversation, one turn on); an unrelated prompt is remembered beside the others. Notes in
    `shared_with` what it shares with each, by id (for `_remember_schematised`, in the same request)."""
    best, where = 0, -1
    now, totals = prompt.messages, prompt.totals
    for index, previous in enumerate(recent):
        before = previous.messages
        m = len(before)
        if 0 < m <= len(now) and before[-1] is now[m - 1] and now[:m] == before:  # `_cached_prefix`'s first case
            shared = shared_with[id(previous)] = totals[m]
        else:
            shared = shared_with[id(previous)] = _cached_prefix(previous, prompt)
        if shared > best:
            best = shared
            if shared == previous.totals[-1]:  # the whole earlier prompt: the same conversation
                where = index
    _keep(recent, prompt, where)
    return best


def _remember_schematised(recent: list[_Schematised], entry: _Schematised, shared_with: dict[int, int]) -> int:
    """`_remember` for prompts led by their schema: the same schema, then the prompts' own shared prefix; another
    schema, the schemas' common start. Most of these prompts were just compared in `_remember` (`shared_with`)."""
    best, where = 0, -1
    schema, prompt = entry.schema, entry.prompt
    for index, previous in enumerate(recent):
        other = previous.schema
        shared = len(schema) if other is schema else _common_of(other, schema)
        if shared == len(schema) == len(other):  # the same schema: then the prompts
            known = shared_with.get(id(previous.prompt))
            shared += _cached_prefix(previous.prompt, prompt) if known is None else known
        if shared > best:
            best = shared
            if shared == previous.total:
                where = index
    _keep(recent, entry, where)
    return best


def message_text(message: dict[str, Any]) -> str:
    """What a message says, as counted: its text, then each tool call's function (name and arguments)."""
    content = message.get("content")
    parts = [content if isinstance(content, str) else ""]
    for call in message.get("tool_calls") or []:
        parts.append(json.dumps(call.get("function", {}), sort_keys=True))
    return " ".join(parts)
