"""The direct path honours the proxy environment as the SDK's httpx does: HTTP_PROXY sends the call through the
proxy, NO_PROXY exempts a host, credentials in the proxy URL become a Proxy-Authorization header (and never the
API host's Authorization). A stand-in answers any target ending in /chat/completions, so it serves as the proxy."""

from __future__ import annotations

import base64

import pytest

from arena.llm.client import ClientSettings, LLMClient
from arena.llm.direct import _proxy_parts, proxy_for
from arena.llm.modes import Mode
from arena.llm.pool import use_aiohttp
from arena.llm.retry import RetryPolicy
from arena.standin import FakeServer

KEY = "sk-test-proxy-0123456789"


@pytest.fixture(autouse=True)
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)


async def _call(base_url: str, direct: bool) -> tuple[bool, str | None]:
    use_aiohttp(direct)
    client = LLMClient(ClientSettings(model="m", base_url=base_url, api_key=KEY, retry=RetryPolicy(attempts=1)))
    try:
        result = await client.complete([{"role": "user", "content": "hi"}], mode=Mode.PROMPT, name="x", schema={},
                                       max_tokens=8)  # fmt: skip
        took_direct = client._direct is not None
    finally:
        await client.close()
        use_aiohttp(False)
    error = result.final_error.error if result.final_error is not None else None
    return took_direct, error


@pytest.mark.parametrize("direct", [True, False])
async def test_http_proxy_carries_the_call(monkeypatch: pytest.MonkeyPatch, direct: bool) -> None:
    with FakeServer() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url.removesuffix("/v1"))
        took_direct, error = await _call("http://api.example.invalid/v1", direct)
        assert (took_direct, error) == (direct, None)  # the direct path and the SDK's alike
        assert proxy.stats.requests == 1
        assert proxy.stats.authorization_seen == {f"Bearer {KEY}"}


async def test_no_proxy_exempts_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeServer() as proxy, FakeServer() as api:
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url.removesuffix("/v1"))
        monkeypatch.setenv("NO_PROXY", "example.org,127.0.0.1")
        assert await _call(api.base_url, True) == (True, None)
        assert (api.stats.requests, proxy.stats.requests) == (1, 0)


def test_proxy_for_reads_the_environment_as_httpx_does(monkeypatch: pytest.MonkeyPatch) -> None:
    assert proxy_for("https://api.example.invalid/v1") is None
    monkeypatch.setenv("HTTPS_PROXY", "proxy.local:3128")
    assert proxy_for("https://api.example.invalid/v1") == "http://proxy.local:3128"
    assert proxy_for("http://api.example.invalid/v1") is None  # HTTPS_PROXY is for https URLs only
    monkeypatch.setenv("ALL_PROXY", "http://all.local:8080")
    assert proxy_for("http://api.example.invalid/v1") == "http://all.local:8080"
    monkeypatch.setenv("NO_PROXY", ".example.invalid")
    assert proxy_for("https://api.example.invalid:8443/v1") is None
    assert proxy_for("https://api.example.org/v1") == "http://proxy.local:3128"


def test_proxy_credentials_become_a_proxy_authorization_header() -> None:
    bare, headers = _proxy_parts("http://user:p%40ss@proxy.local:3128")
    assert bare == "http://proxy.local:3128"
    assert headers == {"Proxy-Authorization": "Basic " + base64.b64encode(b"user:p@ss").decode()}
    assert _proxy_parts("http://proxy.local:3128") == ("http://proxy.local:3128", None)
    assert _proxy_parts(None) == (None, None)
