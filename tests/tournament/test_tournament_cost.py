"""The cost estimate's sample: calibration plays the schedule in an order whose every prefix spreads over it, stops
on a stratified standard error, and the stand-in it plays against answers a repeated request another way."""

from __future__ import annotations

import json
import statistics
import urllib.request
from pathlib import Path

import pytest

from arena.standin import FakeServer
from arena.tournament.cost import MAX_GAMES, MIN_GAMES, calibrate, estimate, spread, stratified_rse
from arena.tournament.model import load_tournament
from arena.tournament.schedule import make_schedule


@pytest.mark.parametrize("n", [1, 2, 7, 10, 64, 100])
def test_spread_is_a_permutation_whose_prefixes_cover_the_range(n: int) -> None:
    order = spread(n)
    assert sorted(order) == list(range(n))
    for k in range(2, n + 1):
        prefix = sorted(order[:k])
        gaps = [b - a for a, b in zip([-1, *prefix], [*prefix, n], strict=True)]
        assert max(gaps) <= 2 * n / k + 1  # no long stretch of the schedule is left out of any prefix


def test_stratified_standard_error_removes_the_spread_between_seatings() -> None:
    a, b = (("x",), ("civilian",)), (("y",), ("mafia",))
    values = [10.0, 10.2, 9.8, 30.0, 30.3, 29.7]  # two seatings, costs far apart, close within each
    strata = [a, a, a, b, b, b]
    stratified = stratified_rse(values, strata, {a: 0.5, b: 0.5})
    naive = statistics.stdev(values) / len(values) ** 0.5 / statistics.fmean(values)
    assert 0 < stratified < naive / 10
    assert stratified_rse([5.0], [a], {a: 1.0}) == 0.0


def _post(url: str, body: dict[str, object]) -> str:
    request = urllib.request.Request(url + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=10) as response:
        return str(json.loads(response.read())["choices"][0]["message"]["content"])


def test_the_stand_in_varies_a_repeated_request_only_when_asked() -> None:
    schema = {"type": "object", "properties": {"target": {"type": "integer", "enum": list(range(1, 11))},
              "reasoning": {"type": "string"}}, "required": ["reasoning", "target"], "additionalProperties": False}
    body = {"model": "m", "messages": [{"role": "user", "content": "vote"}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "vote_decision", "schema": schema}}}
    with FakeServer() as fixed, FakeServer(vary=True) as varied, FakeServer(vary=True, salt="s") as salted:
        same = [_post(fixed.base_url, body) for _ in range(6)]
        draws = [_post(varied.base_url, body) for _ in range(6)]
        other = _post(salted.base_url, body)
    assert len(set(same)) == 1
    assert draws[0] == same[0]  # the first draw is the plain stand-in's answer
    assert len(set(draws)) > 1 and other != draws[0]  # then other draws; another salt, other answers


def test_calibration_reports_its_sample(tmp_path: Path) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "fake.toml").write_text('kind = "llm"\nmodel = "fake-model"\nbase_url = "http://127.0.0.1:9/v1"\n'
                                      "price_input_per_m = 1.0\nprice_output_per_m = 4.0\n")  # fmt: skip
    spec = tmp_path / "t.toml"
    spec.write_text('name = "c"\ngames = 12\nseed = 1\nfiller = "bot:heuristic"\n'
                    '[[pool]]\nlabel = "a"\nagent = "fake"\n[[pool]]\nlabel = "b"\nagent = "bot:random"\n')  # fmt: skip
    t = load_tournament(spec, agents)
    plans = make_schedule([c.label for c in t.configs], t.filler.label, t.rules, 12, t.file.seed, kind="seats")
    figures = calibrate(t, plans, 3)
    assert MIN_GAMES <= figures.games <= min(MAX_GAMES, 12)
    assert 0 < figures.rse < 1
    assert figures["a"].calls > 0 and figures["a"].usd > 0 and "b" not in figures
    guess = estimate(t, plans, figures, 3)
    assert guess.calibration_games == figures.games and guess.rse == figures.rse
    assert guess.total.usd == pytest.approx(figures["a"].usd * 12)  # one seat of "a" per game
    assert json.loads(json.dumps(guess.as_json()))["relative_standard_error"] == round(figures.rse, 4)


def test_an_agent_without_a_cached_price_is_never_billed_zero_for_cached_tokens(tmp_path: Path) -> None:
    """The shipped openrouter.toml gives no `price_cached_per_m`: its cached tokens once cost $0, so `--budget`
    stopped too late. Now they cost the input price, in a seat's bill, the calibration and the budget's estimate,
    and the dry run and `arena agents` say so."""
    from typer.testing import CliRunner

    from arena.agents import resolve_agent
    from arena.cli import app
    from arena.engine import load_rules
    from arena.llm.usage import Usage
    from arena.players.llm import build_llm_player
    from arena.tournament.report import estimate_table

    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "nocache.toml").write_text('kind = "llm"\nmodel = "fake-model"\nbase_url = "http://127.0.0.1:9/v1"\n'
                                         "price_input_per_m = 2.0\nprice_output_per_m = 8.0\n")  # fmt: skip
    spec = resolve_agent("nocache", agents)
    assert spec.cached_price_assumed and spec.price_cached_per_m == 2.0
    player = build_llm_player(spec, 1, rules=load_rules("fiim"))
    assert player.prices.cost(Usage(prompt_tokens=1000, cached_tokens=900)) == pytest.approx(1000 * 2.0 / 1e6)
    shipped = resolve_agent("openrouter", check_env=False)
    assert shipped.cached_price_assumed and shipped.price_cached_per_m == shipped.price_input_per_m > 0
    assert not resolve_agent("openai", check_env=False).cached_price_assumed  # it gives its cached price

    file = tmp_path / "t.toml"
    file.write_text('name = "c"\ngames = 8\nseed = 1\nfiller = "bot:heuristic"\n[[pool]]\nlabel = "a"\n'
                    'agent = "nocache"\n[[pool]]\nlabel = "b"\nagent = "bot:random"\n')  # fmt: skip
    t = load_tournament(file, agents)
    plans = make_schedule([c.label for c in t.configs], t.filler.label, t.rules, 8, t.file.seed)
    a = calibrate(t, plans, 3)["a"]
    assert a.cached_tokens > 0  # the stand-in meters a prefix cache, as a provider does
    assert a.usd == pytest.approx((a.prompt_tokens * 2.0 + a.completion_tokens * 8.0) / 1e6)  # cached at 2.0, not 0
    guess = estimate(t, plans, calibrate(t, plans, 3), 3)
    assert guess.cached_at_input == ["a"] and guess.as_json()["cached_at_input_price"] == ["a"]
    assert "billed at the input price" in str(estimate_table(guess, 1.0).caption)

    listed = CliRunner().invoke(app, ["agents", "--agents-dir", str(agents)])
    line = next(row for row in listed.output.splitlines() if row.startswith("nocache"))
    assert "cached tokens billed at the input price" in line
