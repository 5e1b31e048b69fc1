"""What the stand-in answers: a decision drawn from the request's own schema, so it is always of the right shape
and legal.

The schema is the one the seat sent (`response_format`, the forced tool, or a ```json block in a prompt mode), or,
for the stable schema, the request's own `Legal now:` line read back as the per-request schema it stands for. A draw
picks from the enum of legal seats and writes a few words for a speech; `canonical` is what a schema allows, whatever
its spelling, so the server can seed an answer by the options and not by their wording.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

_WORDS = ("i", "think", "seat", "is", "quiet", "today", "we", "should", "look", "at", "the", "votes", "and", "trust")
_JSON_BLOCK = re.compile(r"```json\s*\n(.*?)```", re.DOTALL)



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


def stable_options(body: dict[str, Any], schema: dict[str, Any] | None) -> tuple[str, dict[str, Any]] | None:
    """(kind, per-request schema) when the request carries the stable schema (or none, in a prompt mode) and its
    last user message says what is legal; None otherwise."""
    if schema is not None and "decision" not in (schema.get("properties") or {}):
        return None
    found = _LEGAL_NOW.findall(_last_user(body))
    if not found:
        return None
    kind, fields = found[-1]
    return str(kind), _from_line(str(fields))


def canonical(schema: dict[str, Any]) -> list[Any]:
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


def schema_of(body: dict[str, Any]) -> tuple[str, dict[str, Any] | None, str]:
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
        if name in ("black", "red"):  # a claim's checks: none, so a drawn claim never names a seat twice
            return []
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
