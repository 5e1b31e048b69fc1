"""Creating a table from the admin link: the page with the presets and the agents a seat can name, and the call
that seats the table and answers with its links."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse

from arena.engine import PRESETS, load_rules
from arena.web.guard import TooLarge, loads, read_body
from arena.web.i18n import LANGS
from arena.web.routes.site import Site
from arena.web.server import TableError, links

MAX_SEED = 999_999_999
MAX_BOT_DELAY_S = 10  # seconds a bot waits per decision, at most
MIN_LIMIT_S, MAX_LIMIT_S = 5, 3600  # seconds a person has per decision: long enough to read, short enough to play


def add_routes(app: FastAPI, site: Site) -> None:
    """`/new/{token}` and `/api/tables/{token}`."""
    server, config, page, lang_of, admin_or_404 = site.server, site.config, site.page, site.lang_of, site.admin_or_404

    @app.get("/new/{token}", response_class=HTMLResponse)
    async def new_page(token: str, request: Request) -> HTMLResponse:
        admin_or_404(token)
        lang = lang_of(request, config.lang)
        presets = {name: load_rules(name).players for name in PRESETS}
        about = {name: load_rules(name).description for name in PRESETS}
        agents = ["bot:heuristic", "bot:random", "human"]
        from arena.agents import list_agents  # the one lookup: --agents-dir, ./agents, user folder, examples

        agents.extend(sorted({found.name for found in list_agents(config.agents_dir)})[:100])
        boot = {
            "mode": "create",
            "token": token,
            "lang": lang,
            "presets": presets,
            "about": about,
            "bot_delay": config.bot_delay,
            "agents": agents,
            "default_preset": load_rules(None).name,  # what `arena play` plays, not the first name (tojson sorts)
            "human_timeout": config.human_timeout,
        }
        return page("create.html", lang, boot)

    @app.post("/api/tables/{token}")
    async def create_table(token: str, request: Request) -> JSONResponse:
        admin_or_404(token)
        try:
            body = loads(await read_body(request))
            preset = body["preset"]
            seats = body["seats"]
            lang = body.get("lang", config.lang)
            if not isinstance(preset, str) or not isinstance(seats, dict) or lang not in LANGS:
                raise ValueError
            specs = {int(k): str(v) for k, v in seats.items() if isinstance(v, str)}
            seed, limit, delay = body.get("seed"), body.get("human_timeout"), body.get("bot_delay")
        except TooLarge:
            return JSONResponse({"error": "request too large"}, status_code=413)
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"error": "expected {preset, seats: {N: agent}, lang, seed, human_timeout}"}, 400)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
            return JSONResponse({"error": f"seed: a whole number from 0 to {MAX_SEED}, or none for a random deal"}, 400)
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int | float) or not MIN_LIMIT_S <= limit <= MAX_LIMIT_S
        ):
            return JSONResponse({"error": f"time limit: {MIN_LIMIT_S} to {MAX_LIMIT_S} seconds per decision"}, 400)
        if delay is not None and (
            isinstance(delay, bool) or not isinstance(delay, int | float) or not 0 <= delay <= MAX_BOT_DELAY_S
        ):
            return JSONResponse({"error": "bot delay: 0 to 10 seconds"}, 400)
        try:
            table = await server.create(
                preset=preset,
                specs=specs,
                lang=lang,
                seed=seed,
                human_timeout=float(limit) if limit else None,
                bot_delay=float(delay) if delay is not None else None,
            )
        except TableError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        base = str(request.base_url).rstrip("/")
        return JSONResponse({"table": table.id, "links": links(table, base)})
