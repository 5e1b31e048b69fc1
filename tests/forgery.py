"""What a forger does to an edited transcript: recompute every line's hash so the chain looks intact. The tests that
edit a transcript use it to check that the replay and the call checks still catch the edit."""

from __future__ import annotations

import json

from arena.transcript import GENESIS, chain_hash


def rechain(lines: list[str]) -> list[str]:
    """Recompute every line's hash, as a forger would: the replay and call checks must still catch the edit."""
    out, previous = [], GENESIS
    for line in lines:
        data = json.loads(line)
        data.pop("hash", None)
        previous = chain_hash(previous, data)
        data["hash"] = previous
        out.append(json.dumps(data, ensure_ascii=False) + "\n")
    return out
