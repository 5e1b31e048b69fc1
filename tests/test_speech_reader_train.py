"""bench/speech_reader_train.py, the speech reader's learned part: training is deterministic, the threshold is the
lowest that reaches the precision asked, and a model trained on a set reads it. The leave-one-author-out figures
themselves take longer than a test should; the bench prints them (docs/metrics.md)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import yaml

BENCH = Path(__file__).resolve().parent.parent / "bench" / "speech_reader_train.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("speech_reader_train", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _texts(bench: ModuleType, name: str) -> list[Any]:
    entries = yaml.safe_load((bench.CORPUS / f"{name}.yaml").read_text(encoding="utf-8"))
    return [bench.Text("developers", str(e["text"]), {str(s) for s in e["says"]}) for e in entries]


def test_training_is_deterministic_and_reads_what_it_was_trained_on(bench: ModuleType) -> None:
    texts = _texts(bench, "fourth")
    first, second = bench.train(texts, 0.3), bench.train(texts, 0.3)
    assert set(first) == set(bench.CLASSES)
    assert all(np.array_equal(first[c], second[c]) for c in first)
    model = bench.as_model(first, {c: 0.5 for c in first})
    tp, fp, fn, _ = bench.evaluate(texts, model, alone=True)
    assert tp / (tp + fp) > 0.9 and tp / (tp + fn) > 0.6, (tp, fp, fn)  # in sample: it fits


def test_the_threshold_is_the_lowest_reaching_the_precision(bench: ModuleType) -> None:
    scored = [("vote", p, y) for p, y in [(0.95, True), (0.9, True), (0.8, False), (0.7, True), (0.6, False)]]
    assert bench.threshold(scored, 0.75, "seat") == 0.7  # 3 of 4 at 0.7
    assert bench.threshold(scored, 0.9, "seat") == 0.9
    assert bench.threshold(scored, 0.5, "role") == 1.0  # no role read: nothing is read


def test_the_unseen_set_stays_out_of_the_training(bench: ModuleType) -> None:
    # blind_test4's figure is the committed reader's measure on unseen text only while no author trains on it
    trained = {name for names in bench.AUTHORS.values() for name in names}
    corpus = {path.stem for path in bench.CORPUS.glob("*.yaml")}
    assert corpus - trained == {"blind_test4"}, corpus - trained
