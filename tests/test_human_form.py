"""The one human-input form: built from the engine's Request; it refuses early, never accepts more than the engine."""

from __future__ import annotations

import pytest

from arena.engine import Decision, Kind, Request, SpeechKind, load_rules
from arena.human.form import (
    DEFAULT_CHARS_PER_WORD,
    FormError,
    build_form,
    chars_per_word,
    decision_from,
    forbidden_in,
    nomination_problem,
)

RULES = load_rules("fiim")
SPEECH = Request(
    seat=3,
    kind=Kind.SPEECH,
    max_words=10,
    speech=SpeechKind.REGULAR,
    may_nominate=True,
    nominate_options=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
)


def test_the_character_cap_follows_the_rules_or_the_default() -> None:
    form = build_form(SPEECH, RULES)
    assert form.max_chars == 10 * chars_per_word(RULES)
    expected = getattr(RULES.speech, "chars_per_word", getattr(RULES, "chars_per_word", DEFAULT_CHARS_PER_WORD))
    assert chars_per_word(RULES) == expected
    with pytest.raises(FormError, match="over the cap"):
        decision_from(form, {"text": "x" * (form.max_chars + 1)})
    assert decision_from(form, {"text": "x" * form.max_chars}).text == "x" * form.max_chars


def test_nominations_are_checked_against_the_request_and_todays_list() -> None:
    form = build_form(SPEECH, RULES, nominees=(5,))
    assert nomination_problem(form, 5) == "#5 is already nominated"
    assert nomination_problem(form, 11) is not None and "cannot be nominated" in (nomination_problem(form, 11) or "")
    assert nomination_problem(form, 4, [2]) is not None
    assert nomination_problem(form, 4) is None
    assert 5 not in form.to_json()["nominate_options"]
    no_right = build_form(SPEECH.model_copy(update={"may_nominate": False}), RULES)
    assert nomination_problem(no_right, 4) == "this turn carries no right to nominate"
    assert decision_from(form, {"text": "hi", "nominate": [4]}) == Decision(text="hi", nominate=(4,))


def test_foreign_fields_and_wrong_types_are_refused() -> None:
    form = build_form(SPEECH, RULES)
    for payload in ({"vote": True}, {"text": 5}, {"nominate": "4"}, {"nominate": [True]}, {"extra": True}):
        with pytest.raises(FormError):
            decision_from(form, payload)
    vote = build_form(Request(seat=1, kind=Kind.VOTE, candidate=4), RULES)
    with pytest.raises(FormError):
        decision_from(vote, {"vote": "yes"})
    assert decision_from(vote, {"vote": False}).vote is False
    shoot = build_form(Request(seat=1, kind=Kind.SHOOT, options=(2, 3), allow_none=True), RULES)
    assert decision_from(shoot, {"target": None}).target is None
    with pytest.raises(FormError, match="not a legal choice"):
        decision_from(shoot, {"target": 9})
    ballot = build_form(Request(seat=1, kind=Kind.BALLOT, options=(2, 3)), RULES)
    with pytest.raises(FormError, match="required"):
        decision_from(ballot, {"target": None})


def test_forbidden_phrases_are_found_in_any_case_and_spacing() -> None:
    form = build_form(SPEECH, RULES, lang="ru")
    assert "клянусь" in form.forbidden and "i swear" in form.forbidden
    assert forbidden_in(form, "Well, I   SWEAR it") == ["i swear"]
    assert form.to_json()["forbidden"] == list(form.forbidden)


def test_the_kill_order_and_best_move_limits() -> None:
    order = build_form(
        Request(seat=2, kind=Kind.BLACK_MESSAGE, max_words=5, may_set_order=True, max_targets=3, options=(1, 3, 4, 5)),
        RULES,
    )
    assert decision_from(order, {"text": "go", "targets": [3, 4]}).targets == (3, 4)
    with pytest.raises(FormError, match="at most 3"):
        decision_from(order, {"text": "go", "targets": [1, 3, 4, 5]})
    plain = build_form(Request(seat=2, kind=Kind.BLACK_MESSAGE, max_words=5), RULES)
    with pytest.raises(FormError, match="only the don"):
        decision_from(plain, {"text": "go", "targets": [3]})
    best = build_form(Request(seat=2, kind=Kind.BEST_MOVE, max_targets=3, options=(1, 3, 4, 5)), RULES)
    with pytest.raises(FormError, match="once"):
        decision_from(best, {"targets": [3, 3]})


def test_a_probe_answer_rates_every_listed_seat_within_0_and_1() -> None:
    probe = Request(seat=3, kind=Kind.PROBE, options=(1, 2, 4))
    form = build_form(probe, RULES)
    assert decision_from(form, {"beliefs": {"1": 0.9, "2": 0, 4: 1}}).beliefs == (0.9, 0.0, 1.0)
    for bad, reason in (
        ({"1": 0.9, "2": 0.1}, "seat 4 needs"),
        ({"1": 0.9, "2": 0.1, "4": 1.5}, "seat 4 needs"),
        ({"1": True, "2": 0.1, "4": 0.2}, "seat 1 needs"),
        ({"1": 0.1, "2": 0.1, "4": 0.2, "3": 0.5}, "no probe for seat"),
        ([0.1, 0.2, 0.3], "must map"),
    ):
        with pytest.raises(FormError, match=reason):
            decision_from(form, {"beliefs": bad})
    with pytest.raises(FormError, match="unexpected"):
        decision_from(form, {"beliefs": {"1": 0.1, "2": 0.1, "4": 0.1}, "target": 1})


def test_the_engines_character_cap_wins_when_the_request_carries_one() -> None:
    request = Request(seat=3, kind=Kind.SPEECH, max_words=10, max_chars=37, speech=SpeechKind.REGULAR)
    assert build_form(request, RULES).max_chars == 37
