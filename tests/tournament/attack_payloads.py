"""What an attacker on a Dask cluster plants, for tests/tournament/test_tournament_dask_security.py. The code is
made as if it were an attacker's script (module `__main__`), so Dask sends it by value (cloudpickle), as an
attacker's own code would travel: no worker can import this file."""

from __future__ import annotations

from typing import Any

_SOURCE = '''
import os


class Payload:
    """Harmless where it is made (a worker); unpickled anywhere, it runs `command` in that process."""

    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


def payload(command):
    return Payload(command)


def planted(value):
    return value
'''
_SCRIPT: dict[str, Any] = {"__name__": "__main__"}
exec(compile(_SOURCE, "<attacker>", "exec"), _SCRIPT)
payload = _SCRIPT["payload"]
planted = _SCRIPT["planted"]
