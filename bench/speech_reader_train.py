"""Train the speech reader's learned part and measure it leave-one-author-out.

The corpus (tests/speech_corpus/) was written by four authors: the reader's developers (dev, heldout, fresh, fourth
and the probes), a first blind author (blind_dev, blind_test), a second (blind_test2) and a third (blind_test3). A
reader is only honestly measured on an author whose text it was not developed on, so every figure here holds one
author out: the model is trained on the other authors' sets and read on the held-out author's. Its threshold is
chosen without the held-out author too: on the others, each read by a model trained on the rest, the lowest
threshold at which the model's own reads reach `--precision`. The hand rules were written on the developers' and the
first blind author's text (`RULES_DEVELOPED_ON`), so only the later blind authors' rows are unseen text for them, and
for the whole reader.

    python bench/speech_reader_train.py            # the leave-one-author-out table
    python bench/speech_reader_train.py --write    # also train on every author and write the committed weights

The committed model is trained on every author, with the threshold chosen the same way over the held-out
readings. Training is deterministic (L-BFGS from zero weights on a fixed feature order).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import yaml
from scipy.optimize import minimize
from scipy.sparse import csr_matrix

from arena.research.speech_reader import normalise
from arena.research.speech_reader.learned import (
    BITS,
    ROLE_CLASSES,
    SEAT_CLASSES,
    WEIGHTS,
    Model,
    hashed,
    role_features,
    ruled_kinds,
    seat_features,
)
from arena.research.speech_reader.reader import learned, merge, read_rules

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "speech_corpus"
AUTHORS = {
    "developers": ["dev", "heldout", "fresh", "fourth", *(f"probe{i}" for i in range(1, 15))],
    "blind author 1": ["blind_dev", "blind_test"],
    "blind author 2": ["blind_test2"],
    "blind author 3": ["blind_test3"],
}
RULES_DEVELOPED_ON = ("developers", "blind author 1")  # the hand rules were revised on these authors' text
CLASSES = (*SEAT_CLASSES, *(f"role {r}" for r in ROLE_CLASSES))


class Text:
    """One phrasing: its author, normalised text, labels, and the feature indices of each example it gives."""

    def __init__(self, author: str, text: str, says: set[str]) -> None:
        self.author, self.raw, self.says = author, text, says
        self.norm = normalise(text)
        self.rules = read_rules(text)
        self.ruled = ruled_kinds([(s.kind, s.seat, s.value) for s in self.rules])
        seats = sorted({int(n) for n in re.findall(r"¤(\d{1,2})", self.norm)})
        self.examples: list[tuple[str, list[int], set[str]]] = [
            ("role", hashed(role_features(self.norm)), {f"role {s.split()[1]}" for s in says if s.startswith("role ")})
        ]
        for seat in seats:
            labels = set()
            for s in says:
                parts = s.split()
                if len(parts) >= 2 and parts[0] != "role" and int(parts[1]) == seat:
                    labels.add(f"check {parts[2]}" if parts[0] == "check" else parts[0])
            self.examples.append(("seat", hashed(seat_features(self.norm, seat, self.ruled)), labels))


def load() -> list[Text]:
    out = []
    for author, names in AUTHORS.items():
        for name in names:
            for entry in yaml.safe_load((CORPUS / f"{name}.yaml").read_text(encoding="utf-8")):
                out.append(Text(author, str(entry["text"]), {str(s) for s in entry["says"]}))
    return out


def _matrix(texts: Sequence[Text], unit: str) -> tuple[csr_matrix, list[set[str]]]:
    cols: list[list[int]] = []
    labels: list[set[str]] = []
    for t in texts:
        for u, idx, lab in t.examples:
            if u == unit:
                cols.append(sorted(set(idx)))
                labels.append(lab)
    indptr = np.cumsum([0, *(len(c) for c in cols)])
    flat = np.fromiter((i for c in cols for i in c), dtype=np.int64, count=int(indptr[-1]))
    return csr_matrix((np.ones(len(flat)), flat, indptr), shape=(len(cols), 1 << BITS)), labels


def _fit(x: csr_matrix, y: np.ndarray, l2: float) -> np.ndarray:
    """L2-penalised logistic regression by L-BFGS from zero: the weights (zero on the columns no row uses)."""
    used = np.unique(x.indices)
    full = x
    x = x[:, used]
    s = 2.0 * y - 1.0
    xt = x.T.tocsr()

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ w
        m = -s * z
        f = float(np.sum(np.logaddexp(0.0, m)) + 0.5 * l2 * w @ w)
        g = xt @ (-s / (1.0 + np.exp(-m))) + l2 * w
        return f, g

    res = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 500})
    w = np.zeros(full.shape[1])
    w[used] = res.x
    return w


PRUNE = 0.05  # weights nearer zero are dropped (the committed file stays small); every figure is measured without them


def train(texts: Sequence[Text], l2: float) -> dict[str, np.ndarray]:
    """Each class's weights, rounded to 3 decimals, those under PRUNE in size zeroed."""
    out = {}
    for unit, classes in (("seat", SEAT_CLASSES), ("role", [f"role {r}" for r in ROLE_CLASSES])):
        x, labels = _matrix(texts, unit)
        for c in classes:
            w = np.round(_fit(x, np.array([c in lab for lab in labels], dtype=float), l2), 3)
            w[np.abs(w) < PRUNE] = 0.0
            out[c] = w
    return out


def as_model(weights: dict[str, np.ndarray], thresholds: dict[str, float]) -> Model:
    return {c: ({int(i): float(w[i]) for i in np.flatnonzero(w)}, thresholds[c]) for c, w in weights.items()}


def _probs(weights: dict[str, np.ndarray], texts: Sequence[Text]) -> list[tuple[str, float, bool]]:
    """(class, probability, labelled) of every example of every class: for choosing a threshold."""
    out = []
    for t in texts:
        for unit, idx, lab in t.examples:
            cols = sorted(set(idx))
            for c in SEAT_CLASSES if unit == "seat" else [f"role {r}" for r in ROLE_CLASSES]:
                z = float(np.sum(weights[c][cols]))
                out.append((c, 1.0 / (1.0 + np.exp(-z)), c in lab))
    return out


def threshold(scored: list[tuple[str, float, bool]], precision: float, unit: str) -> float:
    """The lowest threshold (at least 0.05) at which the unit's reads (the seat classes, or the role classes)
    reach `precision`."""
    pts = sorted(((p, y) for c, p, y in scored if c.startswith("role") == (unit == "role")), reverse=True)
    best, tp = 1.0, 0
    for n, (p, y) in enumerate(pts, 1):
        tp += y
        if p >= 0.05 and tp / n >= precision:
            best = p
    return best


def thresholds_for(
    weights: dict[str, np.ndarray], scored: list[tuple[str, float, bool]], precision: float, role_precision: float
) -> dict[str, float]:
    seat, role = threshold(scored, precision, "seat"), threshold(scored, role_precision, "role")
    return {c: role if c.startswith("role") else seat for c in weights}


def inner_scored(texts: Sequence[Text], l2: float) -> list[tuple[str, float, bool]]:
    """Each author's examples scored by a model trained on the other authors in `texts`."""
    out = []
    for author in sorted({t.author for t in texts}):
        rest = [t for t in texts if t.author != author]
        out += _probs(train(rest, l2), [t for t in texts if t.author == author])
    return out


def evaluate(
    texts: Sequence[Text], model: Model | None, alone: bool = False
) -> tuple[int, int, int, dict[str, tuple[int, int, int]]]:
    """(tp, fp, fn, per kind) of the reader (the rules alone when `model` is None) over `texts`."""
    tp = fp = fn = 0
    kinds: dict[str, list[int]] = {}
    for t in texts:
        rules = t.rules if not alone else ()
        got = {str(s) for s in (merge(rules, learned(t.raw, t.rules, model)) if model is not None else rules)}
        tp += len(got & t.says)
        fp += len(got - t.says)
        fn += len(t.says - got)
        for s in got | t.says:
            k = kinds.setdefault(s.split()[0], [0, 0, 0])
            k[0 if s in got and s in t.says else 1 if s in got else 2] += 1
    return tp, fp, fn, {k: (v[0], v[1], v[2]) for k, v in kinds.items()}


def _pr(tp: int, fp: int, fn: int) -> str:
    return f"precision {tp / max(tp + fp, 1):.3f}  recall {tp / max(tp + fn, 1):.3f}  (tp {tp}, fp {fp}, fn {fn})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--precision", type=float, default=0.85, help="the model's own precision its threshold must reach")
    ap.add_argument("--only", help="hold out this author only (quicker)")
    ap.add_argument("--role-precision", type=float, default=0.9, help="the same for the role claims")
    ap.add_argument("--l2", type=float, default=0.3, help="the L2 penalty")
    ap.add_argument("--write", action="store_true", help="train on every author and write the committed weights")
    ap.add_argument("--show", action="store_true", help="list each held-out author's misses and false reads")
    ap.add_argument("--kinds", action="store_true", help="also print each held-out author's figures per kind")
    args = ap.parse_args(argv)
    if args.write and args.only:
        ap.error("--write takes every author's held-out thresholds: not with --only")
    texts = load()
    print(f"leave-one-author-out over {len(texts)} phrasings (l2 {args.l2}, the model's precision >= {args.precision})")
    outer: list[dict[str, float]] = []
    for author in [args.only] if args.only else AUTHORS:
        rest = [t for t in texts if t.author != author]
        held = [t for t in texts if t.author == author]
        weights = train(rest, args.l2)
        th = thresholds_for(weights, inner_scored(rest, args.l2), args.precision, args.role_precision)
        outer.append(thresholds_for(weights, _probs(weights, held), args.precision, args.role_precision))
        r = evaluate(held, None)
        m = evaluate(held, as_model(weights, th))
        print(f"{author} ({len(held)} phrasings), thresholds seat {th['vote']:.3f} role {th['role red']:.3f}")
        print(
            f"  rules alone       {_pr(*r[:3])}"
            + ("   (developed on this author)" if author in RULES_DEVELOPED_ON else "")
        )
        print(f"  model alone       {_pr(*evaluate(held, as_model(weights, th), alone=True)[:3])}")
        print(f"  rules and model   {_pr(*m[:3])}")
        if args.show:
            mm = as_model(weights, th)
            for t in held:
                got = {str(s) for s in merge(t.rules, learned(t.raw, t.rules, mm))}
                if got != t.says:
                    print(
                        f"  - {t.raw}\n      missed: {', '.join(sorted(t.says - got)) or '-'}"
                        f"   false: {', '.join(sorted(got - t.says)) or '-'}"
                    )
        if args.kinds:
            for kind, (tp, fp, fn) in sorted(m[3].items()):
                rt, rf, rn = r[3].get(kind, (0, 0, 0))
                print(
                    f"    {kind:9} rules {rt / max(rt + rf, 1):.3f}/{rt / max(rt + rn, 1):.3f}   "
                    f"with model {tp / max(tp + fp, 1):.3f}/{tp / max(tp + fn, 1):.3f}  (labels {tp + fn})"
                )
    if args.write:
        weights = train(texts, args.l2)
        th = {c: max(t[c] for t in outer) for c in weights}
        data = {
            "about": "bench/speech_reader_train.py --write: logistic regressions over hashed features "
            f"(2**{BITS}), trained on all {len(texts)} phrasings; l2 {args.l2}; thresholds for the model's own "
            f"precision >= {args.precision} leave-one-author-out",
            "classes": {c: {"threshold": th[c],
                            "w": {str(i): float(w[i]) for i in np.flatnonzero(w)}}
                        for c, w in weights.items()},
        }  # fmt: skip
        WEIGHTS.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {WEIGHTS} ({WEIGHTS.stat().st_size} bytes)")
        print(f"thresholds seat {th['vote']:.3f} role {th['role red']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
