"""External agents at the table: the remote seat protocol (docs/remote.md).

A program in any language plays a seat over plain HTTP with JSON: it polls for its turn (the seat's own observation,
numbered as the seat numbers it, and the request with its legal options, caps, the rule's default and the deadline)
and posts a decision, which the engine checks like any other seat's answer.

| module | job |
|---|---|
| `protocol.py` | the wire format: a turn from an `Observation` and a `Request`, an answer read into a `Decision`, the |
| | `Exchange` record the transcript keeps of each turn |
| `check.py` | verify's check of the exchanges: each turn rebuilt from the replay, each answer read again and matched |
| | with the input it became |
| `server.py` | `RemoteTable`: the HTTP server (aiohttp, loopback by default), a token per seat, the seats' turns |

`protocol` and `check` import only the engine and the seat contract (`arena.players.base`), so the transcript can
read and check exchange records; `server` also imports aiohttp, and only the remote seat
(`arena/players/remote.py`) and the command line import it. Nothing here imports the orchestrator, the transcript
or another seat.
"""
