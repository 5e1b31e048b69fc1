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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from arena.engine import MODERATOR, Event, EventType, Game, Input, Observation, Phase, Vis, view
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


@dataclass(frozen=True, slots=True)
class StoryOptions:
    """What a story holds besides the viewer's events, and its language: the one set of options `build_story` and
    every renderer built on it take (the console, the HTML export, the site)."""

    reasoning: bool = True  # the seats' reasoning, each at its decision
    with_calls: bool = True  # the seats' model calls, each at its decision
    names: Mapping[int, str] | None = None  # seat -> the name of who played it
    status: str | None = None  # the transcript's status (started, complete, aborted)
    call_positions: Sequence[int] | None = None  # inputs recorded before each call (`call_owners`): exact placing
    models: Mapping[int, str] | None = None  # seat -> the model its calls name, where a call does not
    lang: str = "en"  # en, ru (another is English): its lines (`phrasebook`), headings and labels (`labels`)


EVERYTHING = StoryOptions()  # reasoning and calls, in English


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
    options: StoryOptions = EVERYTHING,
    *,
    anchors: Sequence[tuple[int, str]] | None = None,
) -> Story:
    """The story of `game` as `viewer` (1..N, or MODERATOR for the god view) saw it, from `view` alone.

    `inputs` and `calls` are the transcript's records; a seat's story keeps only its own reasoning and calls.
    `anchors` (from `input_anchors`) saves a replay when several stories of one game are built.
    """
    lang = labels.pick(options.lang)
    if not (viewer == MODERATOR or 1 <= viewer <= game.n):
        raise ValueError(f"seat {viewer} is out of range: seats are 1 to {game.n}, and {MODERATOR} is the god view")
    obs = view(game, viewer)
    events = obs.renumbered()  # each `seq` is the viewer's own number: a seat's story never counts hidden events
    god = viewer == MODERATOR
    known, side = _known_roles(events, viewer)
    notes = _notes(game, obs, inputs, calls, options, anchors)
    telling = _Telling(god, lang, game.rules.night.sheriff_answer)
    for e in events:
        telling.tell(e, notes)
    telling.close_round()
    chapters = telling.chapters
    chapters[-1].items += notes[telling.note_i :]

    columns = [(ci, c) for ci, c in enumerate(chapters) if c.key not in ("setup", "end")]
    names = options.names or {}
    seats = [
        SeatInfo(s, clean(names.get(s, "")), known.get(s), telling.fates.get(s)) for s in range(1, obs.players + 1)
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
        timeline=_timeline([ci for ci, _ in columns], telling.out_at, obs.players),
        winner=telling.winner,
        end_reason=telling.end_reason,
        status=options.status,
        lang=lang,
        timeline_keys=[c.key for _, c in columns],
    )


def _known_roles(events: Sequence[Event], viewer: int) -> tuple[dict[int, str], str | None]:
    """The roles the viewer knows (the deal for the god view; a seat's own card, its team, the cards shown) and the
    maniac's chosen side if the viewer is the maniac."""
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
    return known, side


def _notes(
    game: Game,
    obs: Observation,
    inputs: Sequence[Input],
    calls: Sequence[ModelCall],
    options: StoryOptions,
    anchors: Sequence[tuple[int, str]] | None,
) -> list[Note]:
    """The viewer's reasoning and calls, each anchored at the viewer's own number of the event it preceded."""
    notes = story_notes(
        game, obs.seat, inputs, calls, options.reasoning, options.with_calls, anchors, options.call_positions,
        options.models,
    )  # fmt: skip
    if obs.seat == MODERATOR:
        return notes
    # a note's anchor is a count of the game's events: make it the count of the viewer's own
    moderator_seqs = [e.seq for e in obs.events]
    return [replace(n, seq=bisect_left(moderator_seqs, n.seq)) for n in notes]


class _Telling:
    """A story's chapters as its events are told one by one: the lines, the vote tables, the notes between them,
    and what the story says beside them (each seat's fate, when it left, the result)."""

    def __init__(self, god: bool, lang: str, sheriff_answer: str) -> None:
        self.god, self.lang, self.sheriff_answer = god, lang, sheriff_answer
        self.silence = label("silence", lang)
        self.chapters: list[Chapter] = [Chapter("setup", label("chapter_setup", lang))]
        self.note_i = 0
        self.round: VoteRound | None = None
        self.fates: dict[int, str] = {}
        self.out_at: dict[int, tuple[int, str]] = {}  # seat -> (chapter index, how)
        self.winner: str | None = None
        self.end_reason: str | None = None

    def add(self, item: Item) -> None:
        self.chapters[-1].items.append(item)

    def close_round(self) -> None:
        if self.round is not None:
            self.add(self.round)
            self.round = None

    def tell(self, e: Event, notes: Sequence[Note]) -> None:
        while self.note_i < len(notes) and notes[self.note_i].seq <= e.seq:
            self.add(notes[self.note_i])
            self.note_i += 1
        own = _DRAWN.get(e.type)
        if own is not None:  # drawn the story's own way: chapters, speeches with their heads, vote tables
            own(self, e)
            return
        self._mark(e)
        if self.god and e.type is EventType.ROLE_ASSIGNED:
            return  # each seat's own card: the god view's "Roles dealt" line already says it
        spans = phrasebook.story_line(e, self.lang, self.sheriff_answer)
        if spans is not None:
            self.add(
                Line(e.seq, e.type.value, audience(e), tuple(spans), None, e.seat, e.to if e.vis is Vis.SEATS else ())
            )

    def _mark(self, e: Event) -> None:
        """What an event worded by its line also changes: a vote table opened or closed, a seat's fate, the end."""
        t = e.type
        if t is EventType.VOTING_STARTED:
            self.close_round()
            kind = e.value or "main"
            yes_no = kind in ("lift", "acquittal", "threshold")
            self.round = VoteRound(e.seq, kind, e.seats, yes_no=yes_no, lang=self.lang)
        elif t in (EventType.LIFT_RESULT, EventType.VOTE_CANCELLED, EventType.GAME_ENDED):
            self.close_round()
        if t is EventType.ELIMINATED and e.seat is not None:
            how = e.value or ""
            title = self.chapters[-1].title
            self.out_at[e.seat] = (len(self.chapters) - 1, how)
            when = label("announced", self.lang, when=title) if how == "killed" else title
            self.fates[e.seat] = label("fate", self.lang, how=phrasebook.departure(how, self.lang), when=when)
        if t is EventType.GAME_ENDED:
            self.winner, self.end_reason = e.value, phrasebook.end_reason(e, self.lang)
            if self.chapters[-1].key != "end":
                self.chapters.append(Chapter("end", label("chapter_end", self.lang)))

    def _phase(self, e: Event) -> None:
        self.close_round()
        self.chapters.append(_chapter(e, self.lang))

    def _speech(self, e: Event) -> None:
        spans = phrasebook.speech_head(e, self.lang)
        text = clean(e.text or "")
        self.add(Line(e.seq, e.type.value, "public", spans, text if text.strip() else self.silence, e.seat))

    def _black_message(self, e: Event) -> None:
        spans = phrasebook.black_message_head(e, self.lang)
        text = clean(e.text or "")
        self.add(Line(e.seq, e.type.value, audience(e), spans, text if text.strip() else self.silence, e.seat))

    def _vote(self, e: Event) -> None:
        round_ = self.round
        if round_ is None or e.seat is None:
            return
        if round_.yes_no:
            round_.marks[(None, e.seat)] = e.value or "no"
        else:
            target = e.target if e.value != "abstain" else None
            round_.marks[(target, e.seat)] = e.value or "yes"

    def _counted(self, e: Event) -> None:
        if self.round is not None:
            self.round.counts = e.counts
        self.close_round()


_DRAWN: dict[EventType, Callable[[_Telling, Event], None]] = {
    EventType.PHASE_STARTED: _Telling._phase,
    EventType.SPEECH: _Telling._speech,
    EventType.BLACK_MESSAGE: _Telling._black_message,
    EventType.VOTE_CAST: _Telling._vote,
    EventType.VOTES_COUNTED: _Telling._counted,
}


def _timeline(columns: Sequence[int], out_at: Mapping[int, tuple[int, str]], players: int) -> dict[int, list[str]]:
    """Per seat, per phase column (its chapter's index): alive, out (how) in the one it left, gone after it."""
    timeline: dict[int, list[str]] = {}
    for seat in range(1, players + 1):
        row: list[str] = []
        gone_at = out_at.get(seat)
        for ci in columns:
            if gone_at is None or ci < gone_at[0]:
                row.append("alive")
            elif ci == gone_at[0]:
                row.append(f"out:{SHORT_HOW.get(gone_at[1], gone_at[1])}")
            else:
                row.append("gone")
        if gone_at is not None and row and all(ci < gone_at[0] for ci in columns):
            # left after the last phase began (e.g. removed at the very end)
            row[-1] = f"out:{SHORT_HOW.get(gone_at[1], gone_at[1])}"
        timeline[seat] = row
    return timeline
