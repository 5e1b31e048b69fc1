"""The faults the stand-in injects, and the plan that says which request gets which (`FaultPlan`).

The n-th request for a schema name (e.g. the 3rd `vote_decision`) gets a 429 with Retry-After, a 500, a hang past the
client's timeout, a broken body, malformed JSON, the wrong schema, an illegal target, a refusal, an empty or cut-off
answer, a speech far over its word limit, and more (`FAULTS`); the server (`server.py`) acts each one out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FAULTS = (
    "rate_limit",  # 429 with Retry-After (and retry-after-ms)
    "server_error",  # 500
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
TRANSIENT_FAULTS = ("rate_limit", "server_error", "server_error_usage", "timeout", "bad_body")


@dataclass
class FaultPlan:
    """Faults keyed by (schema name, n-th request for it, counting from 1). A name of "*" matches every request."""

    faults: dict[tuple[str, int], str] = field(default_factory=dict)
    hang_s: float = 2.0  # how long a `timeout` fault keeps the client waiting

    def add(self, fault: str, schema: str = "*", nth: int = 1) -> FaultPlan:
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")
        self.faults[(schema, nth)] = fault
        return self
