"""The review's own words, one table per language: the headings and labels of the story (`story.py`), the terminal
(`console.py`) and the HTML export (`html.py` and its page's script). The events' lines are the phrase tables'
(`phrasebook.py`); these are the words around them.

Each table has the same keys (`tests/test_review_lang.py` checks it); a value is a `str.format` pattern. The English
table is the review's wording as it always was: an English page or terminal is unchanged byte for byte.
"""

from __future__ import annotations

from arena.render import phrasebook, phrases_ru
from arena.render.phrases import SHORT_HOW, clean, result_text

LANGS = phrasebook.LANGS

EN: dict[str, str] = {
    # the story: chapters, fates, titles
    "chapter_setup": "Setup",
    "chapter_day": "Day {n}",
    "chapter_night": "Night {n}",
    "chapter_end": "The end",
    "short_day": "D{n}",
    "short_night": "N{n}",
    "silence": "(silence)",
    "fate": "{how} ({when})",
    "announced": "announced {when}",
    "title_god": "God view (moderator): every event and every role",
    "title_seat": "Seat view of seat {seat}: only what seat {seat} saw",
    # vote tables
    "vote_main": "Vote on {cands}",
    "vote_revote": "Re-vote between {cands}",
    "vote_lift": "Lift vote: do {cands} all leave?",
    "vote_acquittal": "Acquittal re-vote: does {cands} leave?",
    "vote_threshold": "Vote on the lone nominee {cands}: more than half needed",
    "vote_other": "Vote ({kind}) on {cands}",
    "legend_yes": "✓ yes",
    "legend_no": "✗ no",
    "legend_vote": "● a vote",
    "legend_default": "○ a vote counted by default, for the last nominee (R5.7)",
    "legend_abstain": "● in the abstain row: no vote given",
    "legend_nothing": "· nothing",
    "row_yes_no": "yes / no",
    "row_abstain": "abstain",
    "ballots_hidden": "the ballots are not shown to this view: totals only",
    "no_votes": "no votes were cast",
    # who saw a line
    "tag_moderator": "moderator only",
    "tag_black": "black team",
    "tag_to": "to {who}",
    "tag_one_seat": "one seat",
    "tag_you": "only you",
    # notes
    "reasoning_of": "reasoning of {seat}",
    "call_of": "model call of {seat}",
    "decision": "decision",
    "new_messages": "{n} new messages; reply: ",
    "empty": "(empty)",
    "characters": "… ({n} characters)",
    "extends_call": "extends call {ref} ({n} shared messages)",
    "reply": "reply",
    "parsed": "parsed",
    "message": "message",
    "error": "error: {error}",
    # chapters with nothing in them
    "nothing_seat": "nothing this seat could see",
    "nothing_god": "nothing happened",
    "nothing_seat_page": "Nothing this seat could see.",
    "nothing_god_page": "Nothing happened.",
    # the seats and who was alive
    "seats": "Seats",
    "seats_god": "Seats and roles",
    "seats_seat": "Seats (roles this seat knows)",
    "col_seat": "seat",
    "col_player": "player",
    "col_role": "role",
    "col_role_known": "role (known)",
    "col_left": "left the game",
    "col_left_page": "left",
    "you": " (you)",
    "alive_title": "Who was alive",
    "chapters": "Days and nights",
    # the header
    "god_view": "God view",
    "seat_view": "Seat view",
    "rules_line": "Rules {rules} · {players} players",
    "seed": " · seed {seed}",
    "transcript": " · transcript {status}",
    "you_are": "You are {seat}, ",
    "you_are_page": "You are ",
    "ally": " (ally of the mafia)",
    "black_team": " · your black team: ",
    "black_team_page": "Your black team: ",
    "result": "Result: ",
    "not_over": "The game is not over.",
    # the page's frame
    "page_title": "Mafia Arena: {rules}, {players} players",
    "view": "View",
    "reasoning": "reasoning",
    "calls": "model calls",
    "noscript": "This page draws the game with a small inline script;\nplease enable JavaScript.",
    "footer": "Mafia Arena review page. Each view is built by the engine's own view function for that seat.",
    "option_god": "God view (moderator)",
    "option_seat": "Seat #{seat}",
}

RU: dict[str, str] = {
    "chapter_setup": "Подготовка",
    "chapter_day": "День {n}",
    "chapter_night": "Ночь {n}",
    "chapter_end": "Конец игры",
    "short_day": "Д{n}",
    "short_night": "Н{n}",
    "silence": "(молчание)",
    "fate": "{how} ({when})",
    "announced": "объявлено: {when}",
    "title_god": "Взгляд ведущего: все события и все роли",
    "title_seat": "Взгляд игрока {seat}: только то, что видел игрок {seat}",
    "vote_main": "Голосование по кандидатурам {cands}",
    "vote_revote": "Переголосование между {cands}",
    "vote_lift": "Подъём: уходят ли все ({cands})?",
    "vote_acquittal": "Переголосование по лидеру: уходит ли {cands}?",
    "vote_threshold": "Голосование по единственной кандидатуре {cands}: нужно больше половины",
    "vote_other": "Голосование ({kind}) по кандидатурам {cands}",
    "legend_yes": "✓ за",
    "legend_no": "✗ против",
    "legend_vote": "● голос",
    "legend_default": "○ голос по умолчанию, за последнюю кандидатуру (R5.7)",
    "legend_abstain": "● в строке «воздержались»: голос не отдан",
    "legend_nothing": "· ничего",
    "row_yes_no": "за / против",
    "row_abstain": "воздержались",
    "ballots_hidden": "бюллетени этому взгляду не показаны: только итоги",
    "no_votes": "голосов не было",
    "tag_moderator": "только ведущему",
    "tag_black": "чёрная команда",
    "tag_to": "для {who}",
    "tag_one_seat": "одного игрока",
    "tag_you": "только вам",
    "reasoning_of": "рассуждение {seat}",
    "call_of": "вызов модели {seat}",
    "decision": "решение",
    "new_messages": "новых сообщений: {n}; ответ: ",
    "empty": "(пусто)",
    "characters": "… (символов: {n})",
    "extends_call": "продолжает вызов {ref} (общих сообщений: {n})",
    "reply": "ответ",
    "parsed": "разбор",
    "message": "сообщение",
    "error": "ошибка: {error}",
    "nothing_seat": "этот игрок ничего не видел",
    "nothing_god": "ничего не произошло",
    "nothing_seat_page": "Этот игрок ничего не видел.",
    "nothing_god_page": "Ничего не произошло.",
    "seats": "Игроки",
    "seats_god": "Игроки и роли",
    "seats_seat": "Игроки (роли, известные этому игроку)",
    "col_seat": "место",
    "col_player": "игрок",
    "col_role": "роль",
    "col_role_known": "роль (известная)",
    "col_left": "выбыл",
    "col_left_page": "выбыл",
    "you": " (вы)",
    "alive_title": "Кто был в игре",
    "chapters": "Дни и ночи",
    "god_view": "Взгляд ведущего",
    "seat_view": "Взгляд игрока",
    "rules_line": "Правила {rules} · игроков: {players}",
    "seed": " · сид {seed}",
    "transcript": " · запись: {status}",
    "you_are": "Вы — {seat}, ",
    "you_are_page": "Вы — ",
    "ally": " (союзник мафии)",
    "black_team": " · ваша чёрная команда: ",
    "black_team_page": "Ваша чёрная команда: ",
    "result": "Итог: ",
    "not_over": "Игра не окончена.",
    "page_title": "Мафия-арена: правила {rules}, игроков: {players}",
    "view": "Взгляд",
    "reasoning": "рассуждения",
    "calls": "вызовы модели",
    "noscript": "Эта страница рисует игру небольшим встроенным скриптом;\nвключите JavaScript.",
    "footer": "Страница разбора «Мафия-арены». Каждый взгляд строит сам движок, для каждого места свой.",
    "option_god": "Взгляд ведущего",
    "option_seat": "Игрок #{seat}",
}

TABLES = {"en": EN, "ru": RU}

# a decision's kind (the engine's `Kind`), as a note names it; the web pages' words for it too (arena/web/i18n.py)
REQUEST_KINDS: dict[str, dict[str, str]] = {
    "en": {
        "speech": "speech",
        "vote": "vote",
        "ballot": "ballot",
        "shoot": "night shot",
        "don_check": "don's check",
        "probe": "probe",
        "sheriff": "sheriff's check",
        "maniac_kill": "maniac's kill",
        "heal": "doctor's heal",
        "visit": "lover's visit",
        "best_move": "best move",
        "black_message": "message to the team",
        "choose_side": "choose a side",
    },
    "ru": {
        "speech": "речь",
        "vote": "голосование",
        "ballot": "голосование",
        "shoot": "ночной выстрел",
        "don_check": "проверка дона",
        "probe": "опрос",
        "sheriff": "проверка шерифа",
        "maniac_kill": "ход маньяка",
        "heal": "лечение",
        "visit": "визит",
        "best_move": "лучший ход",
        "black_message": "сообщение команде",
        "choose_side": "выбор стороны",
    },
}

# the timeline's one-word departures (the codes of `SHORT_HOW`), and a transcript's status
_OUT_EN = {"voted": "voted", "killed": "killed", "lifted": "lifted", "removed": "removed", "nominee": "nominee"}
_OUT_RU = {"voted": "заголосован", "killed": "убит", "lifted": "поднят", "removed": "удалён", "nominee": "кандидатура"}
_STATUS_RU = {"complete": "завершена", "started": "не завершена", "aborted": "прервана"}


def pick(lang: str | None) -> str:
    """A supported language: `lang` if there is a table for it, else English."""
    return lang if lang in TABLES else "en"


def label(key: str, lang: str = "en", **values: object) -> str:
    """The heading or label `key` in `lang`, its `{}` filled from `values`."""
    return TABLES[pick(lang)][key].format(**values)


def table(lang: str) -> dict[str, str]:
    """The whole table of `lang` (the HTML page's script formats its own)."""
    return dict(TABLES[pick(lang)])


def out_word(code: str, lang: str = "en") -> str:
    """A timeline departure code (`voted`, `killed`, ...) in words."""
    code = SHORT_HOW.get(code, code)
    return (_OUT_RU if pick(lang) == "ru" else _OUT_EN).get(code, clean(code))


def request_kind(kind: str | None, lang: str = "en") -> str:
    """A note's decision kind: the engine's code in English (as the review always showed it), words in Russian."""
    if not kind:
        return label("decision", lang)
    return REQUEST_KINDS["ru"].get(kind, clean(kind)) if pick(lang) == "ru" else kind


def status(value: str, lang: str = "en") -> str:
    return _STATUS_RU.get(value, clean(value)) if pick(lang) == "ru" else value


def result(winner: str | None, lang: str = "en") -> str:
    """`town wins` / `победа: мирные`, or a draw."""
    if pick(lang) != "ru":
        return result_text(winner)
    return "ничья" if winner == "draw" else f"победа: {phrases_ru.WINNERS.get(winner or '', clean(winner or '?'))}"


def role(name: str | None, lang: str = "en") -> str | None:
    return phrasebook.role(name, pick(lang))


def roles(lang: str) -> dict[str, str]:
    """Every role's name in `lang` (the page's script shows role codes through it)."""
    return {code: phrasebook.role(code, pick(lang)) or code for code in phrases_ru.ROLES}


def page(lang: str) -> dict[str, object]:
    """Everything the HTML page's script words, in `lang`: the table, the roles, the results, the timeline's
    departures and the transcript's statuses by their codes."""
    lang = pick(lang)
    return {
        **table(lang),
        "roles": roles(lang),
        "winners": {w: result(w, lang) for w in phrases_ru.WINNERS},
        "out": {code: out_word(code, lang) for code in _OUT_EN},
        "statuses": {s: status(s, lang) for s in _STATUS_RU},
        "kinds": {kind: request_kind(kind, lang) for kind in REQUEST_KINDS["en"]},
    }
