"""The JSON a model must answer for one Request: a strict schema built from the legal options, and its reading.

Every schema starts with the private `reasoning`, then the public or action fields, and lists only what the request
allows: the seats that may be targeted as an enum, `null` only where abstaining is legal, the sheriff's actions,
the maniac's sides. The schema is what the model is *told*; reading an answer back (`to_decision`) checks its shape
only (an object, the right field names and types) and passes values through unchanged, because legality is the
engine's to judge (`Game.check`), with its own reasons for the re-ask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from arena.engine import Claim, Decision, Kind, Request, Role

JsonType = Literal["string", "integer", "boolean", "array", "claim", "beliefs"]
CLAIM_ROLES = tuple(r.value for r in Role)


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One answer field: its JSON type, the allowed values (enum), whether null is allowed, an array's size cap."""

    name: str
    type: JsonType
    enum: tuple[int | str, ...] | None = None
    nullable: bool = False
    max_items: int = 0

    def schema(self) -> dict[str, Any]:
        if self.type == "claim":  # an optional structured role claim: null, or the role and the checks announced
            seats = {"type": "array", "items": {"type": "integer"}}
            claim = {"type": "object", "properties": {"role": {"type": "string", "enum": list(self.enum or ())},
                     "black": seats, "red": seats}, "required": ["role", "black", "red"],
                     "additionalProperties": False}  # fmt: skip
            return {"anyOf": [claim, {"type": "null"}]}
        if self.type == "beliefs":  # one probability per seat, keyed by the seat number
            keys = [str(s) for s in self.enum or ()]
            number = {"type": "number", "minimum": 0, "maximum": 1}
            return {"type": "object", "properties": dict.fromkeys(keys, number), "required": keys,
                    "additionalProperties": False}  # fmt: skip
        if self.type == "array":
            items: dict[str, Any] = {"type": "integer"}
            if self.enum is not None:
                items["enum"] = list(self.enum)
            return {"type": "array", "items": items, "maxItems": self.max_items}
        base: dict[str, Any] = {"type": self.type}
        if self.enum is not None:
            if not self.enum:  # nothing to choose: only null is possible
                return {"type": "null"}
            base["enum"] = list(self.enum)
        if self.nullable:
            return {"anyOf": [base, {"type": "null"}]}
        return base


_TARGET_KINDS = {Kind.BALLOT, Kind.SHOOT, Kind.DON_CHECK, Kind.MANIAC_KILL, Kind.HEAL, Kind.VISIT, Kind.SHERIFF}


def answer_fields(request: Request) -> list[FieldSpec]:
    """The fields of the answer to `request`, reasoning first."""
    fields = [FieldSpec("reasoning", "string")]
    kind = request.kind
    if kind is Kind.SPEECH:
        fields.append(FieldSpec("speech", "string"))
        if request.may_nominate:
            fields.append(FieldSpec("nominate", "integer", request.nominate_options, nullable=True))
        if request.may_request_extra:
            fields.append(FieldSpec("extra", "boolean"))
        fields.append(FieldSpec("claim", "claim", CLAIM_ROLES, nullable=True))
    elif kind is Kind.VOTE:
        fields.append(FieldSpec("vote", "boolean"))
    elif kind in _TARGET_KINDS:
        if kind is Kind.SHERIFF and len(request.actions) > 1:
            fields.append(FieldSpec("action", "string", request.actions))
        fields.append(FieldSpec("target", "integer", request.options, nullable=request.allow_none))
    elif kind is Kind.BEST_MOVE:
        fields.append(FieldSpec("targets", "array", request.options, max_items=request.max_targets))
    elif kind is Kind.BLACK_MESSAGE:
        fields.append(FieldSpec("message", "string"))
        if request.may_set_order:
            fields.append(FieldSpec("kill_order", "array", request.options, max_items=request.max_targets))
    elif kind is Kind.CHOOSE_SIDE:
        fields.append(FieldSpec("side", "string", request.choices))
    elif kind is Kind.PROBE:
        fields.append(FieldSpec("beliefs", "beliefs", request.options))
    return fields


def schema_name(request: Request) -> str:
    return f"{request.kind.value}_decision"


def answer_schema(request: Request) -> dict[str, Any]:
    """A JSON schema valid under OpenAI's strict mode: every field required, no extra fields."""
    fields = answer_fields(request)
    return {
        "type": "object",
        "properties": {f.name: f.schema() for f in fields},
        "required": [f.name for f in fields],
        "additionalProperties": False,
    }


class ShapeError(ValueError):
    """The answer is JSON but not the shape asked for; the message says which field and why."""


def _integer(name: str, value: Any, nullable: bool) -> int | None:
    if value is None:
        if nullable:
            return None
        raise ShapeError(f"field {name!r} must be a seat number, not null")
    if isinstance(value, bool):
        raise ShapeError(f"field {name!r} must be a seat number, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise ShapeError(f"field {name!r} must be a seat number{' or null' if nullable else ''}, got {value!r}")


def _boolean(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("yes", "no", "true", "false"):
        return value.strip().lower() in ("yes", "true")
    raise ShapeError(f"field {name!r} must be true or false, got {value!r}")


def _string(name: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    raise ShapeError(f"field {name!r} must be a string, got {type(value).__name__}")


def _seats(name: str, value: Any) -> tuple[int, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ShapeError(f"field {name!r} must be a list of seat numbers, got {value!r}")
    return tuple(_integer(name, v, nullable=False) or 0 for v in value)


def _claim(value: Any) -> Claim | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("role"), str):
        raise ShapeError(f"field 'claim' must be null or an object with a role, got {value!r}")
    return Claim(role=value["role"], black=_seats("claim.black", value.get("black")),
                 red=_seats("claim.red", value.get("red")))  # fmt: skip


def _beliefs(spec: FieldSpec, value: Any) -> tuple[float, ...]:
    if not isinstance(value, dict):
        raise ShapeError(f"field 'beliefs' must be an object of seat: probability, got {value!r}")
    out: list[float] = []
    for seat in spec.enum or ():
        p = value.get(str(seat))
        if isinstance(p, bool) or not isinstance(p, int | float):
            raise ShapeError(f"field 'beliefs' needs a number from 0 to 1 for seat {seat}, got {p!r}")
        out.append(float(p))
    return tuple(out)


def _read(spec: FieldSpec, value: Any) -> Any:
    if spec.type == "claim":
        return _claim(value)
    if spec.type == "beliefs":
        return _beliefs(spec, value)
    if spec.type == "integer":
        return _integer(spec.name, value, spec.nullable or spec.enum == ())
    if spec.type == "boolean":
        return _boolean(spec.name, value)
    if spec.type == "array":
        return _seats(spec.name, value)
    return _string(spec.name, value)


_EMPTY: dict[str, Any] = {"string": "", "integer": None, "boolean": False, "array": (), "claim": None, "beliefs": ()}


def to_decision(request: Request, data: dict[str, Any], *, partial: bool = False) -> Decision:
    """Read an answer object into a Decision; raise ShapeError if a field is missing or of the wrong type.

    `reasoning` may be missing (it is private and optional to the engine); extra fields are ignored. Values are not
    checked against the legal options: an illegal target reaches the engine, which refuses it with a reason.
    `partial` reads an answer cut off by the token limit: the fields it never reached are empty (no nomination, no
    extra word), but at least one field after the reasoning must have arrived.
    """
    specs = answer_fields(request)
    if partial and not any(f.name in data for f in specs[1:]):
        raise ShapeError("the answer was cut off before its first public field")
    values: dict[str, Any] = {}
    for spec in specs:
        if spec.name not in data:
            if spec.name in ("reasoning", "claim") or partial:  # the claim is optional: a missing one is none
                values[spec.name] = _EMPTY[spec.type] if spec.name != "reasoning" else ""
                continue
            expected = ", ".join(f.name for f in specs)
            raise ShapeError(f"field {spec.name!r} is missing; the answer needs: {expected}")
        values[spec.name] = _read(spec, data[spec.name])
    fields: dict[str, Any] = {"reasoning": values.pop("reasoning")}
    if "speech" in values:
        fields["text"] = values.pop("speech")
    if "message" in values:
        fields["text"] = values.pop("message")
    if "nominate" in values:
        nominee = values.pop("nominate")
        fields["nominate"] = () if nominee is None else (nominee,)
    if "kill_order" in values:
        fields["targets"] = values.pop("kill_order")
    if "side" in values:
        fields["action"] = values.pop("side")
    fields.update(values)
    return Decision(**fields)
