"""Issue 30, security round 3 (low): bidi control characters in agent names reached report.md. An agent name comes
from a transcript header, which its author wrote; a right-to-left override shows `gpt‮evil` as `gptlive`, and an
isolate or a zero-width character makes two names look the same. No report file (report.md, report.html, the
CSVs) holds a control or format character from a name: each is written out (`\\u202e`), so two names stay two."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from seckit import cli

from arena.agents import BUILTIN
from arena.research.report import md_text
from arena.research.selfplay import play_balanced
from arena.research.tables import visible

HIDING = {
    "\u202e": "right-to-left override",
    "\u2066": "left-to-right isolate",
    "\u2069": "pop directional isolate",
    "\u200f": "right-to-left mark",
    "\u061c": "Arabic letter mark",
    "\u200b": "zero-width space",
    "\u2028": "line separator",
    "\x1b": "escape",
}


def _hidden(text: str) -> list[str]:
    return [f"U+{ord(ch):04X}" for ch in text if unicodedata.category(ch) in ("Cf", "Zl", "Zp") or ch == "\x1b"]


@pytest.mark.parametrize("char", list(HIDING), ids=list(HIDING.values()))
def test_a_name_is_shown_with_its_hidden_characters_written_out(char: str) -> None:
    name = f"gpt{char}evil"
    assert not _hidden(md_text(name)) and not _hidden(visible(name))
    assert md_text(name) != md_text("gptevil"), "two names that differ only in a hidden character stay two"


def test_no_report_file_holds_a_bidi_control_from_an_agent_name(tmp_path: Path) -> None:
    games = tmp_path / "games"
    play_balanced(games, 4, a=BUILTIN["bot:heuristic"].model_copy(update={"name": "gpt\u202e4o\u2066mini\u2069"}),
                  b=BUILTIN["bot:random"].model_copy(update={"name": "safe\u200bname"}))  # fmt: skip
    code, _, err = cli("report", str(games), "--out", str(tmp_path / "r"), "--boot", "5")
    assert code == 0, err
    written = sorted((tmp_path / "r").glob("*.md")) + sorted((tmp_path / "r").glob("*.html"))
    written += sorted((tmp_path / "r").glob("*.csv"))
    assert len(written) >= 4
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert not _hidden(text), (path.name, _hidden(text))
    report = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "gpt\\\\u202e4o" in report  # `\u202e`, its backslash escaped for Markdown
