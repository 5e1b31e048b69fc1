"""The game's end is data (issue #38): `Outcome(winner, termination)` in the engine, `game_ended` carrying the
termination's code and number, every renderer wording it from the code, and old transcripts (whose end was an
English sentence) still verifying and rendering, their sentences read as codes in one place, the loader."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from arena.engine import MODERATOR, EventType, Game, Outcome, Role, Termination, load_rules
from arena.render import phrasebook
from arena.render.console import render_text
from arena.render.story import StoryOptions, build_story
from arena.transcript import load, verify

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"

# the rooms that word what the engine and the orchestrator recorded
RENDERERS = ("arena/render", "arena/web", "arena/site", "arena/live.py", "arena/scoring", "arena/research")
# pieces of the sentences the engine ended a game with before version 3, and of the orchestrator's failure reasons
# (" removed" with its space: "seat 4 removed", not the departure code `removed`)
SENTENCES = (" removed", "nobody leaving", "day vote", "night kill", "no answer within", "the player failed")
PREFIXES = {"TIMEOUT_PREFIX", "ERROR_PREFIX", "TRANSPORT_PREFIX", "OWN_FAILURE", "OWN_PREFIX", "UNREACHABLE",
            "NOT_REACHED"}  # fmt: skip
READERS = {"startswith", "endswith", "removeprefix", "removesuffix", "partition", "split", "index", "find"}
REGEX = {"compile", "match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"}


def _files() -> list[Path]:
    out: list[Path] = []
    for room in RENDERERS:
        path = ROOT / room
        out += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return out


def _sentence(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and any(s in node.value for s in SENTENCES)


def sentence_readers(source: str) -> list[str]:
    """What in `source` reads an engine or orchestrator sentence back: a regex over one, a prefix test with one of
    the failure prefixes, or a table keyed by the sentences."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name, args = node.func.attr, node.args
            on_re = isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
            if on_re and name in REGEX and args and _sentence(args[0]):
                found.append(f"line {node.lineno}: re.{name} over {ast.unparse(args[0])}")
            elif name in READERS and any(_sentence(a) or (isinstance(a, ast.Name) and a.id in PREFIXES) for a in args):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Dict) and any(k is not None and _sentence(k) for k in node.keys):
            found.append(f"line {node.lineno}: a table keyed by the engine's sentences")
    return found


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def reading_definitions(source: str) -> set[str]:
    """The top-level functions, classes and constants of a module that read a sentence back: those whose own code
    does (`sentence_readers`), and those that use one of them (a wrapper of a reader reads too)."""
    tree = ast.parse(source)
    names: dict[str, ast.stmt] = {}  # a class by its methods (`Class.method`): using a class calls none of them
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                names[f"{node.name}.{getattr(item, 'name', '')}"] = item
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    names[target.id] = node
    readers = {name for name, node in names.items() if sentence_readers(ast.unparse(node))}
    while True:
        users = {
            name
            for name, node in names.items()
            if name not in readers and any(isinstance(n, ast.Name) and n.id in readers for n in ast.walk(node))
        }
        if not users:
            return readers
        readers |= users


def _every_reader() -> set[tuple[str, str]]:
    """(module, name) of every definition in `arena` that reads a sentence back."""
    paths = sorted((ROOT / "arena").rglob("*.py"))
    return {(_module(p), name) for p in paths for name in reading_definitions(p.read_text("utf-8"))}


def imported_readers(source: str, readers: set[tuple[str, str]]) -> list[str]:
    """What in `source` takes a sentence reader from another module: `from M import name`, or a method of a class
    it imports (`Class.method(...)`)."""
    tree = ast.parse(source)
    found, imported = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            for alias in node.names:
                imported[alias.asname or alias.name] = (node.module, alias.name)
                if (node.module, alias.name) in readers:
                    found.append(f"line {node.lineno}: imports {alias.name} from {node.module}, which reads a sentence")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in imported:
            module, name = imported[node.value.id]
            if (module, f"{name}.{node.attr}") in readers:
                found.append(f"line {node.lineno}: uses {name}.{node.attr} of {module}, which reads a sentence")
    return found


def test_no_renderer_reads_a_sentence_back() -> None:
    """Neither itself (a regex, a prefix test, a table keyed by sentences) nor through a function that does (the
    reason's code was parsed from its words by `players.base.failure` before version 4)."""
    readers = _every_reader()
    problems = [
        f"{p.relative_to(ROOT)} {what}"
        for p in _files()
        for what in [*sentence_readers(p.read_text("utf-8")), *imported_readers(p.read_text("utf-8"), readers)]
    ]
    assert not problems, "a renderer reads an engine sentence back; word the code instead:\n" + "\n".join(problems)


# the definitions in `arena` that may read a recorded sentence: the legacy reader's, and two that read words for
# words, deciding nothing: the LLM seat shows its model the reason without the orchestrator's prefix (also to
# rebuild a prompt), and an unused answer's call record keeps its own transport error
ALLOWED_READERS = {
    ("arena.transcript.legacy", "legacy_sentences_as_data"),
    ("arena.transcript.legacy", "_ending"),
    ("arena.transcript.legacy", "_failure"),
    ("arena.transcript.legacy", "_V2_ENDINGS"),
    ("arena.transcript.legacy", "_V2_REMOVED"),
    ("arena.transcript.legacy", "_V2_IDLE"),
    ("arena.llm.seat", "ConversationSeat.clean_problem"),
    ("arena.orchestrator", "_Runner.unused"),
}


def test_old_sentences_are_read_in_one_place() -> None:
    """The reader hands older files to `legacy_sentences_as_data`; nothing else in `arena` reads a sentence."""
    assert _every_reader() == ALLOWED_READERS
    reader = (ROOT / "arena" / "transcript" / "reader.py").read_text("utf-8")
    assert reader.count("legacy_sentences_as_data(") == 1


def test_the_check_finds_what_it_forbids() -> None:
    """The shapes the renderers used before the end was data (phrasebook's `_REMOVED`, `END_REASONS`, live.py's
    time-out test) are found; the wording of a code is not."""
    before = """
import re
_REMOVED = re.compile(r"seat (\\d+) removed")
END_REASONS = {"day vote": "дневное голосование"}
def timed_out(value): return value.startswith(TIMEOUT_PREFIX)
"""
    assert len(sentence_readers(before)) == 3
    # and through a reader elsewhere: version 3's live.py took the failure's code from players.base's parser
    base = 'def failure(reason):\n    return "timeout" if reason.startswith(TIMEOUT_PREFIX) else "error"\n'
    wrapper = "def timeout(reason):\n    return failure(reason) == 'timeout'\n"
    assert reading_definitions(base + wrapper) == {"failure", "timeout"}
    readers = {("arena.players.base", "failure")}
    assert imported_readers("from arena.players.base import Failure, failure\n", readers) != []
    after = '_ENDINGS = {"day_vote": "day vote"}\ndef words(code): return _ENDINGS.get(code, code)\n'
    assert sentence_readers(after) == []


def test_every_termination_cites_its_rule() -> None:
    source = (ROOT / "arena" / "engine" / "outcome.py").read_text("utf-8")
    for member in Termination:
        line = next(x for x in source.splitlines() if x.strip().startswith(f"{member.name} = "))
        assert re.search(r"R\d+\.\d+", line), f"Termination.{member.name} cites no rule: {line.strip()}"


def _defaults(game: Game) -> None:
    for request in game.pending():
        game.apply_default(request.seat, "test")


def _ended(game: Game) -> tuple[Outcome, dict[str, object]]:
    end = phrasebook.game_end(game.events)
    assert game.outcome is not None and end is not None
    return game.outcome, {"code": end.code, "target": end.target, "count": end.count, "text": end.text}


def test_idle_rounds_end_as_data() -> None:
    game = Game(load_rules("fiim"), seed=7)
    while not game.over:
        _defaults(game)
    outcome, data = _ended(game)
    nights = game.rules.win.draw_after_idle_rounds
    assert outcome == Outcome("draw", Termination.IDLE_ROUNDS, nights=nights)
    assert data == {"code": "idle_rounds", "target": None, "count": nights, "text": None}
    assert phrasebook.end_reason(phrasebook.game_end(game.events), "ru") == f"без выбывших прошло ночей: {nights}"


def test_a_removal_ends_as_data() -> None:
    game = Game(load_rules("fiim"), seed=7)
    while game.day < 1:
        _defaults(game)
    while not game.over:
        reds = [s for s in game.alive_seats if game.roles[s] not in (Role.MAFIA, Role.DON)]
        game.remove(reds[-1], "test")
    outcome, data = _ended(game)
    assert outcome.termination is Termination.REMOVAL and outcome.winner == "mafia"
    assert data == {"code": "removal", "target": outcome.seat, "count": None, "text": None}
    end = phrasebook.game_end(game.events)
    assert phrasebook.end_reason(end) == f"seat {outcome.seat} removed"
    assert phrasebook.end_reason(end, "ru") == f"место {outcome.seat} удалено судьёй"


# ----- old files --------------------------------------------------------------------------------------------------
OLD = sorted(FIXTURES.glob("v2-*.jsonl"))


def test_the_old_fixtures_are_old() -> None:
    """Version-2 files written by the engine before the end was data, one per kind of sentence it wrote."""
    assert {p.name for p in OLD} == {"v2-fiim.jsonl", "v2-removal.jsonl", "v2-idle.jsonl"}
    for path in OLD:
        text = path.read_text("utf-8")
        assert '"version":2' in text.splitlines()[0] and '"code":' not in text
        assert re.search(r'"type":"game_ended".*"text":"', text)


@pytest.mark.parametrize("path", OLD, ids=lambda p: p.stem)
def test_old_transcripts_verify_and_render(path: Path) -> None:
    transcript = load(path)
    assert verify(transcript).ok, verify(transcript)
    end = phrasebook.game_end(transcript.events)
    assert end is not None and end.code in set(Termination) and end.text is None
    assert transcript.end is not None and transcript.end.reason == end.code
    english = phrasebook.end_reason(end)
    old_sentence = re.search(r'"type":"game_ended".*?"text":"([^"]*)"', path.read_text("utf-8"))
    assert old_sentence is not None and english == old_sentence[1]  # the same words as before, from the code
    game = transcript.rebuild()
    story = build_story(game, MODERATOR, options=StoryOptions(lang="ru"))
    assert story.end_reason == phrasebook.end_reason(end, "ru") != ""
    assert f"({english})" in render_text(game, MODERATOR)
    assert end.type is EventType.GAME_ENDED
