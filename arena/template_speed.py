"""Jinja's per-item work, done once per use, for the prompt sets' environment (`arena.prompts`). Imports nothing of
`arena`.

Every model call renders a turn whose seat lists go through `select`, `reject`, `list` and `loop.last`: Jinja does
per item, or per call, work that could be done once. Each piece here gives exactly what Jinja gives, in an
environment that is not async (the prompt sets' one); anything else goes Jinja's own way:
- `selecting`: `select`/`reject` with a test looked up once per use, not through `call_test` for each item;
- `SYNC_FILTERS`: the filters Jinja wraps to serve async environments too, as their plain functions;
- `Loop`: `loop.last` of a list or a tuple from its length, not by fetching the next item ahead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, cast

from jinja2 import filters, pass_context
from jinja2.runtime import Context, LoopContext
from jinja2.utils import _PassArg


def selecting(keep: bool) -> Callable[..., Iterator[Any]]:
    """Jinja's `select` (`keep`) or `reject` filter. Jinja calls `environment.call_test` for each item (four Python
    calls an item); here a plain test (no context, environment or eval context passed) is looked up once per use
    and called directly. A missing test, a test that takes a context, and `select` with no test go Jinja's way;
    the items come out lazily, as there."""
    jinja_filter = filters.sync_do_select if keep else filters.sync_do_reject

    @pass_context
    def run(context: Context, value: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        tests = cast("dict[str, Callable[..., Any]]", context.environment.tests)
        test = tests.get(args[0]) if args and isinstance(args[0], str) else None
        if test is None or _PassArg.from_obj(test) is not None:
            return jinja_filter(context, value, *args, **kwargs)
        rest, check = args[1:], test

        def items() -> Iterator[Any]:
            if value:
                for item in value:
                    if bool(check(item, *rest, **kwargs)) is keep:
                        yield item

        return items()

    return run


# Jinja's filters that serve async environments too, each a wrapper asking the environment per call which to run;
# in a sync environment it is always the plain one
SYNC_FILTERS: dict[str, Callable[..., Any]] = {
    "first": filters.sync_do_first,
    "groupby": filters.sync_do_groupby,
    "join": filters.sync_do_join,
    "list": filters.sync_do_list,
    "map": filters.sync_do_map,
    "rejectattr": filters.sync_do_rejectattr,
    "selectattr": filters.sync_do_selectattr,
    "slice": filters.sync_do_slice,
    "sum": filters.sync_do_sum,
    "unique": filters.sync_do_unique,
    "select": selecting(True),
    "reject": selecting(False),
}


class Loop(LoopContext):
    """Jinja's `loop` variable, with `loop.last` of a list or a tuple known from its length: Jinja fetches the next
    item ahead to know it (`_peek_next`), a dozen Python calls per item of each seat list. The same answer, since a
    template cannot change the list it walks (the immutable sandbox); any other iterable is peeked at as before."""

    @property
    def last(self) -> bool:
        walked: Any = self._iterable
        if type(walked) in (list, tuple):
            return bool(self.index0 + 1 == len(walked))
        return super().last
