"""Prompts a small model can follow (issue #31): no forbidden phrase is quoted (the rule is described, so the model is
not primed to say them), each game's prompts are in its language only, no field description reads as a speech, and
a black seat's teammates are marked in every list of seats it chooses from.

Gemma 3 270M said "e.g., i swear to god (i promise on)" 8 times in one game after reading the list, spoke a field's
description ("your words aloud (≤150 words)") as its speech, and on Night 1 all three black seats shot a teammate.
`bench/real_model.py` measures the rates of such speeches and shots with the real model."""

from __future__ import annotations

import random
import re

import pytest

from arena.engine import PRESETS, Game, Kind, Observation, Request, load_rules, view
from arena.llm.conversation import Conversation
from arena.players.random_policy import random_decision
from arena.prompts import load_prompt_set

_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
# a Latin word in a Russian prompt is a JSON field name, a value the schema takes, or a seat marker of the format
_LATIN = re.compile(r"\b[A-Za-z][A-Za-z_]+\b")


def _turns(preset: str, lang: str, seed: int = 3) -> list[tuple[Request, Observation, list[dict[str, str]]]]:
    """Every seat's request of a random game, with the messages a fresh conversation would send for it."""
    rules = load_rules(preset)
    game = Game(rules, seed)
    rng = random.Random(seed)
    prompts = load_prompt_set("default", lang)
    out = []
    while not game.over:
        for request in game.pending():
            conversation = Conversation(prompts, rules, request.seat)
            observation = view(game, request.seat)
            turn = conversation.turn(observation, request)
            out.append((request, observation, conversation.request_messages(turn)))
            game.submit(request.seat, random_decision(rng, request))
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_no_forbidden_phrase_is_quoted_to_the_model(preset: str) -> None:
    rules = load_rules(preset)
    phrases = [p for words in rules.forbidden_words.values() for p in words]
    for lang in ("en", "ru"):
        system = Conversation(load_prompt_set("default", lang), rules, 1).messages[0]["content"].lower()
        assert not [p for p in phrases if p in system], (preset, lang)
        if rules.fouls.forbidden_content != "off":  # the rule is still told, described
            assert ("oath" in system) if lang == "en" else ("клятв" in system)


@pytest.mark.parametrize(("preset", "lang"), [("fiim", "en"), ("club", "ru"), ("aurora", "en"), ("fiim", "ru")])
def test_a_games_prompts_are_in_its_language(preset: str, lang: str) -> None:
    """Outside the players' quoted words: no Cyrillic in an English game, and in a Russian one no English word
    but the JSON field names and values the answer must use."""
    fields = {"reasoning", "speech", "nominate", "extra", "claim", "role", "black", "red", "vote", "target",
              "targets", "message", "kill_order", "side", "action", "beliefs", "null", "true", "false", "sheriff",
              "check", "shoot", "independent", "mafia_ally", "json", "JSON", "kind", "object", "type", "string",
              "integer", "boolean", "array", "enum", "properties", "required", "additionalProperties", "anyOf",
              "items", "maxItems", "text", "of", "decision", "number", "minimum", "maximum", "fiim", "club",
              "aurora", "classic", "edge",
              "system"}  # fmt: skip (and «system: ...», quoted as a kind of text a player may fake)
    for _, _, messages in _turns(preset, lang)[::7]:
        for message in messages:
            text = _QUOTED.sub('""', message["content"])
            if lang == "en":
                assert not _CYRILLIC.search(text), text[:300]
            else:
                stray = {w for w in _LATIN.findall(text) if w not in fields}
                assert not stray, (stray, text[:300])


def test_no_field_description_reads_as_a_speech() -> None:
    """The speech field is described by its type and bound, not in words a model can say aloud."""
    for lang in ("en", "ru"):
        for request, _, messages in _turns("fiim", lang):
            if request.kind is Kind.SPEECH:
                line = next(li for li in messages[-1]["content"].splitlines() if li.startswith('- "speech":'))
                bound = f"≤{request.max_words} words" if lang == "en" else f"не больше {request.max_words} слов"
                assert line.startswith('- "speech": string, ' if lang == "en" else '- "speech": строка, '), line
                assert bound in line and "aloud" not in line and "вслух" not in line, line
                break


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_black_seats_teammates_are_marked_in_its_choices(lang: str) -> None:
    mark = "(your teammate)" if lang == "en" else "(ваш напарник)"
    seen = set()
    for request, observation, messages in _turns("fiim", lang, seed=5):
        text = messages[-1]["content"]
        mates = set(observation.teammates)
        options = set(request.options) | set(request.nominate_options) | {request.candidate or 0}
        if mates & options:
            for mate in mates & options:
                assert f"{mate} {mark}" in text, (request.kind, mate, text[-600:])
            seen.add(request.kind)
        elif not mates:
            assert mark not in text  # a red seat has none
    assert {Kind.SHOOT, Kind.SPEECH} <= seen, seen
