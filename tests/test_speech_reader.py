"""The free-text speech reader (arena/research/speech_reader/) on its labelled corpus (tests/speech_corpus/).

Precision and recall are printed per set, per language and overall (`pytest -s` shows them). The sets were written
one after another, each before the reader was revised on it; the first figures of each set, as written, are the
reader's out-of-sample figures and are quoted in docs/metrics.md (they are not asserted: the reader has since been
revised on every set). Its learned part is trained on every set, so the figures printed here are in-sample; the
honest figures, each author's text read by a model trained on the other authors' text, are printed by
`python bench/speech_reader_train.py` (training takes longer than a test should)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from arena.research.speech_reader import KINDS, Statement, normalise, read
from arena.research.speech_reader.learned import ROLE_CLASSES, SEAT_CLASSES, committed
from arena.research.speech_reader.reader import read_rules

CORPUS = Path(__file__).parent / "speech_corpus"
UNSEEN = "blind_test4"  # never in the learned part's training (bench/speech_reader_train.py AUTHORS)
SETS = (
    "dev",
    "heldout",
    "fresh",
    "fourth",
    "blind_dev",
    "blind_test",
    "blind_test2",
    "blind_test3",
    "blind_test4",
    "probe1",
    "probe2",
    "probe3",
    "probe4",
    "probe5",
    "probe6",
    "probe7",
    "probe8",
    "probe9",
    "probe10",
    "probe11",
    "probe12",
    "probe13",
    "probe14",
)
# each set's floor: its level, the learned part trained on every set, less a margin (in-sample: the old four sets
# 1.000/1.000, blind_dev 1.000/1.000, probe1-7 1.000/0.991, probe8 1.000/1.000, probe9-14 0.996/0.993 when these
# floors were set)
FLOORS = {
    ("dev", "heldout", "fresh", "fourth"): (0.98, 0.97),
    ("blind_dev",): (0.97, 0.97),
    # written blind, measured once unseen at 0.900/0.684; the development set of the sixth revision since, and
    # training text of the learned part (0.979/0.994)
    ("blind_test",): (0.95, 0.95),
    # written blind by another author, measured once unseen on the sixth revision at 0.961/0.686; training text of
    # the learned part (0.985/0.995). Unseen, held out of the training: 0.937/0.749 (bench/speech_reader_train.py)
    ("blind_test2",): (0.95, 0.95),
    # written blind by a third author, measured once unseen on the seventh revision at 0.916/0.791; training text of
    # the learned part since. Unseen, held out of the training: 0.907/0.802 (bench/speech_reader_train.py)
    ("blind_test3",): (0.95, 0.95),
    # written blind by a fifth author and never trained on: the committed reader's figure for unseen text, measured
    # once at 0.910/0.809 (eighth revision, 67620c9); issue 37's 0.9 / 0.8 on text nobody developed the reader on
    (UNSEEN,): (0.9, 0.8),
    ("probe1", "probe2", "probe3", "probe4", "probe5", "probe6", "probe7"): (0.97, 0.95),
    ("probe8",): (0.97, 0.95),  # held out from the sixth revision: 1.000/0.692 as written, 1.000/0.923 after it
    # written during the sixth revision, each revised on
    ("probe9", "probe10", "probe11", "probe12", "probe13", "probe14"): (0.97, 0.95),
}


def _entries() -> list[tuple[str, str, str, set[str]]]:
    out = []
    for name in SETS:
        for entry in yaml.safe_load((CORPUS / f"{name}.yaml").read_text(encoding="utf-8")):
            out.append((name, entry["lang"], entry["text"], set(entry["says"])))
    return out


def _score(rows: list[tuple[str, str, str, set[str]]], rules: bool = False) -> tuple[float, float, int, int, int]:
    tp = fp = fn = 0
    for _, _, text, expected in rows:
        got = {str(s) for s in (read_rules(text) if rules else read(text))}
        tp += len(expected & got)
        fp += len(got - expected)
        fn += len(expected - got)
    return tp / max(tp + fp, 1), tp / max(tp + fn, 1), tp, fp, fn


def test_the_corpus_is_large_labelled_and_in_both_languages() -> None:
    rows = _entries()
    langs = Counter(lang for _, lang, _, _ in rows)
    assert len(rows) >= 200 and langs["en"] >= 100 and langs["ru"] >= 100, langs
    labels = [label for *_, says in rows for label in says]
    assert {label.split()[0] for label in labels} == set(KINDS)  # every kind is labelled somewhere
    assert sum(1 for *_, says in rows if not says) >= 40  # distractors: texts that state nothing


def test_precision_and_recall_on_the_labelled_corpus() -> None:
    rows = _entries()
    print(f"\nspeech reader on {len(rows)} labelled phrasings (tests/speech_corpus/)")
    for label, subset in [(name, [r for r in rows if r[0] == name]) for name in SETS] + [
        (lang, [r for r in rows if r[1] == lang]) for lang in ("en", "ru")
    ]:
        p, r, tp, fp, fn = _score(subset)
        rp, rr, *_ = _score(subset, rules=True)
        print(
            f"  {label:11} {len(subset):4} phrasings  precision {p:.3f}  recall {r:.3f}  (tp {tp}, fp {fp}, fn {fn});"
            f"  the rules alone {rp:.3f} / {rr:.3f}"
        )
    for kind in KINDS:
        tp = sum(1 for *_, text, says in rows for s in read(text) if s.kind == kind and str(s) in says)
        got = sum(1 for *_, text, _ in rows for s in read(text) if s.kind == kind)
        want = sum(1 for *_, says in rows for label in says if label.split()[0] == kind)
        print(f"  {kind:8} precision {tp / max(got, 1):.3f}  recall {tp / max(want, 1):.3f}  ({want} labelled)")
    precision, recall, *_ = _score(rows)
    print(f"  all      precision {precision:.3f}  recall {recall:.3f}")
    assert precision >= 0.9 and recall >= 0.8  # issue 37's acceptance, over the whole corpus (mostly trained on)
    unseen = _score([row for row in rows if row[0] == UNSEEN])
    print(f"  unseen   {UNSEEN}: precision {unseen[0]:.3f}  recall {unseen[1]:.3f}  (never trained or developed on)")
    for names, (p_floor, r_floor) in FLOORS.items():
        p, r, *_ = _score([row for row in rows if row[0] in names])
        assert p >= p_floor and r >= r_floor, (names, p, r)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I checked 5, red", ["check 5 red"]),
        ("проверил пятого — красный", ["check 5 red"]),
        ("Пятый проверил меня", []),  # the seat checked someone: not the speaker's check
        ("I will vote 4", ["vote 4"]),
        ("I won't vote 4", []),
        ("Seat 3 was killed last night", ["dead 3"]),
        ("Seat 3, why did you vote?", ["alive 3"]),
        ("Day 2: 7 players left", []),
        # number words and ordinals are seats unless they count
        ("Five is lying, he's black.", ["accuse 5"]),
        ("There are seven of us left and two blacks.", []),
        ("Nine and ten, you two voted together. Explain.", ["alive 9", "alive 10"]),
        ("My vote goes to the fifth.", ["vote 5"]),
        ("Давай ночью пятую, она доктор.", ["target 5"]),
        ("В первую ночь убили шерифа.", []),
        ("Голосую за номер восемь.", ["vote 8"]),
        # misspelt key words
        ("Sherif here, cheked 5 black", ["role sheriff", "check 5 black"]),
        # questions, beliefs denied, sarcasm, jokes taken back, reported words
        ("Is seat 5 mafia?", []),
        ("I don't think player 1 is mafia.", []),
        ("Не думаю, что первый — мафия.", []),
        ("Sure, I'm totally the mafia, vote me.", []),
        ("Don here — just kidding, I'm a plain civilian.", ["role civilian"]),
        ("The sheriff said 5 is black.", []),
        ("According to 5, number 3 is black.", []),
        ("I think seat 3 will vote 5.", []),
        # a condition after the statement: "if" takes it back, "unless" / «если ... не» keeps it
        ("Проголосую за шестого, если шериф подтвердит.", []),
        ("Наверное, проголосую в пятого, если третий не убедит.", ["vote 5"]),
        ("Если что, я мирный.", ["role civilian"]),
        # a teammate is not an accusation; a check from another seat is not the speaker's
        ("Remember, 6 is our don, don't nominate him.", ["teammate 6"]),
        ("У шестого красная проверка от третьего.", []),
        # the sixth revision: constructions, not phrasings (each read nothing or less before it)
        ("6 got shot, RIP 2.", ["dead 6", "dead 2"]),
        ("Ночью ушёл третий, а убили пятого ещё вчера.", ["dead 3", "dead 5"]),
        ("Убит 4-й, заголосован 7-й.", ["dead 4", "dead 7"]),
        ("Partner, we hit 3 tonight.", ["target 3"]),
        ("Напарник, этой ночью стреляем в девятого.", ["target 9"]),
        ("Our shot goes to seat four.", ["target 4"]),
        ("Seven is super sus, and my read on 2 is black.", ["accuse 7", "accuse 2"]),
        ("Четвёртый мне не нравится, а восьмой явно из чёрной команды.", ["accuse 4", "accuse 8"]),
        ("Don't listen to 2, he's obviously black.", ["accuse 2"]),
        ("Red. Vote three.", ["role red", "vote 3"]),
        # and what stays unread: a negation, a question, a denial on both sides, a check's colour, a count of roles
        ("Don't shoot 6 tonight.", []),
        ("Vote for 5? No, I'm voting 6.", ["vote 6"]),
        ("Neither 1 nor 2 is black.", []),
        ("I checked 4. Red.", ["check 4 red"]),
        ("Two mafia, one don, one sheriff.", []),
        # a seat's digits are whole: seat 12 is never read as seat 1 before "2"
        ("Let's eliminate player 12 tonight.", ["target 12"]),
        ("Вопрос двенадцатого: кто шериф? Один вопрос двенадцатому.", ["alive 12"]),
        # the bots' own lines (tests/golden): a vote for a seat's departure is no death
        ("Игрок 8 указывает на меня. Я голосую за его уход.", ["vote 8"]),
    ],
)
def test_the_acceptance_phrasings(text: str, expected: list[str]) -> None:
    assert sorted(str(s) for s in read(text)) == sorted(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # what the hand rules miss and the learned part reads: a list's later seats, a death in new words
        ("Let's hear from the quiet ones: 2, 5 and 11.", ["alive 2", "alive 5", "alive 11"]),
        ("Послушаем тех, кто молчал: третьего, шестого и девятого.", ["alive 3", "alive 6", "alive 9"]),
        ("I checked 2 and 11. Both red.", ["check 2 red", "check 11 red"]),
        ("Ночью не стало седьмого.", ["dead 7"]),
        # and what the rules' guards keep from it: a negation, a question, a condition, another seat's words
        ("Don't vote 7.", []),
        ("Is 3 the sheriff?", []),
        ("If I were you, I would vote 6.", []),
        ("Seat 4 says he checked 9: red.", []),
    ],
)
def test_the_learned_part(text: str, expected: list[str]) -> None:
    assert sorted(str(s) for s in read_rules(text)) != sorted(expected) or not expected
    assert sorted(str(s) for s in read(text)) == sorted(expected)


def test_the_learned_part_is_committed_whole() -> None:
    model = committed()
    assert set(model) == set(SEAT_CLASSES) | {f"role {r}" for r in ROLE_CLASSES}
    assert all(0.05 <= threshold < 1 and weights for weights, threshold in model.values())
    # the reader's statements are the rules' and the model's merged: the rules' reads are all kept
    for text in ("I am the sheriff. I checked 3: black. Vote 3. Seat 9, explain.", "Ночью убили пятого."):
        assert set(read_rules(text)) <= set(read(text))


def test_seats_are_normalised_in_every_spelling() -> None:
    assert normalise("Seat four, player 5, #6, игрок 7, восьмого, девятка") == "¤4, ¤5, ¤6, ¤7, ¤8ᵃ, ¤9"
    assert normalise("day 2, night 1, 3 of them, 0.5") == "day 2, night 1, 3 of them, 0.5"
    assert normalise("первая проверка, второй день") == "первая проверка, второй день"


def test_reading_is_deterministic_and_total() -> None:
    text = "I am the sheriff. I checked 3: black. Vote 3. Seat 9, explain."
    assert read(text) == read(text)
    assert read("") == ()
    assert all(isinstance(s, Statement) for s in read(text))
    # "seat 1, seat 2, " * 40: a list the old list pattern took exponential time to fail on (7 s at 10 pairs)
    for junk in ("¤¤¤ 99 ᵃᵃ", "\x00\u202e" * 50, "1 " * 500, "я " * 300, "seat 1, seat 2, " * 40, "— 5 — 6 " * 200):
        read(junk)  # never raises
