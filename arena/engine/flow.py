"""The phase machine: Night 0, then Day k and Night k until a win or a draw (docs/rules.md §1).

Written as one generator so that the order of the rules reads top to bottom: every `yield` hands a batch of requests
to the driver in `game.py` and receives the answers. Voting lives in `voting.py`, the night in `night.py`.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING, Any

from arena.engine.decisions import Claim, Decision, Request, SpeechKind, speech_request_record
from arena.engine.events import EventType, Phase, Vis
from arena.engine.night import night, night0
from arena.engine.probes import daily_probes
from arena.engine.roles import Role
from arena.engine.text import accept_text, cut_words
from arena.engine.voting import day_vote

if TYPE_CHECKING:
    from arena.engine.state import Answers, Flow
    from arena.engine.state import GameState as Game  # the Protocol the phase machine needs, not game.Game

# Enum members read at every speech, bound once as globals: on Python 3.11 reading `EventType.SPEECH` goes through
# `EnumType.__getattr__`'s slow path, about ten times the cost of a global (3.12 dropped that hook).
_SPEECH, _NOMINATED, _REJECTED, _IGNORED = (
    EventType.SPEECH, EventType.NOMINATED, EventType.NOMINATION_REJECTED, EventType.NOMINATION_IGNORED
)  # fmt: skip
_REGULAR, _NOMINATE_ONLY, _LAST_WORD = SpeechKind.REGULAR, SpeechKind.NOMINATE_ONLY, SpeechKind.LAST_WORD
_PHASE_STARTED, _MORNING, _DAY = EventType.PHASE_STARTED, EventType.MORNING, Phase.DAY
# and the ones read once per game, at the deal
_GAME_STARTED, _ROLES_DEALT, _ROLE_ASSIGNED, _BLACK_TEAM = (
    EventType.GAME_STARTED, EventType.ROLES_DEALT, EventType.ROLE_ASSIGNED, EventType.BLACK_TEAM
)  # fmt: skip
_V_MODERATOR, _V_SEATS, _V_BLACK, _DON = Vis.MODERATOR, Vis.SEATS, Vis.BLACK, Role.DON


def run(g: Game) -> Flow:
    g.emit(_GAME_STARTED, value=g.rules.name, count=g.n)
    # `_value_` is `.value` without the enum property's call (once per seat per game)
    g.emit(_ROLES_DEALT, _V_MODERATOR, roles=tuple(r._value_ for r in g.roles[1:]), value=g._deal_source)
    for s in g.seats():
        g.emit(_ROLE_ASSIGNED, _V_SEATS, (s,), seat=s, value=g.roles[s]._value_)
    don = g.seat_of(_DON) if g.rules.count(_DON) else 0
    g.emit(_BLACK_TEAM, _V_BLACK, seats=g.black, target=don or None)
    yield from night0(g)
    day = 1
    while True:
        yield from day_flow(g, day)
        yield from night(g, day)
        day += 1


def speech_request(g: Game, seat: int, kind: SpeechKind, seconds: int) -> Request:
    """A speech turn with no nomination right and no extra word (`regular_speech` builds its own)."""
    words, chars = g.budget(seconds)
    return speech_request_record(seat, words, chars, kind, False, (), False)


_EMPTY = Decision()


def say(g: Game, seat: int, fields: dict[str, Any], kind: SpeechKind, max_words: int, max_chars: int) -> None:
    """Record a speech: cut it at the budget (R3.4) and give a foul for forbidden words (R9.7). `fields`: the
    decision's `__dict__`, read once per speech (each attribute read of a pydantic model goes through its
    `__getattr__` hook, CPython's slow attribute path)."""
    text: str = fields["text"]
    if kind is _NOMINATE_ONLY:  # R4.6: a few words to nominate, not a speech: cut without a word
        text = cut_words(text, max_words)
    length = len(text)
    if length > max_words or length > max_chars:  # else within both caps by its length alone: no call needed
        text, cut = accept_text(g, seat, text, max_words, max_chars)
        if cut and g.rules.speech.overlong == "truncate_and_foul" and g.alive[seat]:
            g._foul(seat, "overlong_speech")
    claim: Claim | None = fields["claim"]
    if claim is None:
        g.emit(_SPEECH, seat=seat, text=text, value=kind._value_)
    else:  # a structured claim rides on the public speech event: roles=(role,), seats=checks, counts=1 black / 0 red
        checks = (*((s, 1) for s in claim.black), *((s, 0) for s in claim.red))
        g.emit(_SPEECH, seat=seat, text=text, value=kind._value_, roles=(claim.role,),
               seats=tuple(s for s, _ in checks), counts=tuple(c for _, c in checks))  # fmt: skip
    if text and g.alive[seat]:  # R9.7, looked for here rather than in a call: this runs at every speech
        low = text.lower()
        # a phrase with a character outside ASCII cannot be in an all-ASCII text
        for phrase in g.ascii_phrases if low.isascii() else g.forbidden_phrases:
            if phrase in low:
                _forbidden_content(g, seat)
                break


def _forbidden_content(g: Game, seat: int) -> None:
    """R9.7: a forbidden phrase was said: a foul, a removal or nothing, as the rules say."""
    mode = g.rules.fouls.forbidden_content  # read on a match only
    if mode == "removal":
        g._remove(seat, "forbidden_content")
    elif mode != "off":
        g._foul(seat, "forbidden_content")


def one_speech(g: Game, seat: int, kind: SpeechKind, seconds: int) -> Flow:
    """A speech with no nomination right: last words, popil, justification, intro, extra."""
    if seconds <= 0:
        return
    request = speech_request(g, seat, kind, seconds)
    answers: Answers = yield {seat: request}
    if seat in answers:  # R7.3: a seat removed while his turn was pending has left and says nothing
        say(g, seat, answers[seat].__dict__, kind, request.max_words, request.max_chars)


def last_words(g: Game, seats: list[int], seconds: int) -> Flow:
    for seat in seats:
        yield from one_speech(g, seat, _LAST_WORD, seconds)


def regular_speech(
    g: Game,
    seat: int,
    extras: list[int],
    nominations: bool,
    self_nominate: bool,
    may_extra: bool,
    budget: tuple[int, int],
) -> Flow:
    """A day speech of `budget` (words, characters: `g.budget(speech.regular_s)`). `nominations`: today's speeches
    carry the right to nominate (R4.*); `self_nominate`: a seat may nominate himself; `may_extra`: a raised hand for
    the extra word is possible (all read from the rules once a day by `day_flow`)."""
    kind = _REGULAR
    if seat in g.forfeit_pending:
        rules = g.rules
        g.forfeit_pending.discard(seat)
        if len(g.living()) <= rules.fouls.short_speech_if_alive_le:
            kind, seconds = SpeechKind.SHORT, rules.speech.short_speech_s
        else:
            g.emit(EventType.SPEECH_FORFEITED, seat=seat)
            kind, seconds = _NOMINATE_ONLY, rules.speech.nominate_only_s
        budget = g.budget(seconds)
    words, chars = budget
    if nominations and seat not in g.nominators:
        options = g.alive_seats if self_nominate else tuple(s for s in g.alive_seats if s != seat)
        request = speech_request_record(seat, words, chars, kind, True, options, may_extra)
    else:
        request = speech_request_record(seat, words, chars, kind, False, (), may_extra)
    answers = yield {seat: request}
    decision = answers.get(seat)
    if decision is None:
        return
    fields = decision.__dict__  # read once (see `say`)
    say(g, seat, fields, kind, request.max_words, request.max_chars)
    for target in fields["nominate"]:
        _nominate(g, seat, target)
    if fields["extra"] and g.alive[seat]:
        g.emit(EventType.EXTRA_REQUESTED, seat=seat)
        extras.append(seat)


def _nominate(g: Game, seat: int, target: int) -> None:
    """R4.1–R4.4: one accepted nomination per player per day; an already-nominated name is not accepted."""
    if seat in g.nominators:
        g.emit(_IGNORED, seat=seat, target=target, value="one_per_day")
    elif not g.alive[target]:  # R4.3: removed while the speech was pending
        g.emit(_REJECTED, seat=seat, target=target, value="not_alive")
    elif g.day in g.cancelled_days:
        g.emit(_IGNORED, seat=seat, target=target, value="vote_cancelled")
    elif target in g.nominees:
        g.emit(_REJECTED, seat=seat, target=target, value="already_nominated")
    else:
        g.nominees.append(target)
        g.nominee_tuple = (*g.nominee_tuple, target)
        g.nominators.add(seat)
        g.emit(_NOMINATED, seat=seat, target=target)


def _morning(g: Game) -> Flow:
    """R3.1–R3.2, R8.8, P30: the announcement, cards, then the night victims' last words; then a decided win."""
    style = g.night_rules.morning
    deaths = g.morning_deaths
    if deaths:
        value = "killed"
    elif style == "killed_or_missed":
        value = "missed"
    elif style == "deaths_or_everyone_woke":
        value = "everyone_woke"
    else:
        value = "nobody_killed"
    g.emit(_MORNING, seats=tuple(deaths), value=value)
    if g.morning_lover_miss:
        g.emit(EventType.MAFIA_MISS_ANNOUNCED, value="lover")
    for seat in deaths:
        g.announce_departure(seat, "killed")
    for seat in list(g.night_last_words):
        g.speaking_night_last_word = seat
        yield from one_speech(g, seat, _LAST_WORD, g.rules.speech.last_word_night_s)
        g.speaking_night_last_word = 0
    g.night_last_words = []
    g.morning_deaths = []
    g.morning_lover_miss = False
    if g.pending_winner is not None:
        g.finish(g.pending_winner, "night kill")


def _next_opener(g: Game, day: int) -> int:
    if day == 1 or g.opener == 0:
        return g.rules.opener.day1
    seats = g.alive_seats  # ascending: the first living seat clockwise after the previous opener
    i = bisect_right(seats, g.opener)
    return seats[i] if i < len(seats) else seats[0]


def day_flow(g: Game, day: int) -> Flow:
    g.day = day
    g.phase = _DAY
    g.nominees = []
    g.nominee_tuple = ()
    g.nominators = set()
    g.vote_settled = False
    g.vote_decided = 0
    g.leaving_today = set()
    g.emit(_PHASE_STARTED, value="day")
    if day > 1:
        yield from _morning(g)
    g.opener = _next_opener(g, day)
    speakers = g.clockwise_from(g.opener)
    if day == 1 and g.rules.day1 == "intro_only":
        for seat in speakers:
            if g.alive[seat]:
                yield from one_speech(g, seat, SpeechKind.INTRO, g.rules.speech.intro_s)
        g.emit(EventType.NO_VOTE, value="intro_day")
        g.vote_settled = True  # R9.5: a removal from here on (during the probes) cancels tomorrow's vote
        yield from daily_probes(g)
        return
    extras: list[int] = []
    rules = g.rules
    nominating = g.nominations_rules
    nominations = nominating.enabled and (day > 1 or nominating.day1_allowed)
    self_nominate = nominating.self_allowed
    speech = rules.speech
    may_extra = speech.extra_s > 0
    budget = g.budget(speech.regular_s)
    for seat in speakers:
        if g.alive[seat]:
            yield from regular_speech(g, seat, extras, nominations, self_nominate, may_extra, budget)
    for seat in extras:
        if g.alive[seat]:
            yield from one_speech(g, seat, SpeechKind.EXTRA, g.rules.speech.extra_s)
    yield from day_vote(g)
    yield from daily_probes(g)
