"""The club table's page data (issue #20), seat by seat: the marks, the live tally, tonight's action and the reveal
hold only what the seat may see; the speech clock binds; the vote and the defaults are explained in both languages."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from waiting import wait_until

from arena.agents import resolve_agent
from arena.engine import MODERATOR, PUBLIC, Decision, EventType, Game, Kind, Role, load_rules, view
from arena.players.bots import RandomBot
from arena.transcript import TranscriptWriter, load, make_header
from arena.web.app import create_app
from arena.web.reveal import NotOver, reveal_json
from arena.web.server import ServeConfig, Server
from arena.web.state import LogWriter, end_json, observation_json
from arena.web.table import Table

VIEWERS = [*range(1, 11), PUBLIC]
CHECK_KINDS = (Kind.DON_CHECK, Kind.SHERIFF)


_LOGS: dict[tuple[str, str], LogWriter] = {}


def _page(game: Game, seat: int, lang: str = "en") -> dict[str, Any]:
    """A seat's page data without the event numbers (`seq`, `next_seq`): how events are numbered per viewer is the
    numbering's own test (tests/security); here the question is what the page says."""
    log = _LOGS.get((game.rules.name, lang)) or _LOGS.setdefault((game.rules.name, lang), LogWriter(game.rules, lang))
    data = observation_json(view(game, seat), game.n, log)
    data.pop("next_seq")
    for line in data["log"]:
        line.pop("seq")
    return data


def _other_target(game: Game, seat: int, decision: Decision) -> Decision:
    request = game.request_for(seat)
    assert request is not None
    others = [s for s in request.options if s != decision.target]
    return decision.model_copy(update={"target": others[0]}) if others else decision


@pytest.mark.parametrize("seed", [1, 9])
def test_a_page_changes_only_with_what_its_seat_may_see(seed: int) -> None:
    """Every seat's page data (table marks, tally, tonight, log) is equal in two games that differ only in hidden
    facts (the checks' targets, the black chat), except for the seats that saw those facts: the positive control."""
    rules = load_rules("fiim")
    a, b = Game(rules, seed), Game(rules, seed)
    bots = {s: RandomBot(s, seed) for s in a.seats()}
    sheriff = a.seat_of(Role.SHERIFF)
    black = {s for s in a.seats() if a.is_black(s)}
    blind = [s for s in VIEWERS if s not in black and s != sheriff]  # none of them sees a check or the black chat
    differed: set[int] = set()
    changed: set[int] = set()  # the seats whose hidden decisions differ between the games
    for _ in range(3000):
        if a.over:
            break
        for request in a.pending():
            seat = request.seat
            decision = asyncio.run(bots[seat].decide(view(a, seat), request)).decision
            other = decision
            if request.kind in CHECK_KINDS:
                other = _other_target(b, seat, decision)
            elif request.kind is Kind.BLACK_MESSAGE:
                other = decision.model_copy(update={"text": "a different secret plan"})
            if other != decision:
                changed.add(seat)
            a.submit(seat, decision)
            b.submit(seat, other)
        for seat in blind:
            assert _page(a, seat) == _page(b, seat), f"seat {seat}'s page tells a hidden fact (day {a.day})"
        for seat in changed:
            if _page(a, seat) != _page(b, seat):
                differed.add(seat)
    assert a.over and b.over
    assert changed and changed <= differed  # the control: the checkers' own pages do show their checks
    assert end_json(a, LogWriter(rules)) != end_json(b, LogWriter(rules))  # and the reveal tells them all


def _marks_of(page: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [(row["seat"], mark) for row in page["table"] for mark in row["marks"]]


@pytest.mark.parametrize("preset", ["fiim", "club", "edge"])
def test_marks_tonight_and_tally_come_from_the_seats_own_events(preset: str) -> None:
    """Seat by seat at every step: a check mark is the viewer's own check, a team mark is the viewer's own team,
    tonight's entries and the tally's voters are events the viewer can see; no reveal before the end."""
    rules = load_rules(preset)
    game = Game(rules, 4)
    bots = {s: RandomBot(s, 4) for s in game.seats()}
    seen_marks = seen_tally = seen_tonight = 0
    for _ in range(4000):
        if game.over:
            break
        for request in game.pending():  # a whole batch, then every page
            seat = request.seat
            game.submit(seat, asyncio.run(bots[seat].decide(view(game, seat), request)).decision)
        assert end_json(game, LogWriter(rules)) is None or game.over
        for seat in [*game.seats(), PUBLIC]:
            page = _page(game, seat)
            obs = view(game, seat)
            visible = set(map(id, obs.events))
            events = [e for e in game.events if id(e) in visible]
            for target, mark in _marks_of(page):
                seen_marks += 1
                if mark["kind"] in ("sheriff_check", "don_check"):
                    assert any(
                        e.type.value == mark["kind"] and e.target == target and e.value == mark["value"] for e in events
                    )
                    assert seat != PUBLIC and game.events and seat in (mark["by"], *obs.teammates)
                elif mark["kind"] == "team":
                    assert seat in game.seats() and game.counts_as_black(seat) and target in (*obs.teammates, seat)
                    assert mark["value"] == game.roles[target].value
                else:  # an open card
                    assert any(e.type is EventType.CARD_REVEALED and e.seat == target for e in events)
            for act in page["tonight"]:
                seen_tonight += 1
                assert any(e.type.value == act["kind"] and e.seat == act["seat"] for e in events)
            tally = page["tally"]
            if tally is not None:
                seen_tally += 1
                casts = [e for e in events if e.type is EventType.VOTE_CAST]
                for cand in tally["candidates"]:
                    for voter in cand["voters"]:
                        assert any(e.seat == voter["seat"] and e.target == cand["seat"] for e in casts)
            if seat == PUBLIC:
                assert not page["tonight"] and not any(m["kind"] != "card" for _, m in _marks_of(page))
    assert game.over and seen_marks and seen_tally and seen_tonight


def test_the_reveal_is_built_only_from_the_moderators_view_of_a_finished_game() -> None:
    rules = load_rules("fiim")
    game = Game(rules, 2)
    bots = {s: RandomBot(s, 2) for s in game.seats()}
    while not game.over:
        request = game.pending()[0]
        if request.kind is Kind.SPEECH and game.day == 1:  # an unfinished game is refused
            with pytest.raises(NotOver):
                reveal_json(view(game, MODERATOR), str)
            assert end_json(game, LogWriter(rules)) is None
        game.submit(request.seat, asyncio.run(bots[request.seat].decide(view(game, request.seat), request)).decision)
    with pytest.raises(NotOver):
        reveal_json(view(game, 3), str)  # a seat's view is never the source of the reveal
    end = end_json(game, LogWriter(rules, "ru"))
    assert end is not None
    assert [r["role"] for r in end["seats"]] == [role.value for role in game.roles[1:]]
    assert end["winner"] == game.winner and end["winner_label"] in ("мирные", "мафия")
    gone = {e.seat: e.value for e in game.events if e.type is EventType.ELIMINATED}
    assert {r["seat"]: r["out"]["how"] for r in end["seats"] if r["out"]} == gone
    summary = end["summary"]
    checks = [e for e in game.events if e.type in (EventType.SHERIFF_CHECK, EventType.DON_CHECK)]
    assert len(summary["checks"]) == len(checks) > 0
    votes = [e for e in game.events if e.type is EventType.VOTE_CAST]
    assert sum(len(r["votes"]) for d in summary["days"] for r in d["rounds"]) == len(votes)


# ----- through the server -------------------------------------------------------------------------------------------
def _app(tmp_path: Path, human_timeout: float = 30.0) -> tuple[Server, TestClient]:
    server = Server(ServeConfig(out_dir=tmp_path, human_timeout=human_timeout, bot_delay=0.0, start="now"))
    return server, TestClient(create_app(server))


def _table(
    client: TestClient,
    server: Server,
    tmp_path: Path,
    *,
    overrides: list[str] | None = None,
    grace: float = 5.0,
    seed: int = 3,
    timeout: float = 30.0,
) -> Table:
    rules = load_rules("fiim", overrides=overrides)
    seats = {s: resolve_agent("human" if s == 1 else "bot:heuristic") for s in range(1, 11)}
    writer = TranscriptWriter.create(tmp_path / f"game-{seed}.jsonl", make_header(rules, seed, seats))

    async def make() -> Table:
        table = Table(game=Game(rules, seed), seats=seats, lang="en", writer=writer, human_timeout=timeout)
        table.speech_grace_s = grace
        server.tables[table.id] = table
        table.start(server._players(seats, seed, rules, "en"))
        return table

    assert client.portal is not None
    return client.portal.call(make)


def test_one_clock_and_it_binds_a_speech_ends_at_the_rules_time(tmp_path: Path) -> None:
    """A person's speech has the rules' time (here 5 s), shown as one clock (the speaker's and the form's agree),
    and a person who sends nothing gets the default then, not after the 30 s decision limit."""
    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, tmp_path, overrides=["speech.regular_s=5"], grace=0.5)
        token = table.tokens[1]
        wait_until(lambda: table.asks.get(1) is not None and table.asks[1].form.kind is Kind.SPEECH)
        state = client.get(f"/api/state/{token}").json()
        pending, speaker = state["pending"], state["speaker"]
        assert pending["limit_s"] == speaker["seconds"] == 5  # one clock
        assert abs(pending["left_s"] - speaker["left_s"]) < 0.5
        wait_until(lambda: table.asks.get(1) is None or table.asks[1].form.kind is not Kind.SPEECH, limit_s=120)
        path = table.writer.path if table.writer and table.writer.path else Path()
    mine = [i for i in load(path, repair=True).inputs if i.seat == 1]
    # the rules' 5 s and the grace, never the 30 s limit: the default's recorded reason says which clock ended it
    # (an event, not the wall clock, which a loaded machine stretches)
    assert mine and mine[-1].op == "default" and mine[-1].reason == "no answer within 5.5 s"


def test_a_speech_sent_within_its_time_is_taken(tmp_path: Path) -> None:
    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, tmp_path, overrides=["speech.regular_s=5"], grace=0.5)
        token = table.tokens[1]
        wait_until(lambda: table.asks.get(1) is not None and table.asks[1].form.kind is Kind.SPEECH)
        ask = client.get(f"/api/state/{token}").json()["pending"]["ask"]
        body = {"type": "decide", "ask": ask, "answer": {"text": "In time.", "nominate": []}}
        assert client.post(f"/api/decide/{token}", json=body).status_code == 200
        path = table.writer.path if table.writer and table.writer.path else Path()
        wait_until(lambda: any(i.seat == 1 and i.op == "decide" for i in load(path, repair=True).inputs))


def test_the_vote_form_explains_the_vote_and_every_default_is_russian_on_a_russian_page(tmp_path: Path) -> None:
    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, tmp_path)
        token = table.tokens[1]
        seen: dict[str, dict[str, Any]] = {}
        for _ in range(400):
            wait_until(lambda: table.asks.get(1) is not None or table.over)
            if table.over or {"speech", "vote"} <= set(seen):
                break
            en = client.get(f"/api/state/{token}").json()
            ru = client.get(f"/api/state/{token}?lang=ru").json()
            form = en["pending"]["form"]
            seen[form["kind"]] = {"en": form, "ru": ru["pending"]["form"], "tally": en["tally"], "ru_state": ru}
            answer = {"text": "", "nominate": []} if form["kind"] == "speech" else {"vote": False}
            if form["kind"] not in ("speech", "vote"):
                answer = {"target": form["options"][0]} if form["options"] else {}
            body = {"type": "decide", "ask": en["pending"]["ask"], "answer": answer}
            client.post(f"/api/decide/{token}", json=body)
            wait_until(lambda ask=en["pending"]["ask"]: table.asks.get(1) is None or table.asks[1].id != ask)
    vote, speech = seen["vote"], seen["speech"]
    assert "You have one vote in this round" in vote["en"]["rule"]
    assert vote["en"]["rule"].endswith(f"goes to him, #{vote['en']['candidates'][-1]}.")
    assert "один голос" in vote["ru"]["rule"]
    assert (vote["en"]["default"], vote["ru"]["default"]) == ("vote no", "голос «против»")
    assert (speech["en"]["default"], speech["ru"]["default"]) == ("silence", "молчание")
    assert speech["en"]["rule"] == ""  # a speech has no vote to explain
    assert vote["tally"] is not None and [c["seat"] for c in vote["tally"]["candidates"]] == vote["en"]["candidates"]
    page = vote["ru_state"]
    assert page["phase_label"] == f"День {page['day']}" and page["phase"] == "day"
    assert "s" not in json.dumps(page["pending"]["form"]["default"])  # no English unit or word left


def test_every_page_gets_the_reveal_at_the_end_and_none_before(tmp_path: Path) -> None:
    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, tmp_path, timeout=0.05)
        token = table.tokens[1]
        for _ in range(2000):
            if table.over:
                break
            for link in (token, table.spectator_token):
                assert client.get(f"/api/state/{link}").json()["end"] is None or table.over
            time.sleep(0.01)
        wait_until(lambda: table.over and table.task is not None and table.task.done(), limit_s=120)
        for link in (token, table.spectator_token):
            end = client.get(f"/api/state/{link}?lang=ru").json()["end"]
            assert [r["role"] for r in end["seats"]] == [r.value for r in table.game.roles[1:]]
            assert end["summary"]["days"]


def test_the_end_links_to_the_replay_from_the_seat_and_as_the_god_view(tmp_path: Path) -> None:
    server, client = _app(tmp_path)
    with client:
        table = _table(client, server, tmp_path, timeout=0.05)
        token = table.tokens[1]
        assert client.get(f"/review/{token}").status_code == 404  # no replay while the game runs
        assert client.get(f"/api/review/{token}", params={"seat": 0}).status_code == 404
        assert client.get(f"/api/state/{token}").json()["review"] is None
        wait_until(lambda: table.over and table.task is not None and table.task.done(), limit_s=120)
        links = client.get(f"/api/state/{token}").json()["review"]
        assert links == {"seat": f"/review/{token}", "god": f"/review/{token}?as=god", "protocol": f"/protocol/{token}"}
        assert client.get(f"/api/state/{table.spectator_token}").json()["review"] == {
            "god": f"/review/{table.spectator_token}?as=god",
            "protocol": f"/protocol/{table.spectator_token}",
        }
        assert client.get(links["protocol"]).status_code == 200  # the score sheet (tests/test_protocol_web.py)
        page = client.get(links["seat"])
        assert page.status_code == 200 and f"/api/review/{token}" in page.text and '"seat": 1' in page.text
        assert '"seat": null' in client.get(links["god"]).text  # the god view opens first
        god = client.get(f"/api/review/{token}", params={"seat": 0, "step": 5}).json()
        mine = client.get(f"/api/review/{token}", params={"seat": 1}).json()
        assert god["step"] == 5 and len(god["roles"]) == 10
        assert mine["step"] == mine["steps"] > 5 and "roles" not in mine and mine["seat"] == 1
        assert client.get(f"/review/{'A' * 43}").status_code == 404  # not a link of this server


def test_favicon_is_served(tmp_path: Path) -> None:
    _, client = _app(tmp_path)
    with client:
        icon = client.get("/favicon.ico")
        assert icon.status_code == 200 and icon.headers["content-type"] == "image/x-icon"
        assert icon.content[:4] == b"\x00\x00\x01\x00"  # an ICO file
        assert 'rel="icon" href="/favicon.ico"' in client.get("/").text


def test_the_create_page_defaults_to_fiim_and_takes_a_seed_and_a_time_limit(tmp_path: Path) -> None:
    server, client = _app(tmp_path)
    admin = server.config.admin_token
    with client:
        page = client.get(f"/new/{admin}").text
        assert '"default_preset": "fiim"' in page and 'id="seed"' in page and 'id="time-limit"' in page
        assert 'id="busy"' in page
        body = {"preset": "fiim", "lang": "en", "seats": {"1": "human"}, "seed": 42, "human_timeout": 45}
        made = client.post(f"/api/tables/{admin}", json=body)
        assert made.status_code == 200, made.text
        table = server.tables[made.json()["table"]]
        assert table.game.seed == 42 and table.human_timeout == 45.0
        for bad, field in (({"seed": -1}, "seed"), ({"seed": "x"}, "seed"), ({"human_timeout": 1}, "time limit")):
            refused = client.post(f"/api/tables/{admin}", json={**body, **bad})
            assert refused.status_code == 400 and refused.json()["error"].startswith(field)
