"""The phrase tables, one per language: every event type's line in English (`phrases.py`) and Russian
(`phrases_ru.py`). The terminal's live feed, the web log, the story and the HTML export word events through them.

`line(event, lang)` gives the words of any event, including the ones a story draws its own way (phases, speeches,
black messages, votes); `tests/test_phrasebook.py` fails when an event type lacks a line in a language.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import Event, EventType
from arena.render import phrases, phrases_ru
from arena.render.phrases import Span, clean

LANGS = ("en", "ru")

_SPEECH_EN = {
    "regular": "",
    "short": "short speech",
    "nominate_only": "nomination only",
    "intro": "introduction",
    "extra": "extra word",
    "tie": "popil speech",
    "last_word": "last word",
}


def _english(event: Event, sheriff_answer: str) -> list[Span]:
    t, E = event.type, EventType
    value = event.value or ""
    seat = Span(f"#{event.seat}", "seat") if event.seat is not None else Span("nobody", "dim")
    if t is E.PHASE_STARTED:
        return [Span(f"{'Day' if value == 'day' else 'Night'} {event.day}", "label")]
    if t is E.SPEECH:
        kind = _SPEECH_EN.get(value, clean(value.replace("_", " ")))
        return [seat, Span(f" ({kind})" if kind else "", "dim"), Span(": "), Span(clean(event.text or "") or "…")]
    if t is E.BLACK_MESSAGE:
        return [seat, Span(" to the black team: ", "black"), Span(clean(event.text or "") or "…")]
    if t is E.VOTING_STARTED:
        kind = {"main": "vote", "revote": "re-vote", "lift": "lift vote", "acquittal": "acquittal re-vote"}.get(
            value, f"{clean(value.replace('_', ' '))} vote"
        )
        return [Span(f"{kind[0].upper()}{kind[1:]} on "), *_seats(event.seats)]
    if t is E.VOTE_CAST:
        if value in ("yes", "no"):
            on = [Span(" on "), Span(f"#{event.target}", "seat")] if event.target is not None else []
            return [seat, Span(f" votes {value}"), *on]
        if value == "abstain" or event.target is None:
            return [seat, Span(" votes for nobody")]
        return [
            seat,
            Span(" votes for "),
            Span(f"#{event.target}", "seat"),
            Span(" (default)" if value == "default" else ""),
        ]
    if t is E.VOTES_COUNTED:
        spans = [Span("Votes counted: ")]
        for i, (s, count) in enumerate(zip(event.seats, event.counts, strict=False)):
            if i:
                spans.append(Span(", "))
            spans += [Span(f"#{s}", "seat"), Span(f" {count}")]
        return spans
    found = phrases.phrase(event, sheriff_answer)
    return found if found is not None else [Span(clean(t.value))]


def _seats(seats: tuple[int, ...]) -> list[Span]:
    out: list[Span] = []
    for i, s in enumerate(seats):
        if i:
            out.append(Span(", "))
        out.append(Span(f"#{s}", "seat"))
    return out or [Span("nobody", "dim")]


def line(event: Event, lang: str = "en", sheriff_answer: str = "colour") -> list[Span]:
    """The words of `event` in `lang` (English for a language without a table)."""
    if lang == "ru":
        return phrases_ru.phrase(event, sheriff_answer)
    return _english(event, sheriff_answer)


def text(event: Event, lang: str = "en", sheriff_answer: str = "colour") -> str:
    return "".join(span.text for span in line(event, lang, sheriff_answer))


def role(name: str | None, lang: str = "en") -> str | None:
    """A role's name in `lang`."""
    if name is None:
        return None
    return phrases_ru.role(name) if lang == "ru" else clean(name)


def winner(name: str | None, lang: str = "en") -> str | None:
    if name is None:
        return None
    return phrases_ru.WINNERS.get(name, clean(name)) if lang == "ru" else clean(name)


def departure(how: str, lang: str = "en") -> str:
    return phrases_ru.HOW.get(how, clean(how)) if lang == "ru" else phrases.departure(how)


# ----- the story's own drawing of an event (arena/render/story.py) --------------------------------------------------
_DRAWN_BY_STORY = (
    EventType.PHASE_STARTED,
    EventType.SPEECH,
    EventType.BLACK_MESSAGE,
    EventType.VOTING_STARTED,
    EventType.VOTE_CAST,
    EventType.VOTES_COUNTED,
)


def story_line(event: Event, lang: str = "en", sheriff_answer: str = "colour") -> list[Span] | None:
    """An event's line in a story, or None for the events a story draws its own way (chapters, speeches with their
    heads, vote tables). English is `phrases.phrase`, as it always was."""
    if lang != "ru":
        return phrases.phrase(event, sheriff_answer)
    if event.type in _DRAWN_BY_STORY:
        return None
    return phrases_ru.phrase(event, sheriff_answer)


_SPEECH_HEAD_RU = {**phrases_ru.SPEECH, "regular": "речь"}


def speech_head(event: Event, lang: str = "en") -> tuple[Span, ...]:
    """What precedes a speech's words in a story: `#3 (speech) ▸`, `#3 (речь) ▸`."""
    if lang != "ru":
        return phrases.speech_head(event)
    value = event.value or ""
    kind = _SPEECH_HEAD_RU.get(value, clean(value.replace("_", " ")))
    seat = Span(f"#{event.seat}", "seat") if event.seat is not None else Span("никто", "dim")
    return (seat, Span(f" ({kind}) ▸", "dim"))


def black_message_head(event: Event, lang: str = "en") -> tuple[Span, ...]:
    """What precedes a black message's words: `black chat #3 ▸`, `чат чёрных #3 ▸`."""
    if lang != "ru":
        return phrases.black_message_head(event)
    seat = Span(f"#{event.seat}", "seat") if event.seat is not None else Span("никто", "dim")
    return (Span("чат чёрных ", "black"), seat, Span(" ▸", "dim"))


def end_reason(event: Event | None, lang: str = "en") -> str:
    """Why the game ended, in `lang`, from its `game_ended` event's data: the termination's code and its number
    (`arena.engine.Outcome`). Empty without one."""
    if event is None or not event.code:
        return ""
    words = phrases_ru.end_words if lang == "ru" else phrases.end_words
    return words(event.code, event.target, event.count)


def game_end(events: Sequence[Event]) -> Event | None:
    """The `game_ended` event of a game's events (the last one: awards may follow it), if it has ended."""
    return next((e for e in reversed(events) if e.type is EventType.GAME_ENDED), None)
