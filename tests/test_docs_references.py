"""The docs and the code point only at what the repository holds: files that exist, rule ids that docs/rules.md
defines (each with its source document), and a rules page whose generated part is current and shows no raw types.
"""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
GENERATOR = ROOT / "docs" / "gen_rules_doc.py"
TEXT_SUFFIXES = {".py", ".md", ".toml", ".yaml", ".yml", ".j2", ".txt", ".cfg", ".ini", ".sh"}
SKIP = ("tests/golden/", "tests/llm/cassettes/")  # recorded data, not prose
SOURCES = ("the FIIM rules", "the club rules", "the classic rules", "the Aurora club", "«На грани реальности»")

RULE_ID = re.compile(r"(?<![\w.§])(R\d+\.\d+[a-z]?|P\d{2}|E\d{2}|S\d{3}|§\d+(?:\.\d+)*)(?![\w])")
PATH = re.compile(r"(?<![\w/.:-])((?:\.\.?/)*[\w.-]+(?:/[\w.*<>{}-]+)+/?)")
BARE_FILE = re.compile(r"(?<![\w/.-])([\w-]+\.(?:md|py|toml|ya?ml|j2))\b")
MODULE = re.compile(r"\barena(?:\.\w+)+")
PLACEHOLDER = re.compile(r"[<>{}]|\.\.\.|…|(?:^|/)(?:NAME|FILE|DIR|OUT|PATH|MODEL|N)(?:\.|/|$)|^transcripts/\d")
# paths the docs use as examples of what the reader creates or sees, not as pointers into the repository
# files a command writes for the user (`arena report`, `arena persuasion`), not pointers into the repository
WRITTEN = {"report.md", "human_likeness.md", "persuasion.md"}
# ../../x: a refused seat name; mafia_arena/mafia: the Inspect task's registered name, not a file
EXAMPLES = {"prompts/mine/en", "tests/bad.yaml", "tests/bad2.yaml", "../../x", "mafia_arena/mafia"}


@cache
def tracked() -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    out = []
    for name in names.splitlines():
        path = ROOT / name
        if name.startswith(SKIP) or not path.is_file() or path == Path(__file__).resolve():  # ours: bad on purpose
            continue
        if path.suffix in TEXT_SUFFIXES or name == ".ci/run":
            out.append(path)
    return out


@cache
def git_names() -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split("\n")


def basenames() -> set[str]:
    return {Path(n).name for n in git_names() if n}


def top_names() -> set[str]:
    """The repository's top-level files and folders (tracked ones: not a local transcripts/ or .venv/)."""
    return {n.split("/")[0] for n in git_names() if n}


def _exists(ref: str, where: Path) -> bool:
    ref = ref.rstrip("/").split("#")[0]
    for base in (ROOT, where.parent):
        candidate = base / ref
        if not candidate.resolve().is_relative_to(ROOT):  # ../shared may exist beside a checkout: not ours
            continue
        if "*" in ref:
            if list(base.glob(ref)):
                return True
        elif candidate.exists():
            return True
    return False


def _module_exists(dotted: str) -> bool:
    """`arena.standin.server` or `arena.agents.find_agent` (a module, then an attribute)."""
    parts = dotted.split(".")
    path = ROOT
    for part in parts:
        if (path / part).is_dir():
            path = path / part
        elif (path / f"{part}.py").is_file():
            return True
        else:  # past a package, a name may be what its __init__ exports
            init = path / "__init__.py"
            return path != ROOT and init.is_file() and re.search(rf"\b{part}\b", init.read_text()) is not None
    return True


def dangling_references(path: Path, text: str) -> list[str]:
    """Paths, file names and `arena.` modules in `text` that the repository does not hold."""
    top = top_names()
    found = []
    for line in text.splitlines():
        if "://" in line:
            line = re.sub(r"\w+://\S+", "", line)
        for match in PATH.finditer(line):
            ref = match.group(1).rstrip(".,;:)`'\"")
            first = ref.split("/")[0]
            if ref in EXAMPLES or PLACEHOLDER.search(ref) or not (first in top or first in ("..", ".")):
                continue
            if first in ("..", ".") and path.suffix != ".md" and "." not in ref.rsplit("/", 1)[-1]:
                continue  # outside Markdown, `../x` is more often a value than a pointer
            if first == "." and ref.split("/")[1:2] in (["agents"], ["transcripts"]):
                continue  # the user's working folder, not the repository
            if not _exists(ref, path):
                found.append(ref)
        for match in BARE_FILE.finditer(line):
            name = match.group(1)
            if name.endswith(".md") and name not in basenames() and name not in WRITTEN:
                found.append(name)
        for match in MODULE.finditer(line):
            if match.group(0).endswith("_"):  # a prefix of module names (`arena.cli_`), not one module
                continue
            if not _module_exists(match.group(0)):
                found.append(match.group(0))
    return found


def test_no_reference_to_a_file_outside_the_repository() -> None:
    problems = []
    for path in tracked():
        for ref in dangling_references(path, path.read_text(encoding="utf-8", errors="replace")):
            problems.append(f"{path.relative_to(ROOT)}: {ref}")
    assert not problems, "references to files the repository does not hold:\n  " + "\n  ".join(problems)


def test_the_reference_check_catches_what_it_should() -> None:
    """The checker itself: a spec file outside the repository, a missing module and a bad relative link fail."""
    where = ROOT / "docs" / "cli.md"
    text = (
        "see RULES.md §4, and ../shared/design/LIBRARIES.md; arena.llm.nothing_here runs it; "
        "[a link](missing.md), arena/engine/nothing.py, and docs/rules.md and arena.agents.find_agent are fine"
    )
    assert sorted(dangling_references(where, text)) == sorted(
        ["RULES.md", "../shared/design/LIBRARIES.md", "arena.llm.nothing_here", "missing.md", "arena/engine/nothing.py"]
    )  # fmt: skip


# ----- rule ids -------------------------------------------------------------------------------------------------
def defined_ids() -> dict[str, str]:
    """Each id docs/rules.md defines (a bold `**R5.7**` item, a `| P01 |` row, a `§` heading), with its line."""
    defined: dict[str, str] = {}
    for line in RULES.read_text(encoding="utf-8").splitlines():
        for match in re.finditer(r"\*\*((?:R\d+\.\d+[a-z]?|E\d{2}|§\d+(?:\.\d+)*))\*\*", line):
            defined.setdefault(match.group(1), line)
        if m := re.match(r"^\| (P\d{2}) \|", line):
            defined.setdefault(m.group(1), line)
        if m := re.match(r"^#+ (§\d+(?:\.\d+)*) ", line):
            defined.setdefault(m.group(1), line)
    return defined


def used_ids() -> dict[str, list[str]]:
    used: dict[str, list[str]] = {}
    for path in tracked():
        for match in RULE_ID.finditer(path.read_text(encoding="utf-8", errors="replace")):
            used.setdefault(match.group(1), []).append(str(path.relative_to(ROOT)))
    return used


def test_every_rule_id_used_is_defined() -> None:
    defined = defined_ids()
    used = used_ids()
    assert {"R5.7", "P01", "E05", "§3.1", "§5.12"} <= set(used)  # the scan sees the ids the code uses
    sample = "R5.7 and P01 are defined; R99.9, P77, E98 and §9.4 are not"
    assert [r for r in RULE_ID.findall(sample) if r not in defined] == ["R99.9", "P77", "E98", "§9.4"]
    missing = {rule: sorted(set(files))[:3] for rule, files in used.items() if rule not in defined}
    assert not missing, f"rule ids used but not defined in docs/rules.md: {missing}"


def test_every_rule_names_its_source_document() -> None:
    defined = defined_ids()
    for rule, line in defined.items():
        if rule.startswith(("R", "E")):
            source = line.split("*Source:", 1)[-1] if "*Source:" in line else ""
            assert any(title in source for title in (*SOURCES, "Mafia Arena")), f"{rule} names no source: {line}"
            if "Mafia Arena" in source:  # the project's own choice names the document it completes
                assert any(title in source for title in SOURCES) or "all five" in source, line
    header = next(line for line in RULES.read_text(encoding="utf-8").splitlines() if line.startswith("| Id |"))
    assert all(title in header for title in SOURCES), "the P table must name each preset's document"
    for number in range(1, 41):
        assert f"P{number:02d}" in defined, f"P{number:02d} is not defined"
    for rule in ("R1.1", "R5.10", "R6.6a", "R10.5", "§5.1", "§5.12"):
        assert rule in defined


# ----- the generator --------------------------------------------------------------------------------------------
def _generate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(GENERATOR), *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )


def test_rules_page_is_current_and_in_words() -> None:
    result = _generate("--check")
    assert result.returncode == 0, result.stderr
    text = RULES.read_text(encoding="utf-8")
    for raw in ("typing.", "FieldInfo", "<class "):
        assert raw not in text
    assert "| `sheriff_max_shots` | integer ≥ 0 or `unlimited` |" in text
    assert "| `max_tied_for_speeches` | integer ≥ 2 or `any` |" in text


@pytest.mark.parametrize("raw", ["typing.Annotated[int, Ge(ge=0)]", "FieldInfo(annotation=NoneType)"])
def test_check_fails_on_raw_type_text(tmp_path: Path, raw: str) -> None:
    page = tmp_path / "rules.md"
    text = RULES.read_text(encoding="utf-8")
    page.write_text(text.replace("integer ≥ 0 or `unlimited`", f"{raw} or `unlimited`", 1), encoding="utf-8")
    result = _generate("--check", "--out", str(page))
    assert result.returncode == 1
    assert "raw Python type text" in result.stderr and raw[:12] in result.stderr
    page.write_text(text, encoding="utf-8")
    assert _generate("--check", "--out", str(page)).returncode == 0


def test_generator_keeps_the_hand_written_reference(tmp_path: Path) -> None:
    page = tmp_path / "rules.md"
    text = RULES.read_text(encoding="utf-8")
    stale = text.replace("## Presets", "## Presets (stale)", 1) + "\nA hand-written line kept as it is.\n"
    page.write_text(stale, encoding="utf-8")
    assert _generate("--check", "--out", str(page)).returncode == 1
    assert _generate("--out", str(page)).returncode == 0
    rewritten = page.read_text(encoding="utf-8")
    assert "## Presets (stale)" not in rewritten and rewritten.endswith("A hand-written line kept as it is.\n")


def test_generator_words_every_type_including_new_fields() -> None:
    """A field added later (another section, a float, an optional int) is listed in words, without a FIELD_DOCS
    entry."""
    sys.path.insert(0, str(GENERATOR.parent))
    try:
        import gen_rules_doc as gen
    finally:
        sys.path.remove(str(GENERATOR.parent))
    from typing import Annotated, Literal

    from pydantic import BaseModel, Field

    class Probes(BaseModel):
        daily: bool = False
        chars_per_word: Annotated[float, Field(gt=0, le=20)] = 6.0
        every: Annotated[int, Field(ge=1)] | None = None
        when: Annotated[int, Field(ge=0)] | Literal["never"] = "never"

    words = {
        name: gen.describe_type(info.annotation, info.metadata, name) for name, info in Probes.model_fields.items()
    }
    assert words == {
        "daily": "boolean",
        "chars_per_word": "number > 0 and ≤ 20",
        "every": "integer ≥ 1 or none",
        "when": "integer ≥ 0 or `never`",
    }
    ref, meaning = gen.field_doc("probes.every", Probes.model_fields["every"])  # a field FIELD_DOCS does not know
    assert ref == "–" and "FIELD_DOCS" in meaning
    with pytest.raises(SystemExit, match="no words for the type"):
        gen.describe_type(complex, [], "odd")
