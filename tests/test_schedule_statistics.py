"""What a tournament's schedule identifies, before and after it is played (issue 18): the `sides` schedule,
`arena tournament --dry-run` and `--detect D`, and the report of a tournament-seating folder, which gives no number
for a quantity its design does not identify and names the combination it reports instead."""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.engine import Role, load_rules
from arena.tournament.model import load_tournament
from arena.tournament.schedule import make_schedule, side_of

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "examples" / "tournament-bots.toml"
runner = CliRunner()


def tournament_file(tmp_path: Path, games: int, schedule: str | None) -> Path:
    text = BOTS.read_text(encoding="utf-8").replace("games = 200", f"games = {games}")
    if schedule is not None:
        text = text.replace('name = "bots"', f'name = "bots"\nschedule = "{schedule}"')
    path = tmp_path / f"t-{schedule}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_detect_prints_what_is_identified_and_the_games_needed() -> None:
    result = runner.invoke(app, ["tournament", str(BOTS), "--detect", "0.4"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "design rank 3 of 7" in out and "only 0.30·town + 0.70·mafia" in out
    assert "side term h[fiim]: not identified" in out and 'schedule = "sides"' in out
    assert "Smallest difference detected with 80 % power" in out
    needed = [line for line in out.splitlines() if line.strip().startswith("identified combination") and "games" in
              line]  # fmt: skip
    assert needed and int(needed[-1].split(":")[-1].split()[0]) > 200


def test_dry_run_prints_the_identified_quantities_and_the_detectable_difference(tmp_path: Path) -> None:
    result = runner.invoke(app, ["tournament", str(tournament_file(tmp_path, 120, "sides")), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "heuristic: town and mafia skills" in result.output and "side term h[fiim]: identified" in result.output
    assert "town skill:" in result.output and "mafia skill:" in result.output


def test_detect_refuses_a_difference_that_is_not_positive() -> None:
    result = runner.invoke(app, ["tournament", str(BOTS), "--detect", "0"])
    assert result.exit_code == 2 and "--detect" in result.output


def test_the_default_schedule_keeps_the_fingerprint_and_sides_changes_it(tmp_path: Path) -> None:
    plain = load_tournament(tournament_file(tmp_path, 200, None), check_env=False)
    seats = load_tournament(tournament_file(tmp_path, 200, "seats"), check_env=False)
    sides = load_tournament(tournament_file(tmp_path, 200, "sides"), check_env=False)
    assert plain.fingerprint == seats.fingerprint != sides.fingerprint


@pytest.mark.parametrize("k", [2, 3, 5])
def test_sides_rounds_give_every_configuration_the_town_once_and_the_mafia_once(k: int) -> None:
    rules = load_rules("fiim")
    labels = [f"c{i}" for i in range(k)]
    plans = make_schedule(labels, "filler", rules, 2 * k * k, 1, kind="sides")
    for start in range(0, len(plans), k):
        town = Counter(next(lab for lab, r in zip(p.labels, p.roles, strict=True) if side_of(r) == "red")
                       for p in plans[start : start + k])  # fmt: skip
        mafia = Counter(next(lab for lab, r in zip(p.labels, p.roles, strict=True) if side_of(r) == "black")
                        for p in plans[start : start + k])  # fmt: skip
        assert town == mafia == Counter(labels)
    pairs = Counter((p.labels[[side_of(r) for r in p.roles].index("red")],
                     p.labels[[side_of(r) for r in p.roles].index("black")]) for p in plans)  # fmt: skip
    assert len(pairs) == k * k and set(pairs.values()) == {2}  # every ordered pair, self-pairs included


@pytest.mark.parametrize("k", [2, 3, 4])
def test_sides_gives_every_pair_every_turn_of_the_seats(k: int) -> None:
    """Turning the seats every game gave a pair only half the turns when k² and 10 share a factor (k = 2, 4)."""
    rules = load_rules("fiim")
    labels = [f"c{i}" for i in range(k)]
    plans = make_schedule(labels, "filler", rules, rules.players * k * k, 1, kind="sides")
    seen: dict[tuple[str, str], set[tuple[Role, ...]]] = {}
    for p in plans:
        sides = {side_of(r): lab for lab, r in zip(p.labels, p.roles, strict=True)}
        seen.setdefault((sides["red"], sides["black"]), set()).add(p.roles)
    assert len(seen) == k * k and {len(turns) for turns in seen.values()} == {rules.players}


def test_the_seats_schedule_moves_each_roles_seat_from_block_to_block() -> None:
    """Without the block offset a configuration held the sheriff's card at one seat all tournament long, and a
    seat's own advantage passed for its skill."""
    rules = load_rules("fiim")
    plans = make_schedule(["a", "b", "c"], "filler", rules, 100, 1)
    for label in ("a", "b", "c"):
        seats = {p.labels.index(label) for p in plans if p.roles[p.labels.index(label)] is Role.SHERIFF}
        assert len(seats) == 10, (label, sorted(seats))


def test_the_report_of_a_tournament_seating_folder_names_the_combination(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    played = runner.invoke(app, ["tournament", str(tournament_file(tmp_path, 40, None)), "--out", str(folder),
                                 "--no-progress", "--jobs", "2", "--processes", "0"])  # fmt: skip
    assert played.exit_code == 0, played.output
    result = runner.invoke(app, ["report", str(folder), "--boot", "40"])
    assert result.exit_code == 0, result.output
    report = (folder / "report" / "report.md").read_text(encoding="utf-8")
    assert "Town and mafia skills are not separable in these games" in report
    assert "| configuration | town skill | mafia skill | 0.30·town + 0.70·mafia |" in report
    ratings = report.split("## Ratings", 1)[1].split("## Comparisons", 1)[0]
    rows = [line for line in ratings.splitlines() if line.startswith("| ") and "configuration" not in line]
    assert len(rows) == 3
    for row in rows:
        _, _, town, mafia, combined, _ = (cell.strip() for cell in row.split("|"))
        assert town == mafia == "not identified" and combined.count("[") == 1  # a number only for the combination
    assert "Side term h[fiim] = not identified" in ratings
    table = list(csv.DictReader(io.StringIO((folder / "report" / "ratings.csv").read_text(encoding="utf-8"))))
    assert {(r["quantity"], r["status"]) for r in table} == {
        ("town", "not identified"), ("mafia", "not identified"), ("combined", "identified"), ("side", "not identified")
    }
    assert all(r["value"] == "" for r in table if r["status"] != "identified")
