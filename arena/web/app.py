"""The FastAPI app of `arena serve`: `create_app(server)` puts together the guard and the route groups.

Why it is shaped so: every route that shows or takes anything secret is keyed by a token in the path, checked in
constant time on every request and every WebSocket message; the seat comes from the token only, never from the
request. Pages are server-rendered (Jinja2 sandbox, autoescaped) with one small local script; every response
carries a strict Content-Security-Policy and no Referer leaves a page (tokens live in URLs). WebSocket upgrades
must come from the server's own origin (or one named with --origin), and messages are size-capped. The limits and
headers are `guard.py`; the routes, one module per concern, are `routes/`.
"""

from __future__ import annotations

from fastapi import FastAPI

from arena.web import guard
from arena.web.routes import channel, judge, lobby, replays, seats, tables
from arena.web.routes.site import Site
from arena.web.server import Server


def create_app(server: Server) -> FastAPI:
    """The app serving `server`'s tables: pages, seat state and decisions, the WebSocket, new tables, replays."""
    app = FastAPI(title="Mafia Arena", docs_url=None, redoc_url=None, openapi_url=None)
    app.middleware("http")(guard.headers)
    site = Site(server)
    for group in (seats, channel, tables, replays, lobby, judge):
        group.add_routes(app, site)
    return app
