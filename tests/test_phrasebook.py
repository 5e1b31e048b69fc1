"""One phrase table per language (issue #36): every engine event type has its line in every language, and a Russian
page of any golden game holds no English (the web log fell back to English for 21 of the 48 event types: "No
elimination today" 19 times in the club golden game, and `лучший ход #8:` with nothing after it)."""

from __future__ import annotations

import re

import pytest

from arena.engine import MODERATOR, Event, EventType, Game, Phase, Vis, view
from arena.golden import CASES, path_of
from arena.human.form import build_form
from arena.render import phrasebook
from arena.transcript import load
from arena.web.i18n import words
from arena.web.state import LogWriter, end_json, observation_json

SAMPLE_VALUES = {  # one value each event type takes from the engine (a code, a role, a kind)
    EventType.GAME_STARTED: "fiim",
    EventType.ROLE_ASSIGNED: "sheriff",
    EventType.WOKE_TO_BE_SEEN: "don",
    EventType.SIDE_CHOSEN: "mafia_ally",
    EventType.PHASE_STARTED: "day",
    EventType.SPEECH: "last_word",
    EventType.SPEECH_TRUNCATED: "150",
    EventType.NOMINATION_REJECTED: "already_nominated",
    EventType.NOMINATION_IGNORED: "one_per_day",
    EventType.VOTING_STARTED: "main",
    EventType.VOTE_CAST: "yes",
    EventType.NO_VOTE: "single_nominee",
    EventType.LIFT_RESULT: "not_held:all_living_tied",
    EventType.ELIMINATED: "voted",
    EventType.CARD_REVEALED: "mafia",
    EventType.MAFIA_RESULT: "disagreed",
    EventType.MAFIA_MISS_ANNOUNCED: "lover",
    EventType.DON_CHECK: "sheriff",
    EventType.SHERIFF_CHECK: "black",
    EventType.HEAL: "saved",
    EventType.MORNING: "killed",
    EventType.FOUL: "forbidden_content",
    EventType.REMOVED: "fouls",
    EventType.ACTION_REJECTED: "no answer within 60 s",
    EventType.DEFAULT_APPLIED: "no answer within 60 s",
    EventType.GAME_ENDED: "town",
    EventType.JUDGE: "extra_time",
}
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def _sample(kind: EventType) -> Event:
    return Event(
        seq=1,
        day=2,
        phase=Phase.DAY,
        type=kind,
        vis=Vis.PUBLIC,
        seat=3,
        target=5,
        seats=(1, 5),
        counts=(3, 4),
        roles=("civilian", "sheriff"),
        count=2,
        value=SAMPLE_VALUES.get(kind, ""),
        text="",
        code="day_vote" if kind is EventType.GAME_ENDED else None,
    )


@pytest.mark.parametrize("lang", phrasebook.LANGS)
@pytest.mark.parametrize("kind", list(EventType), ids=lambda k: k.value)
def test_every_event_type_has_its_line_in_every_language(kind: EventType, lang: str) -> None:
    said = phrasebook.text(_sample(kind), lang)
    assert said.strip() and said != kind.value, f"{kind.value} has no {lang} line"
    assert "#3" in said or kind in _NO_SEAT, f"{kind.value} ({lang}) does not name its seat: {said!r}"
    if lang == "ru":
        english = [w for w in LATIN_WORD.findall(said) if w != "fiim"]
        assert not english, f"{kind.value}: English on a Russian line: {said!r}"


_NO_SEAT = {
    EventType.GAME_STARTED,
    EventType.ROLES_DEALT,
    EventType.BLACK_TEAM,
    EventType.PHASE_STARTED,
    EventType.VOTING_STARTED,
    EventType.VOTES_COUNTED,
    EventType.NO_VOTE,
    EventType.TIE,
    EventType.LIFT_RESULT,
    EventType.MAFIA_RESULT,
    EventType.MAFIA_MISS_ANNOUNCED,
    EventType.STRETCHERS,
    EventType.SAVE_RESULT,
    EventType.MORNING,
    EventType.VOTE_CANCELLED,
    EventType.PROBES_TAKEN,
    EventType.GAME_ENDED,
}


def test_an_empty_best_move_says_so() -> None:
    event = _sample(EventType.BEST_MOVE)
    event.seats = ()
    for lang in phrasebook.LANGS:
        said = phrasebook.text(event, lang)
        assert not said.rstrip().endswith(":"), said


def _spoken(event: Event) -> str:
    return (event.text or "") if event.type in (EventType.SPEECH, EventType.BLACK_MESSAGE) else ""


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_no_english_on_a_russian_page_of_any_golden_game(case: object) -> None:
    """Every line of the god view's log, every seat's log, the end reveal and the page's own words, in Russian:
    no English word but a player's own (a bot speech in an English game) and the preset's name."""
    transcript = load(path_of(case))  # type: ignore[arg-type]
    game = Game(transcript.rules, transcript.header.seed, roles=transcript.header.roles)
    game.replay(list(transcript.inputs))
    log = LogWriter(game.rules, "ru")
    allowed = {game.rules.name}
    found: list[str] = []
    for viewer in (MODERATOR, *game.seats()):
        obs = view(game, viewer)
        spoken = {e.seq: _spoken(e) for e in obs.renumbered()}
        for line in observation_json(obs, game.n, log)["log"]:
            text = line["text"].replace(spoken.get(line["seq"], ""), "") if spoken.get(line["seq"]) else line["text"]
            found += [f"{text!r}" for w in LATIN_WORD.findall(text) if w not in allowed]
    end = end_json(game, log)
    assert end is not None
    for value in (end["reason"], end["winner_label"], *(s["label"] for s in end["seats"])):
        found += [repr(value) for w in LATIN_WORD.findall(value or "") if w not in allowed]
    for key, value in words("ru").items():
        if key != "title":  # the product's name
            bare = re.sub(r"\{\w+\}", "", value)  # a placeholder is no word of the page
            found += [f"{key}: {value!r}" for w in LATIN_WORD.findall(bare) if w not in ("Ctrl", "Enter")]
    for request in game.pending() or []:
        form = build_form(request, game.rules, "ru").to_json("ru")
        found += [repr(form["default"])] if LATIN_WORD.search(form["default"]) else []
    assert not found, f"{len(found)} English words on a Russian page, e.g. {found[:8]}"
