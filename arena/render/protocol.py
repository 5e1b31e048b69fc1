"""The judge's score sheet (the protocol) of one game in words: a printable HTML page that fits a phone, CSV and
JSON, in English and Russian (`arena export FILE --protocol`, and the end of a web game).

The sheet itself is data (`arena.scoring.build_sheet`, from the god view's events); this module only puts it in
words. Entry points: `sheet_of(transcript or game)` builds it; `protocol_html(transcript or game, lang)` is the
whole page, `protocol_section(sheet, lang)` the part a page embeds (with `PROTOCOL_CSS`), `protocol_json` and
`protocol_csv` the data files. Every text from a player, a model or the judge is drawn as text, never as markup.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any, Literal

from arena.engine import MODERATOR, Game, view
from arena.render.phrases import clean
from arena.scoring import ScoringSystem, Sheet, build_sheet, load_system
from arena.scoring.facts import Departure
from arena.scoring.sheet import Award, Day, Night, Outcome, Result, SeatLine, VoteRound
from arena.transcript import Transcript

Lang = Literal["en", "ru"]
LANGS: tuple[Lang, ...] = ("en", "ru")

_EN: dict[str, str] = {
    "title": "Score sheet",
    "game": "Game",
    "rules": "rules",
    "seed": "seed",
    "scoring": "scoring",
    "unfinished": "The game has not ended: no result and no points yet.",
    "seats": "Seats and points",
    "seat": "#",
    "player": "Player, role",
    "left": "Left",
    "fouls": "Fouls",
    "points": "Points",
    "total": "Total",
    "stayed": "to the end",
    "days": "Days",
    "nights": "Nights",
    "day": "Day {n}",
    "night": "Night {n}",
    "night0": "Night 0",
    "morning": "The night took {seats}",
    "morning_none": "Nobody was killed in the night",
    "nominations": "Nominations",
    "no_nominations": "nobody was nominated",
    "refused": "refused: {why}",
    "round_main": "Vote",
    "round_revote": "Re-vote",
    "round_lift": "Lift vote on {seats}",
    "round_threshold": "More than half for {seats}?",
    "round_acquittal": "Re-vote on {seats} after the justification",
    "votes_for": "{seat}: {voters} ({n})",
    "by_default": "by default",
    "yes": "yes",
    "no": "no",
    "abstained": "abstained",
    "nobody": "nobody",
    "tie": "Tie: {seats}",
    "lift_passed": "Lift vote passed with {n} yes: {seats} leave",
    "lift_failed": "Lift vote failed with {n} yes",
    "lift_not_held": "No lift vote: {why}",
    "no_vote": "No elimination: {why}",
    "acquitted": "{seat} is acquitted",
    "cancelled": "The vote is cancelled (a removal)",
    "leaves": "{seats}: {how}",
    "kill_order": "The don's kill order: {seats}",
    "shots": "Shots",
    "held_fire": "held fire",
    "mafia_kill": "the mafia kills {seat}",
    "mafia_miss": "a miss ({why})",
    "don_check": "Don {by} checks {target}: {answer}",
    "sheriff_check": "Sheriff {by} checks {target}: {answer}",
    "sheriff_shot": "Sheriff {by} shoots {target}",
    "maniac_kill": "Maniac {by} goes for {target}",
    "heal": "Doctor {by} heals {target}",
    "visit": "Lover {by} visits {target}",
    "killed": "Killed: {seats}",
    "best_move": "Best move of {by}: {named}; hits: {hits} ({n})",
    "best_move_none": "Best move of {by}: named nobody",
    "legend": "Points by group",
    "fouls_title": "Fouls",
    "foul": "{when}: {seat} foul {n} ({why})",
    "removals": "Removals",
    "removal": "{when}: {seat} removed ({why})",
    "awards": "The judge's awards",
    "no_events": "none",
    "when_day": "Day {n}",
    "when_night": "Night {n}",
    "when_end": "after the end",
    "matters": "what counted",
}
_RU: dict[str, str] = {
    "title": "Протокол игры",
    "game": "Игра",
    "rules": "правила",
    "seed": "сид",
    "scoring": "подсчёт",
    "unfinished": "Игра не окончена: результата и баллов пока нет.",
    "seats": "Игроки и баллы",
    "seat": "№",
    "player": "Игрок, роль",
    "left": "Выбыл",
    "fouls": "Фолы",
    "points": "Баллы",
    "total": "Итого",
    "stayed": "до конца",
    "days": "Дни",
    "nights": "Ночи",
    "day": "День {n}",
    "night": "Ночь {n}",
    "night0": "Ночь 0",
    "morning": "Ночью убит: {seats}",
    "morning_none": "Ночью никто не убит",
    "nominations": "Выставления",
    "no_nominations": "никто не выставлен",
    "refused": "не принято: {why}",
    "round_main": "Голосование",
    "round_revote": "Переголосование",
    "round_lift": "Подъём: {seats}",
    "round_threshold": "Больше половины за {seats}?",
    "round_acquittal": "Переголосование по {seats} после оправдания",
    "votes_for": "{seat}: {voters} ({n})",
    "by_default": "по умолчанию",
    "yes": "за",
    "no": "против",
    "abstained": "воздержался",
    "nobody": "никто",
    "tie": "Попил: {seats}",
    "lift_passed": "Подъём принят, за — {n}: {seats} покидают стол",
    "lift_failed": "Подъём не принят, за — {n}",
    "lift_not_held": "Подъёма нет: {why}",
    "no_vote": "Никто не покидает стол: {why}",
    "acquitted": "{seat} оправдан",
    "cancelled": "Голосование отменено (удаление)",
    "leaves": "{seats}: {how}",
    "kill_order": "Договорка дона: {seats}",
    "shots": "Отстрел",
    "held_fire": "не стрелял",
    "mafia_kill": "мафия убивает {seat}",
    "mafia_miss": "промах ({why})",
    "don_check": "Дон {by} проверяет {target}: {answer}",
    "sheriff_check": "Шериф {by} проверяет {target}: {answer}",
    "sheriff_shot": "Шериф {by} стреляет в {target}",
    "maniac_kill": "Маньяк {by} идёт к {target}",
    "heal": "Доктор {by} лечит {target}",
    "visit": "Путана {by} у {target}",
    "killed": "Убиты: {seats}",
    "best_move": "Лучший ход {by}: {named}; попадания: {hits} ({n})",
    "best_move_none": "Лучший ход {by}: никого не назвал",
    "legend": "Баллы по группам",
    "fouls_title": "Фолы",
    "foul": "{when}: {seat}, фол {n} ({why})",
    "removals": "Удаления",
    "removal": "{when}: {seat} удалён ({why})",
    "awards": "Решения судьи",
    "no_events": "нет",
    "when_day": "День {n}",
    "when_night": "Ночь {n}",
    "when_end": "после игры",
    "matters": "за что",
}

_ROLES = {
    "en": {"civilian": "civilian", "sheriff": "sheriff", "mafia": "mafia", "don": "don", "doctor": "doctor",
           "lover": "lover", "maniac": "maniac"},
    "ru": {"civilian": "мирный", "sheriff": "шериф", "mafia": "мафия", "don": "дон", "doctor": "доктор",
           "lover": "путана", "maniac": "маньяк"},
}  # fmt: skip
_HOW = {
    "en": {"voted": "voted out", "lifted": "lifted out", "single_nominee": "out as the lone nominee",
           "justification": "voted out after justifying", "killed": "killed",
           "fouls": "removed for fouls", "kicked_out": "removed by the judge"},
    "ru": {"voted": "заголосован", "lifted": "поднят", "single_nominee": "ушёл как единственная кандидатура",
           "justification": "заголосован после оправдания", "killed": "убит",
           "fouls": "удалён за фолы", "kicked_out": "удалён судьёй"},
}  # fmt: skip
_WINNER = {
    "en": {"town": "The town (red) wins", "mafia": "The mafia (black) wins", "maniac": "The maniac wins",
           "draw": "A draw"},
    "ru": {"town": "Победа города (красных)", "mafia": "Победа мафии (чёрных)", "maniac": "Победа маньяка",
           "draw": "Ничья"},
}  # fmt: skip
_BY = {
    "en": {"day_vote": "after the day vote", "night_kill": "after the night kill", "removal": "after a removal"},
    "ru": {"day_vote": "после дневного голосования", "night_kill": "после ночного убийства",
           "removal": "после удаления"},
}  # fmt: skip
_WHY = {  # no_vote, lift_not_held, mafia miss and nomination reasons
    "en": {"no_nominees": "nobody was nominated", "single_nominee": "one nominee on Day 1", "no_votes": "no votes",
           "no_majority": "no majority", "below_threshold": "not more than half", "tie": "a tie of too many",
           "tie_again": "a tie again", "repeated_tie": "the same tie again", "leader_removed": "the leader was removed",
           "intro_day": "the introduction day", "all_living_tied": "every living player is tied",
           "nine_living_three_tied": "nine alive, three tied", "four_living_two_tied": "four alive, two tied",
           "disagreed": "no agreement", "lover": "the lover's visit", "already_nominated": "already nominated",
           "one_per_day": "one nomination a day", "not_alive": "not alive", "vote_cancelled": "the vote is cancelled",
           "fouls": "four fouls", "judge": "the judge", "forbidden_content": "forbidden words",
           "overlong_speech": "an overlong speech", "illegal_action": "an illegal action", "disqualified":
           "disqualified"},
    "ru": {"no_nominees": "никто не выставлен", "single_nominee": "одна кандидатура в первый день",
           "no_votes": "нет голосов", "no_majority": "нет большинства", "below_threshold": "не больше половины",
           "tie": "попил слишком многих", "tie_again": "снова попил", "repeated_tie": "тот же попил снова",
           "leader_removed": "лидер удалён", "intro_day": "день знакомства",
           "all_living_tied": "в попиле все живые", "nine_living_three_tied": "девять живых, трое в попиле",
           "four_living_two_tied": "четверо живых, двое в попиле", "disagreed": "не сошлись",
           "lover": "визит путаны", "already_nominated": "уже выставлен", "one_per_day": "одно выставление в день",
           "not_alive": "не в игре", "vote_cancelled": "голосование отменено", "fouls": "четыре фола",
           "judge": "судья", "forbidden_content": "запрещённые слова", "overlong_speech": "слишком длинная речь",
           "illegal_action": "недопустимое действие", "disqualified": "дисквалификация"},
}  # fmt: skip
_ANSWER = {
    "en": {"sheriff": "the sheriff", "not_sheriff": "not the sheriff", "black": "black", "red": "red", "yes": "yes",
           "no": "no"},
    "ru": {"sheriff": "шериф", "not_sheriff": "не шериф", "black": "чёрный", "red": "красный", "yes": "да",
           "no": "нет"},
}  # fmt: skip
_GROUPS = {  # short: seven columns fit a phone; the legend under the table says them in full
    "en": {"main": "Main", "extra": "Extra", "legacy": "Legacy", "penalty": "Pen.", "night1": "Ci"},
    "ru": {"main": "Осн.", "extra": "Доп.", "legacy": "ЛХ", "penalty": "Штр.", "night1": "Ci"},
}
_GROUPS_LONG = {
    "en": {"main": "main: the win", "extra": "extra: the judge's points and the auto-bonus",
           "legacy": "legacy: the Night-1 victim's best move", "penalty": "penalty: removals",
           "night1": "Ci: compensation for a red shot on Night 1"},
    "ru": {"main": "осн.: победа", "extra": "доп.: баллы судьи и автобонус",
           "legacy": "ЛХ: лучший ход убитого в первую ночь", "penalty": "штр.: удаления",
           "night1": "Ci: компенсация красному, убитому в первую ночь"},
}  # fmt: skip
_AWARD = {
    "en": {"extra": "{points} extra points", "best_player": "the best player", "best_move": "the best move",
           "no_auto_bonus": "no auto-bonus", "yellow_card": "a yellow card"},
    "ru": {"extra": "{points} доп. балла", "best_player": "лучший игрок", "best_move": "лучший ход",
           "no_auto_bonus": "снят автобонус", "yellow_card": "жёлтая карточка"},
}  # fmt: skip


def words(lang: str) -> dict[str, str]:
    return _RU if lang == "ru" else _EN


def _lang(lang: str) -> Lang:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; allowed: {', '.join(LANGS)}")
    return "ru" if lang == "ru" else "en"


def _seat(seat: int | None) -> str:
    return f"#{seat}" if seat else "–"


def _seats(seats: Sequence[int], lang: str) -> str:
    return ", ".join(_seat(s) for s in seats) if seats else words(lang)["nobody"]


def _num(x: float, lang: str, signed: bool = False) -> str:
    text = f"{x:+.2f}" if signed else f"{x:.2f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    text = text.replace("-", "−")
    return text.replace(".", ",") if lang == "ru" else text


def _why(value: str, lang: str) -> str:
    return _WHY[lang].get(value, clean(value.replace("_", " ")))


def _plural_ru(n: int, one: str, many: str) -> str:
    return one if n % 10 == 1 and n % 100 != 11 else many


def result_text(result: Result, lang: str) -> str:
    """Why the game ended, in words: '3 black against 3 red: parity', 'the last black (#8) was voted out'."""
    lang = _lang(lang)
    r = result
    by = f", {_BY[lang][r.by]}" if r.by in _BY[lang] else ""
    if r.code == "unfinished":
        return words(lang)["unfinished"]
    if r.code == "parity":
        if lang == "ru":
            return (f"{r.black} {_plural_ru(r.black, 'чёрный', 'чёрных')} против {r.red} "
                    f"{_plural_ru(r.red, 'красного', 'красных')}: паритет{by}")  # fmt: skip
        return f"{r.black} black against {r.red} red: parity{by}"
    if r.code == "last_black":
        how = {"en": "killed at night", "ru": "убит ночью"}[lang] if r.how == "killed" else _HOW[lang].get(r.how, r.how)
        if lang == "ru":
            return f"последний чёрный ({_seat(r.seat)}) {how}"
        return f"the last black ({_seat(r.seat)}) was {how}"
    if r.code == "maniac":
        if lang == "ru":
            return f"маньяк жив, и рядом {r.count} {_plural_ru(r.count, 'игрок', 'игроков')}{by}"
        return f"the maniac is alive with {r.count} other player{'s' if r.count != 1 else ''}{by}"
    if r.code == "idle":
        if lang == "ru":
            return f"{r.count} ночи подряд и дни между ними никто не покидал стол"
        return f"{r.count} nights in a row, and the days between, passed with nobody leaving"
    if r.code == "everyone_out":
        return "все покинули стол одновременно" if lang == "ru" else "everyone left the table at once"
    return clean(r.code)


def winner_text(result: Result, lang: str) -> str:
    lang = _lang(lang)
    return _WINNER[lang].get(result.winner or "", words(lang)["unfinished"])


def _when(d: Departure | None, lang: str) -> str:
    if d is None:
        return words(lang)["stayed"]
    key = "when_night" if d.phase == "night" else "when_day"
    return words(lang)[key].format(n=d.day)


def departure_text(d: Departure | None, lang: str) -> str:
    """`Day 1, voted out`, `Night 2, killed at night`, or `to the end`."""
    lang = _lang(lang)
    if d is None:
        return words(lang)["stayed"]
    return f"{_when(d, lang)}: {_HOW[lang].get(d.how, clean(d.how))}"


def _event_when(day: int, phase: str, lang: str) -> str:
    w = words(lang)
    if phase == "end":
        return w["when_end"]
    return (w["when_night"] if phase in ("night", "setup") else w["when_day"]).format(n=day)


# ----- building the sheet ------------------------------------------------------------------------------------------
def sheet_of(
    source: Transcript | Game,
    *,
    scoring: str | ScoringSystem = "fiim",
    names: Mapping[int, str] | None = None,
    stage: str | None = None,
) -> Sheet:
    """The score sheet of a transcript (rebuilt through the engine) or of a live game, from the god view's events.
    Names come from the transcript's header unless given."""
    system = scoring if isinstance(scoring, ScoringSystem) else load_system(scoring)
    if isinstance(source, Transcript):
        game = source.rebuild()
        names = names if names is not None else {e.seat: e.agent.name for e in source.header.seats}
        game_id, seed = source.header.game_id, source.header.seed
    else:
        game, game_id, seed = source, "", source.seed
    events = view(game, MODERATOR).events
    return build_sheet(events, game.rules, system, names=names, game_id=game_id, seed=seed, stage=stage)


# ----- JSON -------------------------------------------------------------------------------------------------------
def protocol_data(sheet: Sheet, lang: str = "en") -> dict[str, Any]:
    """The sheet as JSON-ready data, with its words in `lang`: `result.text`, `result.winner_text`, and each seat's
    `left.text` and `role_text`."""
    lang = _lang(lang)
    data = sheet.to_json()
    data["lang"] = lang
    data["result"]["text"] = result_text(sheet.result, lang)
    data["result"]["winner_text"] = winner_text(sheet.result, lang)
    for seat, line in zip(data["seats"], sheet.seats, strict=True):
        seat["role_text"] = _ROLES[lang].get(line.role, line.role)
        if seat["left"] is not None:
            seat["left"]["text"] = departure_text(line.left, lang)
    return data


def end_table(sheet: Sheet, lang: str = "en") -> dict[str, Any]:
    """The sheet's points in brief, with their words, for the end of a web game (the seats' and the judge's pages
    draw it as a table; the whole sheet is a link away): `title`, `result`, `head` (the column labels: seat, fouls,
    each group, total), `legend`, `rows` (`seat`, `team`, `name`, `fouls`, `groups` in the head's order, `points`),
    and `awards` in words."""
    lang = _lang(lang)
    w = words(lang)
    result = result_text(sheet.result, lang)
    return {
        "title": w["title"],
        "scoring": sheet.scoring,
        "result": f"{winner_text(sheet.result, lang)}: {result}" if sheet.finished else result,
        "head": [w["seat"], w["fouls"], *(_GROUPS[lang].get(g, g) for g in sheet.groups), w["total"]],
        "legend": f"{w['legend']}: " + " · ".join(_GROUPS_LONG[lang].get(g, g) for g in sheet.groups),
        "rows": [_end_row(s, sheet.groups, lang) for s in sheet.seats],
        "awards": [_award_text(a, lang) for a in sheet.awards],
    }


def _end_row(s: SeatLine, groups: Sequence[str], lang: Lang) -> dict[str, Any]:
    return {
        "seat": s.seat,
        "team": s.team,
        "name": s.name,
        "fouls": s.fouls,
        "groups": [_num(s.groups[g], lang) if s.groups.get(g) else "" for g in groups],
        "points": "–" if s.points is None else _num(s.points, lang),
    }


def protocol_json(sheet: Sheet, lang: str = "en") -> str:
    return json.dumps(protocol_data(sheet, lang), ensure_ascii=False, indent=2) + "\n"


# ----- CSV --------------------------------------------------------------------------------------------------------
CSV_COLUMNS = ["section", "day", "phase", "round", "seat", "name", "role", "target", "seats", "value", "reason",
               "points"]  # fmt: skip


def protocol_csv(sheet: Sheet, lang: str = "en") -> str:
    """One long table: a `section` column says what each row is (result, seat, foul, nomination, vote, outcome,
    night action, best_move, removal, award); the group columns follow `points` (docs/scoring.md)."""
    lang = _lang(lang)
    out = io.StringIO()
    columns = [*CSV_COLUMNS, *sheet.groups]
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    rows: list[dict[str, Any]] = []
    rows.append({"section": "result", "value": sheet.result.winner or "", "reason": result_text(sheet.result, lang)})
    for s in sheet.seats:
        row: dict[str, Any] = {"section": "seat", "seat": s.seat, "name": clean(s.name), "role": s.role,
                               "value": s.left.how if s.left else "", "reason": "; ".join(s.foul_reasons),
                               "points": "" if s.points is None else s.points}  # fmt: skip
        if s.left is not None:
            row |= {"day": s.left.day, "phase": s.left.phase}
        row |= {g: s.groups.get(g, 0.0) for g in sheet.groups} if s.points is not None else {}
        rows.append(row)
    for f in sheet.fouls:
        rows.append({"section": "foul", "day": f.day, "phase": f.phase, "seat": f.seat, "value": f.count,
                     "reason": f.reason})  # fmt: skip
    for d in sheet.days:
        if d.morning:
            rows.append({"section": "morning", "day": d.day, "phase": "day", "seats": _space(d.morning)})
        for n in d.nominations:
            rows.append({"section": "nomination", "day": d.day, "phase": "day", "seat": n.by, "target": n.seat,
                         "value": "accepted" if n.accepted else "refused", "reason": n.note})  # fmt: skip
        for i, r in enumerate(d.rounds, 1):
            for v in r.votes:
                rows.append({"section": "vote", "day": d.day, "phase": "day", "round": f"{i}:{r.kind}",
                             "seat": v.voter, "target": "" if v.choice is None else v.choice,
                             "seats": _space(r.candidates), "value": v.how})  # fmt: skip
        for o in d.outcome:
            rows.append({"section": "outcome", "day": d.day, "phase": "day", "seats": _space(o.seats),
                         "value": o.type, "reason": o.value, "target": "" if o.count is None else o.count})  # fmt: skip
    for night in sheet.nights:
        if night.kill_order:
            rows.append({"section": "kill_order", "day": night.night, "phase": "night",
                         "seats": _space(night.kill_order)})  # fmt: skip
        for a in night.actions:
            rows.append({"section": a.type, "day": night.night, "phase": "night", "seat": a.by,
                         "target": "" if a.target is None else a.target, "value": a.value})  # fmt: skip
        if night.night >= 1 and night.mafia_result:
            rows.append({"section": "mafia_result", "day": night.night, "phase": "night",
                         "target": "" if night.mafia_target is None else night.mafia_target,
                         "value": night.mafia_result, "seats": _space(night.killed)})  # fmt: skip
        if night.best_move is not None:
            b = night.best_move
            rows.append({"section": "best_move", "day": night.night, "phase": "night", "seat": b.by,
                         "seats": _space(b.named), "value": len(b.hits), "reason": _space(b.hits)})  # fmt: skip
    for x in sheet.removals:
        rows.append({"section": "removal", "day": x.day, "phase": x.phase, "seat": x.seat,
                     "value": "fouls" if x.by_fouls else "judge", "reason": x.reason})  # fmt: skip
    for award in sheet.awards:
        rows.append({"section": "award", "seat": award.seat, "value": award.kind, "reason": award.reason,
                     "points": award.points if award.kind == "extra" else "",
                     "phase": "end" if award.after_end else ""})  # fmt: skip
    for row in rows:
        writer.writerow({k: _csv_cell(v) for k, v in row.items()})
    return out.getvalue()


def _space(seats: Sequence[int]) -> str:
    return " ".join(str(s) for s in seats)


def _csv_cell(value: Any) -> Any:
    """A text cell that a spreadsheet would run as a formula (=, +, -, @ first) is quoted with a leading '."""
    if isinstance(value, str):
        value = clean(value)
        if value[:1] in ("=", "+", "-", "@", "\t", "\r"):
            return "'" + value
    return value


# ----- HTML -------------------------------------------------------------------------------------------------------
PROTOCOL_CSS = """body{margin:0}
.protocol{font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111;max-width:960px;margin:0 auto;
padding:12px;box-sizing:border-box;overflow-wrap:anywhere}
.protocol *{box-sizing:border-box}
.protocol h1{font-size:1.35em;margin:.2em 0}
.protocol h2{font-size:1.15em;margin:1em 0 .4em;border-bottom:1px solid #999}
.protocol h3{font-size:1em;margin:.8em 0 .2em}.protocol h4{font-size:.95em;margin:.4em 0 .1em;font-weight:600}
.protocol p,.protocol ul{margin:.2em 0}.protocol ul{padding-left:1.2em}
.protocol .meta{color:#444;font-size:.9em}
.protocol .result{font-size:1.05em;padding:.4em .6em;border:2px solid #333;margin:.5em 0}
.protocol table{width:100%;border-collapse:collapse;table-layout:fixed;font-size:.92em}
.protocol th,.protocol td{border:1px solid #bbb;padding:3px 4px;vertical-align:top;text-align:left}
.protocol th{background:#eee;font-weight:600}
.protocol td.n,.protocol th.n{text-align:right;font-variant-numeric:tabular-nums}
.protocol th{overflow-wrap:normal;hyphens:auto}
.protocol col.c-seat{width:2.4em}.protocol col.c-fouls{width:3.6em}.protocol col.c-points{width:4.4em}
.protocol tr.black td:first-child{border-left:5px solid #111}
.protocol tr.red td:first-child{border-left:5px solid #c62828}
.protocol tr.maniac td:first-child{border-left:5px solid #6a1b9a}
.protocol .role{color:#555;font-size:.9em}.protocol .hits{font-size:.85em;color:#444}
.protocol .day,.protocol .night{border-left:3px solid #ccc;padding-left:.6em;margin:.4em 0}
.protocol .night{border-left-color:#555}.protocol .outcome{font-weight:600}
@media (max-width:520px){.protocol{font-size:14px;padding:8px}.protocol table{font-size:.86em}
.protocol th,.protocol td{padding:2px 3px}}
@media print{.protocol{font-size:10pt;max-width:none;padding:0}.protocol .day,.protocol .night{break-inside:avoid}
.protocol h2{break-after:avoid}}
"""


def _e(text: str) -> str:
    return escape(clean(text))


def _p(text: str) -> str:
    return f"<p>{_e(text)}</p>"


def _seat_table(sheet: Sheet, lang: Lang) -> list[str]:
    w = words(lang)
    out = ["<table class='seats'><colgroup><col class='c-seat'><col><col><col class='c-fouls'>"
           "<col class='c-points'></colgroup>",
           f"<thead><tr><th>{_e(w['seat'])}</th><th>{_e(w['player'])}</th><th>{_e(w['left'])}</th>"
           f"<th class='n'>{_e(w['fouls'])}</th><th class='n'>{_e(w['points'])}</th></tr></thead><tbody>"]  # fmt: skip
    for s in sheet.seats:
        who = f"{_e(s.name)}<br>" if s.name else ""
        role = _ROLES[lang].get(s.role, s.role)
        left = departure_text(s.left, lang)
        if s.removed_after is not None:
            left += "; " + departure_text(s.removed_after, lang)
        points = "–" if s.points is None else _num(s.points, lang)
        out.append(
            f"<tr class='{_e(s.team)}'><td class='n'>{s.seat}</td><td>{who}<span class='role'>{_e(role)}</span></td>"
            f"<td>{_e(left)}</td><td class='n'>{s.fouls}</td><td class='n'><b>{_e(points)}</b></td></tr>"
        )
    out.append("</tbody></table>")
    return out


def _points_table(sheet: Sheet, lang: Lang) -> list[str]:
    w = words(lang)
    groups = sheet.groups
    head = "".join(f"<th class='n' title='{_e(_GROUPS_LONG[lang].get(g, g))}'>{_e(_GROUPS[lang].get(g, g))}</th>"
                   for g in groups)
    total = f"<th class='n'>{_e(w['total'])}</th>"
    out = [f"<table class='points'><colgroup><col class='c-seat'>{'<col>' * (len(groups) + 1)}</colgroup>",
           f"<thead><tr><th>{_e(w['seat'])}</th>{head}{total}</tr></thead><tbody>"]  # fmt: skip
    for s in sheet.seats:
        cells = "".join(f"<td class='n'>{_e(_num(s.groups.get(g, 0.0), lang)) if s.groups.get(g) else ''}</td>"
                        for g in groups)  # fmt: skip
        total = "–" if s.points is None else _num(s.points, lang)
        out.append(f"<tr class='{_e(s.team)}'><td class='n'>{s.seat}</td>{cells}<td class='n'><b>{_e(total)}</b>"
                   "</td></tr>")  # fmt: skip
    out.append("</tbody></table>")
    legend = " · ".join(_GROUPS_LONG[lang].get(g, g) for g in groups)
    out.append(f"<p class='hits'>{_e(w['legend'])}: {_e(legend)}</p>")
    return out


def _round_lines(r: VoteRound, lang: Lang) -> list[str]:
    w = words(lang)
    if r.kind in ("main", "revote"):
        title = w["round_main"] if r.kind == "main" else w["round_revote"]
        items = []
        for cand in r.candidates:
            voters = [v for v in r.votes if v.choice == cand]
            names = ", ".join(_seat(v.voter) + (f" ({w['by_default']})" if v.how == "default" else "") for v in voters)
            items.append(w["votes_for"].format(seat=_seat(cand), voters=names or "–", n=len(voters)))
        abstained = [v.voter for v in r.votes if v.how == "abstain"]
        if abstained:
            items.append(f"{w['abstained']}: {_seats(abstained, lang)}")
    else:
        key = {"lift": "round_lift", "threshold": "round_threshold", "acquittal": "round_acquittal"}.get(r.kind)
        title = w[key].format(seats=_seats(r.candidates, lang)) if key else clean(r.kind)
        yes = [v.voter for v in r.votes if v.how == "yes"]
        no = [v.voter for v in r.votes if v.how == "no"]
        items = [f"{w['yes']}: {_seats(yes, lang)} ({len(yes)})", f"{w['no']}: {_seats(no, lang)} ({len(no)})"]
    return [f"<h4>{_e(title)}</h4><ul>", *(f"<li>{_e(i)}</li>" for i in items), "</ul>"]


def _outcome_text(o: Outcome, lang: Lang) -> str:
    w = words(lang)
    if o.type == "tie":
        return w["tie"].format(seats=_seats(o.seats, lang))
    if o.type == "lift":
        key = "lift_passed" if o.value == "passed" else "lift_failed"
        return w[key].format(n=o.count or 0, seats=_seats(o.seats, lang))
    if o.type == "lift_not_held":
        return w["lift_not_held"].format(why=_why(o.value, lang))
    if o.type == "no_vote":
        return w["no_vote"].format(why=_why(o.value, lang))
    if o.type == "acquitted":
        return w["acquitted"].format(seat=_seats(o.seats, lang))
    if o.type == "cancelled":
        return w["cancelled"]
    return w["leaves"].format(seats=_seats(o.seats, lang), how=_HOW[lang].get(o.value, clean(o.value)))


def _day_html(d: Day, lang: Lang) -> list[str]:
    w = words(lang)
    out = [f"<div class='day'><h3>{_e(w['day'].format(n=d.day))}</h3>"]
    if d.day > 1:
        out.append(f"<p>{_e(w['morning'].format(seats=_seats(d.morning, lang)) if d.morning else w['morning_none'])}"
                   "</p>")  # fmt: skip
    if d.nominations:
        noms = [f"{_seat(n.by)} → {_seat(n.seat)}"
                + ("" if n.accepted else f" ({w['refused'].format(why=_why(n.note, lang))})")
                for n in d.nominations]  # fmt: skip
        out.append(f"<p>{_e(w['nominations'])}: {_e('; '.join(noms))}</p>")
    else:
        out.append(f"<p>{_e(w['nominations'])}: {_e(w['no_nominations'])}</p>")
    rounds = list(d.rounds)
    outcomes = list(d.outcome)
    # each vote round, then what followed it: ties come between rounds, the last outcome closes the day
    for r in rounds:
        out += _round_lines(r, lang)
        if outcomes and outcomes[0].type == "tie" and r.kind in ("main", "revote"):
            out.append(f"<p class='outcome'>{_e(_outcome_text(outcomes.pop(0), lang))}</p>")
    lifted: tuple[int, ...] = ()
    for o in outcomes:
        if o.type == "left" and o.value == "lifted" and o.seats == lifted:
            continue  # the lift vote's line has said who leaves
        lifted = o.seats if o.type == "lift" and o.value == "passed" else ()
        out.append(f"<p class='outcome'>{_e(_outcome_text(o, lang))}</p>")
    out.append("</div>")
    return out


def _night_html(n: Night, lang: Lang) -> list[str]:
    w = words(lang)
    title = w["night0"] if n.night == 0 else w["night"].format(n=n.night)
    out = [f"<div class='night'><h3>{_e(title)}</h3>"]
    if n.kill_order:
        out.append(f"<p>{_e(w['kill_order'].format(seats=_seats(n.kill_order, lang)))}</p>")
    shots = [a for a in n.actions if a.type == "shot"]
    if shots:
        each = ", ".join(f"{_seat(a.by)} → {_seat(a.target) if a.target else w['held_fire']}" for a in shots)
        if n.mafia_target is not None:
            verdict = w["mafia_kill"].format(seat=_seat(n.mafia_target))
        else:
            verdict = w["mafia_miss"].format(why=_why(n.mafia_result or "disagreed", lang))
        out.append(f"<p>{_e(w['shots'])}: {_e(each)} — {_e(verdict)}</p>")
    elif n.night >= 1 and n.mafia_result:
        out.append(f"<p>{_e(w['shots'])}: {_e(w['mafia_miss'].format(why=_why(n.mafia_result, lang)))}</p>")
    for a in n.actions:
        if a.type == "shot":
            continue
        answer = _ANSWER[lang].get(a.value, clean(a.value))
        if a.type in ("don_check", "sheriff_check"):
            text = w[a.type].format(by=_seat(a.by), target=_seat(a.target), answer=answer)
        elif a.type in ("sheriff_shot", "maniac_kill", "heal", "visit"):
            text = w[a.type].format(by=_seat(a.by), target=_seat(a.target) if a.target else w["nobody"])
        else:
            text = f"{clean(a.type)} {_seat(a.by)} → {_seat(a.target)}"
        out.append(f"<p>{_e(text)}</p>")
    if n.night >= 1:
        out.append(f"<p>{_e(w['killed'].format(seats=_seats(n.killed, lang)))}</p>")
    if n.best_move is not None:
        b = n.best_move
        text = w["best_move_none"].format(by=_seat(b.by))
        if b.named:
            text = w["best_move"].format(by=_seat(b.by), named=_seats(b.named, lang), hits=_seats(b.hits, lang),
                                         n=len(b.hits))  # fmt: skip
        out.append(f"<p>{_e(text)}</p>")
    out.append("</div>")
    return out


def _award_text(a: Award, lang: Lang) -> str:
    what = _AWARD[lang].get(a.kind, clean(a.kind)).format(points=_num(a.points, lang, signed=True))
    return f"{_seat(a.seat)}: {what}" + (f" ({clean(a.reason)})" if a.reason else "")


def protocol_section(sheet: Sheet, lang: str = "en", *, heading: bool = True) -> str:
    """The score sheet as an HTML fragment (`<section class="protocol">`), to embed in a page with `PROTOCOL_CSS`;
    every player text is escaped."""
    lang = _lang(lang)
    w = words(lang)
    out = [f"<section class='protocol' lang='{lang}'>"]
    if heading:
        out.append(f"<h1>{_e(w['title'])}</h1>")
    meta = [f"{w['rules']} {sheet.rules}", f"{w['scoring']} {sheet.scoring}"]
    if sheet.game_id:
        meta.insert(0, f"{w['game']} {sheet.game_id}")
    if sheet.seed is not None:
        meta.append(f"{w['seed']} {sheet.seed}")
    out.append(f"<p class='meta'>{_e(' · '.join(meta))}</p>")
    result = winner_text(sheet.result, lang)
    why = result_text(sheet.result, lang)
    out.append(f"<p class='result'><b>{_e(result)}</b>: {_e(why)}</p>" if sheet.finished
               else f"<p class='result'>{_e(why)}</p>")  # fmt: skip
    out += [f"<h2>{_e(w['seats'])}</h2>", *_seat_table(sheet, lang)]
    if sheet.finished:
        out += _points_table(sheet, lang)
    out.append(f"<h2>{_e(w['days'])} · {_e(w['nights'])}</h2>")
    days = {d.day: d for d in sheet.days}
    nights = {n.night: n for n in sheet.nights}
    for k in range(0, max([*days, *nights, 0]) + 1):
        if k in nights and k == 0:
            out += _night_html(nights[k], lang)
        if k in days:
            out += _day_html(days[k], lang)
        if k in nights and k > 0:
            out += _night_html(nights[k], lang)
    none = f"<p>{_e(w['no_events'])}</p>"
    out.append(f"<h2>{_e(w['fouls_title'])}</h2>")
    out += [_p(w["foul"].format(when=_event_when(f.day, f.phase, lang), seat=_seat(f.seat), n=f.count,
                                why=_why(f.reason, lang))) for f in sheet.fouls] or [none]  # fmt: skip
    out.append(f"<h2>{_e(w['removals'])}</h2>")
    out += [_p(w["removal"].format(when=_event_when(x.day, x.phase, lang), seat=_seat(x.seat),
                                   why=_why("fouls" if x.by_fouls else x.reason, lang)))
            for x in sheet.removals] or [none]  # fmt: skip
    out.append(f"<h2>{_e(w['awards'])}</h2>")
    out += [_p(_award_text(award, lang)) for award in sheet.awards] or [none]
    out.append("</section>")
    return "\n".join(out)


def page(sheet: Sheet, lang: str = "en", *, stylesheet: str | None = None) -> str:
    """The score sheet as one self-contained page: no script, nothing fetched, printable, 390 px wide or more. With
    `stylesheet` (a URL of PROTOCOL_CSS), the style is linked instead of inline, for a page under a policy that
    allows only its own style files (`arena serve`)."""
    lang = _lang(lang)
    title = f"{words(lang)['title']}{' ' + sheet.game_id if sheet.game_id else ''}"
    style = (f"<link rel='stylesheet' href='{escape(stylesheet)}'>" if stylesheet
             else f"<style>body{{margin:0}}{PROTOCOL_CSS}</style>")  # fmt: skip
    return (
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(title)}</title>{style}</head><body>"
        f"{protocol_section(sheet, lang)}</body></html>\n"
    )


def protocol_html(
    source: Transcript | Game | Sheet,
    lang: str = "en",
    *,
    scoring: str | ScoringSystem = "fiim",
    stylesheet: str | None = None,
) -> str:
    """The entry point for a page at the end of a game: the whole score sheet of a transcript, a game or a sheet, as
    one HTML page in `lang` (its style inline, or linked from `stylesheet`)."""
    sheet = source if isinstance(source, Sheet) else sheet_of(source, scoring=scoring)
    return page(sheet, lang, stylesheet=stylesheet)


RENDERERS: dict[str, Callable[[Sheet, str], str]] = {"html": page, "json": protocol_json, "csv": protocol_csv}
