"""What turns a match into something other than the speaker's own statement: a condition, another's words reported, a
belief denied, a negation, a question, a third person's vote; and the split of a text into sentences, a pronoun read
as the seat the sentence before named."""

from __future__ import annotations

import re
from functools import lru_cache

from arena.research.speech_reader.seats import OBJECT

CONDITIONAL = re.compile(  # a conditional: not the speaker's statement ("если что", "just in case", is none)
    r"\b(?:if(?! you ask me| you want my opinion| i'm honest| i am honest)|"
    r"would(?! like| love| say| argue| suggest| point))\b|"
    r"(?<![а-я])(?:бы(?!\s+ни(?![а-я]))|будь|если(?!\s+что(?![а-я])|\s+хотите знать|\s+честно|\s+коротко))(?![а-я])|"
    r"\b(?:was|were)\s+(?:going to|gonna|about to)\b|\bwanted to\b|(?<![а-я])(?:собирал(?:ся|ась)|хотел[а]?)(?![а-я])"
)
REPORTED = re.compile(  # another seat's words reported (the game's or the host's words are the record)
    r"\b(?:(?<!game )(?<!host )(?<!judge )(?<!check )(?<!investigation )(?<!result )(?<!gut )(?<!instinct )says|claims|"
    r"claimed|(?<!gut )(?<!instinct )tells|thinks|"
    r"believes)\b|"
    r"\b(?:said|say)\s+(?:that\s+)?i\b|(?<!\bi )(?<!\bas i )(?<!\bi've )(?<!\bi have )\bsaid\b(?!,)|\bi thought\b|"
    r"(?<!я )(?<!как )(?<!я уже )сказал[а]?(?![а-я])|"
    r"(?:¤\d{1,2}+|\bhe|\bshe|\bthey)\s+(?:is\s+|are\s+|was\s+)?claiming\b|"
    r"(?<![а-я])(?:говорит|говорят|утверждает|утверждают|заявляет|заявляется|заявился|называет|называют|считает|"
    r"считают|думает|думают|думал[аи]?|считал[аи]?)(?![а-я])|\b(?:people|everyone|everybody|they|others)\s+(?:say|think)\b|"
    r"(?<![а-я])(?:говорил|сказал)[а-я]*,?\s+что(?![а-я])"
)
NOT_BELIEVED = re.compile(
    r"\bneither\b|(?<![а-я])ни\s+¤|"
    r"\b(?:don't|do not|doesn't|does not|never|can't|cannot)\s+(?:really\s+)?(?:think|believe|suspect|feel|say)\b|"
    r"(?<![а-я])не\s+(?:думаю|считаю|верю,? что|кажется|скажу|могу сказать|говорю|утверждаю|обвиняю|"
    r"уверен[а]?)(?![а-я])|"
    r"\b(?:not|never)\s+(?:saying|claiming|accusing|sure)\b"
)
ACCORDING = re.compile(r"\baccording to\s+¤|(?<![а-я])по словам\s+¤")
_IF_AFTER = re.compile(
    r"^,?\s*(?!if you know what i mean|if you catch my drift|если (?:вы |ты )?понимаете|если понимаешь)"
    r"(?:if|если(?!\s+что(?![а-я])))\b(?![^.]*(?:\bnot\b|n't\b|(?<![а-я])не(?![а-я])))"
)
CLAUSE = re.compile(
    r",?\s+(?:but|although|though|while|whereas)\s+|;\s*|,\s*(?:но|а|хотя|однако)\s+|:\s+|"
    r",\s*(?=(?:if|unless|если)\b)"
)


NEGATED_BEFORE = re.compile(
    r"(?:\bnot|\bdon't|\bdo not|\bnever|\bwon't|\bwill not|\bcan't|(?<![а-я])не|(?<![а-я])никогда)"
    r"(?:\s+(?:be|going to|want to|буду|будем|стану|хочу|надо|нужно|стоит|собираюсь|to))?\s*$"
)
QUESTION = re.compile(
    r"^\s*(?:(?:so|and|but|then|а|и|так|ну)\s*,?\s*)?(?:is|are|was|were|do|does|did|who|why|what|how|can|could|"
    r"should|will|would|have|has|кто|почему|зачем|что|как|разве|неужели|может)\b[^.!]*\?\s*$"
    r"|^[^.!]*(?<![а-я])ли(?![а-я])[^.!]*\?\s*$|^\s*¤\d{1,2}+ᵃ?\s+(?:черн[а-я]*|мафи[а-я]*|black|mafia)\s*\?\s*$"
)
_SUBJECT = re.compile(
    r"\b(?P<me>i|i'm|i'll|i've|i'd|we|we'll|let's|everyone|everybody|all|guys|town|my|me)\b|(?<![а-я])(?P<ru_me>я|мы|"
    r"давайте|все|мой|моя|мне|меня)(?![а-я])|\b(?P<they>he|she|they)\b|(?<![а-я])(?P<ru_they>он|она|они)(?![а-я])|"
    r"(?<!for )(?<!against )(?<!with )(?<!за )(?<!против )(?P<seat>¤\d{1,2}+)(?!ᵃ)"
)


def third_person(sentence: str, start: int) -> bool:
    """Whether the last subject before `start` in its clause is another seat or a third person."""
    low = max((m.end() for m in CLAUSE.finditer(sentence, 0, start)), default=0)
    last = None
    for m in _SUBJECT.finditer(sentence, low, start):
        last = m
    return last is not None and last.lastgroup in {"they", "ru_they", "seat"}


NEGATED_AFTER = re.compile(r"\s*(?:не\s+(?:буду|будем|стану|станем|хочу|надо|нужно|стоит)|not\b)")
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")


_THAT = re.compile(r"^(?:that|this|это)\s+(?:is\s+|очень\s+|very\s+)*(?:suspicious|подозрительно)")
_PRONOUN = re.compile(r"\b(?:him|he|she|her)\b|(?<![а-я])(?:он|она|него|нему|ним|его|ему|ей|ее)(?![а-я])")


_OBJECT_PRONOUN = re.compile(  # the object of the speaker's vote or trust ("I'm voting her", "I don't trust him")
    r"\b((?:voting|vote|vote for|vote against|trust|believe|suspect|nominate|nominating|like|kill|shoot|hit|whack|"
    r"hear)\s+)"
    r"(?:him|her)\b"
)


_SUBJECT_PRONOUN = re.compile(  # a pronoun saying what the one seat named is ("seat four — I think he's mafia")
    r"\b(?:he|she)(?=(?:'s|\s+is|\s+looks|\s+seems|\s+must|\s+has to|\s+reads|\s+feels|\s+died|\s+was killed|"
    r"\s+was shot|\s+got shot|\s+got killed|\s+was voted out|\s+was lynched)\b)|"
    r"(?<![а-я])(?:он|она)(?=\s+(?:явно|точно|тоже|наверняка|однозначно|и есть|100%)\s)"
)


_RU_OBJECT_PRONOUN = re.compile(  # «ночью бей его», «голосую за него»
    r"(?<![а-я])((?:бей|убей|вали|грохни|стреляй в|стреляй|убери|голосую за|голосуем за|голосую против)\s+)"
    r"(?:его|ее|него|нее)(?![а-я])"
)
_GONE_PRONOUN = re.compile(r"(?<![а-я])(?:его|ее)(?=\s+(?:же\s+|уже\s+|больше\s+)*нет(?![а-я]))")
# a question answered by the next sentence: "My vote? The fifth." reads "my vote: the fifth."
_ASKED_AND_ANSWERED = re.compile(r"\b(my vote|my pick|my choice|мой голос|мой выбор)\s*\?\s+")


def split_sentences(text: str) -> list[str]:
    """The sentences of a normalised text, a pronoun in a sentence that names no seat read as the one seat the
    sentence before named ("I checked 8. He is red.", "Seat 6 says he is the doctor. I don't believe him.")."""
    out: list[str] = []
    previous: set[str] = set()
    text = _ASKED_AND_ANSWERED.sub(r"\1: ", text)
    for sentence in (s for s in _SENTENCES.split(text) if s.strip()):
        seats = set(re.findall(r"¤\d{1,2}+", sentence))
        if not seats and len(previous) == 1:
            seat = next(iter(previous))
            sentence = _PRONOUN.sub(seat, _THAT.sub(seat + " is suspicious", sentence))
        elif len(seats) == 1:  # "the lady in seat 4 — I'm voting her": a pronoun after the one seat named
            seat = next(iter(seats))
            at = sentence.index(seat) + len(seat)
            rest = _OBJECT_PRONOUN.sub(r"\g<1>" + seat, sentence[at:])
            rest = _RU_OBJECT_PRONOUN.sub(r"\g<1>" + seat + OBJECT, rest)
            rest = _GONE_PRONOUN.sub(seat + OBJECT, _SUBJECT_PRONOUN.sub(seat, rest))
            sentence = sentence[:at] + rest  # "don't listen to 2, he's obviously black"
        out.append(sentence)
        previous = seats or previous
    return out


def guarded(sentence: str, start: int, end: int) -> bool:
    """Whether sentence[start:end] is not the speaker's own statement: its clause is a conditional, or reports
    another's words before it ("seat 4 says he checked 6", "according to 5, ..."), or the clause after it makes it
    conditional ("I'll vote 6, if the sheriff confirms"; "unless" and "if ... not" keep it)."""
    low, high, following = 0, len(sentence), ""
    for m_start, m_end in _starts(CLAUSE, sentence):
        if m_end <= start:
            low = m_end
        elif m_start >= end:
            high, following = m_start, sentence[m_start:]
            break
    clause = sentence[low:high]
    if _starts(CONDITIONAL, clause) or _IF_AFTER.match(following):
        return True
    if any(r < end - low for r, _ in _starts(REPORTED, clause)):
        return True
    if any(n < start - low for n, _ in _starts(NOT_BELIEVED, clause)):
        return True  # "I don't think 1 is mafia"
    return any(a < start for a, _ in _starts(ACCORDING, sentence))


@lru_cache(maxsize=4096)
def _starts(pattern: re.Pattern[str], text: str) -> tuple[tuple[int, int], ...]:
    """The spans of `pattern` in `text`, kept: a sentence's many matches ask the same of it (linear, not quadratic)."""
    return tuple(m.span() for m in pattern.finditer(text))
