"""The free-text speech reader (arena/research/speech_reader/) against labelled corpora of phrasings.

    python bench/speech_reader_eval.py tests/speech_corpus/blind_dev.yaml
    python bench/speech_reader_eval.py tests/speech_corpus/*.yaml --show

A corpus is a YAML list of `{lang, text, says}` entries (the label scheme: tests/speech_corpus/README.md). For every
language and every label kind (and in all), it prints the phrasings, the labels expected, the statements read, the
true reads, precision (true reads / reads) and recall (true reads / labels), each with its Wilson 95 % interval
(scipy's `binomtest(...).proportion_ci(method="wilson")`). A label counts once per phrasing. `--show` lists every
miss (a label not read) and every false read (a statement read but not labelled) with the text, what was expected and
what was read. `--json` prints one JSON object per row instead of the table. `--time` also prints the reader's time per
phrasing: every phrasing read once per pass, the reader's caches emptied before each pass (a figure of the machine's
load: print `uptime` beside it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import yaml
from scipy.stats import binomtest

from arena.research.speech_reader import KINDS, read


@dataclass
class Row:
    lang: str
    kind: str
    phrasings: int = 0
    expected: int = 0
    read: int = 0
    true: int = 0


def wilson(k: int, n: int) -> tuple[float, float]:
    """The Wilson 95 % interval of k successes in n trials ((0, 1) when n is 0: nothing is known)."""
    if n == 0:
        return 0.0, 1.0
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def load(paths: list[str]) -> list[tuple[str, str, str, set[str]]]:
    """(file, lang, text, labels) of every entry of every corpus file."""
    out = []
    for path in paths:
        for entry in yaml.safe_load(Path(path).read_text(encoding="utf-8")) or []:
            out.append((Path(path).name, str(entry["lang"]), str(entry["text"]), {str(s) for s in entry["says"]}))
    return out


def _clear_caches() -> None:
    """Empty every cache of the reader's modules (`functools.cache`, `lru_cache`), so a pass reads afresh."""
    for name, module in list(sys.modules.items()):
        if name.startswith("arena.research.speech_reader"):
            for value in vars(module).values():
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def timing(texts: list[str], passes: int) -> tuple[float, float]:
    """The reader's time per phrasing in microseconds: the best and the mean of `passes` passes over `texts`."""
    per: list[float] = []
    for _ in range(passes):
        _clear_caches()
        start = time.perf_counter()
        for text in texts:
            read(text)
        per.append((time.perf_counter() - start) / max(len(texts), 1) * 1e6)
    return min(per), sum(per) / len(per)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="+", help="YAML corpus files")
    ap.add_argument("--show", action="store_true", help="list the misses and the false reads")
    ap.add_argument("--json", action="store_true", help="one JSON object per row")
    ap.add_argument("--time", type=int, metavar="PASSES", default=0, help="also time the reader over PASSES passes")
    args = ap.parse_args(argv)
    entries = load(args.corpus)
    if args.time:
        best, mean = timing([text for _, _, text, _ in entries], args.time)
        n = len(entries)
        print(f"time per phrasing over {n} phrasings, {args.time} passes: best {best:.0f} µs, mean {mean:.0f} µs")
    langs = sorted({lang for _, lang, _, _ in entries})
    rows = {(lang, kind): Row(lang, kind) for lang in [*langs, "all"] for kind in [*KINDS, "all"]}
    misses: list[tuple[str, str, str, list[str], list[str]]] = []
    for name, lang, text, expected in entries:
        got = {str(s) for s in read(text)}
        for lg in (lang, "all"):
            rows[lg, "all"].phrasings += 1
            for kind in KINDS:
                exp = {s for s in expected if s.split()[0] == kind}
                rd = {s for s in got if s.split()[0] == kind}
                row = rows[lg, kind]
                row.phrasings += bool(exp or rd)
                row.expected += len(exp)
                row.read += len(rd)
                row.true += len(exp & rd)
            row = rows[lg, "all"]
            row.expected += len(expected)
            row.read += len(got)
            row.true += len(expected & got)
        if got != expected:
            misses.append((name, lang, text, sorted(expected - got), sorted(got - expected)))
    header = f"{'lang':4} {'kind':9} {'n':>4} {'labels':>6} {'read':>5} {'true':>5}  {'precision (95% CI)':22}  "
    header += "recall (95% CI)"
    if not args.json:
        print(f"speech reader on {len(entries)} phrasings from {', '.join(args.corpus)}")
        print(header)
    for (lang, kind), r in rows.items():
        if r.expected == 0 and r.read == 0:
            continue
        p_lo, p_hi = wilson(r.true, r.read)
        r_lo, r_hi = wilson(r.true, r.expected)
        precision = r.true / r.read if r.read else float("nan")
        recall = r.true / r.expected if r.expected else float("nan")
        if args.json:
            print(json.dumps({"lang": lang, "kind": kind, "phrasings": r.phrasings, "labels": r.expected,
                              "read": r.read, "true": r.true, "precision": precision, "precision_ci": [p_lo, p_hi],
                              "recall": recall, "recall_ci": [r_lo, r_hi]}))  # fmt: skip
            continue
        print(
            f"{lang:4} {kind:9} {r.phrasings:4} {r.expected:6} {r.read:5} {r.true:5}  "
            f"{precision:.3f} [{p_lo:.3f}, {p_hi:.3f}]    {recall:.3f} [{r_lo:.3f}, {r_hi:.3f}]"
        )
    if args.show and not args.json:
        print(f"\n{len(misses)} phrasings read differently from their labels (missed / read falsely):")
        for name, lang, text, missed, false in misses:
            print(f"- [{name} {lang}] {text}")
            print(f"    missed: {', '.join(missed) or '-'}   false: {', '.join(false) or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
