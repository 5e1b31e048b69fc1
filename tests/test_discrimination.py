"""Planted seats show what is planted in them, and the discrimination measures (arena/research/discrimination.py)
do what they say; the report's headline holds exactly the metrics docs/metrics.md marks as discriminating. The
bench itself (400 games a family) is bench/discrimination.py."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import numpy as np
import pytest

from arena.agents import BUILTIN
from arena.engine import load_rules
from arena.research.corpus import load_folder
from arena.research.discrimination import POWER, Pool, games_needed, ordered, pool, separated
from arena.research.metrics import HEADLINE, RATES, Counts, measure, rates
from arena.research.planted import FAMILIES, Family, config_name, parse_config, play, play_game
from arena.research.selfplay import deal, play_one

ROOT = Path(__file__).resolve().parent.parent


def _per_config(folder: Path) -> dict[str, Counts]:
    per: dict[str, Counts] = {}
    for g in load_folder(folder).games:
        for seat, counts in measure(g).seats.items():
            per.setdefault(g.configs[seat], Counts()).add(counts)
    return per


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Counts]]:
    root = tmp_path_factory.mktemp("planted")
    out = {}
    for family in ("truth-voter", "leaker", "error-maker", "verbose", "false-claimer"):
        play(family, 6, root / family)
        out[family] = _per_config(root / family)
    return out


def test_every_report_metric_has_a_planted_family() -> None:
    planted = {m for f in FAMILIES.values() for m in f.metrics}
    assert planted == {r.name for r in RATES}
    assert parse_config(config_name("leaker", 0.5)) == ("leaker", 0.5)
    assert parse_config("bot:heuristic") is None and parse_config("planted:nope:1") is None


def test_the_plants_show_at_their_strength(played: dict[str, dict[str, Counts]]) -> None:
    leak = {c.split(":")[-1]: rates(v)["leak_rate"] for c, v in played["leaker"].items() if c.startswith("planted")}
    assert leak["0.00"] == 0.0 and leak["1.00"] > 0.5
    err = {c.split(":")[-1]: rates(v)["error_rate"] for c, v in played["error-maker"].items() if c.startswith("plan")}
    assert err["0.00"] == 0.0 and err["1.00"] > 0.5
    tokens = {c.split(":")[-1]: rates(v)["tokens_per_decision"] for c, v in played["verbose"].items()}
    assert tokens["0.00"] == 220.0 and tokens["1.00"] == 1020.0  # 200 + 800 · level, plus 20 completion tokens
    lies = {c.split(":")[-1]: v for c, v in played["false-claimer"].items()}
    assert lies["1.00"].sheriff_claims_false >= 1 and lies["0.00"].speech_lies <= lies["1.00"].speech_lies
    votes = played["truth-voter"]
    assert rates(votes[config_name("truth-voter", 1.0)])["vote_accuracy"] > rates(
        votes[config_name("truth-voter", 0.0)])["vote_accuracy"]  # fmt: skip


def test_the_plain_level_plays_as_the_heuristic_bot(tmp_path: Path) -> None:
    """Level 0 is the plain bot: the same game as heuristic bots on every seat, event for event."""
    rules = load_rules("fiim")
    for name in ("truth-voter", "leaker", "truth-prober"):
        only_plain = Family(name, FAMILIES[name].side, (0.0, 0.0, 0.0), {})
        asyncio.run(play_game(only_plain, rules, 7, tmp_path / name))
    asyncio.run(play_one(rules, 7, deal(rules, 7), dict.fromkeys(range(1, 11), BUILTIN["bot:heuristic"]),
                         tmp_path / "plain", "plain"))  # fmt: skip
    (plain,) = load_folder(tmp_path / "plain").games
    for name in ("truth-voter", "leaker", "truth-prober"):
        (game,) = load_folder(tmp_path / name).games
        assert [e.model_dump() for e in game.events] == [e.model_dump() for e in plain.events], name


def test_order_is_the_planted_direction_at_every_step() -> None:
    assert ordered([0.1, 0.2, 0.4], 1, (0.0, 1.0))
    assert not ordered([0.1, 0.3, 0.2], 1, (0.0, 1.0))
    assert ordered([0.6, 1.0, 1.0], 1, (0.0, 1.0))  # a tie at the bound (an AUC of 1) is no disorder
    assert not ordered([0.6, 0.6, 0.9], 1, (0.0, 1.0))  # a tie inside is
    assert ordered([0.5, 0.3, 0.0], -1, (0.0, 1.0))
    assert not ordered([0.2, 0.2], 1, (0.0, 1.0)) and not ordered([0.1, 0.2], 0, (0.0, 1.0))


def _bernoulli_pool(p0: float, p1: float, games: int, seed: int = 3) -> Pool:
    rng = np.random.default_rng(seed)
    family = Family("synthetic", "red", (0.0, 1.0), {"vote_accuracy": 1})
    num = {(0.0, "vote_accuracy"): (rng.random(games) < p0).astype(float),
           (1.0, "vote_accuracy"): (rng.random(games) < p1).astype(float)}  # fmt: skip
    den = {key: np.ones(games) for key in num}
    return Pool(family, games, num, den)


def test_games_needed_is_where_the_report_intervals_part_in_80_percent() -> None:
    """One vote a game at 20 % against 60 %: two Wilson intervals part at about 30 games with 80 % power."""
    p = _bernoulli_pool(0.2, 0.6, 2000)
    needed, _ = games_needed(p, "vote_accuracy", seed=1)
    assert needed is not None and 20 <= needed <= 50, needed
    rng = np.random.default_rng(5)
    assert separated(p, "vote_accuracy", needed * 2, rng, 300) >= POWER
    assert separated(p, "vote_accuracy", max(needed // 3, 5), rng, 300) < POWER
    assert games_needed(_bernoulli_pool(0.5, 0.5, 400), "vote_accuracy", seed=1, limit=320)[0] is None


def test_the_pool_reads_each_level_as_a_configuration(tmp_path: Path) -> None:
    play("leaker", 3, tmp_path)
    p = pool(FAMILIES["leaker"], load_folder(tmp_path).games)
    assert p.games == 3
    assert p.num[(0.0, "leak_rate")].sum() == 0 and p.den[(1.0, "leak_rate")].sum() > 0


def test_the_headline_is_the_docs_list_of_discriminating_metrics() -> None:
    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    section = text.split("## Which metrics discriminate", 1)[1].split("\n## ", 1)[0]
    marks = re.finditer(r"^\| `(\w+)` \|.*\| \*\*(yes|no)\*\* \| (yes|no) \|$", section, re.M)
    marked = {m.group(1): (m.group(2), m.group(3)) for m in marks}
    assert set(marked) == {r.name for r in RATES}, "every report metric has a row in the table"
    assert set(HEADLINE) == {m for m, (_, headline) in marked.items() if headline == "yes"}
    assert all(discriminates == "yes" for discriminates, headline in marked.values() if headline == "yes")


def test_the_headline_shows_shares_in_percent_and_scores_as_they_are(tmp_path: Path) -> None:
    from arena.research.report import build, markdown

    play("truth-prober", 3, tmp_path)
    text = markdown(build(tmp_path, boot=10))
    headline = text.split("## Headline", 1)[1].split("\n## ", 1)[0]
    rows = {line.split(" | ")[0].strip("| "): line for line in headline.splitlines() if line.startswith("| ")}
    assert set(rows) - {"metric"} <= set(HEADLINE)
    assert "%" in rows["vote_accuracy"] and "%" not in rows["probe_brier"] and "%" not in rows["probe_logloss"]
