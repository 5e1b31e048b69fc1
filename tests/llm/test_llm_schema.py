"""Decision schemas list only the legal options, are valid under OpenAI's strict mode, and read back by shape only."""

from __future__ import annotations

from typing import Any

import pytest

from arena.engine import Decision, Game, Kind, Request, SpeechKind, load_rules
from arena.llm.schema import ShapeError, answer_schema, to_decision
from arena.players.random_policy import random_decision


def _strict_ok(schema: dict[str, Any]) -> None:
    """OpenAI strict mode: every object lists all its properties as required and forbids extra ones."""
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert schema["required"] == list(schema["properties"])
    assert next(iter(schema["properties"])) == "reasoning"


def test_speech_schema_offers_only_legal_nominees() -> None:
    request = Request(
        seat=3, kind=Kind.SPEECH, max_words=150, speech=SpeechKind.REGULAR, may_nominate=True,
        nominate_options=(1, 2, 4, 7),
    )  # fmt: skip
    schema = answer_schema(request)
    _strict_ok(schema)
    assert list(schema["properties"]) == ["reasoning", "speech", "nominate", "claim"]
    assert schema["properties"]["nominate"] == {"anyOf": [{"type": "integer", "enum": [1, 2, 4, 7]}, {"type": "null"}]}


def test_speech_claim_is_one_optional_structured_field() -> None:
    request = Request(seat=3, kind=Kind.SPEECH, max_words=50, speech=SpeechKind.REGULAR)
    claim = answer_schema(request)["properties"]["claim"]
    assert claim["anyOf"][1] == {"type": "null"}
    _strict_ok({**claim["anyOf"][0], "properties": {"reasoning": {}, **claim["anyOf"][0]["properties"]},
                "required": ["reasoning", *claim["anyOf"][0]["required"]]})  # fmt: skip
    said = to_decision(request, {"speech": "I am the sheriff", "claim": {"role": "sheriff", "black": [5], "red": [2]}})
    assert said.claim is not None and (said.claim.role, said.claim.black, said.claim.red) == ("sheriff", (5,), (2,))
    assert to_decision(request, {"speech": "hello"}).claim is None  # older answers without the field still read
    # a claim the rules cannot record is dropped, never the speech (tests/llm/test_llm_claims.py)
    assert to_decision(request, {"speech": "x", "claim": "sheriff"}) == Decision(text="x")


def test_probe_schema_is_one_number_per_living_seat() -> None:
    request = Request(seat=2, kind=Kind.PROBE, options=(1, 3, 6))
    schema = answer_schema(request)
    _strict_ok(schema)
    beliefs = schema["properties"]["beliefs"]
    assert beliefs["required"] == ["1", "3", "6"] and beliefs["additionalProperties"] is False
    assert beliefs["properties"]["3"] == {"type": "number", "minimum": 0, "maximum": 1}
    assert to_decision(request, {"beliefs": {"1": 0.1, "3": 1, "6": 0.5}}).beliefs == (0.1, 1.0, 0.5)
    with pytest.raises(ShapeError):
        to_decision(request, {"beliefs": {"1": 0.1, "3": "high", "6": 0.5}})


def test_target_is_nullable_only_when_abstaining_is_legal() -> None:
    forced = answer_schema(Request(seat=1, kind=Kind.BALLOT, options=(2, 5)))
    optional = answer_schema(Request(seat=1, kind=Kind.SHOOT, options=(2, 5), allow_none=True))
    assert forced["properties"]["target"] == {"type": "integer", "enum": [2, 5]}
    assert optional["properties"]["target"]["anyOf"][1] == {"type": "null"}


def test_sheriff_actions_and_best_move_caps() -> None:
    sheriff = answer_schema(Request(seat=4, kind=Kind.SHERIFF, options=(1, 2), actions=("check", "shoot")))
    assert list(sheriff["properties"]) == ["reasoning", "action", "target"]
    assert sheriff["properties"]["action"]["enum"] == ["check", "shoot"]
    best = answer_schema(Request(seat=4, kind=Kind.BEST_MOVE, options=(1, 2, 3, 5), max_targets=3))
    assert best["properties"]["targets"] == {
        "type": "array",
        "items": {"type": "integer", "enum": [1, 2, 3, 5]},
        "maxItems": 3,
    }


@pytest.mark.parametrize("preset", ["fiim", "club", "classic", "aurora", "edge"])
def test_every_request_of_a_game_gets_a_strict_schema_whose_enums_are_its_options(preset: str) -> None:
    import random

    rng = random.Random(7)
    game = Game(load_rules(preset), seed=7)
    seen: set[Kind] = set()
    while not game.over:
        for request in game.pending():
            schema = answer_schema(request)
            _strict_ok(schema)
            props = schema["properties"]
            if "target" in props:
                enum = props["target"].get("enum") or props["target"].get("anyOf", [{}])[0].get("enum")
                assert enum == list(request.options)
            seen.add(request.kind)
            game.submit(request.seat, random_decision(rng, request))
    assert Kind.SPEECH in seen and (Kind.VOTE in seen or Kind.BALLOT in seen)


def test_reading_maps_fields_to_the_decision() -> None:
    speech = Request(seat=3, kind=Kind.SPEECH, max_words=10, may_nominate=True, nominate_options=(1, 2))
    got = to_decision(speech, {"reasoning": "r", "speech": "hi", "nominate": 2})
    assert got == Decision(text="hi", nominate=(2,), reasoning="r")
    order = Request(seat=3, kind=Kind.BLACK_MESSAGE, max_words=10, may_set_order=True, max_targets=3, options=(1, 2))
    assert to_decision(order, {"message": "m", "kill_order": [2, 1]}) == Decision(text="m", targets=(2, 1))
    side = Request(seat=3, kind=Kind.CHOOSE_SIDE, choices=("independent", "mafia_ally"))
    assert to_decision(side, {"reasoning": "", "side": "mafia_ally"}).action == "mafia_ally"


def test_values_pass_through_for_the_engine_to_judge() -> None:
    """An illegal seat is a legality problem, not a shape problem: it reaches the engine, which says why."""
    shot = Request(seat=1, kind=Kind.SHOOT, options=(2, 3), allow_none=True)
    assert to_decision(shot, {"reasoning": "", "target": 99}).target == 99
    assert to_decision(shot, {"target": "3"}).target == 3  # a number in a string is still a number


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"reasoning": "r"}, "field 'vote' is missing"),
        ({"vote": "perhaps"}, "field 'vote' must be true or false"),
        ({"vote": 1}, "field 'vote' must be true or false"),
    ],
)
def test_shape_errors_say_which_field(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ShapeError, match=message):
        to_decision(Request(seat=1, kind=Kind.VOTE, candidate=2), data)


def test_partial_reading_of_a_cut_off_answer() -> None:
    speech = Request(seat=3, kind=Kind.SPEECH, max_words=10, may_nominate=True, nominate_options=(1, 2))
    assert to_decision(speech, {"reasoning": "r", "speech": "I think"}, partial=True) == Decision(
        text="I think", reasoning="r"
    )
    with pytest.raises(ShapeError, match="cut off before its first public field"):
        to_decision(speech, {"reasoning": "r"}, partial=True)
