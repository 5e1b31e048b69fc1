"""The stand-in: a local OpenAI-compatible chat server that plays legal Mafia decisions and injects faults.

It plays a provider's part in the tests, in the benches (`bench/llm_game.py`, `bench/tournament.py`), in the
tournament's cost estimate and in offline demos (`arena stand-in`, `agents/local-fake.toml`). It is a product feature
and a test double, so it lives beside model access, not inside it: nothing in `arena/llm/` imports it.

| module | job |
|---|---|
| `server.py` | `FakeServer`: routes a request, draws its answer, acts out a planned fault; `serve_until_interrupted` |
| `answers.py` | the request's schema (or its `Legal now:` line) and a legal answer drawn from it |
| `faults.py` | `FAULTS` and `FaultPlan`: which request gets which fault |
| `metering.py` | prompt, cached and schema tokens, counted as a prefix cache would, kept between requests |
| `transport.py` | HTTP/1.1 on one asyncio loop (h11), each reply sent when due |
| `__main__.py` | `python -m arena.standin` (the benches' server in a process of its own) |

Imports run one way: `server` -> `answers`, `faults`, `metering`, `transport`, and none of those four imports another
part. The package imports nothing else of `arena`: it knows the game only through the requests it is sent.
"""

from arena.standin.answers import valid_answer
from arena.standin.faults import FAULTS, TRANSIENT_FAULTS, FaultPlan
from arena.standin.metering import ServerStats, tokens
from arena.standin.server import FakeServer, serve_until_interrupted
from arena.standin.transport import BACKLOG, Handler, HttpRequest, HttpServer, Reply

__all__ = [
    "BACKLOG",
    "FAULTS",
    "TRANSIENT_FAULTS",
    "FakeServer",
    "FaultPlan",
    "Handler",
    "HttpRequest",
    "HttpServer",
    "Reply",
    "ServerStats",
    "serve_until_interrupted",
    "tokens",
    "valid_answer",
]
