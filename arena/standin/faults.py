"""The faults the stand-in injects, and the plan that says which request gets which (`FaultPlan`).

The n-th request for a schema name (e.g. the 3rd `vote_decision`) gets a 429 with Retry-After, a 500, a hang past the
client's timeout, a broken body, malformed JSON, the wrong schema, an illegal target, a refusal, an empty or cut-off
answer, a speech far over its word limit, and more (`FAULTS`); the server (`server.py`) acts each one out. A plan's
`mix` draws faults at random instead, each request with the given chances (`FaultPlan.mixed`): the property tests of
the fault path (tests/llm/test_llm_fault_mix.py) play many games under every kind at once.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

FAULTS = (
    "rate_limit",  # 429 with Retry-After (and retry-after-ms)
    "rate_limit_bare",  # 429 with no Retry-After: the client backs off on its own
    "server_error",  # 500
    "unavailable",  # 503, as a gateway in front of a restarting server says
    "cut_connection",  # the connection closed with no answer at all
    "overflow",  # 400: the prompt exceeds the context size (llama.cpp's words); the seat compacts and asks again
    "server_error_usage",  # 500 whose body still reports the tokens the attempt used (as some gateways do)
    "timeout",  # no answer until after the client's timeout
    "bad_body",  # HTTP 200 whose body is not JSON
    "bad_json",  # content that is not JSON at all
    "wrong_schema",  # valid JSON, wrong fields
    "illegal_target",  # right shape, a seat outside the enum
    "refusal",  # message.refusal set, no content
    "empty",  # empty content
    "cut_off",  # finish_reason length, JSON cut mid-string
    "overlong",  # a speech far over any word limit
    "unauthorized",  # 401 echoing the key half-masked, as OpenAI's message does
    "huge_body",  # HTTP 200 with a 20 MB answer, sent in chunks (the client reads a bounded body)
    "huge_answer",  # a valid completion whose content is 300 KiB (over the answer cap, under the body bound)
    "nested_body",  # HTTP 200 whose body is JSON nested 100,000 deep
)
TRANSIENT_FAULTS = (
    "rate_limit", "rate_limit_bare", "server_error", "unavailable", "cut_connection", "server_error_usage", "timeout",
    "bad_body",
)  # fmt: skip


@dataclass
class FaultPlan:
    """Faults keyed by (schema name, n-th request for it, counting from 1). A name of "*" matches every request.
    `mix` maps faults to the chance that a request gets each, drawn from `seed`, the request's bytes and how many
    times the server saw those bytes before (so a retried request draws again, and concurrent games draw the same
    faults whatever order their requests arrive in)."""

    faults: dict[tuple[str, int], str] = field(default_factory=dict)
    hang_s: float = 2.0  # how long a `timeout` fault keeps the client waiting
    mix: dict[str, float] = field(default_factory=dict)
    seed: int = 0

    def add(self, fault: str, schema: str = "*", nth: int = 1) -> FaultPlan:
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
        self.faults[(schema, nth)] = fault
        return self

    def in_turn(self, schema: str, *faults: str) -> FaultPlan:
        """The schema's first requests get `faults`, one each in order: the n-th request the n-th fault."""
        for nth, fault in enumerate(faults, 1):
            self.add(fault, schema, nth)
        return self

    @classmethod
    def mixed(cls, mix: dict[str, float], seed: int = 0, hang_s: float = 2.0) -> FaultPlan:
        """A plan that draws each request's fault at random, with the chances in `mix` (together at most 1)."""
        unknown = sorted(set(mix) - set(FAULTS))
        if unknown:
            raise ValueError(f"unknown faults {unknown}; known: {', '.join(FAULTS)}")
        if any(p < 0 for p in mix.values()) or sum(mix.values()) > 1:
            raise ValueError("fault chances must be at least 0 and add up to at most 1")
        return cls(hang_s=hang_s, mix=dict(mix), seed=seed)

    def draw(self, body: bytes, seen: int) -> str | None:
        """The mixed fault for a request with these bytes, seen `seen` times before (None: answer it)."""
        if not self.mix:
            return None
        digest = hashlib.sha256(b"%d:%d:" % (self.seed, seen) + body).digest()
        u = int.from_bytes(digest[:8], "big") / 2**64
        for fault, chance in self.mix.items():
            if u < chance:
                return fault
            u -= chance
        return None
