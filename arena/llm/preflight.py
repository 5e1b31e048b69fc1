"""One tiny call per distinct LLM agent before a game starts: the server is there, the key works, and the header
can record the model name the server reports (e.g. `gpt-4o-mini-2024-07-18` for `gpt-4o-mini`).

`arena play` calls `preflight(seats)` before writing the transcript header; a server that cannot be reached or that
refuses the key stops the command with a message naming the agent, before any seat has played. The probe asks for
one short reply with no schema. Transient failures (429, 5xx, timeouts, lost connections) are retried by the one
retry layer with the agent's own policy, as game calls are, so a busy server does not stop a game; a failure that
is not transient (a refused key, an unknown model) fails at once. A server that still answers 429 after every retry
has answered (it is up, and rate limits come after the key is checked): the probe passes with the configured model
name, and the games' calls wait their turn through the shared limiter, so a rate limit never stops a game or a
tournament before it starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from arena.agents import AgentError, AgentSpec
from arena.llm.client import ClientSettings, LLMClient
from arena.llm.modes import Mode
from arena.llm.server_info import server_info
from arena.llm.settings import client_settings

PROBE = [{"role": "user", "content": "Reply with the word OK."}]


STANDIN_PORT = 8765  # `arena stand-in`'s default port (agents/local-fake.toml); any other is a real server's


def _hint(spec: AgentSpec, error: str) -> str:
    """What to do when nothing answers on this machine: most often the local model's server, or the stand-in, is
    not up. The stand-in answers with made-up moves, so it is named only for its own port or a `*-fake` agent."""
    url = urlsplit(spec.base_url or "")
    if not error.startswith("connection error") or url.hostname not in ("127.0.0.1", "localhost", "::1"):
        return ""
    port = url.port or 80
    if port == STANDIN_PORT or spec.name.endswith("-fake"):
        return (
            f"; is its server running? For the built-in stand-in (made-up answers, no model), start it with "
            f"`arena stand-in --port {port}` (in another terminal, or with `&`)"
        )
    return (
        f"; is its server running? For the real local model, start it with `arena local-model --port {port}` "
        "(in another terminal, or with `&`; the `local` extra)"
    )


async def probe(spec: AgentSpec) -> str:
    """The model name the server reports for `spec`; AgentError saying why if the call fails."""
    return await probe_with(client_settings(spec), spec)


async def probe_with(base: ClientSettings, spec: AgentSpec) -> str:
    """`probe` with these client settings (the agent's own retry policy; tests pass a fast one)."""
    settings = ClientSettings(
        model=base.model,
        base_url=base.base_url,
        api_key=base.api_key,
        timeout_s=base.timeout_s,
        max_tokens_param=base.max_tokens_param,
        extra_body=base.extra_body,
        retry=base.retry,
    )
    client = LLMClient(settings)
    try:
        result = await client.complete(PROBE, mode=Mode.PROMPT, name="probe", schema={}, max_tokens=16)
    finally:
        await client.close()
    if result.completion is None and result.final_error is not None and result.final_error.status == 429:
        return spec.model or ""  # busy, not broken: the model name it reports is unknown until a game call answers
    if result.completion is None:
        error = result.final_error.error if result.final_error is not None else "no answer"
        where = spec.base_url or "the OpenAI API (or OPENAI_BASE_URL)"
        raise AgentError(f"agent {spec.name}: the probe call to {where} failed: {error}{_hint(spec, error)}")
    return result.completion.model or spec.model or ""


async def read_windows(seats: Mapping[int, AgentSpec]) -> dict[int, AgentSpec]:
    """`seats` with the window per slot filled in for each LLM agent of its own server without `context_tokens`
    (llama.cpp's /props; `server_slots` its slots), so the header records the budget its compactions used. No model
    call: `arena play` checks the window against the seats' first turns (`window.py`) before the probe."""
    found: dict[str, dict[str, object]] = {}  # by the spec's JSON (specs hold dicts, so they are not hashable)
    out: dict[int, AgentSpec] = {}
    for seat, spec in seats.items():
        if spec.kind != "llm" or not spec.base_url or spec.context_tokens is not None:
            out[seat] = spec
            continue
        key = spec.model_dump_json()
        if key not in found:
            info = await server_info(spec.base_url)
            found[key] = {} if info.context_tokens is None else {
                "context_tokens": info.context_tokens, "server_slots": info.slots}  # fmt: skip
        out[seat] = spec.model_copy(update=found[key])
    return out


async def preflight(seats: Mapping[int, AgentSpec]) -> dict[int, AgentSpec]:
    """`seats` with each LLM agent's `reported_model` filled in, probing each distinct agent once, and its window
    (`read_windows`) where that was not read yet."""
    seats = await read_windows(seats)
    reported: dict[str, str] = {}
    out: dict[int, AgentSpec] = {}
    for seat, spec in seats.items():
        if spec.kind != "llm":
            out[seat] = spec
            continue
        key = spec.model_dump_json()
        if key not in reported:
            reported[key] = await probe(spec)
        out[seat] = spec.model_copy(update={"reported_model": reported[key]})
    return out
