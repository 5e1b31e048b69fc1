"""Blinded tables (issue #36): `--blind` hides which seats are bots or models until the end; the reveal asks each
person which seats were not human, with a confidence; `arena report` gives each configuration's human-likeness with
an interval, whose coverage is checked here in simulation (game effects and unbalanced designs it does not model)."""

from __future__ import annotations

import json
import math
import random
import time
from pathlib import Path

import numpy as np
from fastapi.testclient import TestClient

from arena.agents import resolve_agent
from arena.engine import load_rules
from arena.research.blind import HUMAN, Rating, human_likeness, read_ratings
from arena.web.app import create_app
from arena.web.server import ServeConfig, Server
from arena.web.table import Table

ORIGIN = {"origin": "http://testserver"}


def test_a_blinded_table_hides_who_is_a_person_until_each_person_has_rated_every_seat(tmp_path: Path) -> None:
    server = Server(ServeConfig(out_dir=tmp_path, bot_delay=0.0, blind=True, human_timeout=0.05))
    seats = {s: resolve_agent("human" if s in (2, 5) else "bot:heuristic") for s in range(1, 11)}

    async def make() -> Table:
        table, players = server.build(load_rules("fiim"), seats, seed=5)
        table.speech_grace_s = 0.0  # nobody types here: no grace for a page's send at zero
        return server.add(table, players)

    with TestClient(create_app(server)) as client:
        assert client.portal is not None
        table = client.portal.call(make)
        with client.websocket_connect(f"/ws/{table.tokens[2]}", headers=ORIGIN) as ws:
            lobby = ws.receive_json()["state"]["lobby"]
            assert lobby["seats"] == [] and lobby["free"] == []  # no seat is shown as a person's
            spectators = client.get(f"/api/state/{table.spectator_token}").json()
            assert spectators["lobby"]["seats"] == []
            assert client.post(f"/api/start/{server.config.admin_token}/{table.id}").status_code == 200
            deadline = time.monotonic() + 120
            while not table.over:  # both people time out on everything: the rule's defaults play them
                assert time.monotonic() < deadline
                state = client.get(f"/api/state/{table.tokens[5]}").json()
                assert state["presence"] == {} and (state["blind"] is None or state["over"])
                time.sleep(0.02)
            mine = client.get(f"/api/state/{table.tokens[2]}").json()
            assert mine["blind"]["ask"] and mine["blind"]["truth"] is None and mine["review"] is None
            assert sorted(mine["blind"]["others"]) == [s for s in range(1, 11) if s != 2]
            watch = client.get(f"/api/state/{table.spectator_token}").json()
            assert watch["god"] is None and watch["blind"]["truth"] is None  # the spectators' link tells nobody early
            ws.send_json({"type": "guess", "guesses": {"1": 0.5}})
            message = ws.receive_json()
            while message["type"] == "state":  # the pushes of the game so far
                message = ws.receive_json()
            assert message == {
                "type": "refused",
                "reason": "rate every other seat, from 0 (surely a person) to 1 (surely not)",
            }
            ratings = {str(s): (0.9 if s != 5 else 0.2) for s in range(1, 11) if s != 2}
            ws.send_json({"type": "guess", "guesses": ratings})
            message = ws.receive_json()
            while message["type"] != "accepted":
                message = ws.receive_json()
        mine = client.get(f"/api/state/{table.tokens[2]}").json()
        assert mine["blind"]["truth"]["5"] == HUMAN and mine["blind"]["truth"]["1"] == "bot:heuristic"
        assert client.get(f"/api/state/{table.spectator_token}").json()["god"] is None  # seat 5 has not answered
        assert table.guess(5, {str(s): 0.7 for s in range(1, 11) if s != 5}) is None
        assert client.get(f"/api/state/{table.spectator_token}").json()["god"] is not None
    assert table.writer is not None and table.writer.path is not None
    saved = json.loads(table.writer.path.with_name(table.writer.path.stem + ".blind.json").read_text())
    assert [g["by"] for g in saved["guesses"]] == [2, 5] and saved["seats"]["2"]["kind"] == HUMAN
    rows = {row.config: row for row in human_likeness(read_ratings(tmp_path))}
    assert rows[HUMAN].ratings == 2 and math.isclose(rows[HUMAN].score.value, (0.8 + 0.3) / 2)
    assert rows["bot:heuristic"].ratings == 16 and math.isclose(rows["bot:heuristic"].score.value, 0.2)


def test_arena_report_prints_each_configurations_human_likeness(tmp_path: Path) -> None:
    for g in range(3):
        data = {
            "game_id": f"g{g}",
            "transcript": f"g{g}.jsonl",
            "seats": {"1": {"kind": "human", "agent": "human"}, "2": {"kind": "bot", "agent": "bot:heuristic"}},
            "guesses": [{"by": 1, "p_not_human": {"2": 0.25 * g}}],
        }
        (tmp_path / f"g{g}.blind.json").write_text(json.dumps(data))
    from arena.cli.report import _blind

    _blind(tmp_path, tmp_path / "report")
    written = (tmp_path / "report" / "human_likeness.csv").read_text().splitlines()
    assert written[0].startswith("config,human_likeness") and written[1].startswith("bot:heuristic,0.7500,")


def _simulate(rng: random.Random, games: int, mean_logit: float) -> list[Rating]:
    """Ratings of one configuration: a game effect (who sat at that table), a rater's own scale, 1 to 3 raters and
    1 to 6 seats of the configuration per game, and confidences on a logistic scale, clipped at 0 and 1."""
    out = []
    for g in range(games):
        game_effect = rng.gauss(0, 0.8)
        for _ in range(rng.randint(1, 3)):
            rater = rng.gauss(0, 0.5)
            for _ in range(rng.randint(1, 6)):
                z = mean_logit + game_effect + rater + rng.gauss(0, 1.0)
                p_not_human = min(1.0, max(0.0, 1 / (1 + math.exp(-z)) * 1.1 - 0.05))
                out.append(Rating(f"g{g}", "model", 1 - p_not_human))
    return out


def _true_mean(mean_logit: float) -> float:
    """The process's own mean likeness, by a large Monte Carlo draw of the same model (weighted as the estimator
    weighs: per rating)."""
    rng = random.Random(123)
    draws = _simulate(rng, 40000, mean_logit)
    return float(np.mean([r.likeness for r in draws]))


def test_the_human_likeness_interval_covers_in_simulation() -> None:
    """95 % intervals over 400 simulated sets each, with 12 and 40 games: coverage within 92-98 % (3 binomial
    standard deviations around 95 % at 400 draws is 91.7-98.3 %)."""
    for games, mean_logit in ((12, 0.8), (40, -0.5)):
        truth = _true_mean(mean_logit)
        rng = random.Random(games)
        covered = sum(human_likeness(_simulate(rng, games, mean_logit))[0].score.covers(truth) for _ in range(400))
        assert 0.92 <= covered / 400 <= 0.98, (games, covered / 400, truth)
