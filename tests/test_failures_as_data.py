"""A failed attempt is data (issue #38): a reject or default input carries its `Failure` code, a time-out's limit,
whether the seat's model was reached and a refusal's IllegalDecision code, beside the reason's words; its event
carries the code and the limit, and every renderer words those. An old (version-3) file, whose failures were only
sentences, still verifies, and reads as the same data the orchestrator records today for the same game."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from failing_seats import LIMIT_S, play

from arena.engine import MODERATOR, EventType, Failed, Failure, Input
from arena.live import timeout_text
from arena.orchestrator import counters_from_inputs
from arena.players.base import transport_failure
from arena.render.console import render_text
from arena.render.phrasebook import text
from arena.transcript import VERSION, load, verify
from arena.transcript.legacy import legacy_sentences_as_data

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "v3-failures.jsonl"
FAILED_EVENTS = (EventType.ACTION_REJECTED, EventType.DEFAULT_APPLIED)
SERVER_REFUSED = "the server refused the request"


def test_the_old_fixture_is_old() -> None:
    """Written by version 3: every failed attempt only a sentence, one of each kind the orchestrator wrote."""
    lines = FIXTURE.read_text("utf-8").splitlines()
    assert '"version":3' in lines[0]
    failed = [line for line in lines if '"op":"reject"' in line or '"op":"default"' in line]
    assert len(failed) == 23 and not [line for line in failed if '"code"' in line]
    for words in ("no answer within 0.5 s", "NoUsableAnswer: no JSON", "the model could not be reached",
                  SERVER_REFUSED, "RuntimeError: ", "there is no seat 99"):  # fmt: skip
        assert any(words in line for line in failed), words


def test_an_old_transcript_verifies_and_reads_as_data() -> None:
    transcript = load(FIXTURE)
    assert transcript.header.version == 3 < VERSION
    assert verify(transcript).ok, verify(transcript)
    failed = [i for i in transcript.inputs if i.op in ("reject", "default")]
    assert Counter(i.code for i in failed) == {Failure.REFUSED: 5, Failure.TIMEOUT: 5, Failure.MALFORMED: 5,
                                               Failure.ERROR: 8}  # fmt: skip
    assert {i.limit_ms for i in failed if i.code is Failure.TIMEOUT} == {round(LIMIT_S * 1000)}
    # the bots' time-outs are their own; the two attempts that could not reach a model, and the server's refusal,
    # got no answer from one
    assert [i.reason.split(": ", 2)[-1] for i in failed if transport_failure(i)] == [
        "the model could not be reached: connection refused",
        "the server refused the request: HTTP 400 bad request",
        "the model could not be reached: connection refused",
    ]
    events = [e for e in transcript.events if e.type in FAILED_EVENTS]
    assert [(e.seat, e.code, e.count) for e in events] == [(i.seat, i.code, i.limit_ms) for i in failed]
    assert counters_from_inputs(transcript.inputs) == transcript.end.counters  # the counts, from the codes


def test_today_records_what_the_old_file_is_read_as(tmp_path: Path) -> None:
    """The same game played today: the same inputs and events, and its failures as the old file's legacy reading,
    plus what version 3 never recorded (a refusal's rule), and but for the one seat whose words and `reached`
    disagree (its server refused, it said it was reached: version 3 read the words, today records what it said)."""
    play(tmp_path / "today.jsonl")
    today, old = load(tmp_path / "today.jsonl"), load(FIXTURE)
    assert today.header.version == VERSION and verify(today).ok
    assert [(i.op, i.seat, i.reason, i.decision) for i in today.inputs] == [
        (i.op, i.seat, i.reason, i.decision) for i in old.inputs
    ]
    for new, was in zip(today.inputs, old.inputs, strict=True):
        if new.code is Failure.REFUSED:
            assert new.rule == "no_such_seat" and was.failed == Failed(Failure.REFUSED)
            assert new.failed == Failed(Failure.REFUSED, rule="no_such_seat")
        elif SERVER_REFUSED in new.reason:
            assert (new.failed, was.failed) == (Failed(Failure.MALFORMED), Failed(Failure.ERROR, reached=False))
        else:
            assert new.failed == was.failed
    differ = [e.seq for e in old.events if e.type in FAILED_EVENTS and SERVER_REFUSED in (e.value or "")]
    assert len(differ) == 1
    assert [e for e in today.events if e.seq not in differ] == [e for e in old.events if e.seq not in differ]
    game = today.rebuild()
    assert render_text(game, MODERATOR) == render_text(old.rebuild(), MODERATOR)


def test_the_renderers_word_the_codes() -> None:
    events = [e for e in load(FIXTURE).events if e.type in FAILED_EVENTS]
    timeout = next(e for e in events if e.code == Failure.TIMEOUT)
    assert timeout_text(timeout) == f"#{timeout.seat}: no answer within 0.5 s (time is up); asked again"
    assert text(timeout, "ru") == f"#{timeout.seat}: нет ответа за 0.5 с (время вышло); вопрос задан снова"
    crashed = next(e for e in events if e.code == Failure.ERROR)
    assert text(crashed, "ru") == f"#{crashed.seat}: игрок не смог ответить; вопрос задан снова"


def test_the_legacy_reading_knows_a_model_seats_silence() -> None:
    """A version-3 time-out got no answer from the seat's model only where a model plays the seat."""
    item = Input(op="default", seat=3, reason="no answer within 120 s")
    assert legacy_sentences_as_data(item, 3, {3}).failed == Failed(Failure.TIMEOUT, 120_000, reached=False)
    assert legacy_sentences_as_data(item, 3, {4}).failed == Failed(Failure.TIMEOUT, 120_000)
    engine = Input(op="reject", seat=3, reason="seat 9 is not alive")
    assert legacy_sentences_as_data(engine, 3).failed == Failed(Failure.REFUSED)
    assert legacy_sentences_as_data(engine.model_copy(update={"code": Failure.TIMEOUT}), 3).failed == Failed(
        Failure.TIMEOUT
    )  # a record with its code (written after a resume by a newer arena) is left as it is
