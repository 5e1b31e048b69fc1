"""The HTTP and WebSocket routes of `arena serve` (FastAPI): pages, seat state, decisions, replays.

Why it is shaped so: every route that shows or takes anything secret is keyed by a token in the path, checked in
constant time on every request and every WebSocket message; the seat comes from the token only, never from the
request. Pages are server-rendered (Jinja2 sandbox, autoescaped) with one small local script; every response
carries a strict Content-Security-Policy and no Referer leaves a page (tokens live in URLs). WebSocket upgrades
must come from the server's own origin (or one named with --origin), and messages are size-capped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from fastapi import FastAPI, HTTPException, Request, WebSocket
from fastapi.responses import HTMLResponse, JSONResponse, Response
from jinja2 import FileSystemLoader, select_autoescape
from jinja2.sandbox import ImmutableSandboxedEnvironment

from arena.engine import MODERATOR, PRESETS, Game, load_rules, view
from arena.transcript import TranscriptError, load
from arena.web.i18n import LANGS, pick_lang, words
from arena.web.server import Server, TableError
from arena.web.state import god_json, observation_json
from arena.web.table import SPECTATOR, Table

MAX_MESSAGE = 16 * 1024  # bytes of one WebSocket message or request body; a speech is a few thousand at most
MAX_SEAT_SOCKETS = 4  # open sockets per seat link (a few tabs); a flood of them is refused
MAX_SPECTATOR_SOCKETS = 200  # one spectator link is shared by many viewers
MESSAGE_BURST, MESSAGES_PER_S = 40, 20.0  # a socket's message budget: a person clicks, a flood is cut off
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,120}\.jsonl$")
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
_STATIC = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}


class TooLarge(Exception):
    """A request body over MAX_MESSAGE (read no further)."""


async def read_body(request: Request, limit: int = MAX_MESSAGE) -> bytes:
    """The request body, read as a stream and refused (TooLarge) as soon as it passes `limit`: a chunked body has
    no Content-Length for the middleware to check, and must not be buffered whole before it is refused."""
    parts: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge
        parts.append(chunk)
    return b"".join(parts)


def loads(data: str | bytes) -> Any:
    """json.loads with deeply nested JSON refused as a ValueError (it would be a RecursionError, a 500)."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _templates() -> ImmutableSandboxedEnvironment:
    folder = resources.files("arena.web") / "templates"
    return ImmutableSandboxedEnvironment(
        loader=FileSystemLoader(str(folder)), autoescape=select_autoescape(default=True, default_for_string=True)
    )


def _token_ok(token: str) -> bool:
    return bool(_TOKEN.match(token))


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """A WebSocket upgrade is accepted only from this server's own page (same host) or a configured origin."""
    if not origin:
        return False
    if origin in allowed:
        return True
    match = re.match(r"^https?://([^/]+)$", origin)
    return bool(match and host and match.group(1).lower() == host.lower())


def create_app(server: Server) -> FastAPI:
    app = FastAPI(title="Mafia Arena", docs_url=None, redoc_url=None, openapi_url=None)
    env = _templates()
    config = server.config
    replay_cache: dict[str, tuple[float, Any]] = {}

    @app.middleware("http")
    async def headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_MESSAGE):
            return JSONResponse({"error": "request too large"}, status_code=413)
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Cache-Control"] = "no-store"
        return response

    def page(template: str, lang: str, boot: dict[str, Any], title: str = "") -> HTMLResponse:
        others = [x for x in LANGS if x != lang]
        html = env.get_template(template).render(
            w=words(lang), lang=lang, other_langs=others, boot=boot, title=title or words(lang)["title"]
        )
        return HTMLResponse(html)

    def lang_of(request: Request, default: str) -> str:
        return pick_lang(request.query_params.get("lang"), default)

    def seat_or_404(token: str) -> tuple[Table, int]:
        found = server.lookup(token) if _token_ok(token) else None
        if found is None:
            raise HTTPException(status_code=404, detail="unknown link")
        return found

    def admin_or_404(token: str) -> None:
        if not (_token_ok(token) and server.is_admin(token)):
            raise HTTPException(status_code=404, detail="unknown link")

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
        reason = _decide(table, seat, body)
        if reason is not None:
            return JSONResponse({"type": "refused", "reason": reason}, status_code=400)
        return JSONResponse({"type": "accepted"})

    # ----- the live channel -------------------------------------------------------------------------------------
    open_sockets: dict[str, int] = {}  # token -> sockets open with it

    @app.websocket("/ws/{token}")
    async def channel(websocket: WebSocket, token: str) -> None:
        origin_ok = origin_allowed(
            websocket.headers.get("origin"), websocket.headers.get("host"), config.allowed_origins
        )
        found = server.lookup(token) if _token_ok(token) else None
        if not origin_ok or found is None:
            await websocket.close(code=1008)
            return
        table, seat = found
        limit = MAX_SPECTATOR_SOCKETS if seat == SPECTATOR else MAX_SEAT_SOCKETS
        if open_sockets.get(token, 0) >= limit:
            await websocket.close(code=1013)  # try again later
            return
        open_sockets[token] = open_sockets.get(token, 0) + 1
        try:
            await _serve_socket(websocket, table, seat, token)
        finally:
            open_sockets[token] -= 1
            if not open_sockets[token]:
                del open_sockets[token]

    async def _serve_socket(websocket: WebSocket, table: Table, seat: int, token: str) -> None:
        lang = pick_lang(websocket.query_params.get("lang"), table.lang)
        await websocket.accept()
        lock = asyncio.Lock()

        async def send(data: dict[str, Any]) -> None:
            async with lock:
                await websocket.send_text(json.dumps(data, ensure_ascii=False))

        async def push() -> None:
            seen, last = -1, ""
            while True:
                if table.version != seen:
                    seen = table.version
                    data = table.state(seat, lang)
                    key = state_key(data)
                    if key != last:  # only when this seat's own view changed: a push must not tell of others
                        last = key
                        await send({"type": "state", "state": data})
                await table.wait_change(seen)

        async def listen() -> None:
            budget, refilled = float(MESSAGE_BURST), time.monotonic()
            while True:
                text = await websocket.receive_text()
                now = time.monotonic()
                budget = min(MESSAGE_BURST, budget + (now - refilled) * MESSAGES_PER_S)
                refilled = now
                if budget < 1:
                    await websocket.close(code=1008, reason="too many messages")
                    return
                budget -= 1
                if len(text.encode("utf-8")) > MAX_MESSAGE:
                    await websocket.close(code=1009)
                    return
                again = server.lookup(token)  # the token is checked again on every message
                if again is None or again[0] is not table or again[1] != seat:
                    await websocket.close(code=1008)
                    return
                try:
                    message = json.loads(text)
                except RecursionError:  # deeply nested: refused, and the socket closed properly
                    await websocket.close(code=1007, reason="nested too deeply")
                    return
                except ValueError:
                    await send({"type": "error", "reason": "not JSON"})
                    continue
                kind = message.get("type") if isinstance(message, dict) else None
                if kind == "ping":
                    await send({"type": "pong"})
                elif kind == "state":
                    await send({"type": "state", "state": table.state(seat, lang)})
                elif kind == "decide" and seat != SPECTATOR:
                    reason = _decide(table, seat, text.encode("utf-8"))
                    await send({"type": "refused", "reason": reason} if reason else {"type": "accepted"})
                else:
                    await send({"type": "error", "reason": "unknown message type"})

        tasks = [asyncio.create_task(push()), asyncio.create_task(listen())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):  # a closed or broken socket ends here
                    await task

    # ----- creating a table (admin link) ------------------------------------------------------------------------
    @app.get("/new/{token}", response_class=HTMLResponse)
    async def new_page(token: str, request: Request) -> HTMLResponse:
        admin_or_404(token)
        lang = lang_of(request, config.lang)
        presets = {name: load_rules(name).players for name in PRESETS}
        agents = ["bot:heuristic", "bot:random", "human"]
        from arena.agents import list_agents  # the one lookup: --agents-dir, ./agents, user folder, examples

        agents.extend(sorted({found.name for found in list_agents(config.agents_dir)})[:100])
        boot = {"mode": "create", "token": token, "lang": lang, "presets": presets, "agents": agents}
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
        except TooLarge:
            return JSONResponse({"error": "request too large"}, status_code=413)
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"error": "expected {preset, seats: {N: agent}, lang}"}, status_code=400)
        try:
            table = await server.create(preset=preset, specs=specs, lang=lang)
        except TableError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        base = str(request.base_url).rstrip("/")
        from arena.web.server import links

        return JSONResponse({"table": table.id, "links": links(table, base)})

    # ----- replays (admin link): any saved transcript, as the god view or as any seat, step by step -------------
    def replay_transcript(name: str) -> Any:
        path = server.replay_path(name) if _NAME.match(name) else None
        if path is None:
            raise HTTPException(status_code=404, detail="no such transcript")
        mtime = path.stat().st_mtime
        cached = replay_cache.get(name)
        if cached is not None and cached[0] == mtime:
            return cached[1]
        try:
            transcript = load(path)
        except TranscriptError as exc:
            raise HTTPException(status_code=400, detail=str(exc)) from None
        if transcript.chain == "broken":  # an edited file is not shown as the game that was played
            raise HTTPException(status_code=400, detail=f"tampered: {transcript.chain_error}")
        if transcript.end is None:  # the god view of a game in progress would tell its secrets
            raise HTTPException(status_code=404, detail="this game has not ended; its replay opens when it ends")
        replay_cache[name] = (mtime, transcript)
        if len(replay_cache) > 20:
            replay_cache.pop(next(iter(replay_cache)))
        return transcript

    @app.get("/replays/{token}", response_class=HTMLResponse)
    async def replays_page(token: str, request: Request) -> HTMLResponse:
        admin_or_404(token)
        lang = lang_of(request, config.lang)
        return page(
            "replays.html", lang, {"mode": "replays", "token": token, "lang": lang, "files": server.replay_names()}
        )

    @app.get("/replay/{token}/{name}", response_class=HTMLResponse)
    async def replay_page(token: str, name: str, request: Request) -> HTMLResponse:
        admin_or_404(token)
        transcript = replay_transcript(name)
        lang = lang_of(request, transcript.header.lang)
        boot = {
            "mode": "replay",
            "token": token,
            "name": name,
            "lang": lang,
            "players": transcript.rules.players,
            "steps": len(transcript.inputs),
        }
        return page("replay.html", lang, boot)

    @app.get("/api/replay/{token}/{name}")
    async def replay_state(
        token: str, name: str, request: Request, seat: int = MODERATOR, step: int = -1
    ) -> JSONResponse:
        admin_or_404(token)
        transcript = replay_transcript(name)
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
        from arena.web.state import LogWriter

        log = LogWriter(game.rules, pick_lang(request.query_params.get("lang"), transcript.header.lang))
        data = god_json(game, log) if seat == MODERATOR else observation_json(view(game, seat), game.n, log)
        data["step"] = step
        data["steps"] = len(inputs)
        return JSONResponse(data)

    return app


def state_key(data: dict[str, Any]) -> str:
    """A seat's state without the clock-driven and table-wide counters: equal keys mean nothing new for the seat."""
    rest = {k: v for k, v in data.items() if k not in ("version", "speaker", "pending")}
    speaker = data.get("speaker")
    pending = data.get("pending")
    rest["speaker"] = speaker["seat"] if speaker else None
    rest["pending"] = pending["ask"] if pending else None
    return json.dumps(rest, sort_keys=True)


def _decide(table: Table, seat: int, body: bytes) -> str | None:
    """Read `{"type": "decide", "ask": ID, "answer": {...}}` and hand it to the table; the reason it is refused."""
    if seat == SPECTATOR:
        return "spectators do not decide"
    try:
        message = loads(body)
    except ValueError as exc:
        return "nested too deeply" if str(exc) == "nested too deeply" else "not JSON"
    if not isinstance(message, dict) or set(message) - {"type", "ask", "answer"}:
        return "expected {type: decide, ask, answer}"
    return table.answer(seat, message.get("ask"), message.get("answer"))
