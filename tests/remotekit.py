"""Driving remote seats from a test: a `RemoteTable` on the test's loop and, per remote seat, an in-process agent
that speaks the protocol over real HTTP (aiohttp's client on 127.0.0.1) with a policy of the test's choosing.

    async with remote_game(rules, {3: legal}) as (table, players, agents):
        players |= bots
        await run_game(game, players, writer)
        table.finish(game)
    agents[3].bodies    # every body the seat was sent, as bytes

A policy is `policy(turn) -> dict | bytes | None`: a decision (posted as `{"turn": N, "decision": ...}`), raw bytes
(posted as they are), or None (the agent keeps the turn and never answers it). `stop_after` makes the agent go away
after that many turns (it never polls again).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from arena.engine import Request, RuleSet
from arena.players.random_policy import random_decision
from arena.players.remote import RemotePlayer, build_remote_player
from arena.remote.protocol import Exchange
from arena.remote.server import RemoteTable

Policy = Callable[[dict[str, Any]], "dict[str, Any] | bytes | None"]


def legal(seed: int = 0) -> Policy:
    """A random legal decision for each request (the arena's own random policy, on the request as sent)."""
    rng = random.Random(seed)

    def policy(turn: dict[str, Any]) -> dict[str, Any]:
        request = Request.model_validate(turn["request"])
        return random_decision(rng, request).model_dump(mode="json")

    return policy


@dataclass
class Agent:
    """One program at one remote seat, in process."""

    url: str
    token: str
    policy: Policy
    stop_after: int | None = None
    bodies: list[bytes] = field(default_factory=list)  # every GET /turn body, as sent
    answers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # each POST's status and body
    end: dict[str, Any] | None = None

    async def run(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        turns = 0
        async with aiohttp.ClientSession(headers=headers) as http:
            async with http.get(f"{self.url}/hello") as hello:
                assert hello.status == 200, await hello.text()
            answered: set[int] = set()
            while True:
                async with http.get(f"{self.url}/turn", params={"wait": "5"}) as got:
                    raw = await got.read()
                    assert got.status == 200, raw
                body = json.loads(raw)
                if body["status"] in ("over", "stopped"):
                    self.bodies.append(raw)
                    self.end = body
                    return
                if body["status"] != "turn" or body["turn"] in answered:
                    continue
                self.bodies.append(raw)
                turns += 1
                if self.stop_after is not None and turns > self.stop_after:
                    return  # gone: the turn was fetched, and nothing more will come
                answer = self.policy(body)
                answered.add(body["turn"])
                if answer is None:
                    continue  # keeps the turn, answers nothing
                data = answer if isinstance(answer, bytes) else json.dumps({"turn": body["turn"], "decision": answer})
                async with http.post(f"{self.url}/answer", data=data) as posted:
                    self.answers.append((posted.status, await posted.json()))


@contextlib.asynccontextmanager
async def remote_game(
    rules: RuleSet,
    policies: Mapping[int, Policy],
    *,
    deadline_s: float | None = None,
    record: Callable[[Exchange], None] | None = None,
    stop_after: Mapping[int, int] | None = None,
    agents_start: bool = True,
) -> AsyncIterator[tuple[RemoteTable, dict[int, RemotePlayer], dict[int, Agent]]]:
    """A started table with a remote seat and its agent per policy; the agents run until the game is over (call
    `table.finish(game)`) or the table stops."""
    from arena.agents import BUILTIN

    table = RemoteTable(rules, deadline_s=deadline_s, record=record)
    players = {s: build_remote_player(BUILTIN["remote"], s, table=table) for s in policies}
    agents = {
        s: Agent(table.url, table.lines[s].token, policy, (stop_after or {}).get(s)) for s, policy in policies.items()
    }
    await table.start()
    tasks = [asyncio.ensure_future(agent.run()) for agent in agents.values()] if agents_start else []
    try:
        yield table, players, agents
        await table.linger(5)
    finally:
        await table.stop()
        for task in tasks:
            if not task.done():
                task.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                raise result
