"""Plain records: the engine's hot types (`Event`, `Request`) are slotted dataclasses, built thousands of times per
game, with pydantic kept at the edges.

This mixin gives them the few pydantic-style methods the edges call (`model_dump`, `model_dump_json`, `model_copy`,
`model_validate`), so transcripts, tests and other modules treat them as before. `model_dump_json` writes the same
bytes pydantic wrote (compact JSON, UTF-8 kept, fields in declaration order), which keeps old transcripts and golden
files byte-identical. Validation of untrusted data (a transcript's line) still goes through pydantic, imported only
when first needed.
"""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from typing import Any, Literal, Self

_ADAPTERS: dict[type, Any] = {}
# `json.dumps(..., ensure_ascii=False, separators=(",", ":"))` builds this very encoder on every call: built once
COMPACT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # a record's compact JSON (the writer too)
_FIELDS: dict[type, tuple[tuple[str, ...], dict[str, Any]]] = {}  # per class: field names, defaults


_SCALARS = frozenset({int, str, float, bool, type(None)})  # exactly these types: their JSON value is themselves


def _jsonable(value: Any, exclude_defaults: bool) -> Any:
    if type(value) in _SCALARS:  # most fields (no enum, list, record or model among them)
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_jsonable(v, exclude_defaults) for v in value]
    if isinstance(value, PlainRecord):
        return value.model_dump(mode="json", exclude_defaults=exclude_defaults)
    dump = getattr(value, "model_dump", None)  # a pydantic model inside (e.g. Request.default, a Decision)
    if dump is not None:
        return dump(mode="json", exclude_defaults=exclude_defaults)
    return value


class PlainRecord:
    """Base of a slotted dataclass record: pydantic-compatible dumping, copying and validating."""

    __slots__ = ()

    @classmethod
    def _fields(cls) -> tuple[tuple[str, ...], dict[str, Any]]:
        found = _FIELDS.get(cls)
        if found is None:
            fields = dataclasses.fields(cls)  # type: ignore[arg-type]
            defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
            found = _FIELDS[cls] = (tuple(f.name for f in fields), defaults)
        return found

    def model_dump(
        self, *, mode: Literal["python", "json"] = "python", exclude_defaults: bool = False
    ) -> dict[str, Any]:
        """The fields as a dict, in declaration order; `mode="json"` gives JSON types (enum values, lists)."""
        names, defaults = self._fields()
        if not exclude_defaults:
            defaults = {}
        out: dict[str, Any] = {}
        for name in names:
            value = getattr(self, name)
            if name in defaults and value == defaults[name]:
                continue
            if mode == "json":
                value = _jsonable(value, exclude_defaults)
            elif isinstance(value, PlainRecord):
                value = value.model_dump(exclude_defaults=exclude_defaults)
            else:
                dump = getattr(value, "model_dump", None)
                if dump is not None:
                    value = dump(exclude_defaults=exclude_defaults)
            out[name] = value
        return out

    def model_dump_json(self, *, exclude_defaults: bool = False) -> str:
        """Compact JSON, byte for byte what pydantic's `model_dump_json` gave for the same fields."""
        return COMPACT_JSON.encode(self.model_dump(mode="json", exclude_defaults=exclude_defaults))

    def model_copy(self, *, update: dict[str, Any] | None = None) -> Self:
        """A copy with some fields changed (no validation, as in pydantic)."""
        return dataclasses.replace(self, **(update or {}))  # type: ignore[type-var]

    @classmethod
    def model_validate(cls, data: Any) -> Self:
        """Build from untrusted data (a parsed JSON object), with pydantic's checks; raises ValidationError."""
        adapter = _ADAPTERS.get(cls)
        if adapter is None:
            from pydantic import TypeAdapter  # only the edges validate; the engine itself never does

            adapter = _ADAPTERS[cls] = TypeAdapter(cls)
        result: Self = adapter.validate_python(data)
        return result
