"""The speech rules: a speech's budget and cut (R3.4), a speech turn with no nomination right, and the fouls a text
seat can earn by speaking (R9.7: forbidden words, an overlong speech).

A regular day speech, which carries the right to nominate (R4.*), is `flow.regular_speech`; it records its words
here too. Voting's popil, justification and last words call `one_speech` directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.engine.decisions import Decision, Kind, SpeechKind, request_record
from arena.engine.events import EventType
from arena.engine.text import accept_text, cut_words

if TYPE_CHECKING:
    from arena.engine.state import Answers, Flow, GameState


def say(g: GameState, seat: int, decision: Decision, kind: SpeechKind, max_words: int, max_chars: int) -> None:
    """Record a speech: cut it at the budget (R3.4) and give a foul for forbidden words (R9.7)."""
    text = decision.text
    if kind is SpeechKind.NOMINATE_ONLY:  # R4.6: a few words to nominate, not a speech: cut without a word
        text = cut_words(text, max_words)
    text, cut = accept_text(g, seat, text, max_words, max_chars)
    if cut and g.rules.speech.overlong == "truncate_and_foul" and g.alive[seat]:  # R9.7: over the budget
        g.give_foul(seat, "overlong_speech")
    claim = decision.claim
    if claim is None:
        g.emit(EventType.SPEECH, seat=seat, text=text, value=kind.value)
    else:  # a structured claim rides on the public speech event: roles=(role,), seats=checks, counts=1 black / 0 red
        checks = (*((s, 1) for s in claim.black), *((s, 0) for s in claim.red))
        seats, counts = tuple(s for s, _ in checks), tuple(c for _, c in checks)
        g.emit(
            EventType.SPEECH, seat=seat, text=text, value=kind.value, roles=(claim.role,), seats=seats, counts=counts
        )
    if text and g.alive[seat] and _forbidden(g, text):
        _forbidden_content(g, seat)


def _forbidden(g: GameState, text: str) -> bool:
    """R9.4, P33: the text holds a forbidden phrase (any language's; an all-ASCII text can only hold an ASCII one)."""
    low = text.lower()
    return any(phrase in low for phrase in (g.ascii_phrases if low.isascii() else g.forbidden_phrases))


def _forbidden_content(g: GameState, seat: int) -> None:
    """R9.7: a forbidden phrase was said: a foul, a removal or nothing, as the rules say."""
    mode = g.rules.fouls.forbidden_content
    if mode == "removal":
        g.remove_seat(seat, "forbidden_content")
    elif mode != "off":
        g.give_foul(seat, "forbidden_content")


def one_speech(g: GameState, seat: int, kind: SpeechKind, seconds: int) -> Flow:
    """A speech with no nomination right (R4.5): last words, popil, justification, intro, extra."""
    if seconds <= 0:
        return
    words, chars = g.budget(seconds)
    request = request_record(seat, Kind.SPEECH, max_words=words, max_chars=chars, speech=kind)
    answers: Answers = yield {seat: request}
    if seat in answers:  # R7.3: a seat removed while his turn was pending has left and says nothing
        say(g, seat, answers[seat], kind, words, chars)
