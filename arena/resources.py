"""Where the project's template files live: `prompts/` beside the package in a checkout (or an editable install),
else the copy a regular install puts under `<prefix>/share/mafia-arena/prompts` (pyproject's data-files)."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path


def prompts_root() -> Path:
    """The `prompts/` folder: LLM prompt sets (`en/`, `ru/`) and the bots' lines (`bots/`)."""
    checkout = Path(__file__).resolve().parent.parent / "prompts"
    if checkout.is_dir():
        return checkout
    for base in (sysconfig.get_path("data"), sys.prefix):
        installed = Path(base) / "share" / "mafia-arena" / "prompts"
        if installed.is_dir():
            return installed
    return checkout  # missing: callers report it with a clear error
