"""`arena export FILE --protocol`: the judge's score sheet of a played game, checked against the transcript's own
events. Points per seat are the sum of their groups; the winners' main points are the scoring file's; fouls, shots,
checks, nominations and votes are exactly the transcript's events; CSV and JSON say the same; both languages; every
text from a player or the judge is escaped."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.agents import AgentSpec
from arena.cli import app
from arena.engine import EventType, Game, Role, load_rules
from arena.render.protocol import _EN, _RU, page, protocol_csv, protocol_data, result_text, sheet_of
from arena.scenario import run_file
from arena.scoring import load_system
from arena.scoring.sheet import Result
from arena.transcript import Transcript, TranscriptWriter, load, make_header, verify

ROOT = Path(__file__).resolve().parent
GOLDEN = sorted((ROOT / "golden").glob("*.jsonl"))
SCENARIO = ROOT / "scoring" / "S2_parity_fouls_awards.yaml"
LONG = "a-configuration-name-with-no-spaces-at-all-2026-12-04-v17"


def save(game: Game, path: Path, names: dict[int, str] | None = None) -> Path:
    """A finished scripted game as a transcript on disk (the header's seats named as given)."""
    names = names or {}
    seats = {s: AgentSpec(name=names.get(s, f"seat-{s}"), kind="bot", bot="random") for s in range(1, game.n + 1)}
    roles = [Role(r) for r in game.roles[1:]]
    writer = TranscriptWriter.create(path, make_header(game.rules, game.seed, seats, roles=roles, game_id="sheet"))
    for item in game.inputs:
        writer.input(item)
    writer.sync_events(game)
    writer.end(game, {})
    writer.close()
    return path


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """S2 (fouls, a removal at four, a best move, a parity win) with the judge's awards, saved and verified."""
    result = run_file(SCENARIO)
    game = result.cases[0].game
    assert result.ok(strict=True) and game is not None and game.over
    game.award(6, "best_player")
    game.award(3, "extra", 0.25, "led the mafia <b>well</b>")
    game.award(9, "no_auto_bonus", reason="voted without reason")
    path = save(game, tmp_path_factory.mktemp("sheet") / "s2.jsonl", {1: LONG, 2: "<img src=x onerror=alert(1)>"})
    assert verify(load(path)).ok
    return path


def _export(path: Path, *args: str) -> str:
    result = CliRunner().invoke(app, ["export", str(path), "--protocol", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def _events(t: Transcript, kind: EventType) -> list[Any]:
    return [e for e in t.events if e.type is kind]


def check_against_events(path: Path, data: dict[str, Any]) -> None:
    """The acceptance checks, on one transcript and its exported JSON."""
    t = load(path)
    system = load_system(data["scoring"])
    assert data["finished"] and data["result"]["winner"] == t.end.winner  # type: ignore[union-attr]
    win = {m.id: m for m in system.matters}["win"].points
    for seat in data["seats"]:
        assert math.isclose(seat["points"], sum(seat["groups"].values()), abs_tol=1e-9), seat
        role = seat["role"]
        won = {"town": seat["team"] == "red", "mafia": seat["team"] == "black"}.get(data["result"]["winner"], False)
        assert seat["groups"]["main"] == (win if won else 0.0) or role == "maniac", seat
    fouls = _events(t, EventType.FOUL)
    for seat in data["seats"]:
        mine = [e for e in fouls if e.seat == seat["seat"]]
        assert seat["fouls"] == len(mine) and seat["foul_reasons"] == [e.value for e in mine]
    assert [(f["seat"], f["count"], f["reason"]) for f in data["fouls"]] == [(e.seat, e.count, e.value) for e in fouls]
    actions = [(n["night"], a["type"], a["by"], a["target"], a["value"]) for n in data["nights"] for a in n["actions"]]
    shots = [(e.day, "shot", e.seat, e.target, "") for e in _events(t, EventType.SHOT)]
    assert [a for a in actions if a[1] == "shot"] == shots
    for kind in (EventType.DON_CHECK, EventType.SHERIFF_CHECK):
        checks = [(e.day, kind.value, e.seat, e.target, e.value) for e in _events(t, kind)]
        assert [a for a in actions if a[1] == kind.value] == checks
    votes = [(d["day"], v["voter"], v["how"]) for d in data["days"] for r in d["rounds"] for v in r["votes"]]
    assert votes == [(e.day, e.seat, e.value) for e in _events(t, EventType.VOTE_CAST)]
    named = [(d["day"], v["voter"], v["choice"]) for d in data["days"] for r in d["rounds"] for v in r["votes"]
             if r["kind"] in ("main", "revote")]  # fmt: skip
    rounds = []
    kind = ""
    for e in t.events:
        if e.type is EventType.VOTING_STARTED:
            kind = e.value or ""
        elif e.type is EventType.VOTE_CAST and kind in ("main", "revote"):
            rounds.append((e.day, e.seat, e.target if e.value in ("yes", "default") else None))
    assert named == rounds
    nominations = [(d["day"], n["by"], n["seat"]) for d in data["days"] for n in d["nominations"] if n["accepted"]]
    assert nominations == [(e.day, e.seat, e.target) for e in _events(t, EventType.NOMINATED)]
    killed = [(n["night"], s) for n in data["nights"] for s in n["killed"]]
    assert killed == [(e.day - 1, s) for e in _events(t, EventType.MORNING) for s in e.seats]
    removals = [(x["seat"], x["reason"]) for x in data["removals"]]
    assert removals == [(e.seat, e.value) for e in _events(t, EventType.REMOVED)]


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_the_json_sheet_of_every_golden_game_is_its_events(path: Path) -> None:
    check_against_events(path, json.loads(_export(path, "--format", "json")))


def test_the_json_sheet_of_a_judged_game(judged: Path) -> None:
    data = json.loads(_export(judged, "--format", "json"))
    check_against_events(judged, data)
    points = {s["seat"]: s["points"] for s in data["seats"]}
    assert points == pytest.approx({1: 1.3, 2: 0.3, 3: 1.55, 4: 0.3, 5: 0.3, 6: 1.3, 7: -0.2, 8: 1.3, 9: 0.0, 10: 0.3})
    assert data["result"]["text"] == "3 black against 3 red: parity, after the day vote"
    assert [(a["seat"], a["kind"], a["points"]) for a in data["awards"]] == [
        (6, "best_player", 0.0), (3, "extra", 0.25), (9, "no_auto_bonus", 0.0)]  # fmt: skip
    assert data["seats"][6]["left"]["text"] == "Day 2: removed for fouls"
    mwc = json.loads(_export(judged, "--format", "json", "--scoring", "mwc"))
    assert mwc["groups"] == ["main", "extra", "penalty"] and mwc["seats"][5]["points"] == 6.5


def test_csv_says_what_json_says(judged: Path) -> None:
    data = json.loads(_export(judged, "--format", "json"))
    rows = list(csv.DictReader(io.StringIO(_export(judged, "--format", "csv"))))
    seats = [r for r in rows if r["section"] == "seat"]
    assert [(int(r["seat"]), r["role"], float(r["points"])) for r in seats] == [
        (s["seat"], s["role"], s["points"]) for s in data["seats"]]  # fmt: skip
    for r, s in zip(seats, data["seats"], strict=True):
        assert {g: float(r[g]) for g in data["groups"]} == s["groups"]
    assert sum(1 for r in rows if r["section"] == "vote") == sum(len(x["votes"]) for d in data["days"]
                                                                  for x in d["rounds"])  # fmt: skip
    assert sum(1 for r in rows if r["section"] == "foul") == len(data["fouls"]) == 4
    assert [r["reason"] for r in rows if r["section"] == "result"] == [data["result"]["text"]]
    name = next(r["name"] for r in seats if r["seat"] == "2")
    assert name == "<img src=x onerror=alert(1)>"  # data as it is: CSV is not markup


def test_the_page_escapes_what_players_and_the_judge_wrote(judged: Path) -> None:
    html = _export(judged)
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "<b>well</b>" not in html and "&lt;b&gt;well&lt;/b&gt;" in html
    assert "<script" not in html and "http" not in html.replace("http-equiv", "")  # nothing fetched
    assert LONG in html


def test_both_languages(judged: Path) -> None:
    assert set(_EN) == set(_RU)
    ru = _export(judged, "--lang", "ru")
    assert "Протокол игры" in ru and "3 чёрных против 3 красных: паритет" in ru
    for english in ("Score sheet", "voted out", "removed for fouls", "Night 1", "Day 2", "The mafia (black) wins"):
        assert english not in ru
    data = json.loads(_export(judged, "--format", "json", "--lang", "ru"))
    assert data["lang"] == "ru" and data["result"]["winner_text"] == "Победа мафии (чёрных)"
    assert data["seats"][6]["left"]["text"] == "День 2: удалён за фолы"


@pytest.mark.parametrize(
    ("result", "en", "ru"),
    [
        (Result("mafia", "parity", black=3, red=3, by="day_vote"), "3 black against 3 red: parity, after the day vote",
         "3 чёрных против 3 красных: паритет, после дневного голосования"),
        (Result("mafia", "parity", black=1, red=1, by="night_kill"), "1 black against 1 red: parity, after the night "
         "kill", "1 чёрный против 1 красного: паритет, после ночного убийства"),
        (Result("town", "last_black", seat=8, how="voted"), "the last black (#8) was voted out",
         "последний чёрный (#8) заголосован"),
        (Result("town", "last_black", seat=3, how="fouls"), "the last black (#3) was removed for fouls",
         "последний чёрный (#3) удалён за фолы"),
        (Result("town", "last_black", seat=6, how="killed"), "the last black (#6) was killed at night",
         "последний чёрный (#6) убит ночью"),
        (Result("draw", "idle", count=3), "3 nights in a row, and the days between, passed with nobody leaving",
         "3 ночи подряд и дни между ними никто не покидал стол"),
    ],
)  # fmt: skip
def test_the_result_in_words(result: Result, en: str, ru: str) -> None:
    assert (result_text(result, "en"), result_text(result, "ru")) == (en, ru)


@pytest.mark.parametrize(
    ("scenario", "code", "fields"),
    [
        ("E12_parity_after_day_vote.yaml", "parity", {"by": "day_vote"}),
        ("E13_parity_after_night_kill.yaml", "parity", {"by": "night_kill"}),
        ("E15_vote_out_last_black.yaml", "last_black", {"seat": 6, "how": "voted"}),
        ("E24_removal_of_last_black_mid_tie.yaml", "last_black", {"seat": 6, "how": "fouls", "by": "removal"}),
        ("E26_draw_after_idle_rounds.yaml", "idle", {"count": 3}),
    ],
)
def test_the_result_of_the_rules_examples(scenario: str, code: str, fields: dict[str, Any]) -> None:
    result = run_file(ROOT / "scenarios" / scenario)
    game = result.cases[0].game
    assert game is not None and game.over
    r = sheet_of(game).result
    assert r.code == code and all(getattr(r, k) == v for k, v in fields.items()), r


def test_an_unfinished_game_has_a_sheet_without_points() -> None:
    game = Game(load_rules("fiim"), 4)
    sheet = sheet_of(game)
    data = protocol_data(sheet)
    assert not data["finished"] and all(s["points"] is None for s in data["seats"])
    assert "has not ended" in page(sheet) and "seat" in protocol_csv(sheet)


def test_bad_requests_are_one_line(judged: Path, tmp_path: Path) -> None:
    def bad(*args: str) -> str:
        result = CliRunner().invoke(app, ["export", str(judged), *args])
        assert result.exit_code == 2 and "Traceback" not in result.output
        return result.output

    assert "choose html, csv or json" in bad("--protocol", "--format", "xml")
    assert "choose en or ru" in bad("--protocol", "--lang", "de")
    assert "takes no --html or --seat" in bad("--protocol", "--seat", "3")
    assert "unknown scoring system" in bad("--protocol", "--scoring", "nope")
    assert "goes with --protocol" in bad("--format", "json", "--html", str(tmp_path / "x.html"))
    assert "give --html PATH" in bad()
    assert "transcript itself" in bad("--protocol", "--out", str(judged))
    out = tmp_path / "sheet.json"
    result = CliRunner().invoke(app, ["export", str(judged), "--protocol", "--format", "json", "--out", str(out)])
    assert result.exit_code == 0 and json.loads(out.read_text(encoding="utf-8"))["format"] == "mafia-arena-protocol"
    assert out.stat().st_mode & 0o777 == 0o600  # it shows every role
