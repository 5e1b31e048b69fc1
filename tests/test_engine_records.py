"""Event and Request are plain slotted dataclasses: they dump the same JSON bytes pydantic writes (old transcripts
and golden files stay byte-identical), validate untrusted data with pydantic's checks, and the audience bitmask
agrees with the visibility rule seat by seat."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import TypeAdapter, ValidationError

from arena.engine import Decision, Event, EventType, Kind, Phase, Request, Vis

TRICKY = 'a "quoted" \\ back\nslash\ttab\r\x00\x1f\x7f é Ж 😀 \u2028 </script>'


def _event(**fields: object) -> Event:
    base: dict[str, object] = {"seq": 3, "day": 1, "phase": Phase.DAY, "type": EventType.SPEECH, "vis": Vis.PUBLIC}
    base.update(fields)
    return Event(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "event",
    [
        _event(seat=4, text=TRICKY, value="regular"),
        _event(type=EventType.SHOT, vis=Vis.SEATS, to=(2, 7), seat=2, target=None),
        _event(type=EventType.ROLES_DEALT, vis=Vis.MODERATOR, roles=("don", "mafia"), value="seed"),
        _event(type=EventType.VOTES_COUNTED, seats=(1, 5), counts=(3, 0), count=0),
    ],
)
def test_event_json_is_the_bytes_pydantic_writes(event: Event) -> None:
    adapter = TypeAdapter(Event)
    for exclude in (False, True):
        ours = event.model_dump_json(exclude_defaults=exclude)
        assert ours == adapter.dump_json(event, exclude_defaults=exclude).decode("utf-8")
    assert "mask" not in event.model_dump()
    assert Event.model_validate(event.model_dump(mode="json")) == event


def test_request_json_nests_the_default_decision() -> None:
    request = Request(seat=2, kind=Kind.SHOOT, options=(1, 3), allow_none=True, default=Decision(target=3))
    assert request.model_dump_json(exclude_defaults=True) == (
        '{"seat":2,"kind":"shoot","options":[1,3],"allow_none":true,"default":{"target":3}}'
    )
    assert TypeAdapter(Request).dump_json(request).decode() == request.model_dump_json()
    copy = request.model_copy(update={"options": (1,)})
    assert copy.options == (1,) and request.options == (1, 3) and copy.default == request.default
    assert hash(request) == hash(dataclasses.replace(request))


def test_validation_rejects_what_the_model_rejected() -> None:
    good = {"seq": 0, "day": 0, "phase": "setup", "type": "game_started", "vis": "public"}
    assert Event.model_validate(good).type is EventType.GAME_STARTED
    with pytest.raises(ValidationError):
        Event.model_validate({**good, "extra": 1})
    with pytest.raises(ValidationError):
        Event.model_validate({**good, "type": "no_such_type"})
    with pytest.raises(ValidationError):
        Event.model_validate({**good, "seq": "three"})


@pytest.mark.parametrize("vis", list(Vis))
def test_audience_mask_is_the_visibility_rule(vis: Vis) -> None:
    to = (2, 5, 9) if vis in (Vis.SEATS, Vis.BLACK) else ()
    event = _event(vis=vis, to=to)
    for seat in range(0, 13):
        expected = vis is Vis.PUBLIC or (vis is not Vis.MODERATOR and seat in to)
        assert event.visible_to(seat) is expected, (vis, seat)
        assert bool(event.mask & (1 << seat)) is expected
    loaded = Event.model_validate(event.model_dump(mode="json"))  # built by pydantic: the mask is set there too
    assert loaded.mask == event.mask
