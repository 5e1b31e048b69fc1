"""The JSON a model must answer for one Request: a strict schema built from the legal options, and its reading.

Every schema starts with the private `reasoning`, then the public or action fields, and lists only what the request
allows: the seats that may be targeted as an enum, `null` only where abstaining is legal, the sheriff's actions,
the maniac's sides. The schema is what the model is *told*; reading an answer back (`to_decision`) checks its shape
only (an object, the right field names and types) and passes values through unchanged, because legality is the
engine's to judge (`Game.check`), with its own reasons for the re-ask.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from arena.engine import Claim, Decision, Kind, Request, Role, RuleSet

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
            # the checks are seats of the table (an enum when the table's size is known), at most one list each
            item: dict[str, Any] = {"type": "integer"}
            if self.max_items:
                item["enum"] = list(range(1, self.max_items + 1))
            seats: dict[str, Any] = {"type": "array", "items": item}
            if self.max_items:
                seats["maxItems"] = self.max_items
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


_SHAPES: dict[tuple[Any, ...], tuple[tuple[FieldSpec, ...], dict[str, Any]]] = {}  # per answer shape (below)


def _shape(request: Request, players: int) -> tuple[Any, ...]:
    """Everything the answer's fields and schema depend on (a turn asks for them three times, and a process's
    games ask the same few shapes over and over)."""
    return (
        players if request.kind is Kind.SPEECH else 0,
        request.kind,
        request.may_nominate,
        request.nominate_options,
        request.may_request_extra,
        request.actions,
        request.options,
        request.allow_none,
        request.max_targets,
        request.may_set_order,
        request.choices,
    )


def _fields_and_schema(request: Request, players: int) -> tuple[tuple[FieldSpec, ...], dict[str, Any]]:
    try:
        key = _shape(request, players)
        found = _SHAPES.get(key)
    except TypeError:  # a list where a tuple belongs (a hand-built Request): not remembered
        key, found = None, None
    if found is None:
        fields = _answer_fields(request, players)
        schema = {
            "type": "object",
            "properties": {f.name: f.schema() for f in fields},
            "required": [f.name for f in fields],
            "additionalProperties": False,
        }
        found = (tuple(fields), schema)
        if key is not None:
            if len(_SHAPES) >= 4096:
                _SHAPES.clear()
            _SHAPES[key] = found
    return found


def answer_fields(request: Request, players: int = 0) -> list[FieldSpec]:
    """The fields of the answer to `request`, reasoning first. `players`, the table's size, makes the seats of a
    speech's claim an enum of the table's seats (0: any integer, for a caller that does not know the table)."""
    return list(_fields_and_schema(request, players)[0])


def _answer_fields(request: Request, players: int = 0) -> list[FieldSpec]:
    fields = [FieldSpec("reasoning", "string")]
    kind = request.kind
    if kind is Kind.SPEECH:
        fields.append(FieldSpec("speech", "string"))
        if request.may_nominate:
            fields.append(FieldSpec("nominate", "integer", request.nominate_options, nullable=True))
        if request.may_request_extra:
            fields.append(FieldSpec("extra", "boolean"))
        fields.append(FieldSpec("claim", "claim", CLAIM_ROLES, nullable=True, max_items=players))
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


def answer_schema(request: Request, players: int = 0) -> dict[str, Any]:
    """A JSON schema valid under OpenAI's strict mode: every field required, no extra fields. The same object for
    requests of the same shape: read it, never change it (requests carry it as it is). `players`: as in
    `answer_fields`."""
    return _fields_and_schema(request, players)[1]


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


def claim_problem(value: Any, players: int = 0) -> str | None:
    """Why a speech's `claim` field cannot be recorded, or None (no claim, or a good one). A bad claim is dropped
    and the speech stands (`_claim`); the seat is told this sentence on its next turn. `players` (0: unknown) bounds
    the seats."""
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("role") not in CLAIM_ROLES:
        return f"a claim names one role of {', '.join(CLAIM_ROLES)}"
    named: list[int] = []
    for side in ("black", "red"):
        try:
            named += _seats(f"claim.{side}", value.get(side))
        except ShapeError:
            return f"a claim's {side!r} is a list of seat numbers"
    outside = sorted({s for s in named if s < 1 or (players and s > players)})
    if outside:
        return f"seat {outside[0]} is not at this table (seats 1 to {players or 'N'})"
    twice = sorted({s for s in named if named.count(s) > 1})
    if twice:
        return f"it named seat {twice[0]} more than once (a claim names each seat at most once)"
    return None


def _claim(value: Any, players: int = 0) -> Claim | None:
    """The claim, or None when there is none or it is not one the rules can record (`claim_problem`): a bad claim
    never costs the speech."""
    if value is None or claim_problem(value, players) is not None:
        return None
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
        return _claim(value, spec.max_items)
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


def to_decision(request: Request, data: dict[str, Any], *, partial: bool = False, players: int = 0) -> Decision:
    """Read an answer object into a Decision; raise ShapeError if a field is missing or of the wrong type.

    `reasoning` may be missing (it is private and optional to the engine); extra fields are ignored. Values are not
    checked against the legal options: an illegal target reaches the engine, which refuses it with a reason.
    `partial` reads an answer cut off by the token limit: the fields it never reached are empty (no nomination, no
    extra word), but at least one field after the reasoning must have arrived. A speech's claim that the rules cannot
    record (`claim_problem`; `players` is the table's size) is dropped: the speech stands.
    """
    specs = answer_fields(request, players)
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


# ----- the cache-stable request shape ----------------------------------------------------------------------------
# One schema per game and seat, identical on every request, so a provider's prompt cache (which puts the schema or
# tools before the messages) keeps serving the prefix: `{reasoning, decision: anyOf[...]}`, one branch per decision
# kind the rules can ask for, seats as an enum of every seat. The legal options of each request travel in its last
# user message (`legal_options`), the engine judges legality as always, and a re-ask after a refusal carries the
# strict per-request schema again (`answer_schema`), so constrained decoding forces a legal answer there.

STABLE_NAME = "decision"


def _seat_field(name: str, seats: tuple[int, ...]) -> FieldSpec:
    return FieldSpec(name, "integer", seats, nullable=True)


# The table: per decision kind, its fields in the stable schema. One more kind is one more entry.
STABLE_FIELDS: dict[Kind, Callable[[tuple[int, ...], int], list[FieldSpec]]] = {
    Kind.SPEECH: lambda seats, n: [
        FieldSpec("speech", "string"),
        _seat_field("nominate", seats),
        FieldSpec("extra", "boolean"),
        FieldSpec("claim", "claim", CLAIM_ROLES, nullable=True, max_items=n),
    ],
    Kind.VOTE: lambda seats, n: [FieldSpec("vote", "boolean")],
    Kind.BALLOT: lambda seats, n: [_seat_field("target", seats)],
    Kind.SHOOT: lambda seats, n: [_seat_field("target", seats)],
    Kind.DON_CHECK: lambda seats, n: [_seat_field("target", seats)],
    Kind.SHERIFF: lambda seats, n: [FieldSpec("action", "string", ("check", "shoot")), _seat_field("target", seats)],
    Kind.MANIAC_KILL: lambda seats, n: [_seat_field("target", seats)],
    Kind.HEAL: lambda seats, n: [_seat_field("target", seats)],
    Kind.VISIT: lambda seats, n: [_seat_field("target", seats)],
    Kind.BEST_MOVE: lambda seats, n: [FieldSpec("targets", "array", seats, max_items=n)],
    Kind.BLACK_MESSAGE: lambda seats, n: [
        FieldSpec("message", "string"),
        FieldSpec("kill_order", "array", seats, max_items=n),
    ],
    Kind.CHOOSE_SIDE: lambda seats, n: [FieldSpec("side", "string", ("independent", "mafia_ally"))],
    Kind.PROBE: lambda seats, n: [FieldSpec("beliefs", "beliefs", seats)],
}


def stable_kinds(rules: RuleSet) -> tuple[Kind, ...]:
    """The decision kinds `rules` can ask of some seat, in the order of `Kind` (a superset is harmless)."""
    has = {role: rules.count(role) > 0 for role in Role}
    black = has[Role.MAFIA] or has[Role.DON]
    wanted = {
        Kind.SPEECH: True,
        Kind.VOTE: True,
        Kind.BALLOT: rules.voting.protocol == "ballot",
        Kind.SHOOT: black,
        Kind.DON_CHECK: has[Role.DON],
        Kind.SHERIFF: has[Role.SHERIFF],
        Kind.MANIAC_KILL: has[Role.MANIAC],
        Kind.HEAL: has[Role.DOCTOR],
        Kind.VISIT: has[Role.LOVER],
        Kind.BEST_MOVE: rules.best_move.enabled,
        Kind.BLACK_MESSAGE: black,
        Kind.CHOOSE_SIDE: has[Role.MANIAC],
        Kind.PROBE: rules.probes.daily,
    }
    return tuple(kind for kind in Kind if wanted[kind])  # a new Kind needs its line here and in STABLE_FIELDS


def stable_schema(rules: RuleSet) -> dict[str, Any]:
    """The one schema of a game: reasoning, then a decision in the fields of one of the rules' kinds (strict-mode
    valid). Kinds with the same fields (every one-target kind) share a branch: the request says which kind it is."""
    seats = tuple(range(1, rules.players + 1))
    branches: dict[str, dict[str, Any]] = {}
    for kind in stable_kinds(rules):
        fields = STABLE_FIELDS[kind](seats, rules.players)
        properties = {f.name: f.schema() for f in fields}
        branch = {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }
        branches.setdefault(json.dumps(branch, sort_keys=True), branch)
    return {
        "type": "object",
        "properties": {"reasoning": {"type": "string"}, "decision": {"anyOf": list(branches.values())}},
        "required": ["reasoning", "decision"],
        "additionalProperties": False,
    }


def legal_options(request: Request) -> dict[str, Any]:
    """What `request` allows, as a compact JSON object for the last user message: per field, the legal values."""
    out: dict[str, Any] = {"kind": request.kind.value}
    for spec in answer_fields(request)[1:]:
        if spec.type == "claim":  # optional, and the same on every speech: the system prompt explains it
            continue
        if spec.type == "string" and spec.enum is None:
            out[spec.name] = f"text, at most {request.max_words} words" if request.max_words else "text"
        elif spec.type == "boolean":
            out[spec.name] = [True, False]
        elif spec.type == "array":
            out[spec.name] = {"up_to": spec.max_items, "of": list(spec.enum or ())}
        else:
            out[spec.name] = [*(spec.enum or ()), *([None] if spec.nullable or spec.enum == () else [])]
    kind = request.kind
    if kind is Kind.SPEECH and not request.may_nominate:
        out["nominate"] = [None]
    if kind is Kind.SPEECH and not request.may_request_extra:
        out["extra"] = [False]
    if kind is Kind.BLACK_MESSAGE and not request.may_set_order:
        out["kill_order"] = {"up_to": 0, "of": []}
    if kind is Kind.SHERIFF and "action" not in out:
        out = {
            "kind": out["kind"],
            "action": list(request.actions or ("check",)),
            **{k: v for k, v in out.items() if k != "kind"},
        }
    return out


def ranges(seats: list[int]) -> str:
    """1, 2, 3, 5, 7, 8 -> "1-3, 5, 7-8": a seat list in few tokens."""
    runs: list[list[int]] = []
    for seat in seats:
        if runs and seat == runs[-1][1] + 1:
            runs[-1][1] = seat
        else:
            runs.append([seat, seat])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _values(allowed: list[Any]) -> str:
    seats = [v for v in allowed if isinstance(v, int) and not isinstance(v, bool)]
    words = ["null" if v is None else str(v).lower() for v in allowed if not isinstance(v, int) or isinstance(v, bool)]
    return " | ".join(([ranges(seats)] if seats else []) + words) or "null"


def legal_line(request: Request) -> str:
    """The legal options of `request` in a few tokens, for the turn's last line: `(shoot) target: 1-3, 5 | null`.
    Fields the request does not use are left out (the system prompt says to send them empty)."""
    options = legal_options(request)
    parts = []
    for name, allowed in options.items():
        if name == "kind" or allowed in ([None], [False]) or (isinstance(allowed, dict) and not allowed["up_to"]):
            continue
        if isinstance(allowed, str):
            text = f"text ≤{request.max_words}" if request.max_words else "text"
        elif isinstance(allowed, dict):
            text = f"≤{allowed['up_to']} of {ranges(list(allowed['of']))}"
        else:
            text = _values(list(allowed))
        parts.append(f"{name}: {text}")
    return f"({request.kind.value}) " + "; ".join(parts)


def to_decision_stable(
    request: Request, data: dict[str, Any], *, partial: bool = False, players: int = 0
) -> Decision:
    """Read a stable-schema answer (`{reasoning, decision: {fields}}`) for `request`, whose kind says which fields
    count; ShapeError if one is missing. Fields the request does not use are passed on when set, so the engine
    refuses them with its reason (a nomination in a last word) instead of their being dropped unseen."""
    decision = data.get("decision")
    if not isinstance(decision, dict):
        if partial and "decision" not in data:
            raise ShapeError("the answer was cut off before its first public field")
        raise ShapeError('field "decision" is missing or not an object with the fields of the decision asked for')
    flat = dict(decision)
    if "reasoning" in data:
        flat["reasoning"] = data["reasoning"]
    result = to_decision(request, flat, partial=partial, players=players)
    extra: dict[str, Any] = {}
    if request.kind is Kind.SPEECH:
        if not request.may_nominate and flat.get("nominate") is not None:
            extra["nominate"] = (_integer("nominate", flat["nominate"], nullable=False) or 0,)
        if not request.may_request_extra and flat.get("extra") is True:
            extra["extra"] = True
    if request.kind is Kind.SHERIFF and len(request.actions) <= 1 and flat.get("action") not in (None, "check"):
        extra["action"] = _string("action", flat["action"])
    if request.kind is Kind.BLACK_MESSAGE and not request.may_set_order and flat.get("kill_order"):
        extra["targets"] = _seats("kill_order", flat["kill_order"])
    return result.model_copy(update=extra) if extra else result
