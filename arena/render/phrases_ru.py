"""Every event phrased in Russian: the Russian half of the phrase tables (`arena/render/phrasebook.py` picks one).

Each line states the same fact as its English twin in `phrases.py`, in one fixed way, from the event's data only
(codes, seats, counts), never by reading an English sentence: a code the table does not know is shown as it is,
and free text (a judge's reason, a player's words) is data, cleaned and quoted.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import Event, EventType, Failure
from arena.render.phrases import Span, clean

ROLES = {
    "civilian": "мирный",
    "sheriff": "шериф",
    "mafia": "мафия",
    "don": "дон",
    "doctor": "доктор",
    "maniac": "маньяк",
    "lover": "любовница",
}
WINNERS = {"town": "мирные", "mafia": "мафия", "maniac": "маньяк", "draw": "ничья"}
_ENDINGS = {"day_vote": "дневное голосование", "night_kill": "ночной выстрел"}
HOW = {
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
SPEECH = {
    "regular": "",
    "short": "короткая речь",
    "nominate_only": "только выставление",
    "intro": "знакомство",
    "extra": "дополнительное слово",
    "tie": "попил / оправдание",
    "last_word": "последнее слово",
}
_CHECK = {"black": "чёрный", "red": "красный", "yes": "да", "no": "нет"}
_VOTE_KIND = {
    "main": "голосование",
    "revote": "переголосование",
    "lift": "подъём",
    "acquittal": "переголосование по лидеру",
    "threshold": "голосование по единственной кандидатуре",
    "ballot": "тайное голосование",
}
REASONS = {  # the engine's reason codes (no vote, refused nominations, fouls, removals, misses, lift not held)
    "intro_day": "день знакомства",
    "leader_removed": "лидер удалён",
    "below_threshold": "не набрано больше половины",
    "no_majority": "нет большинства",
    "no_nominees": "нет кандидатур",
    "no_votes": "нет голосов",
    "repeated_tie": "повторная ничья",
    "single_nominee": "единственная кандидатура",
    "tie": "ничья",
    "tie_again": "снова ничья",
    "one_per_day": "одно выставление в день",
    "not_alive": "игрок не в игре",
    "vote_cancelled": "голосование отменено",
    "already_nominated": "уже выставлен",
    "overlong_speech": "речь сверх времени",
    "forbidden_content": "запрещённое слово",
    "illegal_action": "недопустимое действие",
    "judge": "решение судьи",
    "fouls": "четвёртый фол",
    "disqualified": "дисквалификация",
    "lover": "визит любовницы",
    "agreed": "выстрел согласован",
    "disagreed": "нет согласия",
    "all_living_tied": "в ничьей все живые",
    "nine_living_three_tied": "девять живых, трое в ничьей",
    "four_living_two_tied": "четверо живых, двое в ничьей",
}


def role(name: str | None) -> str:
    return ROLES.get(name or "", clean(name or "?"))


def reason(code: str | None) -> str:
    """An engine reason code in Russian; a reason the table does not know (a judge's own words) is data, quoted."""
    code = code or ""
    return REASONS.get(code, f"«{clean(code)}»" if code else "")


def end_words(code: str | None, seat: int | None = None, count: int | None = None) -> str:
    """Why the game ended, from its termination's code (`arena.engine.Termination`) and number."""
    if code == "removal":
        return f"место {seat} удалено судьёй"
    if code == "idle_rounds":
        return f"без выбывших прошло ночей: {count}"
    return _ENDINGS.get(code or "", reason(code))


def _p(text: str, style: str = "plain") -> Span:
    return Span(text, style)  # type: ignore[arg-type]


def _s(seat: int | None) -> Span:
    return Span(f"#{seat}", "seat") if seat is not None else Span("никто", "dim")


def _seats(seats: Sequence[int]) -> list[Span]:
    out: list[Span] = []
    for i, s in enumerate(seats):
        if i:
            out.append(Span(", "))
        out.append(_s(s))
    return out or [Span("никто", "dim")]


def phrase(event: Event, sheriff_answer: str = "colour") -> list[Span]:
    """The Russian words for one event (every event type has a line)."""
    t, E = event.type, EventType
    text = clean(event.text or "")
    value = event.value or ""
    if t is E.GAME_STARTED:
        return [_p(f"Игра по правилам {clean(value)}, игроков: {event.count}", "label")]
    if t is E.ROLES_DEALT:
        spans: list[Span] = [_p("Раздача карт: ", "moderator")]
        for i, name in enumerate(event.roles):
            if i:
                spans.append(Span(" · "))
            spans += [_s(i + 1), _p(" — "), _p(role(name), "role")]
        return spans
    if t is E.ROLE_ASSIGNED:
        return [_p("ваша карта: "), _s(event.seat), _p(" — "), _p(role(value), "role")]
    if t is E.BLACK_TEAM:
        spans = [_p("чёрная команда: ", "black")]
        for i, s in enumerate(event.seats):
            if i:
                spans.append(Span(", "))
            spans += [_s(s), _p(" дон" if s == event.target else " мафия", "role")]
        return spans
    if t is E.WOKE_TO_BE_SEEN:
        return [_s(event.seat), _p(" просыпается, чтобы его увидели: "), _p(role(value), "role")]
    if t is E.SIDE_CHOSEN:
        side = "с мафией (союзник)" if value == "mafia_ally" else "сам за себя"
        return [_p("маньяк "), _s(event.seat), _p(f" выбирает сторону: {side}", "private")]
    if t is E.BLACK_MESSAGE:
        return [_s(event.seat), _p(" команде: ", "black"), _p(text or "…")]
    if t is E.KILL_ORDER:
        return [_p("дон "), _s(event.seat), _p(" назначает порядок отстрела: "), *_seats(event.seats)]
    if t is E.PHASE_STARTED:
        return [_p(f"{'День' if value == 'day' else 'Ночь'} {event.day}", "label")]
    if t is E.SPEECH:
        kind = SPEECH.get(value, clean(value))
        return [_s(event.seat), _p(f" ({kind})" if kind else "", "dim"), _p(": "), _p(text or "…")]
    if t is E.SPEECH_TRUNCATED:
        if event.counts and (event.count or 0) <= int(value or 0):  # within the words, over the characters
            cut = f"{event.counts[1]} символах (сказано {event.counts[0]})"
        else:
            cut = f"{value} словах (сказано {event.count})"
        return [_p("речь "), _s(event.seat), _p(f" обрезана на {cut}", "warn")]
    if t is E.NOMINATED:
        return [_s(event.seat), _p(" выставляет "), _s(event.target)]
    if t is E.NOMINATION_REJECTED:
        return [
            _p("выставление "),
            _s(event.target),
            _p(" игроком "),
            _s(event.seat),
            _p(f" не принято: {reason(value)}"),
        ]
    if t is E.NOMINATION_IGNORED:
        return [
            _p("выставление "),
            _s(event.target),
            _p(" игроком "),
            _s(event.seat),
            _p(f" не учтено: {reason(value)}"),
        ]
    if t is E.EXTRA_REQUESTED:
        return [_s(event.seat), _p(" просит дополнительное слово")]
    if t is E.VOTING_STARTED:
        return [_p(f"{_VOTE_KIND.get(value, clean(value)).capitalize()} по кандидатурам: "), *_seats(event.seats)]
    if t is E.VOTE_CAST:
        if value in ("yes", "no"):
            on = [_p(" по "), _s(event.target)] if event.target is not None else []
            return [_s(event.seat), _p(f" голосует «{'за' if value == 'yes' else 'против'}»"), *on]
        if value == "abstain" or event.target is None:
            return [_s(event.seat), _p(" не голосует")]
        return [
            _s(event.seat),
            _p(" голосует за "),
            _s(event.target),
            _p(" (по умолчанию)" if value == "default" else ""),
        ]
    if t is E.VOTES_COUNTED:
        spans = [_p("Подсчёт голосов: ")]
        for i, (seat, count) in enumerate(zip(event.seats, event.counts, strict=False)):
            if i:
                spans.append(Span(", "))
            spans += [_s(seat), _p(f" — {count}")]
        return spans
    if t is E.NO_VOTE:
        return [_p(f"Сегодня никто не уходит: {reason(value)}", "dim")]
    if t is E.TIE:
        return [_p("Ничья между "), *_seats(event.seats)]
    if t is E.LIFT_RESULT:
        if value.startswith("not_held:"):
            return [_p(f"Подъём не проводится: {reason(value.split(':', 1)[1])}", "dim")]
        passed = value == "passed"
        return [_p(f"Подъём {'принят' if passed else 'не принят'}: «за» {event.count}", "good" if passed else "dim")]
    if t is E.ACQUITTED:
        return [_s(event.seat), _p(" оправдан", "good")]
    if t is E.ELIMINATED:
        return [_s(event.seat), _p(f" покидает игру: {HOW.get(value, clean(value))}", "bad")]
    if t is E.CARD_REVEALED:
        return [_p("карта "), _s(event.seat), _p(": "), _p(role(value), "role")]
    if t is E.SHOT:
        if event.target is None:
            return [_s(event.seat), _p(" не стреляет")]
        return [_s(event.seat), _p(" стреляет в "), _s(event.target)]
    if t is E.MAFIA_RESULT:
        if event.target is None:
            return [_p(f"выстрел мафии мимо ({reason(value)})", "moderator")]
        return [_p("выстрел мафии попадает в ", "moderator"), _s(event.target)]
    if t is E.MAFIA_MISS_ANNOUNCED:
        why = "визит любовницы" if value == "lover" else "нет согласия"
        return [_p(f"Мафия этой ночью промахнулась ({why})")]
    if t is E.DON_CHECK:
        answer = "шериф" if value == "sheriff" else "не шериф"
        return [_p("дон "), _s(event.seat), _p(" проверяет "), _s(event.target), _p(f": {answer}", "private")]
    if t is E.SHERIFF_CHECK:
        if value in ("yes", "no") and sheriff_answer in ("is_don", "is_mafia"):
            question = " дон ли " if sheriff_answer == "is_don" else " чёрный ли "
            return [
                _p("шериф "),
                _s(event.seat),
                _p(" спрашивает,"),
                _p(question),
                _s(event.target),
                _p(f": {_CHECK[value]}"),
            ]
        answer = _CHECK.get(value, clean(value))
        return [_p("шериф "), _s(event.seat), _p(" проверяет "), _s(event.target), _p(f": {answer}", "private")]
    if t is E.SHERIFF_SHOT:
        return [_p("шериф "), _s(event.seat), _p(" стреляет в "), _s(event.target)]
    if t is E.MANIAC_KILL:
        if event.target is None:
            return [_p("маньяк "), _s(event.seat), _p(" этой ночью никого не трогает")]
        return [_p("маньяк "), _s(event.seat), _p(" идёт к "), _s(event.target)]
    if t is E.STRETCHERS:
        return [_p("на носилках у доктора: "), *_seats(event.seats)]
    if t is E.HEAL:
        if event.target is None:
            return [_p("доктор "), _s(event.seat), _p(" никого не лечит")]
        if value == "arms_crossed":
            return [
                _p("доктор "),
                _s(event.seat),
                _p(" выбирает "),
                _s(event.target),
                _p(": уже спасён однажды, руки крестом"),
            ]
        return [
            _p("доктор "),
            _s(event.seat),
            _p(" лечит "),
            _s(event.target),
            _p(" (спасён)" if value == "saved" else ""),
        ]
    if t is E.SAVE_RESULT:
        if event.target is None:
            return [_p("этой ночью спасти никого нельзя", "moderator")]
        return [_p("доктор спасает ", "moderator"), _s(event.target)]
    if t is E.VISIT:
        if event.target is None:
            return [_p("любовница "), _s(event.seat), _p(" остаётся дома")]
        return [_p("любовница "), _s(event.seat), _p(" навещает "), _s(event.target)]
    if t is E.BLOCKED:
        return [_s(event.seat), _p(" этой ночью заблокирован визитом: руки крестом")]
    if t is E.MORNING:
        spans = [_p(_MORNING.get(value, f"Утро: {reason(value)}"), "label")]
        if event.seats:
            spans += [Span(" "), *_seats(event.seats)]
        return spans
    if t is E.BEST_MOVE:
        if not event.seats:
            return [_s(event.seat), _p(" не называет никого в лучшем ходе")]
        return [_p("лучший ход "), _s(event.seat), _p(": "), *_seats(event.seats)]
    if t is E.FOUL:
        return [_s(event.seat), _p(f" получает фол {event.count} ({reason(value)})", "warn")]
    if t is E.VOTE_LOST:
        return [_s(event.seat), _p(" теряет право голоса", "warn")]
    if t is E.SPEECH_FORFEITED:
        return [_s(event.seat), _p(" лишается речи", "warn")]
    if t is E.REMOVED:
        return [_s(event.seat), _p(f" удалён судьёй ({reason(value)})", "bad")]
    if t is E.VOTE_CANCELLED:
        return [_p(f"Голосование дня {event.count} отменено", "warn")]
    if t in (E.ACTION_REJECTED, E.DEFAULT_APPLIED):
        after = "применяется ответ по умолчанию" if t is E.DEFAULT_APPLIED else "вопрос задан снова"
        if event.code == Failure.TIMEOUT:
            within = f" за {event.count / 1000:g} с" if event.count is not None else ""  # the limit, in ms
            return [_s(event.seat), _p(f": нет ответа{within} (время вышло); {after}", "warn")]
        if event.code in (Failure.ERROR, Failure.MALFORMED):
            return [_s(event.seat), _p(f": игрок не смог ответить; {after}", "warn")]
        return [_p("ответ "), _s(event.seat), _p(f" не принят; {after}", "warn")]
    if t is E.PROBE:
        pairs = zip(event.seats, event.counts, strict=False)
        beliefs = ", ".join(f"#{seat} {count / 1000:.2f}" for seat, count in pairs)
        return [_s(event.seat), _p(f": тайный опрос, вероятность «чёрный»: {beliefs}")]
    if t is E.PROBES_TAKEN:
        return [_p(f"опросов проведено: {event.count}", "moderator")]
    if t is E.GAME_ENDED:
        winner = WINNERS.get(value, clean(value))
        head = "ничья" if value == "draw" else f"победа: {winner}"
        ended = end_words(event.code, event.target, event.count) if event.code else ""
        return [_p(f"Игра окончена: {head}" + (f" ({ended})" if ended else ""), "label")]
    return judge_phrase(event)


_AWARD = {
    "best_player": "лучший игрок",
    "best_move": "лучший ход",
    "no_auto_bonus": "снят автобонус",
    "yellow_card": "жёлтая карточка",
}


def judge_phrase(event: Event) -> list[Span]:
    """The judge's own inputs (pause, resume, extra time, the score sheet's awards); an event type this table lacks
    says its code (and tests/test_phrasebook.py fails)."""
    if event.type is EventType.AWARD:
        what = _AWARD.get(event.value or "", clean(event.value or ""))
        if event.value == "extra":
            points = f"{(event.count or 0) / 100:+.2f}".replace(".", ",")  # a decimal comma
            what = f"{points} доп. балла"
        why = f" ({reason(event.text)})" if event.text else ""  # the judge's own words, quoted as data
        return [_p("судья: "), _s(event.seat), _p(f" — {what}{why}", "label")]
    if event.type is not EventType.JUDGE:
        return [_p(clean(event.type.value))]
    why = f" ({clean(event.text)})" if event.text else ""
    if event.value == "extra_time":
        return [_p("судья даёт "), _s(event.seat), _p(f" ещё {event.count} с{why}", "label")]
    return [_p(f"Судья {'продолжает игру' if event.value == 'resume' else 'останавливает игру'}{why}", "label")]
