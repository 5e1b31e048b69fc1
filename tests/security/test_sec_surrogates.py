"""One lone surrogate (`\\ud800`) never ends a game, nor sinks a command (issue 16, item 4).

The attack: the character from a browser seat or a model answer made the transcript writer raise, so the game was
sealed `aborted` (not resumable), every later state request of that table got a 500, and a tournament never counted
the game (a losing model could void its losses). The same character in a header gave a traceback in verify, show,
export and resume, and one such file sank `arena report` for a whole folder. What must hold: text is checked where
it enters (the form, the model answer, the engine's check), a writer error refuses the decision instead of ending
the game, and a bad file is one error line that report skips.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from seckit import cli, rechain

from arena.agents import BUILTIN
from arena.engine import Decision, Game, IllegalDecision, Observation, Request, load_rules
from arena.engine.decisions import Kind
from arena.human.form import FormError, build_form, decision_from
from arena.llm.answer import UnusableAnswer, read_completion
from arena.llm.modes import Completion, capped
from arena.llm.usage import Usage
from arena.orchestrator import run_game
from arena.players.base import Answer, ModelCall, Player
from arena.players.factory import build_player
from arena.research.selfplay import play_balanced
from arena.transcript import TranscriptWriter, load, make_header, verify

LONE = "\ud800"
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fiim.jsonl"


class Planting(Player):
    """A heuristic bot whose first speech carries a lone surrogate, as a hostile model or a page would send it;
    with `in_call`, the surrogate comes in a call record's raw text instead (a seat that did not clean it)."""

    def __init__(self, seat: int, *, in_call: bool = False) -> None:
        self.seat = seat
        self.inner = build_player(BUILTIN["bot:heuristic"], seat, seed=1, rules=load_rules("fiim"), lang="en")
        self.in_call = in_call
        self.planted = 0

    async def decide(self, observation: Observation, request: Request, problem: str | None = None) -> Answer:
        answer = await self.inner.decide(observation, request, problem)
        if request.kind is not Kind.SPEECH or self.planted:
            return answer
        self.planted += 1
        if self.in_call:
            call = ModelCall(seat=self.seat, request_kind="speech", raw=f'{{"text": "hi {LONE}"}}',
                             parsed={"text": "hi"})  # fmt: skip
            return Answer(decision=answer.decision, calls=[call])
        return Answer(decision=Decision(text=f"I am red {LONE} trust me", reasoning=LONE))


@pytest.mark.parametrize("in_call", [False, True], ids=["in the decision", "in a call record"])
def test_a_lone_surrogate_from_a_seat_is_refused_and_the_game_goes_on(tmp_path: Path, in_call: bool) -> None:
    rules = load_rules("fiim")
    seats = dict.fromkeys(range(1, 11), BUILTIN["bot:heuristic"])
    path = tmp_path / "game.jsonl"
    writer = TranscriptWriter.create(path, make_header(rules, 1, seats))
    players: dict[int, Player] = {s: build_player(seats[s], s, seed=1, rules=rules, lang="en") for s in seats}
    players[1] = planting = Planting(1, in_call=in_call)
    game = Game(rules, 1)
    asyncio.run(run_game(game, players, writer))
    writer.close()
    assert planting.planted == 1 and game.over
    transcript = load(path)
    assert transcript.status == "complete", transcript.end
    assert verify(transcript).ok
    assert LONE not in path.read_text(encoding="utf-8", errors="surrogatepass")
    refused = [i for i in transcript.inputs if i.seat == 1 and i.op in ("reject", "default")]
    assert refused, "the answer was refused (re-asked, or the rule's default), not taken"


def test_the_engine_refuses_surrogates_in_every_text_field() -> None:
    game = Game(load_rules("fiim"), 1)
    request = game.pending()[0]
    for field in ("text", "reasoning"):
        with pytest.raises(IllegalDecision, match="U\\+D800, half of a surrogate pair"):
            game.check(request.seat, Decision(**{field: LONE}))


def test_the_form_refuses_it_with_a_reason() -> None:
    game = Game(load_rules("fiim"), 1)
    form = build_form(game.pending()[0], game.rules)
    with pytest.raises(FormError, match="U\\+D800"):
        decision_from(form, {"text": f"hello {LONE}"})


def test_a_model_answer_with_one_is_unusable_and_recordable() -> None:
    game = Game(load_rules("fiim"), 1)
    request = game.pending()[0]
    assert request.kind is Kind.BLACK_MESSAGE
    escape = '{"reasoning": "", "message": "hi \\ud800", "kill_order": []}'  # JSON that escapes it
    escaped = Completion(escape, "stop", None, "m", Usage(), 1.0)
    with pytest.raises(UnusableAnswer, match="escapes U\\+D800"):
        read_completion(escaped, request, 600)
    text = f'{{"reasoning": "", "message": "hi {LONE}", "kill_order": []}}'  # the character itself, not an escape
    real = capped(Completion(text, "stop", None, f"m{LONE}", Usage(), 1.0))
    assert LONE not in real.raw + real.model and "\ufffd" in real.raw
    assert read_completion(real, request, 600).decision.text == "hi \ufffd"


def test_a_browser_seat_gets_a_reason_and_the_table_keeps_serving(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from arena.web.app import create_app
    from arena.web.server import ServeConfig, Server

    server = Server(ServeConfig(out_dir=tmp_path, human_timeout=30.0, bot_delay=0.0, start="now"))  # no lobby
    client = TestClient(create_app(server))
    rules = load_rules("fiim")
    seats = {s: BUILTIN["human" if s == 1 else "bot:heuristic"] for s in range(1, 11)}

    async def make() -> Any:
        return server.add(*server.build(rules, seats, seed=3))

    with client:
        assert client.portal is not None
        table = client.portal.call(make)
        token = table.tokens[1]
        deadline = time.monotonic() + 60
        while True:
            state = client.get(f"/api/state/{token}").json()
            pending = state["pending"]
            if pending and pending["form"]["kind"] == "speech":
                break
            if pending:
                answer: dict[str, Any] = {"vote": False} if pending["form"]["kind"] == "vote" else {}
                client.post(f"/api/decide/{token}", json={"type": "decide", "ask": pending["ask"], "answer": answer})
            assert time.monotonic() < deadline
            time.sleep(0.02)
        body = {"type": "decide", "ask": pending["ask"], "answer": {"text": f"hi {LONE}"}}
        sent = json.dumps(body)  # as a page's JSON.stringify sends it: the escape `\ud800`
        got = client.post(f"/api/decide/{token}", content=sent, headers={"content-type": "application/json"})
        assert got.status_code == 400 and "U+D800" in got.json()["reason"]
        assert client.get(f"/api/state/{token}").status_code == 200
        body["answer"] = {"text": "hi"}
        assert client.post(f"/api/decide/{token}", json=body).status_code == 200
        assert client.get(f"/api/state/{token}").status_code == 200
        table.task.cancel()
    assert table.writer.path is not None and load(table.writer.path, repair=True).chain == "ok"


def _with_header_field(tmp_path: Path, field: str, value: str) -> Path:
    """The golden game with one header field replaced, written as JSON escapes and re-hashed where possible."""
    lines = GOLDEN.read_text(encoding="utf-8").splitlines(keepends=True)
    head = json.loads(lines[0])
    head[field] = value
    lines[0] = json.dumps(head) + "\n"  # ASCII: the surrogate is the escape `\ud800`
    with contextlib.suppress(UnicodeEncodeError):  # the chain cannot even hash it: the forger keeps the old hashes
        lines = rechain(lines)
    path = tmp_path / f"{field}.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(("field", "value"), [("note", f"x{LONE}"), ("game_id", "x$(touch PWNED)")])
def test_a_bad_header_is_one_error_line_everywhere(tmp_path: Path, field: str, value: str) -> None:
    path = _with_header_field(tmp_path, field, value)
    for args in (["verify", str(path)], ["show", str(path)], ["export", str(path), "--html", str(tmp_path / "x.html")],
                 ["resume", str(path)], ["prompt", str(path), "--seat", "1"]):  # fmt: skip
        code, out, err = cli(*args)
        assert code in (1, 2) and err.startswith("error: ") and "Traceback" not in out + err, args
        assert "bad header" in err, (args, err)
    assert not (tmp_path / "PWNED").exists()


def test_report_skips_such_a_file_and_reports_the_rest(tmp_path: Path) -> None:
    games = tmp_path / "games"
    play_balanced(games, 4)
    shutil.copy(_with_header_field(tmp_path, "note", f"x{LONE}"), games / "bad.jsonl")
    code, out, err = cli("report", str(games), "--out", str(tmp_path / "r"), "--boot", "5")
    assert code == 0, err
    assert "4 games" in out
    report = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "bad.jsonl" in report and "U+D800" in report
    assert not io.StringIO(report).read().count(LONE)
