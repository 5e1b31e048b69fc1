"""The heuristic bot's words: templates it speaks and patterns it reads, from `prompts/bots/<lang>/lines.yaml`.

Prose stays in those data files (Jinja2 strings); this module only loads, picks and renders them, and turns the
`parse` patterns of every language into one reader, so a bot understands claims made in either language.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml
from jinja2 import StrictUndefined, Template
from jinja2.sandbox import ImmutableSandboxedEnvironment

from arena.resources import prompts_root

LANGS = ("en", "ru")
BOTS_DIR = prompts_root() / "bots"
_ENV = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False)


class LinesError(RuntimeError):
    """The bot line files are missing or malformed (e.g. the package was installed without `prompts/`)."""


@cache
def _data(lang: str) -> dict[str, Any]:
    path = BOTS_DIR / lang / "lines.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LinesError(f"cannot read the bot lines {path}: {exc.strerror}; install from a checkout") from None
    if not isinstance(data, dict):
        raise LinesError(f"{path}: expected a mapping of line names")
    return data


@cache
def _template(text: str) -> Template:
    return _ENV.from_string(text)


class Lines:
    """One language's lines. `say(key, rng, ...)` picks a variant of `key` and renders it."""

    def __init__(self, lang: str) -> None:
        if lang not in LANGS:
            raise LinesError(f"no bot lines for language {lang!r}; have {', '.join(LANGS)}")
        self.lang = lang
        self.data = _data(lang)

    def say(self, key: str, rng: random.Random, **context: Any) -> str:
        variants = self.data[key]
        text = variants if isinstance(variants, str) else variants[rng.randrange(len(variants))]
        return _template(text).render(**context).strip()

    def reason(self, code: str, by: int = 0, rng: random.Random | None = None) -> str:
        """The words of a reason code (a variant drawn with `rng`, the first without one)."""
        variants = self.data["reason"][code]
        if isinstance(variants, str):
            text = variants
        else:
            text = variants[rng.randrange(len(variants))] if rng is not None else variants[0]
        return _template(text).render(by=by).strip()

    def word(self, key: str) -> str:
        return str(self.data["words"][key])

    def checks(self, checks: list[tuple[int, str]]) -> str:
        items = [{"seat": seat, "word": self.word(value)} for seat, value in checks]
        return _template(self.data["checks"]).render(checks=items).strip()


@dataclass(frozen=True, slots=True)
class Reading:
    """What a speech says in the bots' vocabulary."""

    claims_sheriff: bool
    checks: tuple[tuple[int, str], ...]  # (seat, black|red|not_don), in the order spoken
    suspect: int | None
    fake_claimer: int | None


_CHECK_WORDS = {
    "black": "black",
    "red": "red",
    "not the don": "not_don",
    "чёрный": "black",
    "черный": "black",
    "красный": "red",
    "не дон": "not_don",
}


class Reader:
    """Reads speeches with the `parse` patterns of every language."""

    def __init__(self) -> None:
        pats = [_data(lang)["parse"] for lang in LANGS]
        self.claim = [re.compile(p["claim"], re.IGNORECASE) for p in pats]
        self.check = [re.compile(p["check"], re.IGNORECASE) for p in pats]
        self.suspect = [re.compile(p["suspect"], re.IGNORECASE) for p in pats]
        self.fake = [re.compile(p["fake"], re.IGNORECASE) for p in pats]

    def read(self, text: str) -> Reading:
        if not text:
            return Reading(False, (), None, None)
        claims = any(p.search(text) for p in self.claim)
        checks: list[tuple[int, str]] = []
        if claims:
            for pattern in self.check:
                for match in pattern.finditer(text):
                    checks.append((int(match.group(1)), _CHECK_WORDS.get(match.group(2).lower(), "red")))
        return Reading(claims, tuple(checks), _first_int(self.suspect, text), _first_int(self.fake, text))


def _first_int(patterns: list[re.Pattern[str]], text: str) -> int | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


@cache
def reader() -> Reader:
    return Reader()
