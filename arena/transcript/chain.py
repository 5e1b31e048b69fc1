"""The hash chain: since format version 2 every line carries `hash`, SHA-256 over the previous line's hash and the
canonical JSON of the line without it, so an edit, insertion or removal breaks the chain; the end record seals it and,
when a key is given, carries `sig`, an HMAC of its hash. The chain is generic: it covers any record, whatever its
fields. The writer links each line as it writes it; the reader checks each link (`check_link`) as it reads.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Callable, Mapping, Sequence
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

from arena.transcript.records import Transcript, TranscriptError

# `json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` builds this very encoder on every
# call (three or four lines per model call): built once, the same bytes
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(record: Mapping[str, Any]) -> bytes:
    """The bytes a line's hash covers: its JSON with sorted keys, no spaces, UTF-8 (the `hash`/`sig` fields out)."""
    return _CANONICAL.encode(record).encode("utf-8")


def chain_hash(previous: str, record: Mapping[str, Any]) -> str:
    """hex SHA-256(previous hash as ASCII hex + canonical(record))."""
    return hashlib.sha256(previous.encode("ascii") + canonical(record)).hexdigest()


# `canonical` refusing NaN and the infinities, for the writer's values (below), which fall back to the parsed line
# for them. Called as the C encoder that `JSONEncoder.encode` builds around every call (two Python calls and a new
# encoder per line), with no check for cycles: the values were just encoded as the line, so they hold none.
_CANONICAL_FINITE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_FINITE_C: Callable[[Any, int], Sequence[str]] | None = (
    c_make_encoder(None, _CANONICAL_FINITE.default, encode_basestring, None, ":", ",", True, False, False)
    if c_make_encoder is not None
    else None
)


def chain_hash_of(previous: str, line: str, values: Mapping[str, Any] | None) -> str:
    """`chain_hash(previous, json.loads(line))`, from `values` when the writer has them: the record as the JSON
    values its line was encoded from (string keys, lists), which is what parsing `line` gives back. Values holding
    NaN or an infinity (which a pydantic line writes as null), or anything else the strict encoder refuses, and a
    line without values, are parsed back as before."""
    if values is not None:
        try:
            text = "".join(_FINITE_C(values, 0)) if _FINITE_C is not None else _CANONICAL_FINITE.encode(values)
            body = text.encode("utf-8")
        except (ValueError, TypeError, RecursionError):
            pass
        else:
            return hashlib.sha256(previous.encode("ascii") + body).hexdigest()
    return chain_hash(previous, json.loads(line))


def signature(key: bytes, end_hash: str) -> str:
    """The end record's `sig`: hex HMAC-SHA256 of its hash (which covers every line before it) under `key`."""
    return hmac.new(key, end_hash.encode("ascii"), hashlib.sha256).hexdigest()


def sign_key_from_env(variable: str) -> bytes:
    """The signing key held by environment variable `variable` (never a file, never the header)."""
    value = os.environ.get(variable)
    if not value:
        raise TranscriptError(f"the environment variable {variable} (the signing key) is not set or empty")
    return value.encode("utf-8")


def check_link(out: Transcript, number: int, data: dict[str, Any], previous: str) -> str:
    """Check one line's `hash` against the chain; note the first break. Returns the hash to chain on from."""
    recorded = data.pop("hash", None)
    if out.chain_error is None:
        if not isinstance(recorded, str):
            out.chain_error = f"line {number} has no hash: the chain is broken (a line was added or edited)"
        elif not hmac.compare_digest(recorded, chain_hash(previous, data)):
            out.chain_error = (
                f"line {number} does not match its hash: the file was edited at or before this line "
                "(a changed, inserted or removed line)"
            )
    return recorded if isinstance(recorded, str) else ""
