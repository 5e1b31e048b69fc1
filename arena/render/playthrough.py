"""A playthrough: a game as plain text for a reviewer, in the manner of open_spiel's playthrough files.

It is the god view: every event as the moderator sees it, with its audience, and every decision as the engine asked
it (the request: its kind, the legal options and limits, the rule's default) followed by the answer it got (a
decision, a refusal and its reason, the default and why), and the judge's inputs. One line each, and no hash, so a
change of the rules or of a seat shows as the few lines it changes, not as the rest of the file. The golden
transcripts keep one beside each `.jsonl` (`python -m arena.golden`).

Built by replaying the transcript's inputs on a new game, so what it shows is what the engine asked and did; the
events are worded by the phrase tables (`phrasebook.text`).
"""

from __future__ import annotations

import dataclasses
import json

from arena.engine import Decision, Event, EventType, Game, Input, Request, RuleSet, Vis
from arena.engine.decisions import NO_DECISION
from arena.render.phrasebook import text
from arena.transcript import Transcript

_REQUEST_FIELDS = tuple(
    (f.name, f.default) for f in dataclasses.fields(Request) if f.name not in ("seat", "kind", "default")
)
_DECISION_DEFAULTS = {name: field.default for name, field in Decision.model_fields.items()}


def playthrough(transcript: Transcript) -> str:
    """The playthrough of a transcript's game: its header's facts, then every event and decision in order."""
    header = transcript.header
    rules = transcript.rules
    game = Game(rules, header.seed, roles=header.roles)
    out = [
        f"# {rules.name}, seed {header.seed}, {header.lang}: the god view, every request and its answer",
        *_seats(transcript),
        *rules_lines(rules),
        "",
    ]
    seen = 0
    for item in transcript.inputs:
        seen = _events(game.events, seen, out, header.lang, rules.night.sheriff_answer)
        request = game.request_for(item.seat) if item.op in ("decide", "reject", "default") else None
        game.replay([item])
        out.append(_input(item, request))
    _events(game.events, seen, out, header.lang, rules.night.sheriff_answer)
    return "\n".join(out) + "\n"


def rules_lines(rules: RuleSet) -> list[str]:
    """`# rules win: town=no_black ...`, a line per section (and one for the top-level values), so a rules change
    shows as its own line even where the play it changes is short, or none."""
    top: list[str] = []
    sections: list[str] = []
    for key, value in rules.model_dump(mode="json").items():
        if isinstance(value, dict):
            sections.append(
                f"# rules {key}: " + " ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in value.items())
            )
        elif key not in ("name", "description"):
            top.append(f"{key}={json.dumps(value, ensure_ascii=False)}")
    return (["# rules: " + " ".join(top)] if top else []) + sections


def _seats(transcript: Transcript) -> list[str]:
    """`# seats 1-10: bot:heuristic`, a line for each run of seats with the same agent."""
    runs: list[tuple[int, int, str]] = []
    for entry in sorted(transcript.header.seats, key=lambda e: e.seat):
        if runs and runs[-1][2] == entry.agent.name and runs[-1][1] == entry.seat - 1:
            runs[-1] = (runs[-1][0], entry.seat, entry.agent.name)
        else:
            runs.append((entry.seat, entry.seat, entry.agent.name))
    return [f"# seat {a}: {name}" if a == b else f"# seats {a}-{b}: {name}" for a, b, name in runs]


def _events(events: list[Event], seen: int, out: list[str], lang: str, sheriff_answer: str) -> int:
    """The events from `seen` on, one line each (a phase as a heading); returns where the next ones start.
    `sheriff_answer` is the rules' question: a check's yes or no is worded by it."""
    for event in events[seen:]:
        if event.type is EventType.PHASE_STARTED:
            out += ["", f"== {'Day' if event.value == 'day' else 'Night'} {event.day} =="]
            continue
        out.append(f"{_audience(event)}{text(event, lang, sheriff_answer)}")
    return len(events)


def _audience(event: Event) -> str:
    if event.vis is Vis.PUBLIC:
        return "  "
    if event.vis is Vis.SEATS:
        return "  [to " + " ".join(f"#{s}" for s in event.to) + "] "
    return f"  [{event.vis.value}] "


def _input(item: Input, request: Request | None) -> str:
    """One input: `? #seat request -> answer` for a decision, a refusal or a default; the judge's own inputs."""
    if request is None:
        what = {"foul": "gives a foul to", "remove": "removes"}.get(item.op, item.op)
        seat = f" #{item.seat}" if item.seat else ""
        reason = f" ({item.reason})" if item.reason else ""
        return f"! judge {what}{seat}{reason}"
    asked = f"? #{item.seat} {describe_request(request)}"
    if item.op == "reject":
        return f"{asked}\n    -> refused: {item.reason}"
    if item.op == "default":
        return f"{asked}\n    -> the default ({item.reason}): {describe_decision(request.default)}"
    assert item.decision is not None
    return f"{asked}\n    -> {describe_decision(item.decision)}"


def _value(value: object) -> str:
    if isinstance(value, tuple):
        return "(" + " ".join(str(v) for v in value) + ")"
    if isinstance(value, str):
        return value
    return str(value)


def describe_request(request: Request) -> str:
    """A request as one line: its kind, every field that differs from the record's default, and the rule's
    default answer (`speech max_words=150 max_chars=1050 speech=regular ... default: nothing`)."""
    parts = [request.kind.value]
    for name, default in _REQUEST_FIELDS:
        value = getattr(request, name)
        if value == default:
            continue
        parts.append(name if value is True else f"{name}={_value(value)}")
    return " ".join(parts) + f"; default: {describe_decision(request.default)}"


def describe_decision(decision: Decision) -> str:
    """A decision as one line: every field that differs from an empty decision (text and reasoning as their word
    counts: a speech's words are its event's line)."""
    if decision == NO_DECISION:
        return "nothing"
    parts = []
    for name, default in _DECISION_DEFAULTS.items():
        value = getattr(decision, name)
        if value == default:
            continue
        if name in ("text", "reasoning"):
            words = len(value.split())
            parts.append(f"{name}: {words} word{'' if words == 1 else 's'}")
        elif name == "vote":
            parts.append("vote=yes" if value else "vote=no")
        elif name == "claim":
            parts.append(f"claim={json.dumps(value.model_dump(mode='json'), separators=(',', ':'))}")
        else:
            parts.append(name if value is True else f"{name}={_value(value)}")
    return " ".join(parts)
