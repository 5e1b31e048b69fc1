"""`arena serve`: tables in the browser. Human seats wait on pages behind secret links; bots and models play the
other seats through the same orchestrator and transcript as `arena play`.

| module | job |
|---|---|
| `server.py` | the tables of one process: create, resume, find a token; the links |
| `table.py` | one live table: its game, its web seats (a `Player` whose `decide` waits on the page), its tokens |
| `state.py` | what a page shows, computed only from the engine's `view()` for that seat |
| `i18n.py` | the pages' words in English and Russian (the log's lines: `arena.render.phrasebook`) |
| `guard.py` | the limits every request passes (size, JSON depth, token shape, origin) and the security headers |
| `decide.py` | a page's decision message, parsed once by the route that took it, checked and handed to the table |
| `seats.py`, `reveal.py` | the club table a page draws from a seat's view; the end of the game on every page |
| `http.py` | uvicorn's HTTP/1.1 protocol with a deadline for receiving each request |
| `routes/` | the HTTP and WebSocket routes, one module per concern (see its `__init__`) |
| `app.py` | `create_app(server)`: the FastAPI app, the guard and the route groups put together |

Imports run one way: `app` -> `routes` -> `server` -> `table` -> `state`, with `guard` and `i18n` beside
them. The package may import the engine, the orchestrator, the players and the human form, the transcript,
`arena.agents`, `arena.live`, `arena.pacing` (the night pacer), the renderer's phrase tables, labels and `clean`, its
score sheet (`arena.render.protocol`), the preflight of `arena.llm`, `arena.prompts` and `arena.trust` (agents and
their prompt folders), `arena.seeds`, `arena.safe_read` and `arena.safe_write`; nothing in `arena` imports it but
`arena/cli/serve.py`, so the web extra stays optional.
"""
