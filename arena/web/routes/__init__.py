"""The routes of `arena serve`, one module per concern; `arena/web/app.py` adds each group to the app.

| module | routes |
|---|---|
| `site.py` | (none) what every group shares: the templates, a page, the language, the token lookups |
| `seats.py` | the index, the static files, a seat's and a spectator's page; a seat's state and decisions over HTTP |
| `channel.py` | the WebSocket: pushes of a seat's (or a spectator's) own view, decisions, socket and message limits |
| `tables.py` | the admin link's page for a new table, and creating one |
| `judge.py` | the judge's link: the public view and the judge's actions (foul, removal, pause, extra time) |
| `lobby.py` | the join link (a free person's seat), Ready over HTTP, the host's tables page and Start |
| `replays.py` | the admin link's replays: any finished transcript, as the god view or any seat, step by step |

A route module may import `site.py`, `arena/web/guard.py`, the web modules below it (`server`, `table`, `state`, `i18n`,
`decide`), the engine, the transcript, `arena.agents` and the score sheet's words (`arena.render.protocol`); never
`app.py` or another route module (`tests/test_import_graph.py`). Every route that shows or takes anything secret is
keyed by a token in the path; the seat comes from the token only, never from the request.
"""
