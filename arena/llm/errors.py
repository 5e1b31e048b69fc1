"""What a failed HTTP answer means: worth another attempt, a request the server will always refuse, or a prompt that
does not fit the model's context.

Retrying only helps where the server's state can change (429, 408/409, 5xx, a lost connection). A 400, 401, 403, 404
(an unknown model), 413 or 422 is refused again on every retry, so it is reported as what it is and never retried.
One 400 is special: a prompt over the context window. Each server words it its own way, read from their sources:

- llama.cpp's `llama-server` (tools/server/server-context.cpp, server-common.cpp):
  `{"error": {"code": 400, "message": "request (8534 tokens) exceeds the available context size (8192 tokens), try
  increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 8534, "n_ctx": 8192}}`;
- OpenAI: `{"error": {"message": "This model's maximum context length is 128000 tokens. However, your messages
  resulted in 130123 tokens. ...", "type": "invalid_request_error", "param": "messages", "code":
  "context_length_exceeded"}}`;
- vLLM: `{"error": {"message": "This model's maximum context length is 4096 tokens. However, your request has 5000
  input tokens. ...", "type": "BadRequestError", "param": null, "code": 400}}`;
- Ollama's `/v1` cuts an over-long prompt silently by default (a 200); where it refuses, it passes on its llama.cpp
  runner's words ("... exceeds the available context size ...") or says "the input length exceeds the context length".

An overflow is answered by compacting the seat's conversation and one new attempt (`arena/llm/compaction.py`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

REFUSED_STATUS = frozenset({400, 401, 403, 404, 413, 422})  # the same request gets the same answer

_OVERFLOW_TEXT = re.compile(
    r"exceeds the available context size|maximum context length|context_length_exceeded|context length exceeded"
    r"|input length exceeds the context length|larger than the max context size|prompt is too long",
    re.IGNORECASE,
)
_LLAMA = re.compile(r"request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)")
_OPENAI = re.compile(r"maximum context length is (\d+) tokens.*?(?:resulted in|has|requested) (\d+)", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Overflow:
    """A prompt the server said does not fit: its size and the window, where the server said them (else 0)."""

    prompt_tokens: int = 0
    context_tokens: int = 0


def error_fields(body: Any) -> dict[str, Any]:
    """The `error` object of an error body (OpenAI's shape, which llama.cpp, vLLM and Ollama's /v1 share)."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            return inner
        if isinstance(inner, str):
            return {"message": inner}
    return {}


def overflow_of(status: int | None, body: Any, message: str = "") -> Overflow | None:
    """The context overflow this error reports, or None if it is another error."""
    if status not in (400, 413, None):
        return None
    fields = error_fields(body)
    text = f"{fields.get('message') or ''} {message}"
    typed = fields.get("type") == "exceed_context_size_error" or fields.get("code") == "context_length_exceeded"
    if not typed and not _OVERFLOW_TEXT.search(text):
        return None
    prompt, window = _int(fields.get("n_prompt_tokens")), _int(fields.get("n_ctx"))
    if not (prompt and window):
        if found := _LLAMA.search(text):
            prompt, window = int(found.group(1)), int(found.group(2))
        elif found := _OPENAI.search(text):
            window, prompt = int(found.group(1)), int(found.group(2))
    return Overflow(prompt, window)


def refused(status: int | None) -> bool:
    """True for an HTTP status that the same request will get again (never retried)."""
    return status in REFUSED_STATUS


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
