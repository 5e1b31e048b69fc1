"""Web seat benchmark: whole games with one human seat answered over `arena serve`'s WebSocket, nine bots.

Prints, per game and in total, the wall time, the human seat's decisions, and the server's turnaround: the time from
sending a decision on the socket to receiving the next pending decision of the seat (engine, bots with no delay,
transcript, state computation and the push), plus the size of the state messages. In-process (Starlette's
TestClient), so it measures the server, not a network.

    python bench/web_seat.py                 # 5 games
    python bench/web_seat.py --games 20 --seed 100
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from arena.web.app import create_app
from arena.web.server import ServeConfig, Server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_web import _answer  # type: ignore[import-not-found]  # on sys.path above; the tests' simple legal answer to any form


def one_game(seed: int, out: Path) -> tuple[float, list[float], list[int]]:
    server = Server(ServeConfig(out_dir=out, human_timeout=60.0, bot_delay=0.0, start="now"))
    client = TestClient(create_app(server))
    turnaround: list[float] = []
    sizes: list[int] = []
    with client:
        assert client.portal is not None
        table = client.portal.call(lambda: server.create(specs={1: "human"}, seed=seed))
        started = time.perf_counter()
        headers = {"origin": "http://testserver"}
        with client.websocket_connect(f"/ws/{table.tokens[1]}", headers=headers) as ws:
            sent_at: float | None = None
            answered: set[str] = set()
            for _ in range(5000):
                raw = ws.receive_text()
                sizes.append(len(raw))
                message: dict[str, Any] = json.loads(raw)
                if message["type"] != "state":
                    continue
                state = message["state"]
                if state["over"]:
                    break
                pending = state["pending"]
                if pending is None or pending["ask"] in answered:
                    continue
                if sent_at is not None:
                    turnaround.append(time.perf_counter() - sent_at)
                answered.add(pending["ask"])
                ws.send_json({"type": "decide", "ask": pending["ask"], "answer": _answer(pending["form"])})
                sent_at = time.perf_counter()
        wall = time.perf_counter() - started
    return wall, turnaround, sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    all_turn: list[float] = []
    all_sizes: list[int] = []
    walls: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.games):
            wall, turn, sizes = one_game(args.seed + i, Path(tmp))
            walls.append(wall)
            all_turn += turn
            all_sizes += sizes
            print(f"game seed {args.seed + i}: {wall:.2f} s, {len(turn) + 1} human decisions")
    ms = sorted(t * 1000 for t in all_turn)
    p95 = ms[int(0.95 * (len(ms) - 1))] if ms else 0.0
    print(f"games: {args.games}, mean wall {statistics.mean(walls):.2f} s")
    if ms:
        print(
            f"turnaround (decision sent -> next pending received): "
            f"median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms"
        )
    print(
        f"state messages: {len(all_sizes)}, median {statistics.median(all_sizes) / 1024:.1f} KiB, "
        f"max {max(all_sizes) / 1024:.1f} KiB"
    )


if __name__ == "__main__":
    main()
