"""The stand-in: a local OpenAI-compatible chat server that plays legal Mafia decisions and injects faults.

(Being split by job; every public name is re-exported here.)
"""

from arena.standin.server import (
    FAULTS,
    TRANSIENT_FAULTS,
    FakeServer,
    FaultPlan,
    ServerStats,
    serve_until_interrupted,
    tokens,
    valid_answer,
)
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
