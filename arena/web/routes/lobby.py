"""The lobby of a table with people: the join link (a person picks a free seat), Ready over HTTP, and the host's
tables page (who is here and ready, and Start).

A table with human seats waits in its lobby until every person has opened their page and pressed Ready, or until
the host starts it from the admin link's tables page (`arena serve --start now` skips the lobby). The join link
gives a free person's seat to whoever opens it first; a seat whose link was opened is never offered.
"""

from __future__ import annotations

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse

from arena.web.guard import TooLarge, loads, read_body
from arena.web.routes.site import Site
from arena.web.server import links
from arena.web.table import SPECTATOR


def add_routes(app: FastAPI, site: Site) -> None:
    """`/join/{token}`, `/api/join/{token}`, `/api/ready/{token}`, `/tables/{token}`, `/api/tables-state/{token}`,
    `/api/start/{token}/{table}`."""
    server, config, page, lang_of = site.server, site.config, site.page, site.lang_of

    @app.get("/join/{token}", response_class=HTMLResponse)
    async def join_page(token: str, request: Request) -> HTMLResponse:
        table = site.role_or_404(token, "join")
        lang = lang_of(request, table.lang)
        boot = {"mode": "join", "token": token, "lang": lang, "free": table.free_seats(), "started": table.started}
        return page("join.html", lang, boot)

    @app.post("/api/join/{token}")
    async def join(token: str, request: Request) -> JSONResponse:
        table = site.role_or_404(token, "join")
        try:
            body = loads(await read_body(request))
            seat = body["seat"] if isinstance(body, dict) else None
        except (TooLarge, ValueError, KeyError):
            seat = None
        if isinstance(seat, bool) or not isinstance(seat, int):
            return JSONResponse({"error": "expected {seat: N}"}, status_code=400)
        claimed = table.claim(seat)
        if claimed is None:
            return JSONResponse({"error": f"seat {seat} is not free", "free": table.free_seats()}, status_code=409)
        return JSONResponse({"url": f"/seat/{claimed}"})

    @app.post("/api/ready/{token}")
    async def ready(token: str, request: Request) -> JSONResponse:
        table, seat = site.seat_or_404(token)
        if seat == SPECTATOR:
            raise HTTPException(status_code=404, detail="unknown link")
        try:
            body = loads(await read_body(request))
        except (TooLarge, ValueError):
            body = None
        table.set_ready(seat, not (isinstance(body, dict) and body.get("ready") is False))
        return JSONResponse({"type": "accepted"})

    @app.get("/tables/{token}", response_class=HTMLResponse)
    async def tables_page(token: str, request: Request) -> HTMLResponse:
        site.admin_or_404(token)
        lang = lang_of(request, config.lang)
        return page("tables.html", lang, {"mode": "tables", "token": token, "lang": lang})

    @app.get("/api/tables-state/{token}")
    async def tables_state(token: str, request: Request) -> JSONResponse:
        site.admin_or_404(token)
        base = str(request.base_url).rstrip("/")
        out = []
        for table in server.tables.values():
            out.append(
                {
                    "id": table.id,
                    "started": table.started,
                    "over": table.over,
                    "day": table.game.day,
                    "seats": [
                        {"seat": s, "presence": table.presence(s), "ready": s in table.ready} for s in table.humans
                    ],
                    "links": links(table, base),
                }
            )
        return JSONResponse({"tables": out})

    @app.post("/api/start/{token}/{table_id}")
    async def start(token: str, table_id: str) -> JSONResponse:
        site.admin_or_404(token)
        table = server.tables.get(table_id) if table_id.isalnum() else None
        if table is None:
            raise HTTPException(status_code=404, detail="no such table")
        table.start_now()
        return JSONResponse({"type": "accepted"})
