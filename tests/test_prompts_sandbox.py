"""The prompt sets' sandbox remembers its verdict per (type, attribute) (`arena/prompts.py`): the remembered
verdicts are the sandbox's own, so what it refused once it refuses every time, and what it allowed still renders."""

from __future__ import annotations

from dataclasses import dataclass

import jinja2
import pytest
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from arena.prompts import load_prompt_set


@dataclass(frozen=True, slots=True)
class Event:  # an event-shaped record (what the templates read)
    seq: int
    type: str
    seat: int | None = None
    text: str = ""


PROBES = [
    ("{{ items.append(3) }}", {"items": [1]}),  # a mutating method of a list
    ("{{ table.clear() }}", {"table": {"a": 1}}),  # of a dict
    ("{{ ''.__class__.__mro__ }}", {}),  # private names
    ("{{ event.__class__.__init__.__globals__ }}", {"event": Event(seq=0, type="speech", text="x")}),
    ("{{ f.__code__ }}", {"f": lambda: 1}),
    ("{{ 'a{0.__class__}'.format(1) }}", {}),  # str.format reaching internals
]


@pytest.mark.parametrize(("source", "context"), PROBES)
def test_cached_verdicts_refuse_what_the_plain_sandbox_refuses(source: str, context: dict[str, object]) -> None:
    env = load_prompt_set("default", "en").env
    reference = ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined)
    for _ in range(3):  # the second and third reads come from the remembered verdict
        outcomes = []
        for sandbox in (env, reference):
            try:
                outcomes.append(("ok", sandbox.from_string(source).render(**context)))
            except (SecurityError, jinja2.UndefinedError) as exc:
                outcomes.append(("refused", type(exc).__name__))
        assert outcomes[0] == outcomes[1]
        assert outcomes[0][0] == "refused"
    assert context.get("items", [1]) == [1] and context.get("table", {"a": 1}) == {"a": 1}


def test_safe_reads_still_render() -> None:
    env = load_prompt_set("default", "en").env
    event = Event(seq=4, type="speech", seat=3, text="hi")
    template = env.from_string("{{ e.seat }} {{ e.text }} {{ xs.index(2) }} {{ d.get('k') }} {{ d.k }}")
    for _ in range(2):
        assert template.render(e=event, xs=[1, 2], d={"k": "v"}) == "3 hi 1 v v"
