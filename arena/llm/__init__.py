"""Model access for LLM seats: the OpenAI-compatible client and its one retry layer, structured-output modes,
decision schemas, answer reading, call records, conversations and prompt rebuilds. (The local stand-in server that
plays the model's part in tests and demos is `arena/standin/`, a package of its own.)

Nothing here imports the openai SDK at package import time; `client.py`, `preflight.py` and the seats that use them
do, so the LangChain seat works with only the `langchain` extra.

It may import the engine, `arena.players.base` (the seat contract and call records), `arena.agents`, `arena.trust`,
`arena.prompts` and the transcript (`rebuild.py` reads what a seat was sent); the seats built on it
(`arena/players/llm.py`, `langchain_seat.py`) sit above it, and it imports none of them (an agent's client settings,
which the seat and `preflight.py` share, are `settings.py`; `window.py`'s probe plays the seat-free random policy,
`arena.players.random_policy`; `server_info.py` sends the local server's key, `arena.local.key`). Never the stand-in,
the orchestrator, the command line or the web app.
"""
