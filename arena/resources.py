"""Where the project's data folders live: `prompts/` and the example `agents/` beside the package in a checkout (or
an editable install), else the copies a regular install puts under `<prefix>/share/mafia-arena/` (pyproject's
data-files)."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path


def _data_folder(name: str) -> Path:
    checkout = Path(__file__).resolve().parent.parent / name
    if checkout.is_dir():
        return checkout
    for base in (sysconfig.get_path("data"), sys.prefix):
        installed = Path(base) / "share" / "mafia-arena" / name
        if installed.is_dir():
            return installed
    return checkout  # missing: callers report it with a clear error


def prompts_root() -> Path:
    """The `prompts/` folder: LLM prompt sets (`en/`, `ru/`) and the bots' lines (`bots/`)."""
    return _data_folder("prompts")


def example_agents_root() -> Path:
    """The example agent definitions shipped with the package (`agents/*.toml`), the last place agents are looked up."""
    return _data_folder("agents")
