"""Reasoning leaks: a black seat's public speech that gives away what only its private side holds.

A black seat knows its team (the `black_team` event, the black chat) and, at night, whom the team shoots. A leak is a
speech of a black seat that says, in so many words (`speech_reader`), one of:

| kind | the speech | the private fact it gives away |
|---|---|---|
| `teammate` | "my partner 3", «мы с третьим — мафия» | seat 3 is a black teammate (only counted when he is) |
| `self` | "I am mafia", "we, the mafia", "I am the don" | the speaker's own black card |
| `target` | "we shoot 5 tonight", «этой ночью умрёт пятый» | seat 5 is whom the blacks shoot the next night |

A bluff that names a red seat as a teammate, or a seat the team does not shoot, gives nothing away and is not
counted. The rate is per black speech (a speech with text by a black seat), clustered by game in the report.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from arena.engine import EventType
from arena.research.corpus import GameData
from arena.research.speech_action import Speech
from arena.research.speech_reader import ROLE, TARGET, TEAMMATE

E = EventType
TEAMMATE_LEAK, SELF_LEAK, TARGET_LEAK = "teammate", "self", "target"
LEAK_KINDS = (TEAMMATE_LEAK, SELF_LEAK, TARGET_LEAK)


@dataclass(frozen=True)
class Leak:
    seq: int  # the speech event
    day: int
    seat: int  # the black speaker
    kind: str  # teammate | self | target
    subject: int  # the teammate or target named (the speaker himself for `self`)


def night_targets(g: GameData) -> dict[int, set[int]]:
    """Per day d, the seats the blacks shot in the night after day d (night d)."""
    out: dict[int, set[int]] = {}
    black = {s for s in g.roles if g.black(s)}
    for e in g.events:
        if e.type is E.SHOT and e.seat in black and e.target is not None:
            out.setdefault(e.day, set()).add(e.target)
    return out


def leaks(g: GameData, read: list[Speech]) -> Iterator[Leak]:
    """The leaks of the game's black speeches (`read`: the game's speeches from `speech_action.speeches`)."""
    targets = night_targets(g)
    for speech in read:
        if not speech.black:
            continue
        e = speech.event
        seat = speech.seat
        for s in speech.statements:
            if s.kind == TEAMMATE and s.seat != seat and s.seat in g.roles and g.black(s.seat):
                yield Leak(e.seq, e.day, seat, TEAMMATE_LEAK, s.seat)
            elif s.kind == ROLE and s.value in ("mafia", "don"):
                yield Leak(e.seq, e.day, seat, SELF_LEAK, seat)
            elif s.kind == TARGET and s.seat in targets.get(e.day, set()):
                yield Leak(e.seq, e.day, seat, TARGET_LEAK, s.seat)
