"""The review story: one viewer's game, as plain data that the console and the HTML renderers both draw.

Why a middle layer: the two renderers must say exactly the same things in the same words, and the leak tests must be
able to check one place. A `Story` is built from `arena.engine.view(game, viewer)` and nothing else of the game's
hidden state: the events come from the engine's own visibility filter, the viewer's role and teammates from the
`Observation`, and every `seq` a story holds (a line's, a vote's, a note's) is the viewer's own number for it, as the
engine's view numbers it, so a seat's story has no gap that counts hidden events. Only the god view (`MODERATOR`)
sees every event, hence every role (from `roles_dealt`) and the seed. Reasoning and model calls are the seats' own
records: a seat's view holds only its own (`notes.py`). The words of every event are `phrases.py`; all text from a
player, a model or a reason string passes its `clean`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from arena.engine import MODERATOR, Event, EventType, Game, Input, Phase, Vis, view
from arena.players.base import ModelCall
from arena.render import labels, phrasebook
from arena.render.labels import label
from arena.render.notes import Note, story_notes
from arena.render.phrases import SHORT_HOW, Audience, Span, audience, clean, seat_label


# ----- the data a renderer draws -----------------------------------------------------------------------------------
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
    lang: str = "en"  # the language of its title and legend

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
        keys = ["legend_yes", "legend_no"] if self.yes_no else ["legend_vote"]
        if not self.yes_no:
            keys += [
                key for mark, key in (("default", "legend_default"), ("abstain", "legend_abstain")) if mark in used
            ]
        if any((row, v) not in self.marks for row in self.rows for v in self.voters):
            keys.append("legend_nothing")
        return "   ".join(label(key, self.lang) for key in keys)

    @property
    def title(self) -> str:
        cands = ", ".join(seat_label(c) for c in self.candidates)
        known = self.kind in ("main", "revote", "lift", "acquittal", "threshold")
        return label(f"vote_{self.kind}" if known else "vote_other", self.lang, cands=cands, kind=self.kind)


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
    lang: str = "en"  # the language of every line, heading and label (`labels.py`, `phrasebook.py`)
    timeline_keys: list[str] = field(default_factory=list)  # each timeline column's chapter key (d1, n1, ...)

    @property
    def title(self) -> str:
        if self.viewer == MODERATOR:
            return label("title_god", self.lang)
        return label("title_seat", self.lang, seat=seat_label(self.viewer))


# ----- building -----------------------------------------------------------------------------------------------------
def _chapter(event: Event, lang: str) -> Chapter:
    if event.phase is Phase.NIGHT:
        return Chapter(f"n{event.day}", label("chapter_night", lang, n=event.day))
    return Chapter(f"d{event.day}", label("chapter_day", lang, n=event.day))


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
    lang: str = "en",
) -> Story:
    """The story of `game` as `viewer` (1..N, or MODERATOR for the god view) saw it, from `view` alone.

    `inputs` and `calls` are the transcript's records; a seat's story keeps only its own reasoning and calls.
    `anchors` (from `input_anchors`) saves a replay when several stories of one game are built; `call_positions`
    (inputs recorded before each call, see `call_owners`) places each call at its decision exactly. `lang` (en, ru;
    another is English) is the language of its lines (`phrasebook`) and its headings and labels (`labels`).
    """
    lang = labels.pick(lang)
    if not (viewer == MODERATOR or 1 <= viewer <= game.n):
        raise ValueError(f"seat {viewer} is out of range: seats are 1 to {game.n}, and {MODERATOR} is the god view")
    obs = view(game, viewer)
    events = obs.renumbered()  # each `seq` is the viewer's own number: a seat's story never counts hidden events
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

    chapters: list[Chapter] = [Chapter("setup", label("chapter_setup", lang))]
    silence = label("silence", lang)
    sheriff_answer = game.rules.night.sheriff_answer
    notes = story_notes(game, viewer, inputs, calls, reasoning, with_calls, anchors, call_positions, models)
    if not god:  # a note's anchor is a count of the game's events: make it the count of the viewer's own
        moderator_seqs = [e.seq for e in obs.events]
        notes = [replace(n, seq=bisect_left(moderator_seqs, n.seq)) for n in notes]
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
            chapters.append(_chapter(e, lang))
            continue
        if t is EventType.SPEECH:
            spans: tuple[Span, ...] = phrasebook.speech_head(e, lang)
            text = clean(e.text or "")
            chapters[-1].items.append(Line(e.seq, t.value, "public", spans, text if text.strip() else silence, e.seat))
            continue
        if t is EventType.BLACK_MESSAGE:
            spans = phrasebook.black_message_head(e, lang)
            text = clean(e.text or "")
            chapters[-1].items.append(
                Line(e.seq, t.value, audience(e), spans, text if text.strip() else silence, e.seat)
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
            round_ = VoteRound(e.seq, kind, e.seats, yes_no=kind in ("lift", "acquittal", "threshold"), lang=lang)
        elif t in (EventType.LIFT_RESULT, EventType.VOTE_CANCELLED, EventType.GAME_ENDED):
            close_round()
        if t is EventType.ELIMINATED and e.seat is not None:
            how = e.value or ""
            out_at[e.seat] = (len(chapters) - 1, how)
            when = label("announced", lang, when=chapters[-1].title) if how == "killed" else chapters[-1].title
            fates[e.seat] = label("fate", lang, how=phrasebook.departure(how, lang), when=when)
        if t is EventType.GAME_ENDED:
            winner, end_reason = e.value, phrasebook.end_reason(e.text or "", lang)
            if chapters[-1].key != "end":
                chapters.append(Chapter("end", label("chapter_end", lang)))
        if god and t is EventType.ROLE_ASSIGNED:
            continue  # each seat's own card: the god view's "Roles dealt" line already says it
        spans_ = phrasebook.story_line(e, lang, sheriff_answer)
        if spans_ is not None:
            line = Line(e.seq, t.value, audience(e), tuple(spans_), None, e.seat, e.to if e.vis is Vis.SEATS else ())
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
        lang=lang,
        timeline_keys=[c.key for _, c in columns],
    )
