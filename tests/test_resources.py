"""Template files are found in a checkout, and a regular install ships every one of them (pyproject data-files)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from arena.resources import prompts_root

ROOT = Path(__file__).resolve().parent.parent


def test_checkout_prompts_are_found() -> None:
    root = prompts_root()
    assert root == ROOT / "prompts"
    assert (root / "en" / "system.j2").is_file() and (root / "ru" / "system.j2").is_file()
    assert (root / "bots" / "en" / "lines.yaml").is_file()


def test_data_files_cover_every_template() -> None:
    data_files = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    shipped = {path for patterns in data_files.values() for pattern in patterns for path in ROOT.glob(pattern)}
    templates = {p for p in (ROOT / "prompts").rglob("*") if p.is_file()}
    assert templates, "no templates found"
    assert templates <= shipped, f"not shipped by a regular install: {sorted(map(str, templates - shipped))}"
