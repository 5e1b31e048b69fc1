"""A local OpenAI-compatible chat server that plays legally from the request's own schema, and injects faults.

It stands in for a provider in tests, in `bench/llm_game.py` and in offline demos: `POST /v1/chat/completions`
answers in the shape of the Chat Completions API reference (content JSON for `response_format`, a forced
`tool_calls` entry for tools, a fenced block in prose for the prompt mode, `usage` with
`prompt_tokens_details.cached_tokens`), after a fixed latency. The answer is drawn from the JSON schema the seat
sent (the enum of legal seats), seeded by the request body, so it is always of the right shape and legal. With
`vary`, the n-th identical request gets the n-th draw (a repeated game goes another way, as with a sampling model);
`salt` gives another set of draws.

Cached tokens are computed as a prefix cache would: the tokens a request shares with the previous request of the same
conversation (same system prompt and first user turn). Faults are injected by a `FaultPlan`: the n-th request for a
schema name (e.g. the 3rd `vote_decision`) gets a 429 with Retry-After, a 500, a hang past the client's timeout, a
broken body, malformed JSON, the wrong schema, an illegal target, a refusal, an empty or cut-off answer, or a speech
far over its word limit.

The transport is `transport.py`: one asyncio event loop (in a daemon thread for the in-process server of the tests,
the main thread's for `python -m arena.standin` and `arena stand-in`), HTTP/1.1 by h11, bound to 127.0.0.1,
each answer sent `latency` after its request arrived. A tournament bench sends thousands of requests a second, and
this process shares the machine's cores with the client: request bodies are read with jiter, and the metering keeps
what it can between requests (a message's tokens, a schema's tokens, what two conversations share, which is fixed
once they differ), with the same figures as counting afresh. `bench/standin.py` measures its CPU per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import re
import signal
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate
from typing import IO, Any

import jiter

from arena.standin.transport import HttpRequest, HttpServer, Reply

FAULTS = (
    "rate_limit",  # 429 with Retry-After (and retry-after-ms)
    "server_error",  # 500
    "server_error_usage",  # 500 whose body still reports the tokens the attempt used (as some gateways do)
    "timeout",  # no answer until after the client's timeout
    "bad_body",  # HTTP 200 whose body is not JSON
    "bad_json",  # content that is not JSON at all
    "wrong_schema",  # valid JSON, wrong fields
    "illegal_target",  # right shape, a seat outside the enum
    "refusal",  # message.refusal set, no content
    "empty",  # empty content
    "cut_off",  # finish_reason length, JSON cut mid-string
    "overlong",  # a speech far over any word limit
    "unauthorized",  # 401 echoing the key half-masked, as OpenAI's message does
    "huge_body",  # HTTP 200 with a 20 MB answer, sent in chunks (the client reads a bounded body)
    "huge_answer",  # a valid completion whose content is 300 KiB (over the answer cap, under the body bound)
    "nested_body",  # HTTP 200 whose body is JSON nested 100,000 deep
)
TRANSIENT_FAULTS = ("rate_limit", "server_error", "server_error_usage", "timeout", "bad_body")
_TOKEN = re.compile(r"\w+|[^\w\s]")
_WORDS = ("i", "think", "seat", "is", "quiet", "today", "we", "should", "look", "at", "the", "votes", "and", "trust")
_JSON_BLOCK = re.compile(r"```json\s*\n(.*?)```", re.DOTALL)


def tokens(text: str) -> list[str]:
    """A crude tokenizer (words and punctuation), enough to count and compare prompts."""
    return _TOKEN.findall(text)


@dataclass
class FaultPlan:
    """Faults keyed by (schema name, n-th request for it, counting from 1). A name of "*" matches every request."""

    faults: dict[tuple[str, int], str] = field(default_factory=dict)
    hang_s: float = 2.0  # how long a `timeout` fault keeps the client waiting

    def add(self, fault: str, schema: str = "*", nth: int = 1) -> FaultPlan:
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
        self.faults[(schema, nth)] = fault
        return self


@dataclass
class ServerStats:
    requests: int = 0
    by_schema: Counter[str] = field(default_factory=Counter)
    injected: list[tuple[str, str, int]] = field(default_factory=list)  # (fault, schema, n-th)
    prompt_tokens: int = 0
    cached_tokens: int = 0
    schema_tokens: int = 0  # tokens of the schemas (response_format / tools) sent with the requests
    cached_schema_first: int = 0  # cached tokens if the schema were cached as the prompt's first part (OpenAI)
    authorization_seen: set[str] = field(default_factory=set)


_LEGAL_NOW = re.compile(r"(?:Legal now|Допустимо сейчас): \((\w+)\) ?(.*)$", re.MULTILINE)


def _last_user(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def _seat_list(text: str) -> list[int]:
    seats: list[int] = []
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        if low.isdigit():
            seats.extend(range(int(low), int(high or low) + 1))
    return seats


def _from_line(fields: str) -> dict[str, Any]:
    """A stable request's `Legal now:` line (`target: 1-3, 5 | null; ...`) as the strict per-request schema it
    stands for, so the server answers legally as it does from a per-request schema."""
    props: dict[str, Any] = {"reasoning": {"type": "string"}}
    for part in filter(None, (p.strip() for p in fields.split("; "))):
        name, _, value = part.partition(": ")
        if name == "action" and " | " not in value:
            continue  # one action only: the per-request schema leaves the field out
        if value.startswith("text"):
            props[name] = {"type": "string"}
        elif value == "true | false":
            props[name] = {"type": "boolean"}
        elif value.startswith("≤") and " of " in value:
            size, _, of = value[1:].partition(" of ")
            props[name] = {"type": "array", "items": {"enum": _seat_list(of)}, "maxItems": int(size)}
        else:
            values: list[Any] = []
            for choice in value.split(" | "):
                if choice[:1].isdigit():
                    values.extend(_seat_list(choice))
                elif choice != "null":
                    values.append(choice)
            spec: dict[str, Any] = {"enum": values} if values else {"type": "null"}
            props[name] = {"anyOf": [spec, {"type": "null"}]} if "null" in value.split(" | ") and values else spec
    return {"type": "object", "properties": props}


def _stable_options(body: dict[str, Any], schema: dict[str, Any] | None) -> tuple[str, dict[str, Any]] | None:
    """(kind, per-request schema) when the request carries the stable schema (or none, in a prompt mode) and its
    last user message says what is legal; None otherwise."""
    if schema is not None and "decision" not in (schema.get("properties") or {}):
        return None
    found = _LEGAL_NOW.findall(_last_user(body))
    if not found:
        return None
    kind, fields = found[-1]
    return str(kind), _from_line(str(fields))


def _canonical(schema: dict[str, Any]) -> list[Any]:
    """What a per-request schema allows, whatever its spelling: per field, its type, legal values, null, size."""
    out: list[Any] = []
    for name, spec in (schema.get("properties") or {}).items():
        if name == "reasoning":
            continue
        nullable = any(s.get("type") == "null" for s in spec.get("anyOf", [])) or spec.get("type") == "null"
        base = next((s for s in spec.get("anyOf", []) if s.get("type") != "null"), spec)
        values = base.get("enum") or (base.get("items") or {}).get("enum") or []
        kind = "array" if base.get("type") == "array" else ("boolean" if base.get("type") == "boolean" else "other")
        out.append([name, kind, sorted(values, key=str), nullable, base.get("maxItems")])
    return out


def _schema_of(body: dict[str, Any]) -> tuple[str, dict[str, Any] | None, str]:
    """(schema name, schema, mode) from a request: response_format, the forced tool, or a ```json block."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        spec = fmt.get("json_schema") or {}
        return str(spec.get("name", "")), spec.get("schema"), "json_schema"
    tools = body.get("tools") or []
    if tools:
        function = tools[0].get("function") or {}
        return str(function.get("name", "")), function.get("parameters"), "tools"
    mode = "json_object" if fmt.get("type") == "json_object" else "prompt"
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            blocks = _JSON_BLOCK.findall(str(message.get("content") or ""))
            if blocks:
                try:
                    schema = json.loads(blocks[-1])
                except json.JSONDecodeError:
                    break
                return _name_from(schema), schema, mode
            break
    return "", None, mode


def _name_from(schema: dict[str, Any]) -> str:
    props = list((schema.get("properties") or {}).keys())
    key = props[1] if len(props) > 1 else "reasoning"
    return {"speech": "speech_decision", "message": "black_message_decision"}.get(key, f"{key}_decision")


def _value(name: str, spec: dict[str, Any], rng: random.Random, overlong: bool) -> Any:
    if "anyOf" in spec:
        options = [s for s in spec["anyOf"] if s.get("type") != "null"]
        if not options or (name == "nominate" and rng.random() < 0.5) or (name == "claim" and rng.random() < 0.9):
            return None
        return _value(name, options[0], rng, overlong)
    kind = spec.get("type")
    if "enum" in spec:
        return rng.choice(spec["enum"]) if spec["enum"] else None
    if kind == "null":
        return None
    if kind == "object":  # a claim, or a probe's beliefs (one number per seat)
        return {key: _value(key, sub, rng, overlong) for key, sub in (spec.get("properties") or {}).items()}
    if kind == "number":
        return round(rng.random(), 3)
    if kind == "boolean":
        return rng.random() < (0.35 if name == "vote" else 0.2)
    if kind == "integer":
        return rng.randint(1, 10)
    if kind == "array":
        items = (spec.get("items") or {}).get("enum") or []
        size = min(int(spec.get("maxItems", len(items))), len(items))
        return rng.sample(items, size)
    if name == "reasoning":
        return "I weigh the speeches and the votes so far."
    count = 400 if overlong else rng.randint(6, 18)
    return " ".join(rng.choice(_WORDS) for _ in range(count))


def valid_answer(schema: dict[str, Any], rng: random.Random, overlong: bool = False) -> dict[str, Any]:
    """An answer object that satisfies `schema` (the seat's legal options), fields in schema order."""
    props = schema.get("properties") or {}
    return {name: _value(name, spec, rng, overlong) for name, spec in props.items()}


_NOT_FOUND = b'{"error": {"message": "not found"}}'


class _State:
    """What the server remembers between requests, and the answer to each; every call runs on the server's loop."""

    def __init__(
        self, latency_s: float, plan: FaultPlan, model_suffix: str, salt: str = "", vary: bool = False
    ) -> None:
        self.latency_s = latency_s
        self.salt = salt.encode()  # mixed into every answer's seed: another salt, other answers to the same prompts
        self.vary = vary  # the n-th identical request gets the n-th draw, as a model sampling at a temperature would
        self.repeats: Counter[bytes] = Counter()
        self.plan = plan
        self.model_suffix = model_suffix
        self.stats = ServerStats()
        # per conversation start, the latest prompts of the conversations that share it (concurrent games can)
        self.last_prompt: dict[tuple[Any, ...], list[_Prompt]] = {}
        self.last_schema_first: dict[tuple[Any, ...], list[_Schematised]] = {}
        self.record: IO[str] | None = None  # every POST body, one JSON string a line (`--record`)

    def handle(self, request: HttpRequest) -> Reply:
        path = request.target.decode("latin-1").rstrip("/")
        if request.method == b"GET":
            return self._get(path)
        if request.method != b"POST":
            return Reply(501, b'{"error": {"message": "unsupported method"}}')
        if not path.endswith("/chat/completions"):
            return Reply(404, _NOT_FOUND)
        return self._post(request)

    def _get(self, path: str) -> Reply:
        if path.endswith("/stats"):  # for a benchmark that runs the server in another process
            stats = self.stats
            body = {
                "requests": stats.requests,
                "prompt_tokens": stats.prompt_tokens,
                "cached_tokens": stats.cached_tokens,
                "schema_tokens": stats.schema_tokens,
                "cached_schema_first": stats.cached_schema_first,
                "injected": stats.injected,
            }
            return Reply(200, json.dumps(body).encode())
        if path.endswith("/models"):
            body = {"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "local"}]}
            return Reply(200, json.dumps(body).encode())
        return Reply(404, _NOT_FOUND)

    def _post(self, request: HttpRequest) -> Reply:
        raw = request.body
        if self.record is not None:
            self.record.write(json.dumps(raw.decode()) + "\n")
        body = _loads(raw)
        name, schema, mode = _schema_of(body)
        stable = _stable_options(body, schema)
        sent_name = name  # the name the request used (`decision` for the stable schema): the answer's tool name
        if stable is not None:  # answer from the legal options; faults are planned per decision kind as before
            name, schema = f"{stable[0]}_decision", stable[1]
        stats = self.stats
        stats.requests += 1
        stats.by_schema[name] += 1
        nth = stats.by_schema[name]
        auth = request.header(b"authorization")
        if auth:
            stats.authorization_seen.add(auth)
        fault = self.plan.faults.get((name, nth)) or self.plan.faults.get(("*", stats.requests))
        if fault:
            stats.injected.append((fault, name, nth))
        latency = self.latency_s  # the answer leaves `latency` after the request arrived, whatever the work took
        if fault == "rate_limit":
            error = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
            return Reply(429, json.dumps(error).encode(), (("Retry-After", "1"), ("retry-after-ms", "50")), latency)
        if fault == "server_error":
            error = {"error": {"message": "The server had an error", "type": "server_error"}}
            return Reply(500, json.dumps(error).encode(), delay_s=latency)
        if fault == "server_error_usage":
            usage = self._usage(body, "", raw)
            error = {"error": {"message": "The server had an error after reading the prompt"}, "usage": usage}
            return Reply(500, json.dumps(error).encode(), delay_s=latency)
        if fault == "timeout":  # past the latency, `hang_s` more before a late 504
            return Reply(504, b'{"error": {"message": "too late"}}', delay_s=latency + self.plan.hang_s)
        if fault == "unauthorized":
            token = (auth or "").removeprefix("Bearer ")
            masked = f"{token[:8]}{'*' * max(len(token) - 12, 0)}{token[-4:]}"
            error = {"error": {"message": f"Incorrect API key provided: {masked}.", "code": "invalid_api_key"}}
            return Reply(401, json.dumps(error).encode())
        if fault == "huge_body":  # the client may hang up early (it reads a bounded body)
            return Reply(200, chunks=_huge_body)
        if fault == "nested_body":
            return Reply(200, b"[" * 100_000 + b"]" * 100_000)
        if fault == "huge_answer":
            answer = {"model": "fake-model", "choices": [{"index": 0, "finish_reason": "stop",
                      "message": {"role": "assistant", "content": "{" + " " * 300 * 1024 + "}"}}]}  # fmt: skip
            return Reply(200, json.dumps(answer).encode())
        if fault == "bad_body":
            return Reply(200, b'{"id": "chatcmpl-broken", "choices": [ {"mess', delay_s=latency)
        completion = self._completion(body, raw, name, schema, mode, fault, stable is not None, sent_name)
        return Reply(200, json.dumps(completion).encode(), delay_s=latency)

    def _completion(
        self,
        body: dict[str, Any],
        raw: bytes,
        name: str,
        schema: dict[str, Any] | None,
        mode: str,
        fault: str | None,
        stable: bool = False,
        sent_name: str = "",
    ) -> dict[str, Any]:
        key = body.get("prompt_cache_key")
        if isinstance(key, str) and schema is not None:
            # one key per seat: seed by the seat, the decision's legal options and the conversation's length, not
            # the wording, so two request shapes (stable, per-request) of the same seeds play the same game
            basis = json.dumps([key, name, _canonical(schema), len(body.get("messages") or [])]).encode()
        else:
            basis = raw
        hashed = hashlib.sha256(self.salt)
        hashed.update(basis)
        digest = hashed.digest()
        if self.vary:  # a repeated game (the same seating again) draws other answers from its first repeat on
            nth = self.repeats[digest]
            self.repeats[digest] += 1
            if nth:
                digest = hashlib.sha256(digest + nth.to_bytes(8, "big")).digest()
        seed = int.from_bytes(digest[:8], "big")
        rng = random.Random(seed)
        answer = valid_answer(schema or {}, rng, overlong=fault == "overlong")
        if fault == "wrong_schema":
            answer = {"thoughts": "hmm", "decision": "maybe"}
        elif fault == "illegal_target":
            for key in ("target", "nominate"):
                if key in answer:
                    answer[key] = 99
            if "targets" in answer or "kill_order" in answer:
                answer["targets" if "targets" in answer else "kill_order"] = [99]
            if "vote" in answer:
                answer["vote"] = "perhaps"
        if stable and fault != "wrong_schema":  # the stable shape: {reasoning, decision: {fields}}
            reasoning = answer.pop("reasoning", "")
            answer = {"reasoning": reasoning, "decision": answer}
        text = json.dumps(answer, ensure_ascii=False)
        finish = "stop"
        refusal = None
        if fault == "bad_json":
            text = "I think seat 3 is suspicious, so my vote goes there. {reasoning: no quotes, target: 3"
        elif fault == "refusal":
            text, refusal = "", "I'm sorry, but I can't help with that."
        elif fault == "empty":
            text = ""
        elif fault == "cut_off":  # cut inside the longest text field, as a token limit does
            start = max(text.find('"speech": "'), text.find('"message": "'))
            text, finish = text[: start + 16 if start > 0 else max(len(text) // 2, 12)], "length"
        if mode == "prompt" and text and fault not in ("bad_json", "cut_off"):
            text = f"Here is my decision.\n```json\n{text}\n```"
        message: dict[str, Any] = {"role": "assistant", "content": text or None, "refusal": refusal}
        if mode == "tools" and fault not in ("refusal", "empty", "bad_json"):
            function = {"name": sent_name or name, "arguments": text}
            call = {"id": f"call_{seed % 10**8}", "type": "function", "function": function}
            message = {"role": "assistant", "content": None, "refusal": None, "tool_calls": [call]}
            finish = "length" if fault == "cut_off" else "tool_calls"
        usage = self._usage(body, text, raw)
        return {
            "id": f"chatcmpl-{seed % 10**12}",
            "object": "chat.completion",
            "created": 1_790_000_000,
            "model": f"{body.get('model', 'fake')}{self.model_suffix}",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": usage,
            "system_fingerprint": "fp_local",
        }

    def _usage(self, body: dict[str, Any], text: str, raw: bytes) -> dict[str, Any]:
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


def _loads(raw: bytes) -> Any:
    """`json.loads(raw)`, by jiter (openai's own parser: the same objects, a third of the time on these bodies) when
    it can; by json when it cannot (a lone surrogate escape, a body not in UTF-8), so a body reads as json reads it."""
    try:
        return jiter.from_json(raw)
    except ValueError:
        return json.loads(raw)


def _huge_body() -> Iterator[bytes]:
    """A 20 MB answer in 64 KiB chunks."""
    yield b'{"model":"fake-model","choices":[{"index":0,"message":{"role":"assistant","content":"'
    part = b"A" * 65536
    for _ in range(320):
        yield part
    yield b'"}}]}'


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
            content = _content(message)
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


_KEPT = 32  # prompts remembered per conversation start: a prefix cache holds many conversations at once


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
    if where >= 0:
        recent[where] = prompt
    else:
        recent.append(prompt)
        del recent[:-_KEPT]
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
    if where >= 0:
        recent[where] = entry
    else:
        recent.append(entry)
        del recent[:-_KEPT]
    return best


def _content(message: dict[str, Any]) -> str:
    content = message.get("content")
    parts = [content if isinstance(content, str) else ""]
    for call in message.get("tool_calls") or []:
        parts.append(json.dumps(call.get("function", {}), sort_keys=True))
    return " ".join(parts)


class FakeServer:
    """Start with `with FakeServer(...) as server:`; point clients at `server.base_url`. `start()` serves on an
    event loop in a daemon thread; `serve()` serves on the running loop instead (`arena stand-in`)."""

    def __init__(
        self,
        latency_s: float = 0.0,
        plan: FaultPlan | None = None,
        model_suffix: str = "-2026-01-01",
        port: int = 0,
        salt: str = "",
        vary: bool = False,
    ) -> None:
        self._state = _State(latency_s, plan or FaultPlan(), model_suffix, salt, vary)
        self._http = HttpServer(self._state.handle, "127.0.0.1", port)  # bound now: a taken port fails here

    @property
    def base_url(self) -> str:
        host, port = self._http.address
        return f"http://{host!s}:{port}/v1"

    @property
    def stats(self) -> ServerStats:
        return self._state.stats

    def record_to(self, out: IO[str]) -> FakeServer:
        """Write every POST body to `out`, one JSON string a line (the bodies `bench/standin.py` replays)."""
        self._state.record = out
        return self

    @property
    def started(self) -> bool:
        """True once `start()` serves it in a thread of its own."""
        return self._http.threaded

    def start(self) -> FakeServer:
        self._http.start()
        return self

    async def serve(self) -> None:
        """Serve on the running event loop until cancelled (or `stop()`)."""
        await self._http.serve()

    def stop(self) -> None:
        self._http.stop()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    """`python -m arena.standin [--port 8765] [--latency 0.1]`: serve until interrupted."""
    import argparse

    parser = argparse.ArgumentParser(description="A local OpenAI-compatible server that plays legal Mafia decisions.")
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds to wait before each answer")
    parser.add_argument("--salt", default="", help="mixed into the answers' seeds: other answers to equal prompts")
    parser.add_argument("--vary", action="store_true", help="a repeated request gets another answer each time")
    parser.add_argument("--record", metavar="FILE", help="append every request body to FILE, one JSON string a line")
    args = parser.parse_args(argv)
    server = FakeServer(latency_s=args.latency, port=args.port, salt=args.salt, vary=args.vary)
    with contextlib.ExitStack() as stack:
        if args.record:
            server.record_to(stack.enter_context(open(args.record, "a", encoding="utf-8", buffering=1)))
        print(server.base_url, flush=True)
        serve_until_interrupted(server)


def serve_until_interrupted(server: FakeServer) -> None:
    """Serve `server` on this thread's event loop until Ctrl-C or SIGTERM, then stop it. (One `start()`ed already
    serves in its thread: then wait for Ctrl-C.)"""

    async def run() -> None:
        with contextlib.suppress(NotImplementedError):  # no signal handlers in this loop (Windows)
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, server.stop)
        await server.serve()

    try:
        if server.started:
            threading.Event().wait()
        else:
            asyncio.run(run())
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
