"""The reference field (#33 items 1-2): a field frozen from a draft, placements that are reproducible byte for byte
and never move the field or another entrant, a behaviour fingerprint that refuses changed opponents (and ignores
changed words), and the placement statistics. A tiny field (two bots, a few deals) keeps this file to seconds; the
real `reference-v1` is placed in `tests/test_field_slow.py` (marked slow) and measured in `bench/reference.py`."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.engine import Kind
from arena.field.definition import FieldError, field_names, load_field
from arena.field.fingerprint import behaviour, check_behaviour
from arena.field.place import MAFIA, TOWN, Frozen, Outcome, firth, place, stein_interval, stein_plan

runner = CliRunner()
DRAFT = """name = "tiny-v1"
description = "A test field: two bots."
preset = "fiim"
calibration_games = 24
[deals]
seed = 777
count = 30
games = 12
pilot = 4
[[members]]
label = "random"
agent = "bot:random"
[[members]]
label = "heuristic-n50"
agent = "bot:heuristic"
noise = 0.5
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A field frozen by `arena field freeze` from a two-member draft (24 calibration games, in this process)."""
    folder = tmp_path_factory.mktemp("tiny")
    draft = folder / "draft.toml"
    draft.write_text(DRAFT, encoding="utf-8")
    result = runner.invoke(app, ["field", "freeze", str(draft), "--out", str(folder / "cal"), "--processes", "0",
                                 "--no-progress", "--boot", "20"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "heuristic-n50" in result.output and "side term h" in result.output
    return folder / "cal" / "tiny-v1.toml"


def _place(field: Path, entrant: str, out: Path, *extra: str) -> dict[str, object]:
    result = runner.invoke(app, ["tournament", "--field", str(field), "--entrant", entrant, "--out", str(out),
                                 "--processes", "0", "--no-progress", *extra])  # fmt: skip
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads((out / "placement.json").read_text(encoding="utf-8"))
    return data


def test_a_frozen_field_loads_with_its_ratings_and_fingerprints(tiny: Path) -> None:
    field = load_field(str(tiny))
    assert field.labels == ["random", "heuristic-n50"]
    by = {m.label: m for m in field.members}
    assert by["heuristic-n50"].combined > by["random"].combined  # the noisy heuristic beats the random bot
    assert math.isclose(sum(m.town for m in field.members), 0, abs_tol=1e-3)  # centred over the members
    check_behaviour(field)  # the opponents play as they did when it was frozen
    assert field.file.behaviour.games == 4 and set(field.file.behaviour.members) == {"random", "heuristic-n50"}


def test_reference_v1_ships_and_is_what_this_install_plays() -> None:
    assert "reference-v1" in field_names()
    field = load_field("reference-v1")  # rules and deals fingerprints checked on load
    assert len(field.members) >= 4 and field.file.deals.games % 2 == 0
    combined = sorted(m.combined for m in field.members)
    assert combined[-1] - combined[0] > 2  # the members spread over the scale


def test_a_placement_is_byte_identical_run_twice_and_moves_nothing(tiny: Path, tmp_path: Path) -> None:
    field_bytes = tiny.read_bytes()
    first = _place(tiny, "bot:heuristic", tmp_path / "A")
    _place(tiny, "bot:heuristic", tmp_path / "B")
    assert (tmp_path / "A" / "placement.json").read_bytes() == (tmp_path / "B" / "placement.json").read_bytes()
    estimates = first["estimates"]
    assert isinstance(estimates, dict) and set(estimates) == {"combined", "town", "mafia"}
    c = estimates["combined"]
    assert c["low"] < c["value"] < c["high"] and c["games"] == 12 and c["deals"] == 6
    assert "fixed" in str(first["identifies"]) and "never moves the field" in str(first["identifies"])
    before = (tmp_path / "A" / "placement.json").read_bytes()
    second = _place(tiny, "bot:random", tmp_path / "C")  # a second entrant
    assert (tmp_path / "A" / "placement.json").read_bytes() == before
    assert tiny.read_bytes() == field_bytes  # the field's file, and so its ratings, untouched
    assert second["field"] == first["field"]  # the same frozen members and side term as seen by both
    from arena.field.run import Design, fit_folder

    field = load_field(str(tiny))
    _, again = fit_folder(tmp_path / "A", field, "bot-heuristic", Design("fixed", 6, 30))  # refitted from its games
    assert round(again.combined.value, 4) == c["value"]


def test_until_width_plays_steins_second_stage(tiny: Path, tmp_path: Path) -> None:
    data = _place(tiny, "bot:random", tmp_path / "W", "--until-width", "3.0", "--max-games", "40")
    design = data["design"]
    assert isinstance(design, dict) and design["kind"] == "stein" and design["pilot"] == 4
    assert 4 <= design["deals"] <= 20
    c = data["estimates"]["combined"]  # type: ignore[index]
    capped = any("cap" in str(n) for n in data["notes"])  # type: ignore[union-attr]
    assert capped or c["high"] - c["low"] <= 3.0 + 1e-9
    assert "Stein" in str(data["rule"])


def test_placement_options_are_checked(tiny: Path, tmp_path: Path) -> None:
    bad = [
        (["--entrant", "bot:heuristic", "--games", "7"], "--games: 7 must be even"),
        (["--entrant", "bot:heuristic", "--games", "10", "--until-width", "1"], "choose one"),
        (["--entrant", "human"], "a human seat"),
        (["--entrant", "nobody-at-all"], "unknown agent"),
        ([], "--entrant"),
        (["--entrant", "bot:heuristic", "--until-width", "-1"], "positive width"),
    ]
    for extra, message in bad:
        result = runner.invoke(app, ["tournament", "--field", str(tiny), "--out", str(tmp_path / "x"), *extra])
        assert result.exit_code == 2 and message in result.output, (extra, result.output)
    unknown = runner.invoke(app, ["tournament", "--field", "reference-v0", "--entrant", "bot:random", "--out",
                                  str(tmp_path / "y")])  # fmt: skip
    assert unknown.exit_code == 2 and "unknown field 'reference-v0'" in unknown.output


def test_a_changed_bot_is_refused_and_changed_words_are_not(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fingerprint pins decisions, not speech: the same bots with every line shouted play the same; a bot that
    nominates at random more often does not, and the field refuses to place anyone against it."""
    field = load_field(str(tiny))
    pinned = field.file.behaviour.fingerprint
    from arena.players import bot_lines, bots

    say = bot_lines.Lines.say
    monkeypatch.setattr(bot_lines.Lines, "say", lambda self, key, rng, **kw: say(self, key, rng, **kw).upper())
    assert behaviour(field)[1] == pinned
    monkeypatch.undo()
    monkeypatch.setattr(bots, "RANDOM_NOMINATION", 0.9)
    with pytest.raises(FieldError, match="no longer play as they did"):
        check_behaviour(field)


def test_a_field_with_other_rules_or_deals_is_refused(tiny: Path, tmp_path: Path) -> None:
    text = tiny.read_text(encoding="utf-8")
    pinned = load_field(str(tiny)).file.rules.fingerprint
    other = tmp_path / "other-rules.toml"  # as if this install's fiim preset had changed since the field was frozen
    other.write_text(text.replace(pinned, "0" * 64), encoding="utf-8")
    with pytest.raises(FieldError, match="rules differ"):
        load_field(str(other))
    three = tmp_path / "three-sided.toml"
    three.write_text(text.replace('preset = "fiim"', 'preset = "club"'), encoding="utf-8")
    with pytest.raises(FieldError, match="two-sided"):
        load_field(str(three))
    moved = tmp_path / "other-deals.toml"
    moved.write_text(text.replace("seed = 777", "seed = 778"), encoding="utf-8")
    with pytest.raises(FieldError, match="deals other cards"):
        load_field(str(moved))


def test_the_noisy_bot_replaces_acts_never_words() -> None:
    from arena.agents import BUILTIN
    from arena.engine import Game, load_rules, view
    from arena.players.factory import build_player

    rules = load_rules("fiim")
    game = Game(rules, 5)
    spec = BUILTIN["bot:heuristic"].model_copy(update={"noise": 1.0})
    plain = BUILTIN["bot:heuristic"]
    kinds_seen: set[Kind] = set()
    replaced = 0
    for _ in range(60):
        if game.over:
            break
        for request in game.pending():
            obs = view(game, request.seat)
            noisy = asyncio.run(build_player(spec, request.seat, seed=5, rules=rules, lang="en").decide(obs, request))
            own = asyncio.run(build_player(plain, request.seat, seed=5, rules=rules, lang="en").decide(obs, request))
            if request.kind is Kind.SPEECH:
                assert noisy.decision == own.decision  # it speaks as the bot it wraps
            else:
                replaced += noisy.decision != own.decision
            kinds_seen.add(request.kind)
            game.submit(request.seat, own.decision)
    assert Kind.SPEECH in kinds_seen and (Kind.VOTE in kinds_seen or Kind.SHOOT in kinds_seen)
    assert replaced > 0  # at noise 1 its acts are drawn at random


# ----- the statistics ------------------------------------------------------------------------------------------------
FROZEN = Frozen(-0.3, {"a": -1.0, "b": 1.0}, {"a": -1.2, "b": 1.2})


def test_firth_is_finite_when_every_game_is_won_and_matches_the_mle_otherwise() -> None:
    offsets = np.asarray([0.0, 0.5, -0.5, 1.0])
    won = np.ones(4)
    beta = firth(offsets, won, np.ones((1, 4)))[0]
    assert math.isfinite(beta) and beta > 1
    many = np.zeros(4000)  # with many games Firth's estimate is the maximum-likelihood one
    rng = np.random.default_rng(1)
    y = (rng.random(4000) < 1 / (1 + np.exp(-(many + 0.7)))).astype(float)
    assert abs(firth(many, y, np.ones((1, 4000)))[0] - math.log(y.mean() / (1 - y.mean()))) < 1e-3


def test_a_placement_knows_which_side_it_won_and_pairs_the_sides_by_deal() -> None:
    games = [Outcome(d, "ab"[d % 2], side, won) for d in range(12) for side, won in ((TOWN, d % 3 != 0),
                                                                                    (MAFIA, d % 4 == 0))]  # fmt: skip
    p = place(games, FROZEN)
    assert p.deals == 12 and p.games == 24
    assert p.estimates[TOWN].value > p.estimates[MAFIA].value  # won 8 of 12 town games, 3 of 12 mafia ones
    c = p.combined
    assert math.isclose(c.value, (p.estimates[TOWN].value + p.estimates[MAFIA].value) / 2)
    assert c.low < c.value < c.high and c.games == 24 and c.deals == 12


def test_a_record_with_no_spread_still_gets_a_wide_interval() -> None:
    """Every game won: the jackknife is zero, the model's variance is not."""
    games = [Outcome(d, "a", side, True) for d in range(6) for side in (TOWN, MAFIA)]
    c = place(games, FROZEN).combined
    assert c.high - c.low > 1.0


def test_steins_plan_depends_on_the_pilot_alone_and_reaches_the_width() -> None:
    rng = np.random.default_rng(3)
    pilot = [Outcome(d, "ab"[d % 2], side, bool(rng.random() < 0.5)) for d in range(10) for side in (TOWN, MAFIA)]
    p = place(pilot, FROZEN)
    plan = stein_plan(p, 1.0, 1000)
    assert plan.deals >= 10 and not plan.capped
    more = pilot + [Outcome(d, "ab"[d % 2], side, bool(rng.random() < 0.5)) for d in range(10, plan.deals)
                    for side in (TOWN, MAFIA)]  # fmt: skip
    final = stein_interval(place(more, FROZEN), plan)
    assert final.combined.width <= 1.0 + 1e-12
    capped = stein_plan(p, 0.01, 50)
    assert capped.capped and capped.deals == 50


def test_a_dry_run_plays_nothing(tiny: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["tournament", "--field", str(tiny), "--entrant", "bot:heuristic", "--dry-run",
                                 "--out", str(tmp_path / "D")])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "12 games on 6 deals" in result.output and "one-parameter fit" in result.output
    assert not (tmp_path / "D").exists()


def test_the_simulations_truth_is_the_world_when_the_model_is_the_world() -> None:
    """With no role weights, seat effects, noise or draws, and the field frozen at the world's own skills, the
    pseudo-true placement of an entrant is its world skill: the bench's target is what the model means."""
    from arena.field import simulate as sim
    from arena.research.simulate import World

    members = ["a", "b", "c"]
    frozen = Frozen(-0.3, {"a": -1.0, "b": 0.2, "c": 1.1}, {"a": -0.8, "b": 0.1, "c": 0.9})
    world = World(-0.3, {**frozen.town, sim.ENTRANT: 0.6}, {**frozen.mafia, sim.ENTRANT: -0.4}, role_weight={},
                  seat_effect=(0.0,) * 10, deal_sd=0.0, game_sd=0.0, draw=0.0)  # fmt: skip
    town, mafia, combined = sim.truth(world, frozen, members, np.random.default_rng(0), seatings=300)
    assert abs(town - 0.6) < 1e-6 and abs(mafia + 0.4) < 1e-6 and abs(combined - 0.1) < 1e-6
    ranked = sim.entrants(frozen, members)
    assert ranked["below"] == (-2.0, -1.8) and ranked["above"] == (2.1, 1.9)


def test_without_the_research_extra_each_fitting_command_says_so_and_plays_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bare install (`pip install -e .`, no numpy or scipy) played a whole placement and then stopped on a
    ModuleNotFoundError traceback at its fit (measured on a clean clone); `arena site` did the same."""
    import sys

    monkeypatch.setitem(sys.modules, "scipy", None)  # an import of scipy now fails as it does where it is missing
    (tmp_path / "draft.toml").write_text(DRAFT, encoding="utf-8")
    for args in (["tournament", "--field", "reference-v1", "--entrant", "bot:heuristic", "--out", str(tmp_path / "p")],
                 ["field", "freeze", str(tmp_path / "draft.toml"), "--out", str(tmp_path / "cal")],
                 ["site", str(tmp_path), "--out", str(tmp_path / "site")]):  # fmt: skip
        result = runner.invoke(app, [*args, "--no-progress"])
        assert result.exit_code == 2, (args, result.output)
        assert "needs the research extra: pip install 'mafia-arena[research]'" in result.output, result.output
        assert "Traceback" not in result.output
    assert not any((tmp_path / name).exists() for name in ("p", "cal", "site"))
