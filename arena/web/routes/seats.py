"""The pages a link opens (the index, a seat's page, a spectator's page, the static files), and a seat's state and
decisions over HTTP: the WebSocket's twin, for reloads and plain clients."""

from __future__ import annotations

from importlib import resources

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from arena.web.decide import decide
from arena.web.guard import TooLarge, loads, read_body
from arena.web.routes.site import Site
from arena.web.table import SPECTATOR, Table

_STATIC = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "favicon.ico": "image/x-icon",
}


def add_routes(app: FastAPI, site: Site) -> None:
    """The pages, the static files, `/api/state/{token}` and `/api/decide/{token}`."""
    config, page, lang_of, seat_or_404 = site.config, site.page, site.lang_of, site.seat_or_404

    # ----- pages ------------------------------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse)
    async def index(request: Request) -> HTMLResponse:
        return page("index.html", lang_of(request, config.lang), {"mode": "index"})

    @app.get("/static/{name}")
    async def static(name: str) -> Response:
        if name not in _STATIC:
            raise HTTPException(status_code=404)
        body = (resources.files("arena.web") / "static" / name).read_bytes()
        return Response(body, media_type=_STATIC[name])

    @app.get("/favicon.ico")
    async def favicon() -> Response:  # every browser asks for it; a 404 on every page is noise in every log
        return await static("favicon.ico")

    @app.get("/seat/{token}", response_class=HTMLResponse)
    async def seat_page(token: str, request: Request) -> HTMLResponse:
        table, seat = seat_or_404(token)
        if seat == SPECTATOR:
            raise HTTPException(status_code=404, detail="unknown link")
        lang = lang_of(request, table.lang)
        return page("seat.html", lang, {"mode": "seat", "token": token, "lang": lang, "seat": seat})

    @app.get("/watch/{token}", response_class=HTMLResponse)
    async def watch_page(token: str, request: Request) -> HTMLResponse:
        table, seat = seat_or_404(token)
        if seat != SPECTATOR:
            raise HTTPException(status_code=404, detail="unknown link")
        lang = lang_of(request, table.lang)
        return page("watch.html", lang, {"mode": "watch", "token": token, "lang": lang})

    # ----- seat data and decisions over HTTP (the WebSocket's twin, for reloads and plain clients) ---------------
    @app.get("/api/state/{token}")
    async def state(token: str, request: Request) -> JSONResponse:
        table, seat = seat_or_404(token)
        return JSONResponse(table.state(seat, lang_of(request, table.lang)))

    @app.post("/api/decide/{token}")
    async def decide(token: str, request: Request) -> JSONResponse:
        table, seat = seat_or_404(token)
        try:
            body = await read_body(request)
        except TooLarge:
            return JSONResponse({"type": "refused", "reason": "message too large"}, status_code=413)
        reason = _decide_body(table, seat, body)
        if reason is not None:
            return JSONResponse({"type": "refused", "reason": reason}, status_code=400)
        return JSONResponse({"type": "accepted"})


def _decide_body(table: Table, seat: int, body: bytes) -> str | None:
    """Read a POSTed decision (`arena.web.decide` checks and hands it on); the reason it is refused."""
    if seat == SPECTATOR:
        return "spectators do not decide"
    try:
        message = loads(body)
    except ValueError as exc:
        return "nested too deeply" if str(exc) == "nested too deeply" else "not JSON"
    return decide(table, seat, message)
