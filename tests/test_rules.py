"""Rules loading: every preset loads, custom files build on a preset, and a broken rules file or override is refused
with a RulesError that names the bad field and says what is allowed.

Why this file exists: rules files are written by hand, by people who have not read ruleset.py; the error message
is their only documentation at the moment it matters. And docs/rules.md is generated from the models, so the test
suite fails when someone changes a field and forgets to regenerate it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.engine import PRESETS, Game, Role, RulesError, load_rules

ROOT = Path(__file__).resolve().parents[1]


def rules_error(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesError) as info:
        load_rules(path=path)
    return str(info.value)


# ----- presets ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_loads_and_deals(preset: str) -> None:
    rules = load_rules(preset)
    assert rules.name == preset and rules.description
    assert sum(rules.roles.values()) == rules.players
    assert rules.count(Role.MAFIA) + rules.count(Role.DON) >= 1
    game = Game(rules, seed=1)
    assert sorted(game.roles[1:]) == sorted(r for r, n in rules.roles.items() for _ in range(n))
    assert game.pending(), "a fresh game asks someone something"


def test_default_preset_is_fiim() -> None:
    assert load_rules() == load_rules("fiim")


def test_presets_differ_where_rules_md_says() -> None:
    fiim, club, classic, aurora, edge = (load_rules(p) for p in PRESETS)
    assert fiim.best_move.enabled and not classic.best_move.enabled  # P21
    assert club.day1 == "intro_only" and not club.nominations.enabled  # P06, P10
    assert classic.night.sheriff_answer == "is_don"  # P26 ⚠
    assert not aurora.voting.mandatory and aurora.night.don_check_from_night == 0  # P11, P25
    assert edge.players == 12 and edge.reveal_on_elimination == "card"  # P01, P04


def test_unknown_preset() -> None:
    with pytest.raises(RulesError) as info:
        load_rules("mafia-deluxe")
    message = str(info.value)
    assert "mafia-deluxe" in message
    assert all(p in message for p in PRESETS)


# ----- broken files -----------------------------------------------------------------------------------------------
def test_bad_value_names_the_field_and_the_allowed_values(tmp_path: Path) -> None:
    message = rules_error(tmp_path, "bad.toml", 'base = "fiim"\n[voting]\nprotocol = "secret"\n')
    assert "voting.protocol" in message
    assert "'per_nominee'" in message and "'ballot'" in message and "secret" in message
    assert str(tmp_path / "bad.toml") in message


def test_bad_value_out_of_range(tmp_path: Path) -> None:
    message = rules_error(tmp_path, "range.toml", 'base = "fiim"\n[best_move]\nseats = 9\n')
    assert "best_move.seats" in message and "5" in message


def test_bad_role_name(tmp_path: Path) -> None:
    message = rules_error(tmp_path, "role.toml", "roles = { civilian = 6, sheriff = 1, mafia = 2, werewolf = 1 }\n")
    assert "roles" in message and "werewolf" in message
    assert all(f"'{r.value}'" in message for r in Role)


def test_unknown_field_is_named(tmp_path: Path) -> None:
    message = rules_error(tmp_path, "extra.toml", 'base = "fiim"\n[voting]\nsecret_ballot = true\n')
    assert "voting.secret_ballot" in message
    message = rules_error(tmp_path, "extra_top.toml", 'base = "fiim"\ncolour = "red"\n')
    assert "colour" in message


def test_unknown_field_lists_the_allowed_fields(tmp_path: Path) -> None:
    message = rules_error(tmp_path, "extra.toml", 'base = "fiim"\n[voting]\nprotocl = "ballot"\n')
    assert "voting.protocl" in message
    assert "protocol" in message and "mandatory" in message  # "protocl" does not contain "protocol"


def test_wrong_type(tmp_path: Path) -> None:
    message = rules_error(tmp_path, "type.toml", 'base = "fiim"\nplayers = "ten"\n')
    assert "players" in message and "integer" in message and "ten" in message
    message = rules_error(tmp_path, "type2.toml", 'base = "fiim"\n[nominations]\nenabled = "sometimes"\n')
    assert "nominations.enabled" in message and "bool" in message


def test_roles_not_adding_up(tmp_path: Path) -> None:
    # tables merge key by key into the base (docs/rules.md): fiim's roles with civilian 5 add up to 9
    message = rules_error(tmp_path, "sum.toml", 'base = "fiim"\nroles = { civilian = 5 }\n')
    assert "roles add up to 9" in message and "players is 10" in message
    message = rules_error(tmp_path, "sum.yaml", "players: 7\nroles: {civilian: 5, sheriff: 1, mafia: 2}\n")
    assert "roles add up to 8" in message and "players is 7" in message


def test_roles_inconsistent(tmp_path: Path) -> None:
    message = rules_error(
        tmp_path, "doc.toml", 'base = "fiim"\nroles = { civilian = 5, doctor = 1, sheriff = 1, mafia = 2, don = 1 }\n'
    )
    assert "night.doctor" in message and "sees_victims" in message and "blind_heal" in message
    message = rules_error(tmp_path, "town.toml", 'base = "fiim"\nroles = { civilian = 9, mafia = 0, don = 0 }\n')
    assert "roles" in message and "mafia or don" in message
    message = rules_error(tmp_path, "two.toml", 'base = "fiim"\nroles = { civilian = 4, sheriff = 2, don = 2 }\n')
    assert "roles" in message and "one don" in message


def test_invalid_toml(tmp_path: Path) -> None:
    message = rules_error(tmp_path, "broken.toml", 'base = "fiim"\n[voting\nprotocol = 1\n')
    assert "broken.toml" in message and "toml" in message.lower() and "line 2" in message


def test_invalid_yaml(tmp_path: Path) -> None:
    message = rules_error(tmp_path, "broken.yaml", "base: fiim\nvoting: {protocol: [\n")
    assert "broken.yaml" in message and "yaml" in message.lower()


def test_yaml_that_is_not_a_table(tmp_path: Path) -> None:
    message = rules_error(tmp_path, "list.yaml", "- fiim\n- club\n")
    assert "list.yaml" in message and "table" in message


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    with pytest.raises(RulesError) as info:
        load_rules(path=path)
    assert str(path) in str(info.value)


def test_bad_base(tmp_path: Path) -> None:
    message = rules_error(tmp_path, "base.toml", 'base = "fim"\n')
    assert "fim" in message and all(p in message for p in PRESETS)


def test_bad_overrides() -> None:
    with pytest.raises(RulesError) as info:
        load_rules("fiim", overrides=["voting.protocol=secret"])
    assert "voting.protocol" in str(info.value) and "'ballot'" in str(info.value)
    with pytest.raises(RulesError) as info:
        load_rules("fiim", overrides=["voting.protocol"])
    assert "voting.protocol" in str(info.value) and "=" in str(info.value)
    with pytest.raises(RulesError) as info:
        load_rules("fiim", overrides=["ties.max_tied_for_speeches=1"])
    assert "ties.max_tied_for_speeches" in str(info.value) and "any" in str(info.value)


@pytest.mark.parametrize(
    "value",
    ["[unclosed", "*x", "!!python/object:os.system", "9" * 5000, "[" * 5000 + "]" * 5000],
    ids=["invalid", "alias", "python-tag", "huge-number", "deep-list"],
)
def test_hostile_override_value_is_one_rules_error(value: str) -> None:
    with pytest.raises(RulesError) as info:
        load_rules("fiim", overrides=[f"speech.regular_s={value}"])
    message = str(info.value)
    assert "speech.regular_s" in message and "\n" not in message and len(message) < 2000


# ----- custom files -----------------------------------------------------------------------------------------------
CUSTOM_TOML = """
base = "club"
name = "our club"

[speech]
regular_s = 45

[night]
sheriff_max_shots = 1
"""

CUSTOM_YAML = """
base: club
name: our club
speech: {regular_s: 45}
night: {sheriff_max_shots: 1}
"""


@pytest.mark.parametrize(("name", "text"), [("ours.toml", CUSTOM_TOML), ("ours.yaml", CUSTOM_YAML)])
def test_custom_file_on_a_club_base_with_overrides(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    club = load_rules("club")
    rules = load_rules(path=path, overrides=["voting.protocol=ballot", "speech.tie_s=40"])
    assert rules.name == "our club"
    assert rules.speech.regular_s == 45 and rules.speech.tie_s == 40  # file, then overrides
    assert rules.night.sheriff_max_shots == 1 and rules.voting.protocol == "ballot"
    # everything else comes from the club preset, nested sections merged field by field
    assert rules.speech.extra_s == club.speech.extra_s == 30
    assert rules.night.doctor == "sees_victims" and rules.night.sheriff_can_shoot
    assert rules.roles == club.roles and rules.day1 == "intro_only" and not rules.nominations.enabled
    assert (
        rules.model_copy(
            update={
                "name": club.name,
                "speech": club.speech,
                "night": club.night,
                "voting": club.voting,
            }
        )
        == club
    )
    game = Game(rules, seed=3)
    assert game.pending()[0].kind.value == "choose_side"  # the club maniac still picks a side


def test_overrides_win_over_the_file(tmp_path: Path) -> None:
    path = tmp_path / "ours.toml"
    path.write_text(CUSTOM_TOML, encoding="utf-8")
    assert load_rules(path=path, overrides=["speech.regular_s=50"]).speech.regular_s == 50
    assert load_rules(path=path, overrides={"speech": {"regular_s": 55}}).speech.regular_s == 55


def test_file_without_base_starts_from_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "plain.yaml"
    path.write_text("name: plain\nplayers: 7\nroles: {civilian: 4, sheriff: 1, mafia: 1, don: 1}\n", encoding="utf-8")
    rules = load_rules(path=path)
    assert rules.players == 7 and rules.name == "plain"
    Game(rules, seed=0)


# ----- docs -------------------------------------------------------------------------------------------------------
def test_rules_doc_is_in_sync() -> None:
    done = subprocess.run(
        [sys.executable, "docs/gen_rules_doc.py", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, (
        f"docs/rules.md is stale: run `python docs/gen_rules_doc.py`\n{done.stdout}{done.stderr}"
    )


def test_hostile_override_on_the_command_line_is_one_error_line() -> None:
    from typer.testing import CliRunner

    from arena.cli import app

    result = CliRunner().invoke(app, ["play", "--rule", "speech=" + "[" * 5000])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: override 'speech'") and result.output.count("\n") == 1
