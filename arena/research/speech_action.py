"""Speech against action: what each speech states, checked against the engine's record and the speaker's own acts.

For every speech the statements come from its structured `claim` (a role and the checks announced) and from its
free text (`speech_reader.read`). Each checkable statement gets a verdict:

| kind | the statement | contradicted when |
|---|---|---|
| `role` | "I am the sheriff", "I am a civilian", "I am red" | the speaker's dealt role is not that (red: he is black) |
| `check` | "I checked 5, red" | he is not the sheriff, did not check 5 before the speech, or found the other colour |
| `vote` | "I will vote 4" | in the day's next vote round, with 4 a candidate, he chose another seat |
| `dead` | "seat 3 was killed" | seat 3 is still in the game at the speech |
| `alive` | "seat 3, explain your vote", "I will vote 3" | seat 3 has left the game |

A contradiction is a **lie** (deliberate) or an **error**:
- a black speaker's contradiction is a lie, and so is a red seat's false role claim or a check it fabricated (a red
  seat that is not the sheriff claiming checks): both are claims made on purpose, to steer the table;
- a red seat contradicting what it knows is an error: the sheriff misreporting his own check, a red seat voting
  against its stated vote;
- a seat called dead while alive, or addressed as alive while dead, is an error for every side (no side gains from a
  statement every seat can check).

Statements the record cannot check (a vote for a seat that is not a candidate, a speaker who did not vote) are read
and kept, with no verdict.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from arena.engine import Event, EventType
from arena.research.corpus import GameData
from arena.research.speech_reader import ALIVE, CHECK, DEAD, ROLE, VOTE, Statement, read

E = EventType
CHECKED = (ROLE, CHECK, VOTE, DEAD, ALIVE)  # the kinds a speech is checked on
CLAIM, TEXT = "claim", "text"
BLACK_ROLES = frozenset({"mafia", "don"})


@dataclass(frozen=True)
class Verdict:
    """One statement of one speech and what the record says of it (`false` None: not checkable)."""

    statement: Statement
    source: str  # "claim" (the structured claim), "text" (the free text) or "claim+text"
    false: bool | None = None
    lie: bool = False  # a false statement made on purpose (see the module docstring); else an error
    truth: str = ""  # what the record holds instead, in a few words


@dataclass
class Speech:
    """One speech event with the verdict on each of its statements."""

    event: Event
    seat: int
    day: int
    black: bool  # the speaker is black
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def statements(self) -> tuple[Statement, ...]:
        return tuple(v.statement for v in self.verdicts)

    @property
    def checkable(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.false is not None]

    @property
    def lies(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.false and v.lie]

    @property
    def errors(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.false and not v.lie]


def claim_statements(e: Event) -> list[Statement]:
    """The structured claim of a speech event as statements: the role, then each announced check."""
    if not e.roles:
        return []
    out = [Statement(ROLE, 0, e.roles[0])]
    out += [Statement(CHECK, s, "black" if c else "red") for s, c in zip(e.seats, e.counts, strict=False)]
    return out


def _role_true(claimed: str, role: str) -> bool:
    if claimed == "red":
        return role not in BLACK_ROLES
    if claimed == "mafia":
        return role in BLACK_ROLES
    return claimed == role


def _check_colour(value: str, question: str) -> str | None:
    """The colour a sheriff's check told him, in the words a claim uses (None: the answer names no colour)."""
    if value in ("black", "red"):
        return value
    if value == "yes":
        return "black"
    return "red" if question == "is_mafia" else None  # "not the don" leaves the colour open


@dataclass
class _Record:
    """What the verdicts need of a game, gathered in one pass: who is alive at each event, the sheriff's checks,
    each vote round's candidates and chosen votes."""

    g: GameData
    question: str
    alive_at: dict[int, frozenset[int]] = field(default_factory=dict)  # speech seq -> seats alive
    checks: dict[int, list[tuple[int, int, str]]] = field(default_factory=dict)  # sheriff -> (seq, target, value)
    # per vote round: its seq, day, candidates and each voter's chosen seat
    rounds: list[tuple[int, int, tuple[int, ...], dict[int, int]]] = field(default_factory=list)


def _gather(g: GameData) -> _Record:
    transcript = getattr(g, "transcript", None)  # hand-built games (tests) may have none: the default question
    rec = _Record(g, transcript.rules.night.sheriff_answer if transcript is not None else "colour")
    alive = set(g.roles)
    for e in g.events:
        t = e.type
        if t is E.ELIMINATED and e.seat is not None:
            alive.discard(e.seat)
        elif t is E.SPEECH:
            rec.alive_at[e.seq] = frozenset(alive)
        elif t is E.SHERIFF_CHECK and e.seat is not None and e.target is not None:
            rec.checks.setdefault(e.seat, []).append((e.seq, e.target, e.value or ""))
        elif t is E.VOTING_STARTED:
            rec.rounds.append((e.seq, e.day, e.seats, {}))
        elif t is E.VOTE_CAST and e.value == "yes" and e.seat is not None and e.target is not None and rec.rounds:
            rec.rounds[-1][3].setdefault(e.seat, e.target)
    return rec


def _verdict(rec: _Record, e: Event, speaker: int, s: Statement, source: str) -> Verdict:
    g = rec.g
    role = g.roles[speaker]
    black = role in BLACK_ROLES
    alive = rec.alive_at.get(e.seq, frozenset(g.roles))
    if s.kind == ROLE:
        true = _role_true(s.value, role)
        return Verdict(s, source, not true, not true, "" if true else f"dealt {role}")
    if s.kind == CHECK:
        if role != "sheriff":
            return Verdict(s, source, True, True, f"dealt {role}: no checks")
        found = [v for seq, target, v in rec.checks.get(speaker, []) if target == s.seat and seq < e.seq]
        if not found:
            return Verdict(s, source, True, False, f"seat {s.seat} never checked")
        colour = _check_colour(found[-1], rec.question)
        if colour is None:
            return Verdict(s, source)
        false = colour != s.value
        return Verdict(s, source, false, False, f"found {colour}" if false else "")
    if s.kind == DEAD:
        if s.seat not in g.roles or s.seat == speaker:
            return Verdict(s, source)
        false = s.seat in alive
        return Verdict(s, source, false, False, "in the game" if false else "")
    if s.kind == ALIVE or (s.kind == VOTE and s.seat in g.roles and s.seat not in alive):
        if s.seat not in g.roles:
            return Verdict(s, source)
        false = s.seat not in alive
        return Verdict(Statement(ALIVE, s.seat), source, false, False, "out of the game" if false else "")
    if s.kind == VOTE:
        after = next((r for r in rec.rounds if r[0] > e.seq), None)
        if after is None or after[1] != e.day or s.seat not in after[2] or speaker not in after[3]:
            return Verdict(s, source)
        chosen = after[3][speaker]
        false = chosen != s.seat
        return Verdict(s, source, false, false and black, f"voted {chosen}" if false else "")
    return Verdict(s, source)


def read_speech(rec: _Record, e: Event) -> Speech:
    assert e.seat is not None
    speech = Speech(e, e.seat, e.day, rec.g.black(e.seat))
    sources: dict[Statement, str] = {}
    for s in claim_statements(e):
        sources[s] = CLAIM
    for s in read(e.text or ""):
        sources[s] = f"{CLAIM}+{TEXT}" if sources.get(s) == CLAIM else TEXT
    for s, source in sources.items():
        if s.kind in CHECKED:
            speech.verdicts.append(_verdict(rec, e, e.seat, s, source))
        else:
            speech.verdicts.append(Verdict(s, source))
    return speech


def speeches(g: GameData) -> Iterator[Speech]:
    """Every speech of the game with text or a claim, read and judged, in order."""
    rec = _gather(g)
    for e in g.events:
        if e.type is E.SPEECH and e.seat is not None and (e.text or e.roles):
            yield read_speech(rec, e)
