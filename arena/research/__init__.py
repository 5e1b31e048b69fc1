"""Research measures over transcripts: side-aware ratings, deception and detection metrics, belief-probe scores,
and the `arena report` output. Reads transcripts only (never the engine's state), so any folder of games works.

| module | job |
|---|---|
| `corpus.py` | a folder of transcripts to finished games: configurations, roles, winner, counters |
| `records.py` | one finished game as the statistics see it (seats, roles, winner, deal), real or simulated |
| `identify.py` | the ratings' design matrix and what it identifies (rank, estimable quantities, combination weights) |
| `ratings.py` | side-aware Bradley-Terry on what is identified, block bootstrap, simultaneous comparisons |
| `leverage.py` | does a skill differ by role beyond the role's own weight (the roles diagnostic's score test) |
| `intervals.py` | intervals per game, clustered by deal (Wilson on the effective n, ratio ± t·SE, Holm) |
| `outcomes.py` | win rates per side, the role-baseline outcome score, the roles and seats diagnostic |
| `power.py` | before a tournament: what its schedule identifies, the detectable difference, games needed |
| `simulate.py` | a process the model does not assume, and the coverage check of every printed interval |
| `metrics.py` | per game, seat and day: votes, nominations, checks, claims, probes, deception, detection, cost |
| `speech_reader/` | what a speech's free text states (roles, checks, votes, who is dead or alive, ...), en and ru |
| `speech_action.py` | each speech's statements checked against the record and the speaker's acts: lies and errors |
| `leaks.py` | black speeches that give away a teammate, the own card or the night's target |
| `summary.py`, `plots.py`, `tables.py`, `report.py` | `arena report`: what it states, plots, CSV rows, Markdown/HTML |
| `selfplay.py` | balanced bot tournaments through the orchestrator (real data without a model) |
| `planted.py` | scripted seats that differ by construction (a behaviour planted at a strength), and their games |
| `discrimination.py` | does a metric tell the plants apart: effect, order, games needed, coverage |
| `persuasion.py`, `reask.py` | `arena persuasion`: a speech's causal effect, its listeners re-asked without it |
| `transfer.py` | does a skill transfer between two rule sets or languages: Kendall's τ, the side-term shift |
| `points.py` | the points table of a scoring system (`arena report --scoring`), and its interval's coverage check |

It may import the engine, the transcript, `arena.scoring`, `arena.players.base`, `arena.agents`, `arena.safe_read` (a
corpus) and `arena.safe_write` (a report); `selfplay.py` also the orchestrator and the player factory; `planted.py`
also the orchestrator and the bots (it scripts them); `reask.py` model access (`arena.llm`, the LLM seat's client
settings), as it asks a model seat again; `power.py` and `simulate.py` the tournament schedule (a schedule's design is
what they judge); never the command line or the web app, and no other module model access (but `persuasion.py` quotes
player text as the seats see it, `arena.llm.injection`). `speech_reader/` imports nothing of `arena`.
"""
