"""Fixtures of the LLM-seat tests: a local OpenAI-compatible server, a test API key, the cassette settings.

No test reaches a host other than 127.0.0.1: the server is `arena.standin` on a free loopback port, and the
cassette tests replay recorded exchanges (CI runs with `--block-network --record-mode=none`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from arena.standin import FakeServer

TEST_KEY = "sk-test-DO-NOT-LEAK-0123456789abcdefghijklmnop"


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """A recognisable key in the environment, so tests can prove it never lands in a file."""
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    monkeypatch.setenv("ARENA_TEST_KEY", TEST_KEY)
    return TEST_KEY


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with FakeServer() as fake:
        yield fake


@pytest.fixture(scope="module")
def vcr_config() -> dict[str, Any]:
    return {
        "filter_headers": ["authorization", "openai-organization", "openai-project", "cookie", "x-api-key"],
        "decode_compressed_response": True,
        "match_on": ["method", "scheme", "host", "port", "path", "query", "structured_mode"],
    }


def pytest_recording_configure(config: pytest.Config, vcr: Any) -> None:
    from llmkit import structured_mode_matcher

    vcr.register_matcher("structured_mode", structured_mode_matcher)
