"""The fallback: a seat and a kind's key word in one clause.

The constructions (`votes.py`, `deaths.py`, `accusations.py`) are what people were seen to say; people find new
ones. A clause (a sentence cut at ";", "but", "and", «а», «но», «и», "because") that names seats and holds a kind's
key word, with none of the words that turn a statement into something else (a negation, a question, a condition,
another's words, the past of a vote, a future of a death), states that kind of those seats.
"""

from __future__ import annotations

import re

from arena.research.speech_reader.guards import ACCORDING, CONDITIONAL, NOT_BELIEVED, QUESTION, REPORTED
from arena.research.speech_reader.seats import L
from arena.research.speech_reader.statement import ACCUSE, DEAD, TARGET, VOTE

_CHUNKS = re.compile(
    r"[;,](?!\s*(?:and|и)?\s*¤)|\s+(?:but|so|because|while|whereas|than)\s+|\s+and\s+(?!¤)|"
    r"\s*(?<![а-я])(?:а|но|потому что|так что|чем)\s+|\s+и\s+(?!¤)"
)
_NEGATION = re.compile(r"\b(?:not|no|never|n't|nobody|none)\b|n't\b|(?<![а-я])(?:не|нет|ни|никогда|никто)(?![а-я])")
_OTHERS_WORDS = re.compile(
    r"\b(?:accused|accuses|called|calls|named|names|says|said|claims|claimed|thinks|according|wants|asked|checked|found|"
    r"if|would|could|might|whether|unless)\b|(?<![а-я])(?:обвинил[а-я]*|назвал[а-я]*|говорит|сказал[а-я]*|"
    r"считает|думает|думал[а-я]*|хочет|проверил[а-я]*|нашел|если|бы|может быть|вдруг|ли)(?![а-я])"
)
_FALLBACK: dict[str, tuple[re.Pattern[str], re.Pattern[str] | None]] = {
    # kind: (the key word, words that must not be in the clause besides the common ones)
    ACCUSE: (
        re.compile(
            r"\b(?:black|mafia|mafioso|don|scum|scummy|liar|lying|lies|lied|suspicious|suspect|rat|shady|fishy|fake|faking|"
            r"wolf|evil|guilty|sus|sussy|sketchy|dodgy|snake|traitor|killer)\b|(?<![а-я])(?:черн[а-я]*|мафи[а-я]*|дон|"
            r"доном|лжец|врет|лжет|врал[а-я]*|соврал[а-я]*|наврал[а-я]*|врун[а-я]*|подозр[а-я]*|нечист[а-я]*|мутн[а-я]*|"
            r"мути[а-я]*|фейк|юлит|темнит|палится|спалил[а-я]*|прокол[а-я]*|скользк[а-я]*|стремн[а-я]*|лжив[а-я]*|"
            r"крыс[а-я]*|предател[а-я]*|самозван[а-я]*)(?![а-я])"
        ),
        re.compile(
            r"\b(?:our|my|i am|i'm|we|we're|killed|shot|kill|shoot|tonight|dead|red|town|trust|clean|checks?|"
            r"sheriff|team|partner|checking|checked|about|took|overnight|hit|last night|died|shooting|killing)\b|"
            r"(?<![а-я])(?:наш[а-я]*|мой|моя|мы|я|убил[а-я]*|"
            r"убит[а-я]*|убрал[а-я]*|"
            r"стреля[а-я]*|ночью|"
            r"мертв[а-я]*|красн[а-я]*|мирн[а-я]*|доверя[а-я]*|провер[а-я]*|шериф[а-я]*|напарни[а-я]*)(?![а-я])"
        ),
    ),
    VOTE: (
        re.compile(
            r"\b(?:vote|voting|nominate|nominating|lynch)\b|(?<![а-я])(?:голос|голосую|голосуем|голосуйте|"
            r"проголосую|проголосуем|выставляю|выставляем)(?![а-я])"
        ),
        re.compile(
            r"\b(?:voted|your|his|her|their|he|she|they|yesterday|tomorrow|who|with|explain|before|after|"
            r"please)\b|¤\d+'s|(?<![а-я])(?:голосовал[а-я]*|твой|ваш|его|ее|их|он|она|они|вчера|кто|свой|свою|"
            r"прошу|поясни|объясн[а-я]*|перед|после|вместе|пожалуйста)(?![а-я])|голос[а-я]*\s+¤\d+ᵃ"
        ),
    ),
    DEAD: (
        re.compile(
            r"\b(?:dead|died|killed|shot|eliminated|lynched|rip|gone|passed|removed|voted out|no longer|buried|"
            r"passed away|rest in peace)\b|(?<![а-я])(?:мертв[а-я]*|умер[а-я]*|убит[а-я]*|убили|застрелили|отстреляли|"
            r"отстрелили|заголосовали|выбыл[а-я]*|погиб[а-я]*|помянем|покойн[а-я]*|скончал[а-я]*|сняли|ушел|ушла|ушли|"
            r"смерт[а-я]*|гибел[а-я]*|труп|покинул[а-я]*|царство небесное|светлая память)(?![а-я])"
        ),
        re.compile(
            r"\b(?:tonight|will|gonna|going|want|wants|try|tries|survived|saved|healed|almost|nearly|who|goes|still|vote|"
            r"voting|"
            r"pretending|alive|"
            r"our shot|the shot)\b|"
            r"(?<![а-я])(?:сегодня|голосую|голосуем|голос|буд[а-я]*|хоч[а-я]*|хотят|попроб[а-я]*|выжил[а-я]*|спас[а-я]*|вылечил[а-я]*|"
            r"чуть|кто)(?![а-я])"
        ),
    ),
    TARGET: (
        re.compile(
            r"\b(?:target|shoot|kill|hit|whack|take out|go for|go after|shot|killing|shooting)\b.*"
            r"\b(?:tonight|at night)\b|"
            r"\b(?:tonight|at night)\b.*\b(?:target|shoot|kill|hit|whack|take out|go for|go after|shot|killing|"
            r"shooting)\b|(?<![а-я])(?:цель|стреляем|убираем|уберем|валим|убьем|бьем|выстрел|мочим|грохнем|"
            r"стреляй|идем|иду)(?![а-я]).*ноч|ноч.*(?<![а-я])(?:цель|стреляем|убираем|уберем|валим|убьем|бьем|"
            r"выстрел|мочим|грохнем|стреляй|идем|иду)(?![а-я])"
        ),
        re.compile(
            r"\b(?:they|mafia|doctor|save|protect|heal|was|were|got|died|last|yesterday|survived|checks?|checked)\b|"
            r"(?<![а-я])(?:они|мафия|доктор|лечи[а-я]*|убили|убит[а-я]*|умер[а-я]*|ушел|ушла|погиб[а-я]*|провер[а-я]*|"
            r"вчера|прошл[а-я]*|был[а-я]*|спас[а-я]*)(?![а-я])"
        ),
    ),
}


# a clause that is a seat alone, set off by a comma or a dash: "number 7", «седьмой номер»
_APPOSITION = re.compile(r"\s*(?:—\s*)?¤\d{1,2}+ᵃ?(?:\s+номер)?\s*[.!]*\s*")
_HEDGE_ASIDE = re.compile(
    r",\s*(?:похоже|кажется|скорее всего|наверное|возможно|по-моему|по ощущениям|i think|probably|maybe|perhaps|"
    r"i guess|i believe|i feel|most likely|clearly|obviously|sadly|unfortunately|к сожалению|увы)\s*,"
)


def read_fallback(sentence: str) -> list[tuple[str, int]]:
    """(kind, seat) read from the clauses of one sentence by the fallback (see above)."""
    sentence = _HEDGE_ASIDE.sub(" ", sentence)  # "восьмой, похоже, лжец": an aside, not a clause
    if QUESTION.match(sentence) or sentence.rstrip().endswith("?") or CONDITIONAL.search(sentence):
        return []
    if ACCORDING.search(sentence):
        return []
    out: list[tuple[str, int]] = []
    cues = [m.start() for p in (_OTHERS_WORDS, REPORTED, NOT_BELIEVED) for m in p.finditer(sentence)]
    start = 0
    before: list[str] = []  # the kinds the clause before stated of no seat ("the sheriff who died, number 7")
    for chunk in _CHUNKS.split(sentence):
        start = sentence.find(chunk, start)
        end = start + len(chunk)
        seats = [int(n) for n in re.findall(r"¤(\d{1,2}+)", chunk)]
        kinds = [] if _NEGATION.search(chunk) or any(c < end for c in cues) else _kinds(chunk)
        if seats and _APPOSITION.fullmatch(chunk):
            out += [(kind, seat) for kind in before for seat in seats]  # a seat alone names the clause before's
        elif seats:
            for kind in kinds:
                if len(set(seats)) > 1 and (kind in (VOTE, TARGET) or not re.fullmatch(r"[^¤]*" + L + r"[^¤]*", chunk)):
                    continue  # one vote, one target; seats apart in one clause play different parts
                out += [(kind, seat) for seat in seats]
        before = kinds if not seats else []
    return out


def _kinds(chunk: str) -> list[str]:
    """The kinds whose key word the clause holds and none of whose vetoes."""
    return [kind for kind, (key, veto) in _FALLBACK.items() if key.search(chunk) and not (veto and veto.search(chunk))]
