"""The learned part of the reader: a logistic regression per kind over hashed features of each seat mention's
window (what the speaker says of that seat) and of the whole text (the role he claims).

The rules read what they were written for precisely, and miss phrasings their authors never saw (a list "3, 6 and
10" after "best move:", «голос туда»). The model reads the relation between the speaker and a seat from the words
around its mentions: word positions, a bag of the sentence's words and their character n-grams (Russian endings
carry the case and the person). Its weights are trained by `bench/speech_reader_train.py` on the labelled corpus and
committed as `weights.json`; nothing is learned at run time, and the sums run in a fixed order, so the same text
reads the same. A statement is read when its probability reaches the kind's threshold, chosen for precision in
leave-one-author-out evaluation (bench/speech_reader_train.py's docstring).
"""

from __future__ import annotations

import json
import math
import re
import zlib
from functools import cache
from pathlib import Path

# the kinds the model reads per seat (a check split by colour), and per text (the roles)
SEAT_CLASSES = ("check black", "check red", "vote", "dead", "alive", "accuse", "teammate", "target")
ROLE_CLASSES = ("sheriff", "doctor", "civilian", "red", "mafia", "don", "maniac", "lover")
BITS = 18
WEIGHTS = Path(__file__).with_name("weights.json")

_TOKEN = re.compile(r"¤\d{1,2}ᵃ?|[a-zа-я0-9']+|[.,!?;:—()]")
_SEAT = re.compile(r"¤(\d{1,2})(ᵃ?)")
_JOIN = frozenset({",", "and", "и", "or", "или", "&", "—"})  # what joins the seats of a list ("1, 4 and 9")
_STOP = frozenset({".", "!", "?", ";"})


def _tokens(text: str, seat: int) -> tuple[list[str], list[int]]:
    """The text's tokens, the seat as `@S` and any other seat as `@O` (`ᵃ` kept: a Russian object case), and the
    seat each token names (0: none)."""
    out, seats = [], []
    for tok in _TOKEN.findall(text):
        m = _SEAT.fullmatch(tok)
        out.append(tok if m is None else ("@S" if int(m.group(1)) == seat else "@O") + m.group(2))
        seats.append(0 if m is None else int(m.group(1)))
    return out, seats


def _grams(word: str, prefix: str) -> list[str]:
    w = f"<{word}>"
    return [f"{prefix}{w[i : i + n]}" for n in (3, 4) for i in range(len(w) - n + 1)]


def _is_seat(tok: str) -> bool:
    return tok.startswith("@")


def seat_features(text: str, seat: int, ruled: dict[int, set[str]]) -> list[str]:
    """The features of what `text` (normalised) says of `seat`: the union over its mentions, sorted. `ruled`: what
    the rules read of each seat (a list's seats share what the rules read of one: "6 and 8 are black")."""
    toks, named = _tokens(text, seat)
    feats: set[str] = {"bias"}
    for i, tok in enumerate(toks):
        if not tok.startswith("@S"):
            continue
        feats.add("case" + tok[2:])
        # a list's seats share its context: step over the other seats it joins
        start = i
        while start >= 2 and toks[start - 1] in _JOIN and _is_seat(toks[start - 2]):
            start -= 2
        end = i
        while end + 2 < len(toks) and toks[end + 1] in _JOIN and _is_seat(toks[end + 2]):
            end += 2
        if start != i or end != i:
            feats.add("inlist")
        if start != i:
            feats.add("notfirst")
        for j in range(start, end + 1):
            if named[j] and named[j] != seat:
                feats.update(f"mate={k}" for k in ruled.get(named[j], ()))
        sent_start = start
        while sent_start > 0 and toks[sent_start - 1] not in _STOP:
            sent_start -= 1
        sent_end = end
        while sent_end + 1 < len(toks) and toks[sent_end] not in _STOP:
            sent_end += 1
        left = toks[max(sent_start, start - 8) : start]
        right = toks[end + 1 : min(sent_end + 1, end + 9)]
        feats.add("first" if sent_start == start else "notfirst_in_sentence")
        for k, w in enumerate(reversed(left[-4:]), 1):
            feats.add(f"l{k}={w}")
        for k, w in enumerate(right[:4], 1):
            feats.add(f"r{k}={w}")
        if len(left) >= 2:
            feats.add(f"l21={left[-2]}_{left[-1]}")
        if len(right) >= 2:
            feats.add(f"r12={right[0]}_{right[1]}")
        feats.add(f"n-1={toks[i - 1] if i else '^'}")
        feats.add(f"n+1={toks[i + 1] if i + 1 < len(toks) else '$'}")
        for w in left:
            feats.add(f"L={w}")
            feats.update(_grams(w, "Lc="))
        for w in right:
            feats.add(f"R={w}")
            feats.update(_grams(w, "Rc="))
        # the next sentence's words ("I checked 7 and 8. Both red.")
        after = (
            toks[sent_end + 1 : sent_end + 6] if not any(_is_seat(t) for t in toks[sent_end + 1 : sent_end + 6]) else []
        )
        for w in after:
            feats.add(f"N={w}")
        for w in toks[sent_start : sent_end + 1]:
            if not _is_seat(w):
                feats.update(_grams(w, "Sc="))
    for w in toks:
        if not _is_seat(w) and len(w) > 2:
            feats.add(f"T={w}")
    return sorted(feats)


def ruled_kinds(statements: list[tuple[str, int, str]]) -> dict[int, set[str]]:
    """What the rules read of each seat, as the model's classes ("check black", "vote")."""
    out: dict[int, set[str]] = {}
    for kind, seat, value in statements:
        if seat:
            out.setdefault(seat, set()).add(f"{kind} {value}" if kind == "check" else kind)
    return out


def role_features(text: str) -> list[str]:
    """The features of the role a text (normalised) may claim: its words, word pairs and their n-grams, sorted."""
    toks = _tokens(text, 0)[0]
    feats: set[str] = {"bias"}
    for i, w in enumerate(toks):
        feats.add(f"W={w}")
        if i + 1 < len(toks):
            feats.add(f"B={w}_{toks[i + 1]}")
        if not _is_seat(w):
            feats.update(_grams(w, "c="))
        if i < 3:
            feats.add(f"head={w}")
    return sorted(feats)


def hashed(features: list[str]) -> list[int]:
    """Each feature's index in a space of 2**BITS (CRC-32: the same on every machine and run)."""
    mask = (1 << BITS) - 1
    return [zlib.crc32(f.encode()) & mask for f in features]


Model = dict[str, tuple[dict[int, float], float]]  # per class: weights by feature index, and a threshold


@cache
def committed() -> Model:
    """The committed model (`weights.json`)."""
    data = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    return {c: ({int(k): v for k, v in d["w"].items()}, float(d["threshold"])) for c, d in data["classes"].items()}


def score(model: Model, klass: str, indices: list[int]) -> tuple[float, float]:
    """The class's probability for these feature indices (each once, as trained), and its threshold."""
    weights, threshold = model[klass]
    z = math.fsum(weights.get(i, 0.0) for i in indices)
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z)))), threshold


def read_learned(text: str, ruled: dict[int, set[str]], model: Model | None = None) -> list[tuple[str, int, str]]:
    """(kind, seat, value) the model reads in `text` (normalised), given what the rules read of each seat: roles
    first, then each seat's relations."""
    model = committed() if model is None else model
    found: list[tuple[str, int, str]] = []
    rf = sorted(set(hashed(role_features(text))))
    for role in ROLE_CLASSES:
        p, t = score(model, "role " + role, rf)
        if p >= t:
            found.append(("role", 0, role))
    for seat in sorted({int(n) for n in re.findall(r"¤(\d{1,2})", text)}):
        sf = sorted(set(hashed(seat_features(text, seat, ruled))))
        probs = {c: score(model, c, sf) for c in SEAT_CLASSES}
        black, red = probs["check black"], probs["check red"]
        for c, (p, t) in probs.items():
            if p < t:
                continue
            if c.startswith("check"):
                if (c == "check black" and black[0] < red[0]) or (c == "check red" and red[0] <= black[0]):
                    continue  # one colour per check: the likelier
                found.append(("check", seat, c.split()[1]))
            else:
                found.append((c, seat, ""))
    return found
