"""The engine's Request builder (slot writes, no keyword matching) builds exactly what the keyword constructor builds:
every field, its default, and the JSON bytes."""

from __future__ import annotations

import dataclasses

from arena.engine.decisions import NO_DECISION, Decision, Kind, Request, SpeechKind, request_record


def _same(built: Request, expected: Request) -> None:
    assert built == expected
    for field in dataclasses.fields(Request):  # every slot written, with the constructor's value and type
        assert getattr(built, field.name) == getattr(expected, field.name), field.name
        assert type(getattr(built, field.name)) is type(getattr(expected, field.name)), field.name
    assert built.model_dump_json() == expected.model_dump_json()
    assert hash(built) == hash(expected)


def test_request_record_defaults_are_the_constructors() -> None:
    for kind in Kind:
        _same(request_record(3, kind), Request(seat=3, kind=kind))


def test_request_record_sets_every_field() -> None:
    values = {
        "options": (1, 2),
        "allow_none": True,
        "max_words": 5,
        "max_chars": 60,
        "speech": SpeechKind.TIE,
        "may_nominate": True,
        "nominate_options": (4,),
        "may_request_extra": True,
        "candidate": 7,
        "subject": "lift",
        "candidates": (7, 8),
        "max_targets": 3,
        "may_set_order": True,
        "actions": ("check", "shoot"),
        "choices": ("a", "b"),
        "default": Decision(target=2),
    }
    assert set(values) | {"seat", "kind"} == {f.name for f in dataclasses.fields(Request)}
    _same(request_record(5, Kind.SHERIFF, **values), Request(seat=5, kind=Kind.SHERIFF, **values))


def test_a_vote_record_keeps_the_default_it_is_given() -> None:
    no = Decision(vote=False)
    _same(
        request_record(4, Kind.VOTE, subject="nominee", candidate=6, candidates=(6, 9), default=no),
        Request(seat=4, kind=Kind.VOTE, candidate=6, subject="nominee", candidates=(6, 9), default=no),
    )
    assert request_record(1, Kind.VOTE).default is NO_DECISION
