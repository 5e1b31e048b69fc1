"""Reading a server's answer with a bound: a response body is read up to `MAX_BODY_BYTES` and parsed safely.

A model's answer has no natural size limit, and one 18 MB answer became gigabytes in memory and a transcript line
the reader refuses. Both transports (the SDK's httpx stream, the direct path's aiohttp stream) read the body in
chunks and stop just past the bound: an oversize body raises `AnswerTooLarge` with its first bytes, which the client
turns into an unusable answer (re-asked like any other). A body of deeply nested JSON is a malformed body (the same
`json.JSONDecodeError` as broken JSON), never a RecursionError.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from arena.llm.modes import ANSWER_KEPT_BYTES, MAX_ANSWER_BYTES

MAX_BODY_BYTES = 8 * MAX_ANSWER_BYTES  # the whole JSON body: the answer, escaped, plus the envelope and usage


class AnswerTooLarge(Exception):
    """A response body over `MAX_BODY_BYTES`; `head` is its first bytes, `size` how many were read (at least)."""

    def __init__(self, head: bytes, size: int) -> None:
        super().__init__(f"the response body is over {MAX_BODY_BYTES:,} bytes")
        self.head = head
        self.size = size


async def read_bounded(chunks: AsyncIterator[bytes], limit: int = MAX_BODY_BYTES) -> bytes:
    """The whole body, or AnswerTooLarge as soon as more than `limit` bytes arrived (the rest is never read)."""
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        parts.append(chunk)
        size += len(chunk)
        if size > limit:
            raise AnswerTooLarge(b"".join(parts)[:ANSWER_KEPT_BYTES], size)
    return b"".join(parts)


def parse_body(raw: bytes) -> dict[str, Any]:
    """The JSON object of a body; `{}` for JSON that is not an object (read as an empty answer). Broken or deeply
    nested JSON raises json.JSONDecodeError, which the retry layer treats as a malformed body."""
    try:
        parsed = json.loads(raw)
    except RecursionError:
        text = raw[:200].decode("utf-8", "replace")
        raise json.JSONDecodeError("nested too deeply", text, 0) from None
    except UnicodeDecodeError as exc:
        raise json.JSONDecodeError(f"not UTF-8 ({exc.reason})", "", 0) from None
    return parsed if isinstance(parsed, dict) else {}
