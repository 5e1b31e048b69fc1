"""The tournament driver's rules with no console and no executor (`arena.tournament.run.Driver`): the budget admits a
game only while the spend, the estimates of the games in flight and its own estimate stay within the cap, and a game
is counted once, however many results come back for it."""

from __future__ import annotations

from collections.abc import Sequence

from arena.tournament.play import GameResult
from arena.tournament.run import Driver, RunState, Taken


def _driver(
    per_game: Sequence[float], *, budget: float | None, jobs: int = 8, providers: dict[int, set[str]] | None = None
) -> Driver:
    games = list(range(len(per_game)))
    return Driver(RunState(), games=games, queue=list(games), providers=providers or {i: set() for i in games},
                  per_game=per_game, budget=budget, jobs=jobs)  # fmt: skip


def _admit_all(driver: Driver) -> list[int]:
    admitted = []
    while (index := driver.admit()) is not None:
        admitted.append(index)
    return admitted


def _result(index: int, cost: float, status: str = "complete", provider: str = "") -> GameResult:
    return GameResult(index, status, winner="town" if status == "complete" else None, total={"cost_usd": cost},
                      provider=provider, error="gone" if status == "paused" else None)  # fmt: skip


def test_the_budget_stops_admitting_before_the_estimates_would_pass_it() -> None:
    driver = _driver([1.0, 1.0, 1.0, 1.0], budget=2.5)
    assert _admit_all(driver) == [0, 1]  # a third game's estimate would make 3.0
    assert driver.state.stop_reason.startswith("budget: $0.0000 spent, $2.0000 estimated for the 2 running game(s)")
    for index in (0, 1):
        assert driver.take(_result(index, 0.01)) is Taken.COUNTED
    assert driver.admit() is None  # refused once, nothing more starts: the run stops with the games in flight
    assert driver.finish() == "stopped" and driver.queue == [2, 3]


def test_a_game_at_exactly_the_cap_is_admitted() -> None:
    assert _admit_all(_driver([1.0, 1.5, 0.5], budget=2.5)) == [0, 1]
    assert _admit_all(_driver([0.25, 0.25], budget=0.5)) == [0, 1]


def test_a_game_in_flight_is_committed_at_its_estimate_until_its_cost_is_known() -> None:
    # two slots, so a finished game frees one while the other is still in flight
    driver = _driver([1.0, 1.0, 1.0, 1.0], budget=2.2, jobs=2)
    assert _admit_all(driver) == [0, 1]
    assert driver.take(_result(0, 0.1)) is Taken.COUNTED
    assert driver.state.spent == 0.1
    assert driver.admit() == 2  # 0.1 spent + 1.0 for game 1 in flight + 1.0 = 2.1: its cost replaced its estimate
    assert driver.take(_result(1, 0.5)) is Taken.COUNTED
    assert driver.admit() is None  # 0.6 spent + 1.0 for game 2 in flight + 1.0 = 2.6
    assert "$0.6000 spent, $1.0000 estimated for the 1 running game(s)" in driver.state.stop_reason


def test_a_game_in_flight_counts_against_the_budget_though_the_spend_alone_would_not() -> None:
    driver = _driver([1.0, 1.0, 1.0], budget=2.2, jobs=2)
    assert _admit_all(driver) == [0, 1]
    driver.take(_result(0, 0.5))
    assert driver.admit() is None  # 0.5 + 1.0 (game 1, running) + 1.0 = 2.5; the spend alone, 1.5, would pass


def test_with_no_estimate_the_budget_holds_what_has_been_spent() -> None:
    # unknown costs (no calibration): a game commits nothing until its cost is known; the cap stops admission once
    # the spend itself has passed it
    driver = _driver([0.0] * 6, budget=1.0, jobs=2)
    assert _admit_all(driver) == [0, 1]
    driver.take(_result(0, 0.6))
    assert driver.admit() == 2  # 0.6 spent is within 1.0
    driver.take(_result(1, 0.6))
    assert driver.admit() is None  # 1.2 spent
    assert driver.state.stop_reason.startswith("budget: $1.2000 spent, $0.0000 estimated for the 1 running game(s)")
    driver.take(_result(2, 0.6))
    assert abs(driver.state.spent - 1.8) < 1e-9  # the games in flight finish: the run ends over the cap
    assert driver.finish() == "stopped"


def test_with_no_budget_every_game_is_admitted_up_to_the_jobs() -> None:
    driver = _driver([5.0] * 5, budget=None, jobs=3)
    assert _admit_all(driver) == [0, 1, 2]
    driver.take(_result(1, 5.0))
    assert _admit_all(driver) == [3]
    for index in (0, 2, 3):
        driver.take(_result(index, 5.0))
    assert _admit_all(driver) == [4]
    driver.take(_result(4, 5.0))
    assert driver.admit() is None and not driver.in_flight
    assert driver.finish() == "complete" and driver.state.stop_reason == "all games played"


def test_a_game_reported_twice_is_counted_once() -> None:
    driver = _driver([0.0, 0.0], budget=None)
    _admit_all(driver)
    assert driver.take(_result(0, 0.3)) is Taken.COUNTED
    assert driver.take(_result(0, 0.3)) is Taken.AGAIN  # a cluster's answer that came twice
    assert driver.take(_result(0, 0.9, status="failed")) is Taken.AGAIN  # a retry's result, after the count
    assert driver.state.spent == 0.3 and driver.state.errors == 0
    assert driver.state.results[0].status == "complete"


def test_a_failed_game_is_counted_once_as_an_error_and_its_retry_is_not_counted() -> None:
    driver = _driver([0.0], budget=None)
    _admit_all(driver)
    assert driver.take(_result(0, 0.2, status="failed")) is Taken.COUNTED
    assert driver.take(_result(0, 0.4)) is Taken.AGAIN
    assert driver.state.errors == 1 and driver.state.spent == 0.2 and len(driver.state.results) == 1


def test_a_game_finished_on_disk_and_reported_again_by_a_resumed_run_is_not_counted_again() -> None:
    state = RunState(results={0: _result(0, 0.7)}, spent=0.7)  # as `scan` found it
    driver = Driver(state, games=[0, 1], queue=[1], providers={1: set()}, per_game=[0.0, 0.0], budget=None)
    assert driver.admit() == 1 and driver.admit() is None  # the finished game is not started again
    assert driver.take(_result(0, 0.7)) is Taken.AGAIN  # a cluster's task that ran it anyway
    assert driver.take(_result(1, 0.1)) is Taken.COUNTED
    assert abs(state.spent - 0.8) < 1e-9 and len(state.results) == 2
    assert driver.finish() == "complete"


def test_a_paused_game_is_never_counted_and_holds_back_its_providers_games() -> None:
    providers = {0: {"a"}, 1: {"a"}, 2: {"b"}, 3: {"a", "b"}, 4: {"b"}}
    driver = _driver([0.0] * 5, budget=None, jobs=2, providers=providers)
    assert _admit_all(driver) == [0, 1]
    assert driver.take(_result(0, 0.4, status="paused", provider="a")) is Taken.PAUSES
    assert driver.take(_result(1, 0.1, status="paused", provider="a")) is Taken.PAUSED  # its provider waits already
    assert not driver.state.results and driver.state.spent == 0.0
    assert _admit_all(driver) == [2, 4]  # game 3 has a seat of the paused provider
    driver.take(_result(2, 0.1))
    driver.take(_result(4, 0.1))
    assert driver.admit() is None and not driver.in_flight
    assert driver.finish() == "paused"
    assert "2 game(s) stopped" in driver.state.stop_reason and "1 game(s) of the same provider(s)" in (
        driver.state.stop_reason
    )


def test_games_adopted_from_a_cluster_are_in_flight_and_not_started_again() -> None:
    driver = _driver([1.0, 1.0, 1.0], budget=2.5)
    driver.adopt({1})
    assert driver.queue == [0, 2] and driver.in_flight == {1}
    assert _admit_all(driver) == [0]  # 1.0 for the adopted game in flight, + 1.0; a third would pass 2.5
