"""`ruleset.plain`: the game's plain copies of its data-only rules sections read exactly as the sections do, for every
preset, and cannot be changed."""

from __future__ import annotations

import pytest

from arena.engine import PRESETS, Game, load_rules
from arena.engine.ruleset import plain

SECTIONS = ("night0", "nominations", "voting", "ties", "fouls", "night", "best_move", "win", "probes", "opener")


@pytest.mark.parametrize("preset", PRESETS)
def test_a_plain_copy_has_every_field_with_the_same_value(preset: str) -> None:
    rules = load_rules(preset)
    for name in SECTIONS:
        section = getattr(rules, name)
        copy = plain(section)
        for field in type(section).model_fields:
            assert getattr(copy, field) == getattr(section, field), (name, field)
        assert set(vars(copy)) == set(type(section).model_fields)
        with pytest.raises(AttributeError):
            copy.__setattr__("anything", 1)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_game_reads_copies_of_its_own_rules(preset: str) -> None:
    rules = load_rules(preset)
    game = Game(rules, 3)
    for name in ("night0", "night", "nominations", "voting", "ties", "win", "best_move", "probes"):
        copy = getattr(game, f"{name}_rules")
        assert vars(copy) == getattr(rules, name).__dict__


def test_a_section_with_methods_has_no_plain_copy() -> None:
    rules = load_rules("fiim")
    with pytest.raises(TypeError):
        plain(rules.speech)
    with pytest.raises(TypeError):
        plain(rules)
