"""What the tournament tests write: a model agent on a test server, and the pools they play."""

from __future__ import annotations

from pathlib import Path

# the two model configurations of one agent, a cold and a hot one
FAKE_POOL = (
    '[[pool]]\nlabel = "cold"\nagent = "fake"\ntemperature = 0.1\n'
    '[[pool]]\nlabel = "hot"\nagent = "fake"\ntemperature = 1.4\n'
)
# the heuristic bot against the random one
BOTS_POOL = '[[pool]]\nlabel = "h"\nagent = "bot:heuristic"\n[[pool]]\nlabel = "r"\nagent = "bot:random"\n'


def fake_agent(folder: Path, base_url: str, extra: str = "") -> Path:
    """`folder/agents/fake.toml`: the LLM agent `fake` on `base_url` (with `extra` lines); the agents folder."""
    agents = folder / "agents"
    agents.mkdir()
    (agents / "fake.toml").write_text(f'kind = "llm"\nmodel = "fake-model"\nbase_url = "{base_url}"\n{extra}')
    return agents
