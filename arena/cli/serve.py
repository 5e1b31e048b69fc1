"""`arena serve`: a web table where people play in the browser against bots and models, with spectators and replays.

Why a command of its own: the browser seat needs a server (FastAPI + uvicorn, the `web` extra), imported only
when this command runs. It binds 127.0.0.1 unless --host says otherwise (then it warns), prints each human seat's
secret link and the spectators' link, and saves the game as a normal transcript (`arena resume` continues it;
`arena serve --resume FILE` continues it in the browser with new links).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.cli.options import Lang, SignKeyEnv, fail, read_sign_key
from arena.cli.play import load_for_resume
from arena.cli.seats import SeatSpecError, parse_seat_specs, preflight_seats

LOOPBACK = ("127.0.0.1", "localhost", "::1")
SHUTDOWN_GRACE_S = 5  # on SIGTERM or Ctrl-C, open requests and sockets get this long before they are closed


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_port(host: str, port: int) -> None:
    """Fail with one line when the address cannot be bound (uvicorn would log it and exit)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")


def register(app: typer.Typer) -> None:
    """Add `serve` to `app`."""

    @app.command()
    def serve(
        seat: Annotated[
            list[str] | None,
            typer.Option("--seat", help="Start a table at once: 1=human, all=bot:heuristic, 4=NAME. Repeatable."),
        ] = None,
        preset: Annotated[str | None, typer.Option("--preset", "-p", help="Rules preset of that table.")] = None,
        rules_file: Annotated[Path | None, typer.Option("--rules", help="A rules file (TOML or YAML).")] = None,
        rule: Annotated[list[str] | None, typer.Option("--rule", help="Override one rule. Repeatable.")] = None,
        seed: Annotated[int | None, typer.Option(help="Seed of the deal (random if not given).")] = None,
        lang: Annotated[Lang, typer.Option(help="Language of the pages and the bots' speeches.")] = Lang.EN,
        host: Annotated[
            str, typer.Option(help="Address to bind; anything but loopback exposes the tables (a warning is printed).")
        ] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 8000,
        out: Annotated[Path, typer.Option("--out", help="Directory for the transcripts.")] = Path("transcripts"),
        agents_dir: Annotated[
            Path | None,
            typer.Option(help="A folder of agent definitions searched first (then ./agents, the user folder, ...)."),
        ] = None,
        human_timeout: Annotated[
            float,
            typer.Option(
                help="Seconds a human seat has for one decision before the rule's default (a speech: its allowance, "
                "at most this).",
                min=1,
            ),
        ] = 300.0,
        bot_delay: Annotated[
            float, typer.Option(help="Seconds each bot or model seat waits, so people can follow.", min=0)
        ] = 1.0,
        typing_wpm: Annotated[
            float,
            typer.Option(
                help="A person's typing speed: a speech's allowance is its word budget at it, when longer than the "
                "spoken time (0: the spoken time binds).",
                min=0,
            ),
        ] = 40.0,
        bot_wpm: Annotated[
            float,
            typer.Option(help="A bot's speech appears after its words at this pace (0: after --bot-delay).", min=0),
        ] = 180.0,
        start: Annotated[
            str,
            typer.Option(
                help="lobby: a table with people waits until each has opened their link and pressed Ready (or the "
                "host starts it from the tables page); now: it starts at once (scripts).",
            ),
        ] = "lobby",
        judge: Annotated[
            bool, typer.Option("--judge", help="Print a judge link: fouls, removals, pause, extra time, points.")
        ] = False,
        blind: Annotated[
            bool,
            typer.Option(
                "--blind", help="Hide which seats are bots or models until the end; the reveal asks who was not human."
            ),
        ] = False,
        origin: Annotated[
            list[str] | None,
            typer.Option(help="Another Origin allowed to open WebSockets (a reverse proxy's, e.g. https://x.org)."),
        ] = None,
        resume: Annotated[
            Path | None, typer.Option(help="Continue an unfinished transcript in the browser (new links).")
        ] = None,
        replay: Annotated[list[Path] | None, typer.Option(help="A saved transcript to offer as a replay.")] = None,
        sign_key_env: SignKeyEnv = None,
        request_timeout: Annotated[
            float | None, typer.Option(help="Seconds a client has to send a whole request (default 10).", min=0.1)
        ] = None,
    ) -> None:
        """Serve tables in the browser: each human seat gets a secret link; bots and models play the other seats."""
        try:
            import uvicorn

            from arena.web.app import create_app
            from arena.web.guard import MAX_MESSAGE
            from arena.web.http import REQUEST_DEADLINE_S, with_deadline
            from arena.web.server import ServeConfig, Server, TableError, admin_links, links
        except ImportError as exc:
            fail(f"arena serve needs the web extra (pip install -e '.[web]'): {exc}")
        from contextlib import asynccontextmanager

        from arena.engine import RulesError, load_rules

        if start not in ("lobby", "now"):
            fail(f"--start {start!r}: say lobby or now")
        for path in replay or []:
            if not path.is_file():
                fail(f"--replay {path}: no such file")
        if not _is_loopback(host):
            typer.echo(
                f"warning: binding {host}: anyone who reaches this address can open the pages; seat links are the "
                "only protection. Put a TLS reverse proxy in front (docs/web.md).",
                err=True,
            )
        try:
            rules = load_rules(preset, rules_file, rule or None)
        except RulesError as exc:
            fail(str(exc))
        seats = None
        if seat:
            try:
                seats = parse_seat_specs(seat, rules.players, agents_dir)
            except (SeatSpecError, ValueError) as exc:
                fail(str(exc))
        config = ServeConfig(
            lang=lang.value,
            out_dir=out,
            agents_dir=agents_dir,
            human_timeout=human_timeout,
            bot_delay=bot_delay,
            typing_wpm=typing_wpm,
            bot_wpm=bot_wpm,
            start=start,
            judge=judge,
            blind=blind,
            allowed_origins=tuple(origin or ()),
            replay_files=tuple(replay or ()),
            sign_key=read_sign_key(sign_key_env),  # signs every table; needed to continue a signed game
        )
        server = Server(config)
        _check_port(host, port)
        first = None  # built before the server starts, so every problem is one `error:` line
        try:
            if resume is not None:
                first = server.build_resume(*load_for_resume(resume))
            elif seats is not None:
                first = server.build(rules, preflight_seats(seats), lang=lang.value, seed=seed)
        except TableError as exc:
            fail(str(exc))
        shown = "localhost" if host in ("127.0.0.1", "::1") else host
        base = f"http://{shown}:{port}"

        @asynccontextmanager
        async def lifespan(_app: object):  # type: ignore[no-untyped-def]
            if first is not None:
                table = server.add(*first)
                for who, url in links(table, base).items():
                    typer.echo(f"{who}: {url}")
                if table.writer is not None:
                    typer.echo(f"transcript: {table.writer.path}")
            for what, url in admin_links(config, base).items():
                typer.echo(f"{what}: {url}")
            sys.stdout.flush()
            yield
            tasks = [t.task for t in server.tables.values() if t.task is not None]
            for task in tasks:  # stop the games; their transcripts stay resumable
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        web = create_app(server)
        web.router.lifespan_context = lifespan
        config_uv = uvicorn.Config(  # every request must arrive whole within a deadline (slowloris)
            web, host=host, port=port, ws_max_size=MAX_MESSAGE, log_level="warning", lifespan="on",
            http=with_deadline(request_timeout or REQUEST_DEADLINE_S),
            timeout_graceful_shutdown=SHUTDOWN_GRACE_S,  # SIGTERM stops it even while a request or socket hangs on
        )  # fmt: skip
        with contextlib.suppress(KeyboardInterrupt):
            uvicorn.Server(config_uv).run()
