"""An external agent at the table (#33 item 5's acceptance): a full game in which one seat is played by a program
written against docs/remote.md only. This file never imports `arena` (`test_nothing_here_imports_arena` holds it,
and the reference clients in examples/remote/, to that): it starts `arena play` as a separate process, plays seat 3
over HTTP with the standard library, checks from the seat's side that what came is the seat's view and nothing more
(the transcript's own events, filtered by the visibility rule of docs/transcripts.md, in the seat's numbering), and
runs `arena verify` on the transcript.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "remote"
SEAT = 3
TOKEN = "test-token-of-seat-3-0123456789"


class Arena:
    """`arena play` (or `arena resume`) in its own process; its stderr read for the remote server's address."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        environment = {**os.environ, f"ARENA_REMOTE_TOKEN_{SEAT}": TOKEN, **(env or {})}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        self.errors: list[str] = []
        self.url: str | None = None
        self.found = threading.Event()
        self.reader = threading.Thread(target=self._read_errors, daemon=True)
        self.reader.start()

    def _read_errors(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.errors.append(line)
            if line.startswith("remote agents: "):
                self.url = line.split()[2]
                self.found.set()
        self.found.set()

    def address(self) -> str:
        assert self.found.wait(60), "arena play printed no address"
        assert self.url is not None, "".join(self.errors)
        return self.url

    def finish(self) -> tuple[int, str]:
        """The exit code and stdout; stderr is the reader thread's alone, read to its end."""
        assert self.process.stdout is not None
        out = self.process.stdout.read()
        code = self.process.wait(timeout=120)
        self.reader.join(timeout=30)
        return code, out


def call(url: str, method: str = "GET", body: Any = None, token: str = TOKEN) -> tuple[int, Any]:
    data = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(url, data=data, method=method, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=90) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def decide(request: dict[str, Any]) -> dict[str, Any]:
    """A legal answer from the request alone (docs/remote.md's table of kinds)."""
    kind, options = request["kind"], request["options"]
    first = options[0] if options else None
    if kind == "speech":
        nominate = request["nominate_options"][:1] if request["may_nominate"] else []
        return {"text": "Seat 3 here. I am red; watch the quiet ones.", "nominate": nominate}
    if kind == "vote":
        return {"vote": False}
    if kind == "sheriff":
        return {"action": "check", "target": first}
    if kind == "best_move":
        return {"targets": options[: request["max_targets"]]}
    if kind == "black_message":
        return {"text": "Shoot the loud one.", "targets": options[: request["max_targets"]] * request["may_set_order"]}
    if kind == "choose_side":
        return {"action": request["choices"][0]}
    if kind == "probe":
        return {"beliefs": [0.5] * len(options)}
    return {"target": first}


def play_seat(
    url: str, *, misbehave: bool = False, leave_after: int | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Play the seat to the end: every turn received, and the last body. With `misbehave`, the first night check
    gets garbage, then a seat that does not exist, before the rule's default. With `leave_after`, the agent answers
    that many turns and goes away."""
    status, hello = call(f"{url}/hello")
    assert status == 200 and hello["seat"] == SEAT and hello["protocol"].startswith("mafia-arena-remote/")
    turns: list[dict[str, Any]] = []
    tries = 0
    while True:
        status, body = call(f"{url}/turn?wait=20")
        assert status == 200, body
        if body["status"] in ("over", "stopped"):
            return turns, body
        if body["status"] != "turn":
            continue
        if leave_after is not None and len(turns) == leave_after:
            return turns, body  # gone: this turn and every later one are never fetched again
        turns.append(body)
        request = body["request"]
        answer: Any = {"turn": body["turn"], "decision": decide(request)}
        if body["problem"]:
            answer["decision"] = request["default"]
        if misbehave and request["kind"] in ("don_check", "sheriff") and tries < 2:
            tries += 1
            answer = b"this is not JSON" if tries == 1 else {"turn": body["turn"], "decision": {"target": 99}}
        status, said = call(f"{url}/answer", "POST", answer)
        assert status in (200, 422), said


def visible(event: dict[str, Any]) -> bool:
    """docs/transcripts.md's rule: public to every seat, moderator to none, otherwise the seats listed in `to`."""
    return event["vis"] == "public" or (event["vis"] != "moderator" and SEAT in event.get("to", []))


def check_the_seats_view(transcript: Path, turns: list[dict[str, Any]], end: dict[str, Any]) -> None:
    """Everything the seat was sent, put together by its own numbers, is the transcript's events it may see, in
    order, each numbered in the seat's sequence: no other seat's private event, no moderator's, no gap."""
    records = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    mine = [r for r in records if r.get("kind") == "event" and visible(r)]
    hidden = [r for r in records if r.get("kind") == "event" and not visible(r)]
    assert hidden, "the game must hold events the seat may not see"
    log: dict[int, dict[str, Any]] = {}
    for body in [*turns, end]:
        obs = body["observation"]
        assert obs["seat"] == SEAT and obs["next_number"] == obs["since"] + len(obs["events"])
        for number, event in enumerate(obs["events"], obs["since"]):
            assert event["seq"] == number, "an event numbered otherwise than in the seat's own sequence"
            assert log.setdefault(number, event) == event, "the seat was sent two different events as one"
    assert sorted(log) == list(range(len(log)))
    received = [log[n] for n in range(len(log))]
    assert len(received) == len(mine)
    for number, (got, recorded) in enumerate(zip(received, mine, strict=True)):
        expected = {k: v for k, v in recorded.items() if k not in ("kind", "hash")} | {"seq": number}
        assert {k: v for k, v in got.items() if v not in (None, [], "")} == {
            k: v for k, v in expected.items() if v not in (None, [], "")
        }
    role = next(e for e in received if e["type"] == "role_assigned")
    assert role["seat"] == SEAT and all(t["observation"]["role"] == role["value"] for t in turns)


def _transcript(out: str) -> Path:
    line = next(line for line in out.splitlines() if line.startswith("transcript: "))
    return Path(line.removeprefix("transcript: ").strip())


def _verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", "verify", str(path)], capture_output=True, text=True)


@pytest.mark.parametrize("seed", [1, 3])  # seat 3 is the don in one deal, the sheriff in the other
def test_an_external_agent_plays_a_full_game_that_verifies(tmp_path: Path, seed: int) -> None:
    run = Arena(["play", "--seat", f"{SEAT}=remote", "--seed", str(seed), "--quiet", "--out", str(tmp_path)])
    turns, end = play_seat(run.address(), misbehave=seed == 1)
    code, out = run.finish()
    assert code == 0, "".join(run.errors)
    assert end["status"] == "over" and end["winner"] in ("town", "mafia")
    path = _transcript(out)
    verified = _verify(path)
    assert verified.returncode == 0 and verified.stdout.startswith("OK "), verified.stdout + verified.stderr
    check_the_seats_view(path, turns, end)
    role = turns[0]["observation"]["role"]
    assert role == ("don" if seed == 1 else "sheriff")
    night = {"don": "don_check", "sheriff": "sheriff"}[role]
    assert any(t["request"]["kind"] == night for t in turns), "the seat must have acted at night"
    if seed == 1:  # garbage, then a refusal: both come back as the same request with the reason
        first = next(n for n, t in enumerate(turns) if t["request"]["kind"] == night)
        again, third = turns[first + 1], turns[first + 2]
        assert again["request"] == third["request"] == turns[first]["request"]
        assert again["attempt"] == 2 and "not JSON" in again["problem"]
        assert third["attempt"] == 3 and third["problem"] and "player failed" not in third["problem"]
    exchanges = [json.loads(line) for line in path.read_text().splitlines() if '"kind":"exchange"' in line]
    assert len(exchanges) == len(turns) and all(e["delivered"] for e in exchanges)
    assert TOKEN not in path.read_text(), "a token is a secret: never in the transcript"


def test_a_wrong_token_opens_nothing(tmp_path: Path) -> None:
    run = Arena(["play", "--seat", f"{SEAT}=remote", "--seed", "2", "--quiet", "--out", str(tmp_path)])
    url = run.address()
    for token in ("", "x" * 40, TOKEN[:-1] + "X"):
        status, body = call(f"{url}/turn?wait=0", token=token)
        assert status == 401 and set(body) == {"error"}
    _turns, end = play_seat(url)
    code, _ = run.finish()
    assert code == 0 and end["status"] == "over"


def _resume_to_the_end(path: Path) -> None:
    """`arena resume` with the agent running this time: the game plays to an end that verifies."""
    resumed = Arena(["resume", str(path), "--quiet"])
    _, end = play_seat(resumed.address())
    code, _ = resumed.finish()
    assert code == 0 and end["status"] == "over", "".join(resumed.errors)
    assert _verify(path).returncode == 0


def test_an_agent_that_never_connects_stops_the_game_saved_then_resume_plays_it(tmp_path: Path) -> None:
    """Nothing is played on defaults for a program that is not there: the game stops before the first move, saved,
    and `arena resume` (the agent running this time) plays it to an end that verifies."""
    args = ["--seat", f"{SEAT}=remote", "--seed", "4", "--out", str(tmp_path), "--remote-wait", "0.5"]
    run = Arena(["play", *args, "--quiet"])
    run.address()
    code, _ = run.finish()
    assert code == 1
    said = "".join(run.errors)
    assert "did not connect" in said and "arena resume" in said
    [path] = tmp_path.glob("*.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["kind"] for r in records[1:]] == ["stop"] and records[-1]["seat"] == SEAT
    assert _verify(path).returncode == 3  # unfinished: saved, nothing played
    _resume_to_the_end(path)


def test_an_agent_that_goes_away_mid_game_stops_it_saved_then_resume_plays_it(tmp_path: Path) -> None:
    """An agent that stops polling mid-game: the turn it took and never answered gets the rule's default, the next
    one nobody fetches stops the game (exit 1, saved, resumable), never played on defaults to the end."""
    args = ["--seat", f"{SEAT}=remote", "--seed", "8", "--quiet", "--out", str(tmp_path), "--timeout", "2"]
    run = Arena(["play", *args])
    play_seat(run.address(), leave_after=3)
    code, _ = run.finish()
    said = "".join(run.errors)
    assert code == 1 and "the game stopped: seat 3" in said and "did not fetch its turn" in said, said
    assert "arena resume" in said
    [path] = tmp_path.glob("*.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["outcome"] for r in records if r.get("kind") == "exchange"][-1] == "undelivered"
    assert records[-1]["kind"] == "stop" and records[-1]["seat"] == SEAT
    assert _verify(path).returncode == 3  # unfinished, every record checked
    _resume_to_the_end(path)


def test_the_reference_clients_play_full_games(tmp_path: Path) -> None:
    """examples/remote/client.py (Python, standard library) and, where Node.js is installed, client.mjs."""
    clients = [[sys.executable, str(EXAMPLES / "client.py"), "--seed", "5"]]
    if shutil.which("node"):
        clients.append(["node", str(EXAMPLES / "client.mjs")])
    for number, client in enumerate(clients):
        out_dir = tmp_path / str(number)
        run = Arena(["play", "--seat", f"{SEAT}=remote", "--seed", "6", "--quiet", "--out", str(out_dir)])
        started = time.monotonic()
        ran = subprocess.run([*client, "--url", run.address(), "--token", TOKEN], capture_output=True, text=True,
                             timeout=120)  # fmt: skip
        code, out = run.finish()
        assert ran.returncode == 0 and "game over" in ran.stdout, ran.stdout + ran.stderr
        assert code == 0, "".join(run.errors)
        assert _verify(_transcript(out)).returncode == 0, client
        assert time.monotonic() - started < 120


def test_nothing_here_imports_arena() -> None:
    """The acceptance asks for an agent written against the documented protocol only."""
    for path in [Path(__file__), *EXAMPLES.glob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not [n for n in names if n == "arena" or n.startswith("arena.")], f"{path.name} imports {names}"
    assert (EXAMPLES / "client.mjs").read_text().count("import ") == 0
