"""What a web page is sent: one seat's (or a spectator's, or the god) view as plain JSON data.

Why a module of its own: every fact a page shows must come from `arena.engine.view(game, seat)`, computed in one
place, so the isolation tests can check one function. Nothing here looks at the game's hidden state: the role,
team and teammates come from the Observation, the log from its events, the table from its alive/fouls/nominees
fields. Player text stays text: the page draws it with `textContent`, never as markup.
"""

from __future__ import annotations

from typing import Any, ClassVar

from arena.engine import MODERATOR, Event, EventType, Game, Observation, RuleSet, view
from arena.live import fold_timeouts, timed_out, timeout_text
from arena.render import phrasebook
from arena.render.phrases import clean
from arena.web import seats
from arena.web.reveal import reveal_json


class LogWriter:
    """Words events as log lines from the one phrase table of the page's language (`arena.render.phrasebook`), the
    table the terminal, the story and the export use too. Every event type has its line in every language."""

    _MARKS: ClassVar[dict[EventType, str]] = {
        EventType.SPEECH: "» ",
        EventType.BLACK_MESSAGE: "♠ ",
        EventType.VOTING_STARTED: "",
        EventType.VOTE_CAST: "",
        EventType.VOTES_COUNTED: "",
        EventType.GAME_ENDED: "",
    }

    def __init__(self, rules: RuleSet, lang: str = "en") -> None:
        self.rules = rules
        self.lang = lang if lang in phrasebook.LANGS else "en"

    def role(self, name: str | None) -> str | None:
        return phrasebook.role(name, self.lang)

    def line(self, event: Event) -> str | None:
        if event.type is EventType.PHASE_STARTED:
            return f"— {phrasebook.text(event, self.lang)} —"
        if self.lang == "en" and timed_out(event):
            return "◆ " + timeout_text(event)
        mark = self._MARKS.get(event.type, "• " if event.vis.value == "public" else "◆ ")
        return mark + phrasebook.text(event, self.lang, self.rules.night.sheriff_answer)


def _audience(event: Event) -> str:
    return event.vis.value


def speech_seconds(rules: RuleSet, max_words: int) -> int:
    """The rules' time for a speech of `max_words` words (the word budget is the rules' seconds mapped to words)."""
    return max(1, round(max_words * 60 / rules.speech.words_per_minute)) if max_words else 0


def phase_label(phase: str, day: int, lang: str) -> str:
    """The phase as its banner names it: `Night 1`, `Day 2` (or `Ночь 1`, `День 2`)."""
    names = {"night": ("Night", "Ночь"), "day": ("Day", "День")}
    if phase in names:
        return f"{names[phase][lang == 'ru']} {day}"
    return {"setup": ("Setup", "Раздача"), "end": ("Game over", "Игра окончена")}.get(phase, (phase, phase))[
        lang == "ru"
    ]


_SPOKEN = (EventType.SPEECH, EventType.BLACK_MESSAGE)


def observation_json(obs: Observation, game_players: int, log: LogWriter) -> dict[str, Any]:
    """The Observation as data: the table (seats with their marks), the private card, the log, the live vote tally
    and tonight's own actions. Removed and dead seats are read from its own events, as is everything else."""
    removed: set[int] = set()
    lines: list[dict[str, Any]] = []
    # numbered as this seat numbers them (`seq` is its own): no gap counts a hidden event
    for event in fold_timeouts(obs.renumbered()):
        if event.type is EventType.REMOVED and event.seat is not None:
            removed.add(event.seat)
        if event.type is EventType.ELIMINATED and event.seat is not None and event.value == "removed":
            removed.add(event.seat)
        text = log.line(event)
        if text is not None:
            line = {"seq": event.seq, "day": event.day, "text": text, "audience": _audience(event)}
            line["type"] = event.type.value
            line["speaker"] = event.seat if event.type in _SPOKEN else None
            lines.append(line)
    alive = set(obs.alive)
    known = seats.marks(obs)
    for found in known.values():
        for mark in found:
            if mark["kind"] in ("team", "card"):
                mark["label"] = log.role(mark["value"])
    gone = seats.departures(obs)
    nominated_by = seats.nominations(obs)
    no_vote = seats.lost_vote(obs)
    table = []
    for seat in range(1, game_players + 1):
        status = "alive" if seat in alive else ("removed" if seat in removed else "dead")
        table.append(
            {
                "seat": seat,
                "status": status,
                "fouls": obs.fouls[seat - 1] if seat - 1 < len(obs.fouls) else 0,
                "nominated": seat in obs.nominees,
                "nominated_by": nominated_by.get(seat),
                "me": seat == obs.seat,
                "mate": seat in obs.teammates,
                "marks": known.get(seat, []),
                "out": gone.get(seat),
                "lost_vote": seat in no_vote,
            }
        )
    return {
        "seat": obs.seat,
        "role": obs.role.value if obs.role else None,
        "role_label": log.role(obs.role.value if obs.role else None),
        "team": obs.team.value if obs.team else None,
        "teammates": list(obs.teammates),
        "day": obs.day,
        "phase": obs.phase.value,
        "phase_label": phase_label(obs.phase.value, obs.day, log.lang),
        "alive": list(obs.alive),
        "nominees": list(obs.nominees),
        "table": table,
        "tally": seats.tally(obs),
        "tonight": seats.tonight(obs),
        "log": lines,
        "winner": obs.winner,
        "winner_label": phrasebook.winner(obs.winner, log.lang),
        "next_seq": obs.next_number,
    }


def roles_json(game_view: Observation, log: LogWriter) -> list[dict[str, Any]]:
    """The deal, read from the god view's own `roles_dealt` event (only ever called with the moderator's view)."""
    assert game_view.seat == MODERATOR
    for event in game_view.events:
        if event.type is EventType.ROLES_DEALT:
            return [{"seat": s, "role": r, "label": log.role(r)} for s, r in enumerate(event.roles, start=1)]
    return []


def god_json(game: Game, log: LogWriter) -> dict[str, Any]:
    """The god view: every event (night actions, checks, black chat, private notes), every role, and the seats'
    recorded reasoning. Only for finished games (spectators) and the admin's replays."""
    obs = view(game, MODERATOR)
    data = observation_json(obs, game.n, log)
    data["roles"] = roles_json(obs, log)
    data["reasoning"] = [
        {"seat": item.seat, "text": clean(item.decision.reasoning)}
        for item in game.inputs
        if item.op == "decide" and item.decision is not None and item.decision.reasoning
    ]
    return data


def end_json(game: Game, log: LogWriter) -> dict[str, Any] | None:
    """What every page shows once the game has ended: all roles, how each seat left, the winner, the summary. None
    while the game runs (the one gate: nothing of the moderator's view reaches a page before the end)."""
    if not game.over:
        return None
    data = reveal_json(view(game, MODERATOR), log.role)
    for claim in data["summary"]["claims"]:
        claim["label"] = log.role(claim["role"])
    data["winner_label"] = phrasebook.winner(data["winner"], log.lang)
    data["reason"] = end_reason(game, log.lang)
    return data


def end_reason(game: Game, lang: str) -> str:
    """Why the game ended, in the page's language, from the game's data (the termination's code and number)."""
    return phrasebook.end_reason(phrasebook.game_end(game.events), lang)
