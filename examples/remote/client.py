#!/usr/bin/env python3
"""A reference client of Mafia Arena's remote seat protocol (docs/remote.md): it plays one seat with legal random
decisions read from each request. The Python standard library only; it never imports `arena`, so it is also what an
agent in any language has to do, written out.

    arena play --seat 3=remote                       # prints the URL and seat 3's token on stderr
    python examples/remote/client.py --url http://127.0.0.1:PORT/v1 --token TOKEN

The loop is the whole protocol: GET /turn (it waits for the seat's turn), POST /answer, again, until the status is
`over` (the game ended: the winner and the seat's last events) or `stopped` (the game stopped, saved; it may be
resumed with `arena resume`, and this program started again). A refused answer comes back as the next turn: the
same request, with `problem` (the engine's reason) and `attempt` + 1.

Write your agent by replacing `choose`. `--record FILE` keeps every body the server sent, one JSON line each.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
from typing import Any

POLL_S = 30  # how long one GET /turn may wait for the seat's turn (the server allows up to 60)


class Seat:
    """The seat's end of the protocol: the URL, the token, and one HTTP call at a time."""

    def __init__(self, url: str, token: str, connect_s: float = 120.0) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.connect_s = connect_s  # how long to keep trying while the server is not up yet

    def call(self, method: str, path: str, body: dict[str, Any] | None = None, **query: Any) -> tuple[int, Any]:
        """(status, JSON body). Refused connections are retried for `connect_s` (the arena may start after us)."""
        url = self.url + path + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")
        data = json.dumps(body).encode("utf-8") if body is not None else None
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        give_up = time.monotonic() + self.connect_s
        while True:
            request = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=POLL_S + 30) as response:
                    return response.status, json.loads(response.read())
            except urllib.error.HTTPError as exc:  # 401, 409, 422...: the body says why
                return exc.code, json.loads(exc.read() or b"{}")
            except (urllib.error.URLError, ConnectionError) as exc:
                if time.monotonic() > give_up:
                    raise SystemExit(f"cannot reach the arena at {self.url}: {exc}") from None
                time.sleep(0.2)


def choose(turn: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A legal decision from the request alone (the observation is there for a real agent to read). A re-asked
    turn (`problem` set: the engine refused the last answer) takes the rule's default."""
    request = turn["request"]
    if turn.get("problem"):
        return request["default"]
    kind, options = request["kind"], request["options"]

    def pick() -> int | None:
        if not options or (request["allow_none"] and rng.random() < 0.2):
            return None
        return rng.choice(options)

    def words(text: str) -> str:
        return " ".join(text.split()[: request["max_words"]])[: request["max_chars"]]

    if kind == "speech":
        nominate = [rng.choice(request["nominate_options"])] if request["may_nominate"] and rng.random() < 0.5 else []
        if not request["nominate_options"]:
            nominate = []
        return {"text": words("I am a peaceful citizen. Watch the quiet ones."), "nominate": nominate}
    if kind == "vote":
        return {"vote": rng.random() < 0.5}
    if kind == "sheriff":
        actions = request["actions"] or ["check"]
        return {"action": rng.choice(actions), "target": pick()}
    if kind == "best_move":
        return {"targets": rng.sample(options, min(request["max_targets"], len(options)))}
    if kind == "black_message":
        order = rng.sample(options, min(request["max_targets"], len(options))) if request["may_set_order"] else []
        return {"text": words("Let us shoot the loudest one."), "targets": order}
    if kind == "choose_side":
        return {"action": rng.choice(request["choices"])}
    if kind == "probe":
        return {"beliefs": [0.3] * len(options)}
    if kind in ("ballot", "shoot", "don_check", "maniac_kill", "heal", "visit"):
        return {"target": pick()}
    return request["default"]  # a kind this client does not know: the rule's own answer


def play(seat: Seat, rng: random.Random, record: Any = None) -> dict[str, Any]:
    """Play the seat to the end of the game; the last body (`over` or `stopped`)."""
    status, hello = seat.call("GET", "/hello")
    if status != 200:
        raise SystemExit(f"the arena refused the token: {hello}")
    log: list[dict[str, Any]] = []  # every event the seat has seen, by its own number
    while True:
        status, body = seat.call("GET", "/turn", wait=POLL_S)
        if status != 200:
            raise SystemExit(f"GET /turn: {status} {body}")
        if record is not None:
            record.write(json.dumps(body, sort_keys=True) + "\n")
        if body["status"] in ("over", "stopped"):
            return body
        if body["status"] != "turn":
            continue  # waiting: nothing is asked of the seat yet
        seen = body["observation"]
        del log[seen["since"] :]  # a resumed game sends everything again, from 0
        log.extend(seen["events"])
        status, said = seat.call("POST", "/answer", {"turn": body["turn"], "decision": choose(body, rng)})
        if status not in (200, 409, 422):  # 409: too late, 422: unreadable (the re-ask says why)
            raise SystemExit(f"POST /answer: {status} {said}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the server's URL, as arena play prints it (…/v1)")
    parser.add_argument("--token", required=True, help="the seat's token")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random choices")
    parser.add_argument("--record", default=None, help="write every body the server sent to this file")
    args = parser.parse_args()
    record = open(args.record, "w", encoding="utf-8") if args.record else None  # noqa: SIM115
    try:
        end = play(Seat(args.url, args.token), random.Random(args.seed), record)
    finally:
        if record is not None:
            record.close()
    if end["status"] == "over":
        print(f"seat {end['seat']}: game over, {end['winner']} wins")
    else:
        print(f"seat {end['seat']}: {end['reason']}", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
