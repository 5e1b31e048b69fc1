"""Replays: any saved transcript of a finished game, as the god view or as any seat, step by step, from the admin
link; and a table's own game from its seat and spectator links, once that game has ended (the end of the game links
to it). A file whose hash chain is broken is refused (an edited file is not shown as the game that was played), and
a game that has not ended has no replay (its god view would tell its secrets)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from arena.engine import MODERATOR, Game, view
from arena.transcript import Transcript, TranscriptError, load
from arena.web.i18n import pick_lang
from arena.web.routes.site import Site
from arena.web.state import LogWriter, god_json, observation_json, phase_label
from arena.web.table import SPECTATOR

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,120}\.jsonl$")


def add_routes(app: FastAPI, site: Site) -> None:
    """`/replays/{token}`, `/replay/{token}/{name}`, `/api/replay/{token}/{name}`, and the score sheets
    `/protocol/{token}` (a table's ended game) and `/protocol/{token}/{name}` (a saved game)."""
    server, config, page, lang_of, admin_or_404 = site.server, site.config, site.page, site.lang_of, site.admin_or_404
    replay_cache: dict[str, tuple[float, Transcript]] = {}

    async def cached(key: str, path: Path) -> Transcript:
        mtime = path.stat().st_mtime
        hit = replay_cache.get(key)
        if hit is not None and hit[0] == mtime:
            return hit[1]
        # a big file is read off the loop (tables keep playing); a link is followed only for a --replay FILE
        transcript = await asyncio.to_thread(finished, path, path in config.replay_files)
        replay_cache[key] = (mtime, transcript)
        if len(replay_cache) > 20:
            replay_cache.pop(next(iter(replay_cache)))
        return transcript

    async def replay_transcript(name: str) -> Transcript:
        path = server.replay_path(name) if _NAME.match(name) else None
        if path is None:
            raise HTTPException(status_code=404, detail="no such transcript")
        return await cached(name, path)

    async def table_transcript(token: str) -> tuple[Transcript, int]:
        """The game of the table a seat or spectator link opens, once it has ended; and that link's seat."""
        table, seat = site.seat_or_404(token)
        path = table.writer.path if table.writer is not None else None
        if not table.over or path is None:
            raise HTTPException(status_code=404, detail="this game has not ended; its replay opens when it ends")
        return await cached(f"table:{table.id}", path), seat

    @app.get("/replays/{token}", response_class=HTMLResponse)
    async def replays_page(token: str, request: Request) -> HTMLResponse:
        admin_or_404(token)
        lang = lang_of(request, config.lang)
        return page(
            "replays.html", lang, {"mode": "replays", "token": token, "lang": lang, "files": server.replay_entries()}
        )

    @app.get("/replay/{token}/{name}", response_class=HTMLResponse)
    async def replay_page(token: str, name: str, request: Request) -> HTMLResponse:
        admin_or_404(token)
        transcript = await replay_transcript(name)
        lang = lang_of(request, transcript.header.lang)
        boot = {
            "mode": "replay",
            "token": token,
            "name": name,
            "lang": lang,
            "players": transcript.rules.players,
            "steps": len(transcript.inputs),
            "api": f"/api/replay/{token}/{name}",
        }
        return page("replay.html", lang, boot)

    @app.get("/review/{token}", response_class=HTMLResponse)
    async def review_page(token: str, request: Request) -> HTMLResponse:
        transcript, seat = await table_transcript(token)
        lang = lang_of(request, transcript.header.lang)
        mine = None if seat == SPECTATOR or request.query_params.get("as") == "god" else seat
        boot = {
            "mode": "replay",
            "token": token,
            "name": Path(transcript.path).name if transcript.path else "",
            "lang": lang,
            "players": transcript.rules.players,
            "steps": len(transcript.inputs),
            "api": f"/api/review/{token}",
            "seat": mine,
        }
        return page("replay.html", lang, boot)

    @app.get("/protocol/{token}", response_class=HTMLResponse)
    async def table_protocol(token: str, request: Request) -> HTMLResponse:
        """The judge's score sheet of a seat's or spectator's table, once its game has ended (docs/scoring.md)."""
        transcript, _ = await table_transcript(token)
        return await protocol_page(transcript, request)

    @app.get("/protocol/{token}/{name}", response_class=HTMLResponse)
    async def replay_protocol(token: str, name: str, request: Request) -> HTMLResponse:
        """The score sheet of a saved game, from the admin link's replays."""
        admin_or_404(token)
        return await protocol_page(await replay_transcript(name), request)

    async def protocol_page(transcript: Transcript, request: Request) -> HTMLResponse:
        from arena.render.protocol import protocol_html

        lang = lang_of(request, transcript.header.lang)
        try:
            text = await asyncio.to_thread(protocol_html, transcript, lang, stylesheet="/protocol.css")
        except Exception as exc:  # a transcript the engine refuses: say so, do not crash
            raise HTTPException(status_code=400, detail=f"no score sheet: {exc}") from None
        return HTMLResponse(text)

    @app.get("/protocol.css")
    async def protocol_css() -> Response:
        from arena.render.protocol import PROTOCOL_CSS

        return Response(PROTOCOL_CSS, media_type="text/css")

    @app.get("/api/review/{token}")
    async def review_state(token: str, request: Request, seat: int = MODERATOR, step: int = -1) -> JSONResponse:
        transcript, _ = await table_transcript(token)  # after the end every view is open: the god view holds them all
        return replay_json(transcript, seat, step, request.query_params.get("lang"))

    @app.get("/api/replay/{token}/{name}")
    async def replay_state(
        token: str, name: str, request: Request, seat: int = MODERATOR, step: int = -1
    ) -> JSONResponse:
        admin_or_404(token)
        return replay_json(await replay_transcript(name), seat, step, request.query_params.get("lang"))


def finished(path: Path, follow_links: bool = False) -> Transcript:
    """A transcript to replay: a regular file (never a FIFO, which would block), readable, its chain whole, its game
    ended (HTTP errors otherwise)."""
    try:
        transcript = load(path, follow_links=follow_links)
    except TranscriptError as exc:
        raise HTTPException(status_code=400, detail=str(exc)) from None
    if transcript.chain == "broken":  # an edited file is not shown as the game that was played
        raise HTTPException(status_code=400, detail=f"tampered: {transcript.chain_error}")
    if transcript.end is None:  # the god view of a game in progress would tell its secrets
        raise HTTPException(status_code=404, detail="this game has not ended; its replay opens when it ends")
    return transcript


def replay_json(transcript: Transcript, seat: int, step: int, lang: str | None) -> JSONResponse:
    """The game rebuilt from its first `step` inputs, as `seat` saw it then (MODERATOR: the god view)."""
    inputs = transcript.inputs
    if step < 0 or step > len(inputs):
        step = len(inputs)
    if not 0 <= seat <= transcript.rules.players:
        raise HTTPException(status_code=400, detail="no such seat")
    try:
        game = Game(transcript.rules, transcript.header.seed, roles=transcript.header.roles)
        game.replay(list(inputs[:step]))
    except Exception as exc:  # a transcript the engine refuses: say so, do not crash
        raise HTTPException(status_code=400, detail=f"cannot replay: {exc}") from None
    log = LogWriter(game.rules, pick_lang(lang, transcript.header.lang))
    data = god_json(game, log) if seat == MODERATOR else observation_json(view(game, seat), game.n, log)
    data["step"] = step
    data["steps"] = len(inputs)
    data["phases"] = phase_steps(transcript, log.lang)
    return JSONResponse(data)


_PHASES: dict[tuple[str, int, str], list[dict[str, object]]] = {}


def phase_steps(transcript: Transcript, lang: str) -> list[dict[str, object]]:
    """Where each night and day begins, as a step of the replay (the number of inputs after which its banner is in
    the log): the replay page's "jump to" list. Computed once per file."""
    key = (str(transcript.path), len(transcript.inputs), lang)
    hit = _PHASES.get(key)
    if hit is not None:
        return hit
    game = Game(transcript.rules, transcript.header.seed, roles=transcript.header.roles)
    out: list[dict[str, object]] = []
    seen = 0
    for step in range(len(transcript.inputs) + 1):
        if step:
            game.replay([transcript.inputs[step - 1]])
        for event in game.events[seen:]:
            if event.type.value == "phase_started":
                out.append({"label": phase_label(event.value or "", event.day, lang), "step": step})
        seen = len(game.events)
    if len(_PHASES) > 50:
        _PHASES.pop(next(iter(_PHASES)))
    _PHASES[key] = out
    return out
