"""The Jinja2 sandbox every template of the package renders in: prompt sets (which may be anyone's), the bots' lines
and the pages of `arena serve`. Imports nothing of `arena`.

Jinja's `ImmutableSandboxedEnvironment` refuses private attributes (`__class__`, `__globals__` ...) and the methods
that change a list, dict or set, but it lets a template call any public method of any object it is given. The
objects a template gets are the game's records (rules, events, observations), and pydantic models carry public
class methods that read files: `rules.parse_file('/proc/self/environ')` read the environment into an error message,
and `rules.parse_file('x.pkl', content_type='application/pickle', allow_pickle=True)` ran the code of a pickle
the prompt folder shipped. So a template may read the *data* of the objects it is given (their fields) and call
methods only of plain values (strings, numbers, lists, dicts, sets) and of Jinja's own objects (a macro, a loop,
`namespace`, `cycler`, `joiner`); any other callable attribute (a method, a class method, a class) is refused.
"""

from __future__ import annotations

import inspect
from typing import Any

from jinja2.environment import TemplateModule
from jinja2.runtime import LoopContext, Macro, Undefined
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import Cycler, Joiner, Namespace

# values whose public methods a template may call (the sandbox still refuses what would change them, and
# str.format's attribute walk)
PLAIN = (str, int, float, complex, bool, bytes, tuple, list, dict, set, frozenset, type(None))
JINJA = (TemplateModule, Macro, LoopContext, Undefined, Namespace, Cycler, Joiner)


def data_attribute(obj: Any, attr: str, value: Any) -> bool:
    """Whether a template may read `obj.attr`, beyond the immutable sandbox's own rules: anything of a plain value
    or of Jinja's objects; of any other object only data, never a callable (its class's methods are refused by
    name, whatever the instance holds)."""
    if isinstance(obj, PLAIN + JINJA):
        return True
    static = inspect.getattr_static(type(obj), attr, None)
    if static is not None and (callable(static) or isinstance(static, classmethod | staticmethod)):
        return False  # a method, class method, static method or class of the object's type
    return not callable(value)


class DataSandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox, where a template reads the data of what it is given and calls no method of it."""

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        return super().is_safe_attribute(obj, attr, value) and data_attribute(obj, attr, value)
