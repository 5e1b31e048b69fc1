"""Research measures over transcripts: side-aware ratings, deception and detection metrics, belief-probe scores,
and the `arena report` output. Reads transcripts only (never the engine's state), so any folder of games works.

| module | job |
|---|---|
| `corpus.py` | a folder of transcripts to finished games: configurations, roles, winner, counters |
| `ratings.py` | side-aware Bradley-Terry with bootstrap intervals, Wilson win rates, invalid-action rates |
| `metrics.py` | per game, seat and day: votes, nominations, checks, claims, probes, deception, detection, cost |
| `tables.py`, `report.py` | the CSV rows and `arena report` (Markdown, one HTML page, PNGs) |
| `selfplay.py` | balanced bot tournaments through the orchestrator (real data without a model) |

It may import the engine, the transcript, `arena.players.base` and `arena.agents`; `selfplay.py` also the
orchestrator and the player factory; never the command line, the web app or model access.
"""
