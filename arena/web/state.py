"""What a web page is sent: one seat's (or a spectator's, or the god) view as plain JSON data.

Why a module of its own: every fact a page shows must come from `arena.engine.view(game, seat)`, computed in one
place, so the isolation tests can check one function. Nothing here looks at the game's hidden state: the role,
team and teammates come from the Observation, the log from its events, the table from its alive/fouls/nominees
fields. Player text stays text: the page draws it with `textContent`, never as markup.
"""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from arena.engine import MODERATOR, Event, EventType, Game, Observation, RuleSet, view
from arena.live import EventPrinter
from arena.render.phrases import clean
from arena.web import log_ru


class LogWriter:
    """Words events as lines with the live console's own renderer, so the page and the terminal say the same."""

    def __init__(self, rules: RuleSet, lang: str = "en") -> None:
        self.printer = EventPrinter(Console(file=io.StringIO(), width=200, color_system=None), rules)
        self.lang = lang

    def role(self, name: str | None) -> str | None:
        if name is None:
            return None
        return log_ru.role(name) if self.lang == "ru" else name

    def line(self, event: Event) -> str | None:
        if self.lang == "ru":
            said = log_ru.line(event)
            if said is not None:
                return said
        return self.english(event)

    def english(self, event: Event) -> str | None:
        if event.type is EventType.VOTE_CAST:  # the console folds votes; the page shows each one
            what = event.value or ""
            if what in ("yes", "no"):
                on = f" on #{event.target}" if event.target is not None else ""
                return f"#{event.seat} votes {what}{on}"
            target = f"#{event.target}" if event.target is not None else "nobody"
            return f"#{event.seat} votes for {target}" + (" (default)" if what == "default" else "")
        out = self.printer.render(event)
        if isinstance(out, Rule):
            return f"— {clean(str(out.title))} —"
        if isinstance(out, Text):
            return out.plain
        return None


def _audience(event: Event) -> str:
    return event.vis.value


def speech_seconds(rules: RuleSet, max_words: int) -> int:
    """The rules' time for a speech of `max_words` words (the word budget is the rules' seconds mapped to words)."""
    return max(1, round(max_words * 60 / rules.speech.words_per_minute)) if max_words else 0


def observation_json(obs: Observation, game_players: int, log: LogWriter) -> dict[str, Any]:
    """The Observation as data: table, private card, log. Removed and dead seats are read from its own events."""
    removed: set[int] = set()
    out_seats: set[int] = set()
    lines: list[dict[str, Any]] = []
    for number, event in obs.numbered():  # numbered as this seat numbers them: no gap counts a hidden event
        if event.type is EventType.REMOVED and event.seat is not None:
            removed.add(event.seat)
        if event.type is EventType.ELIMINATED and event.seat is not None:
            out_seats.add(event.seat)
            if event.value == "removed":
                removed.add(event.seat)
        text = log.line(event)
        if text is not None:
            lines.append({"seq": number, "day": event.day, "text": text, "audience": _audience(event)})
    alive = set(obs.alive)
    table = []
    for seat in range(1, game_players + 1):
        status = "alive" if seat in alive else ("removed" if seat in removed else "dead")
        table.append(
            {
                "seat": seat,
                "status": status,
                "fouls": obs.fouls[seat - 1] if seat - 1 < len(obs.fouls) else 0,
                "nominated": seat in obs.nominees,
                "me": seat == obs.seat,
                "mate": seat in obs.teammates,
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
        "alive": list(obs.alive),
        "nominees": list(obs.nominees),
        "table": table,
        "log": lines,
        "winner": obs.winner,
        "winner_label": (log_ru.WINNERS.get(obs.winner, obs.winner) if log.lang == "ru" else obs.winner)
        if obs.winner
        else None,
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
    """The god view: every event, every role, and the seats' recorded reasoning. Only for finished games."""
    obs = view(game, MODERATOR)
    data = observation_json(obs, game.n, log)
    data["roles"] = roles_json(obs, log)
    data["reasoning"] = [
        {"seat": item.seat, "text": clean(item.decision.reasoning)}
        for item in game.inputs
        if item.op == "decide" and item.decision is not None and item.decision.reasoning
    ]
    return data
