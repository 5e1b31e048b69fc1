"""Helpers shared by the LLM-seat tests: seats against a local server, a game with a transcript, prompt text."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from arena.agents import AgentSpec
from arena.engine import Game, RuleSet
from arena.llm.client import ClientSettings, LLMClient
from arena.llm.conversation import Conversation
from arena.llm.modes import Mode
from arena.llm.retry import RetryPolicy
from arena.orchestrator import RunStats, run_game
from arena.players.base import Player
from arena.players.llm import LLMPlayer, client_settings, seat_language
from arena.prompts import load_prompt_set
from arena.transcript import TranscriptWriter, make_header

FAST = RetryPolicy(attempts=5, backoff=0.01, max_wait=0.2, jitter=0.01)
_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def llm_spec(base_url: str, mode: str = "json_schema", **fields: Any) -> AgentSpec:
    return AgentSpec(name=f"local-{mode}", kind="llm", model="fake-model", base_url=base_url, structured=mode, **fields)


def llm_player(
    spec: AgentSpec, seat: int, rules: RuleSet, lang: str = "en", timeout_s: float | None = None
) -> LLMPlayer:
    """Like `build_llm_player`, with fast retries (and an optional short timeout) for tests."""
    settings = client_settings(spec)
    settings = ClientSettings(
        model=settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key,
        timeout_s=timeout_s or settings.timeout_s,
        retry=FAST,
    )
    language = seat_language(spec, lang)
    prompts = load_prompt_set(spec.prompt_set, language)
    conversation = Conversation(prompts, rules, seat, Mode(spec.structured), schema_style=spec.schema_style)
    return LLMPlayer(seat, LLMClient(settings), conversation, lang=language)


async def play(
    rules: RuleSet,
    seed: int,
    players: dict[int, Player],
    specs: dict[int, AgentSpec],
    path: Path,
    lang: str = "en",
    max_reasks: int = 2,
) -> tuple[Game, RunStats]:
    """One game written to `path`; the players are closed afterwards."""
    header = make_header(rules, seed, specs, lang=lang, prompt_set_hash=load_prompt_set("default", lang).hash)  # type: ignore[arg-type]
    writer = TranscriptWriter.create(path, header)
    stats = RunStats()
    game = Game(rules, seed)
    try:
        await run_game(game, players, writer, stats=stats, max_reasks=max_reasks)
    finally:
        writer.close()
        for player in players.values():
            await player.close()
    return game, stats


def outside_quotes(text: str) -> str:
    """The text with every JSON string literal removed: what is left is the moderator's own words."""
    return _JSON_STRING.sub('""', text)


def structured_mode_matcher(r1: Any, r2: Any) -> None:
    """Cassette requests match on the model and how the schema was sent, not on the prompt wording, so a change to
    the templates does not invalidate the cassettes (the prompt itself is covered by the other tests)."""

    def shape(request: Any) -> tuple[Any, ...]:
        body = json.loads(request.body or b"{}")
        fmt = body.get("response_format") or {}
        tools = [t["function"]["name"] for t in body.get("tools") or []]
        return body.get("model"), fmt.get("type"), (fmt.get("json_schema") or {}).get("name"), tuple(tools)

    assert shape(r1) == shape(r2), f"{shape(r1)} != {shape(r2)}"


async def serve_app(handler: Any) -> tuple[Any, int]:
    """An aiohttp app on a free port of 127.0.0.1 answering POST /v1/chat/completions with `handler`: the runner
    (to clean up) and the port."""
    from aiohttp import web

    app = web.Application()
    app.router.add_post("/v1/chat/completions", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
