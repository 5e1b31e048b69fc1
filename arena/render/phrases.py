"""The fixed words of the review: every event phrased in one way, and untrusted text made safe to print.

Every fact is phrased in one fixed way (`#3 shoots at #5`, `don #3 checks #9: not the sheriff`, `#4's card is
shown: sheriff`), so a test can look for the phrase of every hidden event and assert it is absent. All text that came
from a player, a model or a reason string is untrusted: `clean` drops control and bidi characters, and every renderer
must draw it as text, never as markup. The live feed (`arena/live.py`) and the web pages use the same words.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from arena.engine import Event, EventType, Vis

Style = Literal[
    "plain", "seat", "role", "dim", "good", "bad", "label", "black", "private", "moderator", "vote", "warn"
]  # fmt: skip
Audience = Literal["public", "black", "private", "moderator"]

_BIDI = {
    "\u061c",
    "\u200e",
    "\u200f",
    *(chr(c) for c in range(0x202A, 0x202F)),
    *(chr(c) for c in range(0x2066, 0x206A)),
}


def clean(text: str) -> str:
    """Untrusted text made safe to print: no control characters (but newlines and tabs), no bidi overrides, no
    zero-width or other invisible format characters (category Cf), so what is shown is what was said."""
    out = []
    for ch in text:
        if ch in "\n\t":
            out.append(ch)
        elif ch in _BIDI or unicodedata.category(ch) in ("Cc", "Cf"):
            continue
        else:
            out.append(ch)
    return "".join(out)


def seat_label(seat: int) -> str:
    return f"#{seat}"


def result_text(winner: str | None) -> str:
    """`town wins`, `mafia wins`, `maniac wins`, or `a draw`."""
    return "a draw" if winner == "draw" else f"{clean(winner or '?')} wins"


@dataclass(frozen=True, slots=True)
class Span:
    text: str
    style: Style = "plain"


def _s(seat: int | None) -> Span:
    return Span(seat_label(seat), "seat") if seat is not None else Span("nobody", "dim")


def _seats(seats: Sequence[int]) -> list[Span]:
    out: list[Span] = []
    for i, s in enumerate(seats):
        if i:
            out.append(Span(", "))
        out.append(_s(s))
    return out or [Span("nobody", "dim")]


def _p(text: str, style: Style = "plain") -> Span:
    return Span(clean(text), style)


def _reason(value: str | None) -> str:
    return clean((value or "").replace("_", " "))


_ENDINGS = {"day_vote": "day vote", "night_kill": "night kill"}


def end_words(code: str | None, seat: int | None = None, count: int | None = None) -> str:
    """Why the game ended, from its termination's code (`arena.engine.Termination`) and number."""
    if code == "removal":
        return f"seat {seat} removed"
    if code == "idle_rounds":
        return f"{count} nights and the days between passed with nobody leaving"
    return _ENDINGS.get(code or "", _reason(code))


_SPEECH_KIND = {
    "regular": "speech",
    "short": "short speech",
    "nominate_only": "nomination turn (speech forfeited)",
    "intro": "introduction",
    "extra": "extra word",
    "tie": "popil / justification speech",
    "last_word": "last word",
}
_HOW = {
    "voted": "voted out",
    "lifted": "lifted out",
    "single_nominee": "out as the lone nominee",
    "justification": "voted out after justifying",
    "killed": "killed at night",
    "removed": "removed by the judge",
}
SHORT_HOW = {"single_nominee": "nominee", "justification": "voted"}  # the timeline's one-word labels
_MORNING = {
    "killed": "Morning: the night took",
    "missed": "Morning: the mafia missed",
    "nobody_killed": "Morning: nobody was killed",
    "everyone_woke": "Morning: everyone woke up",
}
_CHECK = {"black": "black", "red": "red", "yes": "yes", "no": "no"}


def audience(event: Event) -> Audience:
    if event.vis is Vis.PUBLIC:
        return "public"
    if event.vis is Vis.BLACK:
        return "black"
    if event.vis is Vis.MODERATOR:
        return "moderator"
    return "private"


def phrase(event: Event, sheriff_answer: str = "colour") -> list[Span] | None:
    """The fixed words for one event, or None for the events drawn otherwise (phases, votes, speeches).

    `sheriff_answer` is the rules' question (colour, is_don, is_mafia): a yes/no check answer means nothing alone.
    """
    t = event.type
    E = EventType
    if t is E.GAME_STARTED:
        return [_p(f"Game of {event.value} with {event.count} players begins", "label")]
    if t is E.ROLES_DEALT:
        spans: list[Span] = [_p(f"Roles dealt ({event.value}): ", "moderator")]
        for i, role in enumerate(event.roles):
            if i:
                spans.append(Span(" · "))
            spans += [_s(i + 1), _p(" is "), _p(role, "role")]
        return spans
    if t is E.ROLE_ASSIGNED:
        return [_p("card dealt: "), _s(event.seat), _p(" is "), _p(event.value or "", "role")]
    if t is E.BLACK_TEAM:
        spans = [_p("black team: ", "black")]
        for i, s in enumerate(event.seats):
            if i:
                spans.append(Span(", "))
            spans += [_s(s), _p(" don" if s == event.target else " mafia", "role")]
        return spans
    if t is E.WOKE_TO_BE_SEEN:
        return [_s(event.seat), _p(" wakes to be seen as "), _p(event.value or "", "role")]
    if t is E.SIDE_CHOSEN:
        side = "the mafia (ally)" if event.value == "mafia_ally" else "nobody (independent)"
        return [_p("maniac "), _s(event.seat), _p(f" sides with {side}", "private")]
    if t is E.KILL_ORDER:
        return [_p("don "), _s(event.seat), _p(" sets the kill order: "), *_seats(event.seats)]
    if t is E.SPEECH_TRUNCATED:
        if event.counts and (event.count or 0) <= int(event.value or 0):  # within the words, over the characters
            cut = f"{event.counts[1]} characters ({event.counts[0]} spoken)"
        else:
            cut = f"{event.value} words ({event.count} spoken)"
        return [_s(event.seat), _p(f"'s speech is cut at {cut}", "warn")]
    if t is E.NOMINATED:
        return [_s(event.seat), _p(" nominates "), _s(event.target)]
    if t is E.NOMINATION_REJECTED:
        return [_s(event.seat), _p("'s nomination of "), _s(event.target), _p(f" is refused: {_reason(event.value)}")]
    if t is E.NOMINATION_IGNORED:
        return [_s(event.seat), _p("'s nomination of "), _s(event.target), _p(f" is ignored: {_reason(event.value)}")]
    if t is E.EXTRA_REQUESTED:
        return [_s(event.seat), _p(" raises a hand for the extra word")]
    if t is E.NO_VOTE:
        return [_p(f"No elimination today: {_reason(event.value)}", "dim")]
    if t is E.TIE:
        return [_p("Tie between "), *_seats(event.seats)]
    if t is E.LIFT_RESULT:
        value = event.value or ""
        if value.startswith("not_held:"):
            return [_p(f"Lift vote not held: {_reason(value.split(':', 1)[1])}", "dim")]
        return [_p(f"Lift vote {value} with {event.count} yes", "good" if value == "passed" else "dim")]
    if t is E.ACQUITTED:
        return [_s(event.seat), _p(" is acquitted", "good")]
    if t is E.ELIMINATED:
        return [_s(event.seat), _p(f" leaves the game: {_HOW.get(event.value or '', _reason(event.value))}", "bad")]
    if t is E.CARD_REVEALED:
        return [_s(event.seat), _p("'s card is shown: "), _p(event.value or "", "role")]
    if t is E.SHOT:
        if event.target is None:
            return [_s(event.seat), _p(" holds fire")]
        return [_s(event.seat), _p(" shoots at "), _s(event.target)]
    if t is E.MAFIA_RESULT:
        if event.target is None:
            return [_p(f"the mafia's shot misses ({_reason(event.value)})", "moderator")]
        return [_p("the mafia's shot lands on ", "moderator"), _s(event.target)]
    if t is E.MAFIA_MISS_ANNOUNCED:
        why = "the lover's visit" if event.value == "lover" else "no agreement"
        return [_p(f"The mafia missed tonight ({why})")]
    if t is E.DON_CHECK:
        answer = "the sheriff" if event.value == "sheriff" else "not the sheriff"
        return [_p("don "), _s(event.seat), _p(" checks "), _s(event.target), _p(f": {answer}", "private")]
    if t is E.SHERIFF_CHECK:
        if event.value in ("yes", "no"):
            question = " is the don: " if sheriff_answer == "is_don" else " is black: "
            return [_p("sheriff "), _s(event.seat), _p(" asks if "), _s(event.target), _p(question + event.value)]
        answer = _CHECK.get(event.value or "", _reason(event.value))
        return [_p("sheriff "), _s(event.seat), _p(" checks "), _s(event.target), _p(f": {answer}", "private")]
    if t is E.SHERIFF_SHOT:
        return [_p("sheriff "), _s(event.seat), _p(" fires the sheriff's shot at "), _s(event.target)]
    if t is E.MANIAC_KILL:
        if event.target is None:
            return [_p("maniac "), _s(event.seat), _p(" spares everyone tonight")]
        return [_p("maniac "), _s(event.seat), _p(" goes for "), _s(event.target)]
    if t is E.STRETCHERS:
        return [_p("on the doctor's stretchers: "), *_seats(event.seats)]
    if t is E.HEAL:
        if event.target is None:
            return [_p("doctor "), _s(event.seat), _p(" heals nobody")]
        if event.value == "arms_crossed":  # club: the pick was saved before, so the save passes on (§3.1 step 5)
            return [
                _p("doctor "),
                _s(event.seat),
                _p(" picks "),
                _s(event.target),
                _p(", who was saved once already: arms crossed, the save passes on"),
            ]
        outcome = " (saved)" if event.value == "saved" else ""
        return [_p("doctor "), _s(event.seat), _p(" heals "), _s(event.target), _p(outcome)]
    if t is E.SAVE_RESULT:
        if event.target is None:
            return [_p("nobody on the stretchers can be saved tonight", "moderator")]
        return [_p("the doctor's save goes to ", "moderator"), _s(event.target)]
    if t is E.VISIT:
        if event.target is None:
            return [_p("lover "), _s(event.seat), _p(" stays home")]
        return [_p("lover "), _s(event.seat), _p(" visits "), _s(event.target)]
    if t is E.BLOCKED:
        return [_s(event.seat), _p(" is blocked tonight by a visit: arms crossed")]
    if t is E.MORNING:
        spans = [_p(_MORNING.get(event.value or "", f"Morning: {_reason(event.value)}"), "label")]
        if event.seats:
            spans += [Span(" "), *_seats(event.seats)]
        return spans
    if t is E.BEST_MOVE:
        return [_s(event.seat), _p("'s best move names "), *_seats(event.seats)]
    if t is E.FOUL:
        return [_s(event.seat), _p(f" gets foul {event.count} ({_reason(event.value)})", "warn")]
    if t is E.VOTE_LOST:
        return [_s(event.seat), _p(" loses the right to vote", "warn")]
    if t is E.SPEECH_FORFEITED:
        return [_s(event.seat), _p(" forfeits the speech", "warn")]
    if t is E.REMOVED:
        return [_s(event.seat), _p(f" is removed by the judge ({_reason(event.value)})", "bad")]
    if t is E.VOTE_CANCELLED:
        return [_p(f"The vote of Day {event.count} is cancelled", "warn")]
    if t is E.ACTION_REJECTED:
        return [_p("answer of "), _s(event.seat), _p(f" refused: {_reason(event.value)}", "warn")]
    if t is E.DEFAULT_APPLIED:
        return [_p("default applied for "), _s(event.seat), _p(f": {_reason(event.value)}", "warn")]
    if t is E.PROBE:
        pairs = zip(event.seats, event.counts, strict=False)
        beliefs = ", ".join(f"#{seat} {count / 1000:.2f}" for seat, count in pairs)
        return [_s(event.seat), _p(f"'s belief probe, P(black): {beliefs}")]
    if t is E.PROBES_TAKEN:
        return [_p(f"{event.count} belief probes taken", "moderator")]
    if t is E.GAME_ENDED:
        return [
            _p(f"Game over: {result_text(event.value)} ({end_words(event.code, event.target, event.count)})", "label")
        ]
    if t is E.JUDGE:
        why = f" ({clean(event.text)})" if event.text else ""
        if event.value == "extra_time":
            return [_p("the judge gives "), _s(event.seat), _p(f" {event.count} s more{why}", "label")]
        return [_p(f"The judge {'resumes' if event.value == 'resume' else 'pauses'} the table{why}", "label")]
    if t is E.AWARD:
        return [_p("the judge gives "), _s(event.seat), _p(award_text(event), "label")]
    return None  # PHASE_STARTED, SPEECH, BLACK_MESSAGE, VOTE_CAST, VOTES_COUNTED: drawn by the builder


def speech_head(event: Event) -> tuple[Span, ...]:
    """What precedes a speech's words: `#3 (speech) ▸`."""
    kind = _SPEECH_KIND.get(event.value or "", _reason(event.value))
    return (_s(event.seat), _p(f" ({kind}) ▸", "dim"))


def black_message_head(event: Event) -> tuple[Span, ...]:
    """What precedes a black message's words: `black chat #3 ▸`."""
    return (_p("black chat ", "black"), _s(event.seat), _p(" ▸", "dim"))


_AWARD = {
    "best_player": "the best player",
    "best_move": "the best move",
    "no_auto_bonus": "no auto-bonus (taken away)",
    "yellow_card": "a yellow card",
}


def award_text(event: Event) -> str:
    """What an award event gives, after the seat: ` +0.30 extra points (reason)`, ` the best player`."""
    if event.value == "extra":
        what = f" {(event.count or 0) / 100:+.2f} extra points"
    else:
        what = " " + _AWARD.get(event.value or "", _reason(event.value))
    reason = clean(event.text or "")
    return what + (f" ({reason})" if reason else "")


def departure(how: str) -> str:
    """How a seat left, in words (`voted out`, `killed at night`, ...)."""
    return _HOW.get(how, _reason(how))
