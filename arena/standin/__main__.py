"""`python -m arena.standin [--port 8765] [--latency 0.1] [--salt S] [--vary] [--record FILE]`: serve the stand-in
until interrupted (the benches start it so, in a process of its own; `arena stand-in` is the command for users)."""

from __future__ import annotations

import argparse
import contextlib

from arena.standin.server import FakeServer, serve_until_interrupted


def main(argv: list[str] | None = None) -> None:
    """Parse the flags, print the base URL, serve until Ctrl-C or SIGTERM."""
    parser = argparse.ArgumentParser(
        prog="python -m arena.standin", description="A local OpenAI-compatible server that plays legal Mafia decisions."
    )
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds to wait before each answer")
    parser.add_argument("--salt", default="", help="mixed into the answers' seeds: other answers to equal prompts")
    parser.add_argument("--vary", action="store_true", help="a repeated request gets another answer each time")
    parser.add_argument("--record", metavar="FILE", help="append every request body to FILE, one JSON string a line")
    args = parser.parse_args(argv)
    server = FakeServer(latency_s=args.latency, port=args.port, salt=args.salt, vary=args.vary)
    with contextlib.ExitStack() as stack:
        if args.record:
            server.record_to(stack.enter_context(open(args.record, "a", encoding="utf-8", buffering=1)))
        print(server.base_url, flush=True)
        serve_until_interrupted(server)


if __name__ == "__main__":
    main()
