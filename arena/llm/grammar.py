"""A decision schema as a llama.cpp grammar (GBNF) that leaves no free whitespace.

llama.cpp turns a `response_format` JSON schema into a grammar whose `space` rule allows up to 22 characters of
whitespace at every position between tokens (`"\\n"{1,2} [ \\t]{0,20}`, common/json-schema-to-grammar.cpp).
A weak model loops on it: 80 tokens of tabs and newlines inside one object, until `max_tokens`. Our answer schemas
are a small, fixed subset of JSON Schema (objects whose properties are all required and in order, strings, enums,
integers, numbers, booleans, null, `anyOf`, arrays with `maxItems`), so the grammar is written here directly, with
no whitespace anywhere outside strings: the answer is compact JSON or nothing. An agent asks for it with
`grammar = true` (llama.cpp only: the request then carries `grammar` instead of `response_format`, in the
`json_schema` mode); a schema outside the subset returns None and the request keeps its `response_format`.
"""

from __future__ import annotations

import json
from typing import Any

# a JSON string's characters (no control characters), as llama.cpp's own converter writes them
_STRING = r'"\"" char* "\""'
_CHAR = r'char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})'
_NUMBER = r'"-"? [0-9]{1,15} ("." [0-9]{1,15})?'
_INTEGER = r'"-"? [0-9]{1,15}'


class _Unsupported(Exception):
    pass


def _literal(value: Any) -> str:
    """A GBNF literal for the JSON encoding of `value`."""
    text = json.dumps(value, ensure_ascii=False)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _value(schema: Any) -> str:
    if not isinstance(schema, dict):
        raise _Unsupported
    if "anyOf" in schema:
        return "(" + " | ".join(_value(branch) for branch in schema["anyOf"]) + ")"
    if "enum" in schema:
        return "(" + " | ".join(_literal(v) for v in schema["enum"]) + ")"
    kind = schema.get("type")
    if kind == "object":
        return _object(schema)
    if kind == "array":
        return _array(schema)
    simple = {"string": _STRING, "integer": _INTEGER, "number": _NUMBER, "boolean": '("true" | "false")',
              "null": '"null"'}  # fmt: skip
    if isinstance(kind, str) and kind in simple:
        return f"({simple[kind]})"
    raise _Unsupported


def _object(schema: dict[str, Any]) -> str:
    props = schema.get("properties") or {}
    if set(schema.get("required") or []) != set(props) or schema.get("additionalProperties", False) is not False:
        raise _Unsupported  # only the shape our schemas have: every property, in order, nothing else
    if not props:
        return '"{}"'
    parts = [f"{_literal(name)} \":\" {_value(spec)}" for name, spec in props.items()]
    return '"{" ' + ' "," '.join(parts) + ' "}"'


def _array(schema: dict[str, Any]) -> str:
    item = _value(schema.get("items") or {})
    most = schema.get("maxItems")
    if most == 0:
        return '"[]"'
    rest = f'("," {item}){{0,{int(most) - 1}}}' if isinstance(most, int) else f'("," {item})*'
    return f'"[" ({item} {rest})? "]"'


def compact_grammar(schema: dict[str, Any]) -> str | None:
    """The GBNF of `schema` with no whitespace outside strings, or None for a schema outside our subset."""
    try:
        root = _value(schema)
    except (_Unsupported, TypeError, ValueError):
        return None
    return f"root ::= {root}\n{_CHAR}\n"
