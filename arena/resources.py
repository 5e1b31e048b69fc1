"""Where the project's data folders live: `prompts/` and the example `agents/` beside the package in a checkout (or
an editable install), else the copies a regular install puts under `<prefix>/share/mafia-arena/` (pyproject's
data-files); and which other prompt folders the user vouched for."""

from __future__ import annotations

import re
import sys
import sysconfig
from pathlib import Path

_SET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")  # a shipped set's name: a plain folder name


_CHECKOUT = Path(__file__).resolve().parent.parent  # resolved once: every seat of every game asks where prompts are


def _data_folder(name: str) -> Path:
    checkout = _CHECKOUT / name
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


def shipped_set_dir(prompt_set: str, root: Path | None = None) -> Path | None:
    """The folder of a prompt set shipped in `prompts/` (`root`; `default` is `prompts/` itself), or None. Only a
    plain name counts, never a path, and neither a language folder (`en`, `ru`) nor `bots`: they are parts of sets,
    not sets."""
    root = root if root is not None else prompts_root()
    if prompt_set == "default":
        return root
    if not _SET_NAME.match(prompt_set) or prompt_set in ("en", "ru", "bots"):
        return None
    folder = root / prompt_set
    return folder if folder.is_dir() and not folder.is_symlink() else None


# ----- prompt folders the user vouched for ------------------------------------------------------------------------
# A prompt set that is not shipped in `prompts/` is a folder: its templates are text the arena sends with the user's
# key and renders with the game's records, so only a folder the user vouched for is ever loaded (`arena/prompts.py`
# refuses any other): named on the command line (`--prompt-folder`, `arena prompt --prompt-set`), or named by an
# agent definition in a folder the user vouches for (`arena.agents`). A process-wide record, since every seat of
# every game in the process loads its set by name; a tournament worker vouches for the sets of the games its
# driver sent it (the driver checked them).
_VOUCHED: set[Path] = set()


def vouch_prompt_folder(folder: Path | str) -> Path:
    """Record `folder` (resolved: its real path) as a prompt set folder the user vouched for; the resolved path."""
    resolved = Path(folder).resolve()
    _VOUCHED.add(resolved)
    return resolved


def vouched_prompt_folder(folder: Path | str) -> Path | None:
    """The real path of `folder` if the user vouched for it (`vouch_prompt_folder`), else None."""
    try:
        resolved = Path(folder).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    return resolved if resolved in _VOUCHED else None
