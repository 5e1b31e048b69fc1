"""The review story: one viewer's game, as plain data that the console and the HTML renderers both draw.

Why a middle layer: the two renderers must say exactly the same things in the same words, and the leak tests must be
able to check one place. A `Story` is built from `arena.engine.view(game, viewer)` and nothing else of the game's
hidden state: the events come from the engine's own visibility filter, the viewer's role and teammates from the
`Observation`. Only the god view (`MODERATOR`) sees every event, hence every role (from `roles_dealt`) and the seed.
Reasoning and model calls are the seats' own records: a seat's view holds only its own.

Every fact is phrased in one fixed way (`#3 shoots at #5`, `don #3 checks #9: not the sheriff`, `#4's card is
shown: sheriff`), so a test can look for the phrase of every hidden event and assert it is absent. All text that came
from a player, a model or a reason string is untrusted: it is sanitised here (control and bidi characters dropped)
and every renderer must draw it as text, never as markup.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from arena.engine import MODERATOR, Event, EventType, Game, Input, Phase, Role, Vis, view, visible_events
from arena.players.base import ModelCall

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


# ----- the data a renderer draws -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Span:
    text: str
    style: Style = "plain"


@dataclass(frozen=True, slots=True)
class Line:
    """One rendered event. `quote` is a player's own words (a speech, a black message), drawn apart as data."""

    seq: int
    event: str
    audience: Audience
    spans: tuple[Span, ...]
    quote: str | None = None
    speaker: int | None = None
    to: tuple[int, ...] = ()  # who could see it, for a private line (the god view says so)

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.spans) + (f" {self.quote}" if self.quote else "")


@dataclass(slots=True)
class VoteRound:
    """One vote round: candidates × voters. `marks[(row, voter)]` is yes / no / default; row None is abstain."""

    seq: int
    kind: str  # main | revote | lift | acquittal | threshold
    candidates: tuple[int, ...]
    marks: dict[tuple[int | None, int], str] = field(default_factory=dict)
    counts: tuple[int, ...] | None = None
    yes_no: bool = False

    @property
    def voters(self) -> list[int]:
        return sorted({v for _, v in self.marks})

    @property
    def rows(self) -> list[int | None]:
        rows: list[int | None] = list(self.candidates) if not self.yes_no else [None]
        if not self.yes_no and any(r is None for r, _ in self.marks):
            rows.append(None)
        return rows

    def row_total(self, row: int | None) -> int:
        if self.yes_no:
            return sum(1 for m in self.marks.values() if m == "yes")
        if row is not None and self.counts is not None and row in self.candidates:
            return self.counts[self.candidates.index(row)]
        return sum(1 for (r, _), m in self.marks.items() if r == row)

    @property
    def legend(self) -> str:
        """What the table's marks mean, for the marks it holds (empty when no ballot is shown)."""
        if not self.voters:
            return ""
        used = set(self.marks.values())
        if self.yes_no:
            parts = ["✓ yes", "✗ no"]
        else:
            parts = ["● a vote"]
            if "default" in used:
                parts.append("○ a vote counted by default, for the last nominee (R5.7)")
            if "abstain" in used:
                parts.append("● in the abstain row: no vote given")
        if any((row, v) not in self.marks for row in self.rows for v in self.voters):
            parts.append("· nothing")
        return "   ".join(parts)

    @property
    def title(self) -> str:
        cands = ", ".join(seat_label(c) for c in self.candidates)
        return {
            "main": f"Vote on {cands}",
            "revote": f"Re-vote between {cands}",
            "lift": f"Lift vote: do {cands} all leave?",
            "acquittal": f"Acquittal re-vote: does {cands} leave?",
            "threshold": f"Vote on the lone nominee {cands}: more than half needed",
        }.get(self.kind, f"Vote ({self.kind}) on {cands}")


@dataclass(frozen=True, slots=True)
class Note:
    """A seat's private record next to the game: its reasoning for a decision, or one model call."""

    seq: int  # drawn before the event with this seq
    kind: Literal["reasoning", "call"]
    seat: int
    request: str
    text: str
    call: ModelCall | None = None


Item = Line | VoteRound | Note


@dataclass(slots=True)
class Chapter:
    key: str  # setup | n0 | d1 | n1 | ...
    title: str
    items: list[Item] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat: int
    name: str
    role: str | None  # as far as the viewer knows
    fate: str | None  # how and when the seat left, if it did


@dataclass(slots=True)
class Story:
    viewer: int
    players: int
    rules: str
    seed: int | None  # god view only: the seed determines the deal
    role: str | None  # the viewer's own role (seat views)
    side: str | None  # the maniac's chosen side, if the viewer is the maniac
    teammates: tuple[int, ...]
    seats: list[SeatInfo]
    chapters: list[Chapter]
    timeline_columns: list[str]
    timeline: dict[int, list[str]]  # seat -> per column: alive | out:<how> | gone
    winner: str | None
    end_reason: str | None
    status: str | None

    @property
    def title(self) -> str:
        if self.viewer == MODERATOR:
            return "God view (moderator): every event and every role"
        who = f"seat {seat_label(self.viewer)}"
        return f"Seat view of {who}: only what {who} saw"


# ----- phrasing ------------------------------------------------------------------------------------------------------
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


def _audience(event: Event) -> Audience:
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
        return [_p(f"Game over: {result_text(event.value)} ({_reason(event.text)})", "label")]
    return None  # PHASE_STARTED, SPEECH, BLACK_MESSAGE, VOTE_CAST, VOTES_COUNTED: drawn by the builder


# ----- building -----------------------------------------------------------------------------------------------------
def input_anchors(game: Game, inputs: Sequence[Input]) -> list[tuple[int, str]]:
    """For each input: how many events existed when it was given, and the kind of request it answered.

    Replays the inputs on a fresh game of the same rules, seed and deal (the god view's `roles_dealt` says whether
    the deal was fixed), so reasoning and calls can be drawn where the decision was taken.
    """
    # bookkeeping only: the deal is needed to replay, and nothing of it reaches a story
    dealt = next((e for e in visible_events(game, MODERATOR) if e.type is EventType.ROLES_DEALT), None)
    roles = [Role(r) for r in dealt.roles] if dealt is not None and dealt.value == "fixed" else None
    fresh = Game(game.rules, game.seed, roles=roles)
    out: list[tuple[int, str]] = []
    for item in inputs:
        request = fresh.request_for(item.seat)
        out.append((len(fresh.events), request.kind.value if request is not None else ""))
        try:
            fresh.replay([item])
        except Exception:  # a transcript that does not replay: draw the rest at the end
            out += [(len(game.events), "")] * (len(inputs) - len(out))
            break
    return out


def call_owners(
    inputs: Sequence[Input],
    calls: Sequence[ModelCall],
    positions: Sequence[int] | None = None,
    kinds: Sequence[str] | None = None,
) -> list[int | None]:
    """For each call, the index of the input that settled the request it served (that seat's next `decide` or
    `default`), or None.

    The orchestrator writes an ask's calls just before that ask's inputs, so with `positions` (how many inputs the
    transcript held before each call) the owner is exact. Without them it is a best effort: each seat's calls are
    dealt to its settling inputs in order, one logical call each, a rising `attempt` (transport retries) staying
    with the call before it, and a call skipping forward to the next input of its `request_kind` (from `kinds`).
    """
    settling: dict[int, list[int]] = {}
    for i, item in enumerate(inputs):
        if item.op in ("decide", "default"):
            settling.setdefault(item.seat, []).append(i)
    owners: list[int | None] = []
    if positions is not None:
        for call, pos in zip(calls, positions, strict=True):
            mine = settling.get(call.seat, [])
            k = bisect_left(mine, pos)
            owners.append(mine[k] if k < len(mine) else None)
        return owners
    cursor: dict[int, int] = {}
    last: dict[int, ModelCall] = {}
    for call in calls:
        mine = settling.get(call.seat, [])
        k = cursor.get(call.seat, 0)
        previous = last.get(call.seat)
        if previous is not None and call.attempt <= previous.attempt:
            k += 1  # a new logical call: the next request
        if kinds is not None and call.request_kind:
            while k < len(mine) and kinds[mine[k]] and kinds[mine[k]] != call.request_kind:
                k += 1
        cursor[call.seat] = k
        last[call.seat] = call
        owners.append(mine[k] if k < len(mine) else None)
    return owners


def _notes(
    game: Game,
    viewer: int,
    inputs: Sequence[Input],
    calls: Sequence[ModelCall],
    reasoning: bool,
    with_calls: bool,
    anchors: Sequence[tuple[int, str]] | None,
    call_positions: Sequence[int] | None,
    models: Mapping[int, str] | None = None,
) -> list[Note]:
    """The viewer's notes (every seat's for the god view), each anchored at the event count of its decision."""
    god = viewer == MODERATOR
    if not (reasoning or with_calls) or not (inputs or calls):
        return []
    if anchors is None:
        anchors = input_anchors(game, inputs)
    end = len(game.events)
    keyed: list[tuple[int, int, int, Note]] = []  # (seq, input index, order, note): calls before the reasoning
    if with_calls:
        seat_models = call_models(calls, models)
        owners = call_owners(inputs, calls, call_positions, [kind for _, kind in anchors])
        for n, (call, owner) in enumerate(zip(calls, owners, strict=True)):
            if not (god or call.seat == viewer):
                continue
            seq = anchors[owner][0] if owner is not None else end
            note = _call_note(seq, call, seat_models.get(call.seat, ""))
            keyed.append((seq, owner if owner is not None else len(inputs), n, note))
    if reasoning:
        for i, item in enumerate(inputs):
            if not (god or item.seat == viewer) or item.op != "decide" or item.decision is None:
                continue
            text = item.decision.reasoning.strip()
            if text:
                seq, kind = anchors[i]
                keyed.append((seq, i, len(calls), Note(seq, "reasoning", item.seat, kind, clean(text))))
    keyed.sort(key=lambda k: k[:3])
    return [note for *_, note in keyed]


def call_models(calls: Sequence[ModelCall], models: Mapping[int, str] | None = None) -> dict[int, str]:
    """Each seat's model name, to label its calls that got no answer (and so no reported name): the name its other
    calls reported, else `models` (from the transcript header: the probe's reported model, or the model asked for)."""
    out = {seat: name for seat, name in (models or {}).items() if name}
    for call in calls:
        if call.model:
            out.setdefault(call.seat, call.model)
    return out


def _call_note(seq: int, call: ModelCall, fallback: str = "") -> Note:
    name = call.model or fallback or f"seat {call.seat}'s model"
    summary = f"{name} · attempt {call.attempt} · {call.prompt_tokens}+{call.completion_tokens} tokens"
    if call.latency_ms:
        summary += f" · {call.latency_ms / 1000:.1f} s"
    if call.error:
        summary += f" · error: {call.error}"
    return Note(seq, "call", call.seat, call.request_kind, clean(summary), call)


def _chapter(event: Event) -> Chapter:
    if event.phase is Phase.NIGHT:
        return Chapter(f"n{event.day}", f"Night {event.day}")
    return Chapter(f"d{event.day}", f"Day {event.day}")


def build_story(
    game: Game,
    viewer: int,
    calls: Sequence[ModelCall] = (),
    inputs: Sequence[Input] = (),
    *,
    reasoning: bool = True,
    with_calls: bool = True,
    names: Mapping[int, str] | None = None,
    status: str | None = None,
    anchors: Sequence[tuple[int, str]] | None = None,
    call_positions: Sequence[int] | None = None,
    models: Mapping[int, str] | None = None,
) -> Story:
    """The story of `game` as `viewer` (1..N, or MODERATOR for the god view) saw it, from `view` alone.

    `inputs` and `calls` are the transcript's records; a seat's story keeps only its own reasoning and calls.
    `anchors` (from `input_anchors`) saves a replay when several stories of one game are built; `call_positions`
    (inputs recorded before each call, see `call_owners`) places each call at its decision exactly.
    """
    if not (viewer == MODERATOR or 1 <= viewer <= game.n):
        raise ValueError(f"seat {viewer} is out of range: seats are 1 to {game.n}, and {MODERATOR} is the god view")
    obs = view(game, viewer)
    events = obs.events
    god = viewer == MODERATOR

    known: dict[int, str] = {}
    side: str | None = None
    for e in events:
        if e.type is EventType.ROLES_DEALT:
            known.update({i + 1: r for i, r in enumerate(e.roles)})
        elif e.type in (EventType.ROLE_ASSIGNED, EventType.CARD_REVEALED) and e.seat is not None and e.value:
            known[e.seat] = e.value
        elif e.type is EventType.BLACK_TEAM:
            known.update({s: "don" if s == e.target else "mafia" for s in e.seats})
        elif e.type is EventType.SIDE_CHOSEN and e.seat == viewer:
            side = e.value

    chapters: list[Chapter] = [Chapter("setup", "Setup")]
    notes = _notes(game, viewer, inputs, calls, reasoning, with_calls, anchors, call_positions, models)
    note_i = 0
    round_: VoteRound | None = None
    fates: dict[int, str] = {}
    out_at: dict[int, tuple[int, str]] = {}  # seat -> (chapter index, how)
    winner: str | None = None
    end_reason: str | None = None

    def close_round() -> None:
        nonlocal round_
        if round_ is not None:
            chapters[-1].items.append(round_)
            round_ = None

    for e in events:
        while note_i < len(notes) and notes[note_i].seq <= e.seq:
            chapters[-1].items.append(notes[note_i])
            note_i += 1
        t = e.type
        if t is EventType.PHASE_STARTED:
            close_round()
            chapters.append(_chapter(e))
            continue
        if t is EventType.SPEECH:
            kind = _SPEECH_KIND.get(e.value or "", _reason(e.value))
            spans: tuple[Span, ...] = (_s(e.seat), _p(f" ({kind}) ▸", "dim"))
            text = clean(e.text or "")
            chapters[-1].items.append(
                Line(e.seq, t.value, "public", spans, text if text.strip() else "(silence)", e.seat)
            )
            continue
        if t is EventType.BLACK_MESSAGE:
            spans = (_p("black chat ", "black"), _s(e.seat), _p(" ▸", "dim"))
            text = clean(e.text or "")
            chapters[-1].items.append(
                Line(e.seq, t.value, _audience(e), spans, text if text.strip() else "(silence)", e.seat)
            )
            continue
        if t is EventType.VOTE_CAST:
            if round_ is not None and e.seat is not None:
                if round_.yes_no:
                    round_.marks[(None, e.seat)] = e.value or "no"
                else:
                    target = e.target if e.value != "abstain" else None
                    round_.marks[(target, e.seat)] = e.value or "yes"
            continue
        if t is EventType.VOTES_COUNTED:
            if round_ is not None:
                round_.counts = e.counts
            close_round()
            continue
        if t is EventType.VOTING_STARTED:
            close_round()
            kind = e.value or "main"
            round_ = VoteRound(e.seq, kind, e.seats, yes_no=kind in ("lift", "acquittal", "threshold"))
        elif t in (EventType.LIFT_RESULT, EventType.VOTE_CANCELLED, EventType.GAME_ENDED):
            close_round()
        if t is EventType.ELIMINATED and e.seat is not None:
            how = e.value or ""
            out_at[e.seat] = (len(chapters) - 1, how)
            when = f"announced {chapters[-1].title}" if how == "killed" else chapters[-1].title
            fates[e.seat] = f"{_HOW.get(how, _reason(how))} ({when})"
        if t is EventType.GAME_ENDED:
            winner, end_reason = e.value, clean(e.text or "")
            if chapters[-1].key != "end":
                chapters.append(Chapter("end", "The end"))
        if god and t is EventType.ROLE_ASSIGNED:
            continue  # each seat's own card: the god view's "Roles dealt" line already says it
        spans_ = phrase(e, game.rules.night.sheriff_answer)
        if spans_ is not None:
            line = Line(e.seq, t.value, _audience(e), tuple(spans_), None, e.seat, e.to if e.vis is Vis.SEATS else ())
            chapters[-1].items.append(line)
    close_round()
    chapters[-1].items += notes[note_i:]

    columns = [(ci, c) for ci, c in enumerate(chapters) if c.key not in ("setup", "end")]
    timeline: dict[int, list[str]] = {}
    for seat in range(1, obs.players + 1):
        row: list[str] = []
        gone_at = out_at.get(seat)
        for ci, _ in columns:
            if gone_at is None or ci < gone_at[0]:
                row.append("alive")
            elif ci == gone_at[0]:
                row.append(f"out:{SHORT_HOW.get(gone_at[1], gone_at[1])}")
            else:
                row.append("gone")
        if gone_at is not None and row and all(ci < gone_at[0] for ci, _ in columns):
            # left after the last phase began (e.g. removed at the very end)
            row[-1] = f"out:{SHORT_HOW.get(gone_at[1], gone_at[1])}"
        timeline[seat] = row

    seats = [
        SeatInfo(s, clean((names or {}).get(s, "")), known.get(s), fates.get(s)) for s in range(1, obs.players + 1)
    ]
    started = next((e for e in events if e.type is EventType.GAME_STARTED), None)
    return Story(
        viewer=viewer,
        players=obs.players,
        rules=clean(started.value or "") if started is not None else "",
        seed=game.seed if god else None,
        role=obs.role.value if obs.role is not None else None,
        side=side,
        teammates=obs.teammates,
        seats=seats,
        chapters=[c for c in chapters if c.items or c.key not in ("setup", "end")],
        timeline_columns=[c.title for _, c in columns],
        timeline=timeline,
        winner=winner,
        end_reason=end_reason,
        status=status,
    )
