"""The judge's link (`arena serve --judge`): the public view of a live table, and the judge's actions on it.

The judge sees what the spectators see (the public view; the judge rules on what is said and done at the table, not
on the hidden deal) and acts: a foul with its reason, a removal, pause and resume, extra time for a seat. Each
action is an input the engine takes at once and the transcript records (`Table.judge`), so `arena verify` replays
it; each is a public event, so every seat sees it as the rules say. The score sheet's awards (extra points, the best
player, the best move, no auto-bonus, a yellow card) are the moderator's while the game runs and public after it;
after the end the judge gives the last of them and closes the sheet, which writes the end record.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse

from arena.web.guard import TooLarge, loads, read_body
from arena.web.routes.site import Site
from arena.web.table import SPECTATOR

ACTIONS = ("foul", "remove", "pause", "resume", "extra_time", "award", "close")


def add_routes(app: FastAPI, site: Site) -> None:
    """`/judge/{token}`, `/api/judge-state/{token}`, `/api/judge/{token}`."""
    page, lang_of = site.page, site.lang_of

    @app.get("/judge/{token}", response_class=HTMLResponse)
    async def judge_page(token: str, request: Request) -> HTMLResponse:
        table = site.role_or_404(token, "judge")
        lang = lang_of(request, table.lang)
        return page("judge.html", lang, {"mode": "judge", "token": token, "lang": lang, "players": table.game.n})

    @app.get("/api/judge-state/{token}")
    async def judge_state(token: str, request: Request) -> JSONResponse:
        table = site.role_or_404(token, "judge")
        data = table.state(SPECTATOR, lang_of(request, table.lang))
        data["judge"] = {
            "living": list(table.game.living()),
            "paused": table.paused_since is not None,
            "actions": list(ACTIONS),
            "awards": not table.sealed,  # the score sheet's awards: during the game and after it, until it closes
            "closable": table.over and not table.sealed and not table.sheet_closed.is_set(),
        }
        return JSONResponse(data)

    @app.post("/api/judge/{token}")
    async def judge_action(token: str, request: Request) -> JSONResponse:
        table = site.role_or_404(token, "judge")
        try:
            body = loads(await read_body(request))
        except (TooLarge, ValueError):
            body = None
        if not isinstance(body, dict) or body.get("action") not in ACTIONS:
            return JSONResponse({"error": f"expected {{action: {' | '.join(ACTIONS)}, seat, reason, seconds}}"}, 400)
        seat, seconds, reason = body.get("seat", 0), body.get("seconds", 0), body.get("reason", "")
        if isinstance(seat, bool) or not isinstance(seat, int) or isinstance(seconds, bool):
            return JSONResponse({"error": "seat: a seat number"}, status_code=400)
        if not isinstance(seconds, int) or not isinstance(reason, str):
            return JSONResponse({"error": "seconds: whole seconds; reason: text"}, status_code=400)
        award, points = body.get("award", ""), body.get("points", 0.0)
        if not isinstance(award, str) or isinstance(points, bool) or not isinstance(points, int | float):
            return JSONResponse({"error": "award: a kind; points: a number"}, status_code=400)
        problem = table.judge(body["action"], seat, reason, seconds, award, float(points))
        if problem is not None:
            return JSONResponse({"error": problem}, status_code=400)
        return JSONResponse({"type": "accepted"})
