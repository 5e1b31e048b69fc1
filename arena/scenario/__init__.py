"""Scripted scenarios (docs/scenarios.md): the runner behind `arena scenario run` and tests/test_scenarios.py.

`format` parses and validates a file (with `notation`: phases, moments, seatings), `driver` plays it through the
engine, `check` compares what happened with what the file expects, and `runner` ties them together per file and
case. The public names are re-exported here. Imports run one way: `runner` -> `check` -> `driver` -> `format` ->
`notation`; the package may import the engine and `arena.safe_read`, nothing that plays, records or renders.
"""

from __future__ import annotations

from arena.scenario.check import Mismatch
from arena.scenario.driver import ScenarioRunError
from arena.scenario.format import Scenario
from arena.scenario.runner import (
    SUFFIXES,
    CaseResult,
    FileResult,
    ScenarioError,
    load_cases,
    prepare,
    run_case,
    run_file,
    scenario_files,
    stop_phase,
)

__all__ = [
    "SUFFIXES",
    "CaseResult",
    "FileResult",
    "Mismatch",
    "Scenario",
    "ScenarioError",
    "ScenarioRunError",
    "load_cases",
    "prepare",
    "run_case",
    "run_file",
    "scenario_files",
    "stop_phase",
]
