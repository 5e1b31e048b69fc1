"""The game log's lines in Russian, for the web pages (`?lang=ru` or `arena serve --lang ru`).

Why a table of its own: the shared renderer (`arena.render.phrases`) words events in English for the console, the
HTML export and the leak tests; the web pages also speak Russian. Each line states the same fact as the English one;
an event type without a Russian line here falls back to the English line, so nothing is ever dropped.
"""

from __future__ import annotations

import re

from arena.engine import Event, EventType
from arena.render.phrases import clean

ROLES = {
    "civilian": "мирный",
    "sheriff": "шериф",
    "mafia": "мафия",
    "don": "дон",
    "doctor": "доктор",
    "maniac": "маньяк",
    "lover": "любовница",
}
TEAMS = {"red": "красные", "black": "чёрные", "maniac": "маньяк"}
WINNERS = {"town": "мирные", "mafia": "мафия", "maniac": "маньяк", "draw": "ничья"}
_HOW = {
    "voted": "заголосован",
    "lifted": "поднят",
    "single_nominee": "единственная кандидатура",
    "justification": "заголосован после оправдания",
    "killed": "убит ночью",
    "removed": "удалён судьёй",
}
_MORNING = {
    "killed": "Утро: ночью убит",
    "missed": "Утро: мафия промахнулась",
    "nobody_killed": "Утро: никто не убит",
    "everyone_woke": "Утро: все проснулись",
}
_SPEECH = {
    "regular": "",
    "short": " (короткая речь)",
    "nominate_only": " (только выставление)",
    "intro": " (знакомство)",
    "extra": " (дополнительное слово)",
    "tie": " (попил / оправдание)",
    "last_word": " (последнее слово)",
}
_CHECK = {"black": "чёрный", "red": "красный", "yes": "да", "no": "нет"}
_TIMEOUT = re.compile(r"^no answer within ([\d.]+) s$")  # the orchestrator's reason for a decision out of time


_REASONS = {"day vote": "дневное голосование", "night kill": "ночной выстрел"}
_REMOVED = re.compile(r"^seat (\d+) removed$")
_IDLE = re.compile(r"^(\d+) nights and the days between passed with nobody leaving$")


def end_reason(text: str) -> str:
    """The engine's reason for the end of the game (`day vote`, `seat 4 removed`, ...), in Russian."""
    if text in _REASONS:
        return _REASONS[text]
    removed = _REMOVED.match(text)
    if removed:
        return f"место {removed.group(1)} удалено"
    idle = _IDLE.match(text)
    if idle:
        return f"без выбывших прошло ночей: {idle.group(1)}"
    return text


def role(name: str | None) -> str:
    return ROLES.get(name or "", clean(name or "?"))


def _s(seat: int | None) -> str:
    return f"#{seat}" if seat is not None else "никто"


def _seats(seats: tuple[int, ...]) -> str:
    return ", ".join(f"#{s}" for s in seats)


_AWARD = {
    "best_player": "лучший игрок",
    "best_move": "лучший ход",
    "no_auto_bonus": "снят автобонус",
    "yellow_card": "жёлтая карточка",
}


def line(event: Event) -> str | None:
    """The Russian line for `event`, or None when this table has none (the caller then uses the English one)."""
    t, E = event.type, EventType
    text = clean(event.text or "")
    if t is E.PHASE_STARTED:
        return f"— {'День' if event.value == 'day' else 'Ночь'} {event.day} —"
    if t is E.GAME_STARTED:
        return f"• Игра по правилам {clean(event.value or '')}, игроков: {event.count}"
    if t is E.ROLE_ASSIGNED:
        return f"◆ ваша карта: {_s(event.seat)} — {role(event.value)}"
    if t is E.BLACK_TEAM:
        return "◆ чёрная команда: " + ", ".join(f"#{s} {'дон' if s == event.target else 'мафия'}" for s in event.seats)
    if t is E.BLACK_MESSAGE:
        return f"♠ {_s(event.seat)} команде: {text or '…'}"
    if t is E.KILL_ORDER:
        return f"◆ дон {_s(event.seat)} назначает порядок отстрела: {_seats(event.seats)}"
    if t is E.SPEECH:
        return f"» {_s(event.seat)}{_SPEECH.get(event.value or '', '')}: {text or '…'}"
    if t is E.SPEECH_TRUNCATED:
        return f"• речь {_s(event.seat)} обрезана на {event.value} словах (сказано {event.count})"
    if t is E.NOMINATED:
        return f"• {_s(event.seat)} выставляет {_s(event.target)}"
    if t is E.NOMINATION_REJECTED:
        return f"• выставление {_s(event.target)} игроком {_s(event.seat)} не принято"
    if t is E.NOMINATION_IGNORED:
        return f"• выставление {_s(event.target)} игроком {_s(event.seat)} не учтено"
    if t is E.VOTING_STARTED:
        return f"голосование по кандидатурам {_seats(event.seats)}"
    if t is E.VOTE_CAST:
        if event.value in ("yes", "no"):
            on = f" по #{event.target}" if event.target is not None else ""
            return f"{_s(event.seat)} голосует «{'за' if event.value == 'yes' else 'против'}»{on}"
        return f"{_s(event.seat)} голосует за {_s(event.target)}" + (
            " (по умолчанию)" if event.value == "default" else ""
        )
    if t is E.TIE:
        return f"• ничья между {_seats(event.seats)}"
    if t is E.ACQUITTED:
        return f"• {_s(event.seat)} оправдан"
    if t is E.ELIMINATED:
        return f"• {_s(event.seat)} покидает игру: {_HOW.get(event.value or '', clean(event.value or ''))}"
    if t is E.CARD_REVEALED:
        return f"• карта {_s(event.seat)}: {role(event.value)}"
    if t is E.SHOT:
        return (
            f"◆ {_s(event.seat)} не стреляет"
            if event.target is None
            else f"◆ {_s(event.seat)} стреляет в {_s(event.target)}"
        )
    if t is E.DON_CHECK:
        answer = "шериф" if event.value == "sheriff" else "не шериф"
        return f"◆ дон {_s(event.seat)} проверяет {_s(event.target)}: {answer}"
    if t is E.SHERIFF_CHECK:
        answer = _CHECK.get(event.value or "", clean(event.value or ""))
        return f"◆ шериф {_s(event.seat)} проверяет {_s(event.target)}: {answer}"
    if t is E.MORNING:
        head = _MORNING.get(event.value or "", "Утро")
        return f"• {head} {_seats(event.seats)}".rstrip()
    if t is E.BEST_MOVE:
        return f"• лучший ход {_s(event.seat)}: {_seats(event.seats)}"
    if t is E.FOUL:
        return f"• {_s(event.seat)} получает фол {event.count}"
    if t is E.REMOVED:
        return f"• {_s(event.seat)} удалён судьёй"
    timeout = _TIMEOUT.match(event.value or "") if t in (E.DEFAULT_APPLIED, E.ACTION_REJECTED) else None
    if timeout is not None:
        after = "применяется ответ по умолчанию" if t is E.DEFAULT_APPLIED else "вопрос задан снова"
        return f"◆ {_s(event.seat)}: нет ответа за {timeout.group(1)} с (время вышло); {after}"
    if t is E.DEFAULT_APPLIED:
        return f"◆ ответ по умолчанию для {_s(event.seat)}: {clean(event.value or '')}"
    if t is E.ACTION_REJECTED:
        return f"◆ ответ {_s(event.seat)} не принят: {clean(event.value or '')}"
    if t is E.AWARD:
        what = _AWARD.get(event.value or "", clean(event.value or ""))
        if event.value == "extra":
            what = f"{(event.count or 0) / 100:+.2f} доп. балла".replace(".", ",")
        return f"• судья: {_s(event.seat)} — {what}" + (f" ({text})" if text else "")
    if t is E.GAME_ENDED:
        winner = WINNERS.get(event.value or "", clean(event.value or ""))
        return f"Игра окончена: {'ничья' if event.value == 'draw' else 'победа: ' + winner} ({end_reason(text)})"
    return None
