"""The phase machine: Night 0, then Day k and Night k until a win or a draw (docs/rules.md §1).

Written as one generator so that the order of the rules reads top to bottom: every `yield` hands a batch of requests
to the driver in `game.py` and receives the answers. Voting lives in `voting.py`, the night in `night.py`, the speech
rules in `speech.py`.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from arena.engine.decisions import Kind, SpeechKind, request_record
from arena.engine.events import EventType, Phase, Vis
from arena.engine.night import night, night0
from arena.engine.outcome import Outcome, Termination
from arena.engine.probes import daily_probes
from arena.engine.roles import Role
from arena.engine.speech import one_speech, say
from arena.engine.voting import day_vote

if TYPE_CHECKING:
    from arena.engine.state import Flow, GameState


def run(g: GameState) -> Flow:
    """§1.1–§1.2: the deal (R1.2), each seat's card, the black team (R2.2) and Night 0; then Day k and Night k, until
    a win or a draw ends the game (R10)."""
    g.emit(EventType.GAME_STARTED, value=g.rules.name, count=g.n)
    g.emit(EventType.ROLES_DEALT, Vis.MODERATOR, roles=tuple(r.value for r in g.roles[1:]), value=g.deal_source)
    for s in g.seats():
        g.emit(EventType.ROLE_ASSIGNED, Vis.SEATS, (s,), seat=s, value=g.roles[s].value)
    don = g.seat_of(Role.DON) if g.rules.count(Role.DON) else 0
    g.emit(EventType.BLACK_TEAM, Vis.BLACK, seats=g.black, target=don or None)
    yield from night0(g)
    day = 1
    while True:
        yield from day_flow(g, day)
        yield from night(g, day)
        day += 1


def regular_speech(g: GameState, seat: int, extras: list[int]) -> Flow:
    """A day speech (R3.4) with the right to nominate (R4.*) and, where the rules have it, to raise a hand for the
    extra word (P09); after a third foul a short turn to nominate, or a short speech with 3–4 alive (R9.2, R4.6)."""
    rules = g.rules
    kind, seconds = SpeechKind.REGULAR, rules.speech.regular_s
    if seat in g.forfeit_pending:
        g.forfeit_pending.discard(seat)
        if len(g.alive_seats) <= rules.fouls.short_speech_if_alive_le:
            kind, seconds = SpeechKind.SHORT, rules.speech.short_speech_s
        else:
            g.emit(EventType.SPEECH_FORFEITED, seat=seat)
            kind, seconds = SpeechKind.NOMINATE_ONLY, rules.speech.nominate_only_s
    words, chars = g.budget(seconds)
    nominating = rules.nominations
    may_nominate = nominating.enabled and (g.day > 1 or nominating.day1_allowed) and seat not in g.nominators
    options: tuple[int, ...] = ()
    if may_nominate:
        options = g.alive_seats if nominating.self_allowed else tuple(s for s in g.alive_seats if s != seat)
    request = request_record(
        seat,
        Kind.SPEECH,
        max_words=words,
        max_chars=chars,
        speech=kind,
        may_nominate=may_nominate,
        nominate_options=options,
        may_request_extra=rules.speech.extra_s > 0,
    )
    answers = yield {seat: request}
    decision = answers.get(seat)
    if decision is None:
        return
    say(g, seat, decision, kind, words, chars)
    for target in decision.nominate:
        _nominate(g, seat, target)
    if decision.extra and g.alive[seat]:
        g.emit(EventType.EXTRA_REQUESTED, seat=seat)
        extras.append(seat)


def _nominate(g: GameState, seat: int, target: int) -> None:
    """R4.1–R4.4: one accepted nomination per player per day; an already-nominated name is not accepted."""
    if seat in g.nominators:
        g.emit(EventType.NOMINATION_IGNORED, seat=seat, target=target, value="one_per_day")
    elif not g.alive[target]:  # R4.3: removed while the speech was pending
        g.emit(EventType.NOMINATION_REJECTED, seat=seat, target=target, value="not_alive")
    elif g.day in g.cancelled_days:
        g.emit(EventType.NOMINATION_IGNORED, seat=seat, target=target, value="vote_cancelled")
    elif target in g.nominees:
        g.emit(EventType.NOMINATION_REJECTED, seat=seat, target=target, value="already_nominated")
    else:
        g.nominees.append(target)
        g.nominee_tuple = (*g.nominee_tuple, target)
        g.nominators.add(seat)
        g.emit(EventType.NOMINATED, seat=seat, target=target)


def _morning(g: GameState) -> Flow:
    """R3.1–R3.2, R8.8, P30: the announcement, cards, then the night victims' last words; then a decided win."""
    style = g.rules.night.morning
    deaths = g.morning_deaths
    if deaths:
        value = "killed"
    elif style == "killed_or_missed":
        value = "missed"
    elif style == "deaths_or_everyone_woke":
        value = "everyone_woke"
    else:
        value = "nobody_killed"
    g.emit(EventType.MORNING, seats=tuple(deaths), value=value)
    if g.morning_lover_miss:
        g.emit(EventType.MAFIA_MISS_ANNOUNCED, value="lover")
    for seat in deaths:
        g.announce_departure(seat, "killed")
    for seat in list(g.night_last_words):
        g.speaking_night_last_word = seat
        yield from one_speech(g, seat, SpeechKind.LAST_WORD, g.rules.speech.last_word_night_s)
        g.speaking_night_last_word = 0
    g.night_last_words = []
    g.morning_deaths = []
    g.morning_lover_miss = False
    if g.pending_winner is not None:
        g.finish(Outcome(g.pending_winner, Termination.NIGHT_KILL))


def _next_opener(g: GameState, day: int) -> int:
    """R3.3, P08: the rules' opener on Day 1; then the first living seat after the one who opened the day before."""
    if day == 1 or g.opener == 0:
        return g.rules.opener.day1
    seats = g.alive_seats  # ascending: the first living seat clockwise after the previous opener
    i = bisect_right(seats, g.opener)
    return seats[i] if i < len(seats) else seats[0]


def day_flow(g: GameState, day: int) -> Flow:
    """§1.3: the morning (R3.1), every living player's speech clockwise from the opener (R3.3; Day 1 an intro round
    where the rules say so, P06), the extra words (P09), the vote (§1.5), then the day's probes."""
    g.day = day
    g.phase = Phase.DAY
    g.nominees = []
    g.nominee_tuple = ()
    g.nominators = set()
    g.vote_settled = False
    g.vote_decided = 0
    g.leaving_today = set()
    g.emit(EventType.PHASE_STARTED, value="day")
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
    for seat in speakers:
        if g.alive[seat]:
            yield from regular_speech(g, seat, extras)
    for seat in extras:
        if g.alive[seat]:
            yield from one_speech(g, seat, SpeechKind.EXTRA, g.rules.speech.extra_s)
    yield from day_vote(g)
    yield from daily_probes(g)
