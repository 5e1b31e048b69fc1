"""What the speaker claims of himself: his role ("I am the sheriff", «я мирный», «заявляюсь шерифом»), his side
("we, the mafia") and the checks he says he made ("I checked 5, red", «красная проверка на девятого»)."""

from __future__ import annotations

import re

from arena.research.speech_reader.guards import CLAUSE, NEGATED_BEFORE, guarded
from arena.research.speech_reader.seats import L, S

ROLE_WORDS = {
    "sheriff": "sheriff", "commissar": "sheriff", "detective": "sheriff", "doctor": "doctor", "medic": "doctor",
    "don": "don", "mafia": "mafia", "mafioso": "mafia", "black": "mafia", "maniac": "maniac", "lover": "lover",
    "civilian": "civilian", "citizen": "civilian", "peaceful citizen": "civilian", "peaceful": "civilian",
    "townie": "civilian", "villager": "civilian", "townsperson": "civilian", "town": "civilian", "red": "red",
    "шериф": "sheriff", "комиссар": "sheriff", "доктор": "doctor", "врач": "doctor", "дон": "don",
    "мафия": "mafia", "мафиози": "mafia", "черный": "mafia", "черная": "mafia", "маньяк": "maniac",
    "любовница": "lover", "мирный житель": "civilian", "мирный": "civilian", "мирная": "civilian",
    "мирный игрок": "civilian", "красный": "red", "красная": "red", "doc": "doctor", "cop": "sheriff",
    "мирняк": "civilian", "civvie": "civilian", "civ": "civilian", "мирная жительница": "civilian",
    "красный игрок": "red", "мирн": "civilian", "шереф": "sheriff", "красн": "red", "житель": "civilian",
}  # fmt: skip
_RU_ROLE_GENITIVE = {"шерифа": "sheriff", "комиссара": "sheriff", "доктора": "doctor", "врача": "doctor",
                     "дона": "don", "мафии": "mafia", "мафиози": "mafia", "маньяка": "maniac", "любовницы": "lover",
                     "мирного": "civilian", "мирного жителя": "civilian", "мирных": "civilian"}  # fmt: skip
_EN_ROLE = "|".join(sorted((w for w in ROLE_WORDS if w.isascii()), key=len, reverse=True))
_RU_ROLE = "|".join(sorted((w for w in ROLE_WORDS if not w.isascii()), key=len, reverse=True))
_BARE_ROLE = r"(sheriff|commissar|detective|doctor|civilian|citizen|red|townie|civ|шериф|комиссар|доктор|мирный|" \
    r"мирная|мирн|красный|красная)"  # fmt: skip
_ROLE_PATTERNS = (
    re.compile(  # a role word alone as the speaker's answer: "Red.", «Коротко: красная, проверок нет», "Sheriff, btw."
        r"(?:^|(?<!result)(?<!check)(?<!результат)(?<!проверка)(?<!¤\d)(?<!¤\d\d)(?<!ᵃ):)\s*"
        r"(?:(?:a|an|just|simple|plain|honest|ordinary|regular|прост[а-я]+|обычн[а-я]+|честн[а-я]+)\s+)*"
        + _BARE_ROLE
        + r"\s*(?:,\s*(?:by the way|btw|obviously|of course|if anything|for the record|nothing more|that's all|"
        r"кстати|если что|конечно|разумеется|не более|и всё|и все|всего лишь)\s*)?"
        r"(?:[.!]+\s*$|$|,(?=\s*(?:no|нет|без|проверок)\b))"
    ),
    re.compile(  # "that's what I found as sheriff", «я как шериф»
        r"\bi(?:'m| am)?\s+(?:(?!him\b|her\b|them\b|it\b|¤)\S+\s+){0,4}?as (?:the\s+|a\s+|an\s+)?(sheriff|doctor|"
        r"civilian|citizen|red|townie)\b|(?<![а-я])я\s+(?:[а-я]+\s+){0,2}?как\s+(шериф|доктор|мирный|мирная|красный|"
        r"красная)(?![а-я])"
    ),
    re.compile(  # "now it's on us civilians", «на нас, мирных»
        r"\b(?:us|we)\s*,?\s+(?:poor\s+|fellow\s+|simple\s+)?(civ)(?:ilian|vie)?s\b|\b(?:us|we)\s*,?\s+(red)s\b"
        r"|(?<![а-я])(?:нас|мы|нам)\s*,?\s*(?:—\s*)?(мирн)(?:ых|ые|ым)(?![а-я])"
        r"|(?<![а-я])(?:нас|мы|нам)\s*,?\s*(?:—\s*)?(красн)(?:ых|ые|ым)(?![а-я])"
    ),
    re.compile(r"\bthe\s+(" + _EN_ROLE + r")\s+(?:was|is)\s+me\b"),
    re.compile(
        r"\b(?:i am|i'm|im|i was)\s+(?:(?:the|a|an|just|only|simply|real|simple|true|really|actually|honest|plain|"
        r"ordinary|regular|indeed|definitely|obviously|totally|truly|genuinely|100%|vanilla)\s+)*("
        + _EN_ROLE
        + r")\b(?![\'’]|\s+(?:seat|claim)|\s+player\s+¤)"
    ),
    re.compile(  # "sheriff here" introduces the speaker only at the head of a sentence ("7 is the mafia here" does not)
        r"^\s*(?:(?:a|an|the|just|simple|plain|honest)\s+)*("
        + _EN_ROLE
        + r")\s+here\b|^\s*("
        + _RU_ROLE
        + r")\s+(?:здесь|тут)(?![а-я])"
    ),
    re.compile(
        r"^\s*(?:(?:honest|simple|plain|just|a|an|the|real|честн[а-я]+|прост[а-я]+|обычн[а-я]+|настоящ[а-я]+)\s+)*"
        r"(sheriff|commissar|detective|doctor|don|maniac|lover|civilian|шериф|комиссар|доктор|дон|маньяк|"
        r"любовница|мирный житель|мирный|мирная)"
        r"\s*(?:[.!]+\s*$|,\s*(?=checked|проверил|проверял))"
    ),  # "Sheriff." alone, "шериф, проверил пятого"
    re.compile(
        r"(?<![a-zа-я])(" + _EN_ROLE + "|" + _RU_ROLE + r")(?:\s+claim)?\s*[:—]\s*(?:it's\s+|это\s+)?"
        r"(?:me|я)(?![a-zа-я])"
    ),  # "Red: me", "шериф — я"
    re.compile(r"\bmy\s+(sheriff)\s+checks?\b"),
    re.compile(r"(?:^|[.!?]\s*|\bi(?:'m| am)?\s+)claim(?:ing)?\s+(?:the\s+|to be\s+(?:the\s+)?)?(" + _EN_ROLE + r")\b"),
    re.compile(
        r"(?:\bi am|\bi'm|(?<![а-я])я)\s+¤\d{1,2}+\s*(?:,|—|and i'm|and i am|и я)\s*(?:(?:a|an|the|just|simple|"
        r"regular|просто|обычн[а-я]+)\s+)*(" + _EN_ROLE + "|" + _RU_ROLE + r")(?![a-zа-я])"
    ),  # «я игрок 4, мирный»
    re.compile(
        r"\bmy\s+(?:role|card)\s*(?:is|:|—)\s*(?:the\s+|a\s+)?(" + _EN_ROLE + r")\b|(?<![а-я])моя\s+роль\s*"
        r"(?:—|:|это)?\s*(" + _RU_ROLE + r")(?![а-я])"
    ),
    re.compile(
        r"\bi(?:'m| am)?\s+play(?:ing)?\s+(?:as\s+)?(?:the\s+|a\s+)?(" + _EN_ROLE + r")\b"
        r"|\bi\s+(?:got|have|drew)\s+(?:the\s+|a\s+)?(" + _EN_ROLE + r")\s+card\b"
    ),
    re.compile(
        r"(?:^|[.!?,]\s*)(?:just|only|simply|просто|всего лишь)\s+(?:an?\s+)?(?:(?:regular|plain|simple|"
        r"ordinary|обычн[а-я]*|прост[а-я]*)\s+)?(" + _EN_ROLE + "|" + _RU_ROLE + r")(?![a-zа-я])"
    ),
    re.compile(r"\bnot the (sheriff)\.?\s*i am\b"),
    re.compile(r"\bmy checks as (sheriff)\b"),
    re.compile(
        r"(?:^|[.!?]\s*)as (?:the\s+|a\s+|an\s+)?(?:real\s+|true\s+|only\s+|simple\s+)?(" + _EN_ROLE + r"),?\s+i\b"
    ),
    re.compile(r"(?:^|[.!?]\s*)как\s+(?:настоящий\s+|единственный\s+|простой\s+)?(" + _RU_ROLE + r")(?![а-я])"),
    re.compile(
        r"(?<![а-я])я\s*(?:—\s*)?(?:(?:просто|настоящ[а-я]+|обычн[а-я]+|сам[а-я]+|честн[а-я]+|всего|лишь|только|же|"
        r"прост[а-я]+|действительно|правда)\s+)*(" + _RU_ROLE + r")(?![а-я])"
    ),
    re.compile(r"(?<![а-я])(шериф|комиссар|дон)\s*—\s*я(?![а-я])"),
)
_RU_ROLE_INSTRUMENTAL = {"шерифом": "sheriff", "комиссаром": "sheriff", "доктором": "doctor", "доном": "don",
                         "мафией": "mafia", "мирным": "civilian", "мирным жителем": "civilian", "красным": "red",
                         "маньяком": "maniac", "любовницей": "lover"}  # fmt: skip
_SPEAKING = re.compile(  # "sheriff speaking:", «говорит шериф:» at a sentence's head
    r"^\s*(sheriff|doctor|don|civilian)\s+(?:speaking|talking|reporting|checking in|on the line)\b"
    r"|^\s*(?:говорит\s+(шериф|доктор|дон|мирный)|(шериф|доктор|дон|мирный)\s+(?:на связи|докладывает))(?![а-я])"
)
_DECLARE = re.compile(  # «заявляюсь шерифом», "sheriff claim"
    r"(?<![а-я])(?:заявляюсь|вскрываюсь|объявляюсь|играю)\s+("
    + "|".join(sorted(_RU_ROLE_INSTRUMENTAL, key=len, reverse=True))
    + r")(?![а-я])|^\s*(sheriff|doctor|civilian|don)\s+claim\b(?!\s+(?:of|by|from)\b)"
)
_CARD = re.compile(
    r"(?<![а-я])(?:у меня|моя|мне (?:пришла|досталась))\s+(?:[а-я]+\s+)?карта\s+("
    + "|".join(sorted(_RU_ROLE_GENITIVE, key=len, reverse=True))
    + r")(?![а-я])"
)
_SARCASM = re.compile(r"^\s*(?:sure|yeah,? right|yeah,? sure|oh,? sure|ну да|ага|конечно|да-да|ну конечно)\b")
_RETRACTED = re.compile(r"^[\s,.!—-]*(?:just\s+|obviously\s+|конечно\s+)?(?:kidding|joking|jk|шучу|шутка)")
ELLIPTIC = re.compile(r"\bnot the (sheriff)\.\s*i am\b|не (шериф)\.\s*(?:шериф\s*—\s*я|я\s*—?\s*шериф)")
_TEAM_CLAIMS = (  # the speaker owns the black side: "we, the mafia", "seat 6 and I are mafia"
    re.compile(
        r"\bwe,?\s+(?:the\s+)?(?:black team|mafia)\b|\bwe(?:'re| are)\s+(?:the\s+)?(?:mafia|black team|blacks)\b"
    ),
    re.compile(S + r"\s+and\s+i\s+are\s+(?:the\s+)?(?:mafia|black)\b"),
    re.compile(r"(?<![а-я])мы,?\s+мафия"),
    re.compile(r"(?<![а-я])мы\s+с\s+" + S + r"\s*—?\s*(?:мафия|черные)"),
    re.compile(r"\b(?:me and\s+" + S + r"|" + S + r"\s+and me)\s+are\s+(?:the\s+|both\s+)?(?:mafia|black)\b"),
    re.compile(r"(?<![а-я])я\s+и\s+" + S + r"\s*(?:—|,)?\s*(?:мафия|черные)"),
)

_BLACK = r"(?:black|blk|mafia|mafioso|a mafioso|the don|don|guilty|scum|черн[а-я]*|мафи[а-я]*|дон)"
_RED = r"(?:red|clean|a civilian|civilian|a citizen|citizen|peaceful|town|not black|innocent|not guilty|" \
       r"красн[а-я]*|чист[а-я]*|мирн[а-я]*|" \
       r"не черн[а-я]*)"  # fmt: skip
_COLOUR = re.compile(r"(" + _RED + r"|" + _BLACK + r")(?![a-zа-я])")
_CHECK_CUE = re.compile(
    r"\b(?:i checked|i've checked|i have checked|my (?:\w+ )?checks?|check on|according to my check|i cleared|"
    r"i looked at|i investigated|"
    r"i've cleared|my (?:investigation|result)s?|"
    r"checks? i (?:made|did|have made))\b|"
    r"(?:^|[.!?,;:—]\s*)checked\s*[:—]?\s*¤|(?:^|[.!?]\s*)(?:check|checks|проверка|проверки)\s*[:—]|"
    r"(?<![а-я])я\s+(?:[а-я]+\s+){0,3}провер[а-я]*|^\s*провер[а-я]*|проверен[а-я]*\s+мною|(?<![а-я])мо[яий][а-я]*\s+"
    r"(?:[а-я]+\s+)?провер(?:к|ок)|(?<![а-я])проверк[аи]\s+на|\bi found\s+¤|(?<![а-я])я\s+(?:[а-я]+\s+)?нашел\s+¤|"
    r"по моей проверке|(?<![а-я])мо[йи]\s+результат[а-я]*|(?<![а-я])проверил[а]?\s+¤|¤\d{1,2}+ᵃ\s+провер(?:ил|ял)|"
    r"(?<![а-я])(?:по)?смотрел[а]?\s+(?:ночью\s+)?¤\d{1,2}+ᵃ|"
    r"(?<![а-я])(?:перв|втор|трет|последн|ночн)[а-я]*\s+проверк"
)
_CHECK_NOT_MINE = re.compile(
    r"\b(?:he|she|sheriff|¤\d+),?\s+(?:checked|found)\b|\bchecked by\b|\ba checked\b|"
    r"\bchecked (?:him|her|it)\b(?<!i checked him)"
    r"|\b(?:our|your|the|their)\s+sheriff\b(?:(?!\bi\b)[^.]){0,24}\bchecked\b"
    r"|¤\d{1,2}+'s\s+check\b|¤\d{1,2}+(?!ᵃ)\s+(?:[а-я]+\s+){0,2}?провер(?:ил|ял)[аи]?(?![а-я])"
    r"|(?<![а-я])(?:он|она|шериф)\s+(?:[а-я]+\s+){0,2}проверил|(?<![а-я])(?:наш|ваш|этот)\s+шериф[^.]{0,24}проверил"
)


def reported_checks(sentence: str) -> set[int]:
    """The seats of checks this sentence reports from another seat ("our sheriff, 1, checked 6 black"): those named
    from the report to the end of its clause."""
    seats: set[int] = set()
    for m in _CHECK_NOT_MINE.finditer(sentence):
        end = next((c.start() for c in CLAUSE.finditer(sentence) if c.start() >= m.end()), len(sentence))
        start = sentence.rfind(",", 0, m.start()) if m.group(0).startswith("a checked") else m.start()
        seats |= {int(n) for n in re.findall(r"¤(\d{1,2}+)", sentence[max(start, 0) : end])}
    return seats


_COL = r"(red|black|красн[а-я]*|черн[а-я]*)"
_CHECK_NOUN = r"(?:check|проверк[а-я]*)"
_NEXT_CHECK = re.compile(r"\s+(?:check|проверк)|\s+(?:on|на)\s+¤")
_INFERRED = re.compile(r"\b(?:means|meaning|therefore|hence)\b|(?<![а-я])(?:значит|поэтому|следовательно)(?![а-я])")
_COLOURED_CHECKS = (  # a check named by its colour: "my red check", «красная проверка на девятого»
    re.compile(
        S + r"(?:\s*,\s*(?:was|is)|\s*(?:—|:|is|was|был[а]?|-))?\s*(?:my|a|an|мо[а-я]+|от меня|у меня)?\s*"
        r"(?:only\s+|first\s+|second\s+|"
        r"last\s+|latest\s+|единственн[а-я]+\s+|перв[а-я]+\s+|последн[а-я]+\s+)?" + _COL + r"\s+" + _CHECK_NOUN
    ),
    re.compile(S + r"\s*(?:—\s*)?от меня\s*(?:—\s*)?" + _COL + r"(?![а-я])"),  # «девятому от меня красная»
    re.compile(S + r"\s+(?:came back|comes back|checked out|checks out)\s+(?:as\s+)?" + _COL + r"\b"),
    re.compile(
        r"\b(?:i\s+)?found\s+(?:a\s+|one\s+)?"
        + _COL
        + r"(?:\s+one)?\s*[:—]\s*(?:it's\s+|that's\s+)?"
        + S
        + r"|(?<![а-я])(?:я\s+)?нашел\s+"
        + _COL
        + r"\s*[:—]\s*(?:это\s+)?"
        + S
    ),
    re.compile(r"(?:check|проверк[а-я]*)[^.]*?[,;]\s*" + _COL + r"\s+(?:on|на)\s+" + S),  # "…, black on 9"
    re.compile(r"(?<![а-я])у\s+" + S + r"\s+(?:от меня\s+)?" + _COL + r"\s+проверк"),
    re.compile(_COL + r"\s+" + _CHECK_NOUN + r"\s+(?:on|на|у|for)\s+" + S),
    re.compile(r"(?:\bmy|(?<![а-я])мо[а-я]+)\s+" + _COL + r"\s+" + _CHECK_NOUN + r"\s*(?:is|was|:|—|это)\s*" + S),
)
_LIST_COLOURED = re.compile(L + r"\s*[:—,]?\s*(?:both|all|оба|обе|все)\s+" + _COL)
_PRONOUN_CHECK = re.compile(r"\b(?:he|she)\s+(?:was|is)\s+my\s+" + _COL + r"\s+check|(?<![а-я])(?:он|она)\s+"
                            r"(?:был[а]?\s+)?мо[а-я]+\s+" + _COL + r"\s+проверк")  # fmt: skip


def _colour(word: str) -> str:
    return "black" if re.fullmatch(_BLACK, word) else "red"


def read_checks(sentences: list[str], sheriff_claimed: bool) -> list[tuple[int, str]]:
    """(seat, colour) pairs the speaker says he found: a seat token followed in the same clause by a colour word, in a
    sentence with a first-person check cue, or in a bare list of "¤N colour" after the speaker's sheriff claim; a
    check named in one sentence and coloured at the head of the next ("I checked 8. He is red.") too."""
    found: list[tuple[int, str]] = []
    pending: int | None = None
    for sentence in sentences:
        cue = bool(_CHECK_CUE.search(sentence)) and not _CHECK_NOT_MINE.search(sentence)
        if pending is not None:
            head = re.match(r"\s*(?:result|результат)?\s*[:—]?\s*(?:he|she|it|он|она|¤" + str(pending)
                            + r"ᵃ?)?\s*(?:is|'s|was|—)?\s*(?:a\s+)?(\S+)",
                            sentence)  # fmt: skip
            word = head.group(1).strip(".,!;:") if head else ""
            if word and _COLOUR.fullmatch(word):
                found.append((pending, _colour(word)))
        pending = None
        listing = sheriff_claimed and re.fullmatch(r"[\s¤ᵃ\d,;:—.!a-zа-я'-]*", sentence) is not None
        if not cue and not listing:
            continue
        seats = list(re.finditer(S, sentence))
        paired = False
        for i, m in enumerate(seats):
            end = seats[i + 1].start() if i + 1 < len(seats) else len(sentence)
            between = sentence[m.end() : end]
            colour = _COLOUR.search(between)
            if colour is None or len(between[: colour.start()].split()) > 8 or guarded(sentence, m.start(), m.end()):
                continue
            if _NEXT_CHECK.match(between[colour.end() :]) or (
                i and _INFERRED.search(sentence[seats[i - 1].end() : m.start()])
            ):
                continue  # "red check on 3, black check on 9": the colour names the next check; "that means 9 is black"
            if NEGATED_BEFORE.search(between[: colour.start()]) and not colour.group(1).startswith("не"):
                continue
            if not cue and not re.match(
                r"\s*[—:,-]?\s*(?:is\s+|was\s+|came back\s+|comes back\s+|у меня\s+|for me\s+)?$",
                between[: colour.start()],
            ):
                continue  # a sheriff's bare list reads "¤4 black", "¤4 — black"
            found.append((int(m.group(1)), _colour(colour.group(1))))
            paired = True
        if cue and not paired and len(seats) == 1:
            pending = int(seats[0].group(1))
    for sentence in sentences:
        if _CHECK_NOT_MINE.search(sentence):
            continue
        for pattern in _COLOURED_CHECKS:
            for m in pattern.finditer(sentence):
                first, second = (g for g in m.groups() if g)  # a seat and a colour, in either order
                seat, word = (first, second) if first.isdigit() else (second, first)
                if not guarded(sentence, m.start(), m.end()) and not re.match(
                    r"[а-я]*\s*(?:от|from|by)\s+¤", sentence[m.end() :]
                ):
                    found.append((int(seat), _colour(word)))  # not «красная проверка от третьего»
        if _CHECK_CUE.search(sentence) or sheriff_claimed:
            for m in _LIST_COLOURED.finditer(sentence):  # "4, 5: both red by my checks"
                listed = re.findall(r"¤(\d{1,2}+)", m.group(1))
                found += [(int(seat), _colour(m.group(2))) for seat in listed]
        for m in _PRONOUN_CHECK.finditer(sentence):
            before = re.findall(r"¤(\d{1,2}+)", sentence[: m.start()])
            if before and not guarded(sentence, m.start(), m.end()):
                found.append((int(before[-1]), _colour(m.group(1) or m.group(2))))
    return list(dict.fromkeys(found))


def read_roles(sentences: list[str]) -> list[str]:
    out: list[str] = []
    for before, sentence, after in zip(["", *sentences], sentences, [*sentences[1:], ""], strict=False):
        if _RETRACTED.match(after):
            continue  # "I'm the don. Kidding."
        if sentence.rstrip().endswith("?"):
            continue  # a question claims nothing ("do you really think I am mafia?")
        if _SARCASM.match(sentence):
            continue  # "sure, I'm totally the mafia", «ну да, конечно, я мафия»
        for pattern in _ROLE_PATTERNS:
            for m in pattern.finditer(sentence):
                if pattern is _ROLE_PATTERNS[0] and _CHECK_CUE.search(before) and re.search(r"¤\d+ᵃ?\W*$", before):
                    continue  # "I checked 4. Red.": the check's colour, not a claim
                if not guarded(sentence, m.start(), m.end()) and not _RETRACTED.match(sentence[m.end() :]):
                    out.append(ROLE_WORDS[next(g for g in m.groups() if g)])
        if any(p.search(sentence) for p in _TEAM_CLAIMS):
            out.append("mafia")
        out += [ROLE_WORDS[next(g for g in m.groups() if g)] for m in _SPEAKING.finditer(sentence)]
        for m in _DECLARE.finditer(sentence):
            if not guarded(sentence, m.start(), m.end()):
                out.append(_RU_ROLE_INSTRUMENTAL.get(m.group(1) or "") or ROLE_WORDS[m.group(2)])
        for m in _CARD.finditer(sentence):  # «у меня карта шерифа»
            if not guarded(sentence, m.start(), m.end()):
                out.append(_RU_ROLE_GENITIVE[m.group(1)])
    return out
