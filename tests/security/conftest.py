"""Fixtures the security tests share: the local stand-in server with every request body it receives recorded, so a
test can show that a secret never reached it (a file may define its own `server` instead)."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from arena.standin import FakeServer


@pytest.fixture
def server() -> Iterator[tuple[FakeServer, io.StringIO]]:
    bodies = io.StringIO()
    with FakeServer() as fake:
        fake.record_to(bodies)
        yield fake, bodies
