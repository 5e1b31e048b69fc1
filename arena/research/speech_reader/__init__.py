"""What a speech says, read from its free text: role claims, claimed checks, stated votes, seats called dead or
addressed as alive, accusations, teammates named and night targets named, in English and Russian.

The reader is deterministic so a figure built on it can be reproduced: hand-written constructions (regular
expressions over a normalised text) and a learned part (logistic regressions over hashed features of each seat
mention's window, weights committed in `weights.json`, nothing learned at run time) whose reads the rules' guards must
leave to the speaker. It reads what the speaker says of himself and of seats ("I checked 5, red", «проверил пятого —
красный», "I will vote 4", "seat 3 was killed"); what he reports of others ("seat 4 says he checked 6"),
hypotheticals ("if I were the sheriff") and negations ("I am not the sheriff") are not statements of his. Its
precision and recall on a labelled corpus of phrasings are measured by `tests/test_speech_reader.py` (the corpus is
`tests/speech_corpus/`; docs/metrics.md has the figures, on text it was revised on and on text it had not seen).

| module | job |
|---|---|
| `statement.py` | the kinds of statement and `Statement` |
| `seats.py` | normalisation: lower case, misspellings, every mention of a seat as a token `¤N` |
| `guards.py` | what makes a match not the speaker's statement (a condition, others' words, a negation); sentences |
| `claims.py` | the speaker's role claims and the checks he says he made |
| `votes.py` | the constructions of a stated vote or nomination, and of a seat addressed as alive |
| `deaths.py` | the constructions of a seat called dead, and of a night's target named |
| `accusations.py` | the constructions of an accusation, and of a black teammate named |
| `fallback.py` | a clause that names seats and holds a kind's key word, when no construction matched |
| `learned.py` | the learned part: its features, its committed weights (`weights.json`, bench/speech_reader_train.py) |
| `reader.py` | `read(text)`: the rules' statements and the learned part's, merged, each once |

It imports nothing of `arena` outside itself (the standard library only): it reads a string, whatever holds it.
The honest figures are leave-one-author-out: `python bench/speech_reader_train.py` (docs/metrics.md).
"""

from arena.research.speech_reader.reader import read
from arena.research.speech_reader.seats import OBJECT, normalise
from arena.research.speech_reader.statement import (
    ACCUSE,
    ALIVE,
    CHECK,
    DEAD,
    KINDS,
    MAX_SEAT,
    ROLE,
    TARGET,
    TEAMMATE,
    VOTE,
    Statement,
)

__all__ = [
    "ACCUSE", "ALIVE", "CHECK", "DEAD", "KINDS", "MAX_SEAT", "OBJECT", "ROLE", "TARGET", "TEAMMATE", "VOTE",
    "Statement", "normalise", "read",
]  # fmt: skip
