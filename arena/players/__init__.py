"""The seats: every kind of player behind one contract, `Player.decide(observation, request, problem)`.

| module | job |
|---|---|
| `base.py` | the contract: `Player`, `Answer`, `ModelCall`, `PlayerError`, the failure prefixes of a re-ask |
| `random_policy.py` | a random legal decision for any request |
| `bots.py`, `bot_memory.py`, `bot_lines.py` | the random and heuristic bots (lines from `prompts/bots/<lang>/`) |
| `human.py` | the terminal seat |
| `llm.py`, `langchain_seat.py` | the OpenAI-compatible and LangChain seats, on `arena/llm/` |
| `remote.py` | a seat played by an external program over HTTP (docs/remote.md), through `arena.remote`; |
| | `ProgramSeat`, one with its own table and program per game (the contract check's) |
| `wrapper.py` | `Wrapper`: a seat passing another's decisions through, that seat to the orchestrator |
| `delayed.py` | a seat that waits before each answer (the hidden `--delay`) |
| `factory.py` | an `AgentSpec` to a `Player` (the model seats imported lazily) |
| `contract.py` | `check_seat`: the seat contract (every role; each answer accepted or refused by code, in time), |
| | for any seat a factory makes, or an async factory starts |

`base.py` imports only the engine, so the orchestrator, the transcript and model access can all depend on the
contract; the seats above it may import the engine, `arena.agents`, `arena.prompts`, `arena.resources`, `arena.llm`
(model seats), `arena.human` and `arena.live` (the terminal seat), `arena.remote` (the remote seat); never the
orchestrator, the transcript or the CLI.
"""
