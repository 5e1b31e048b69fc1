"""The review in the game's language (issue #36, item 6): the story, the terminal (`arena show`) and the HTML export
(`arena export`) word every event through the phrase tables (`arena/render/phrasebook.py`) and every heading and
label through one table per language (`arena/render/labels.py`). Before, all three were English only, even for a
game played with `--lang ru`: a Russian export of the fiim-ru golden game held English on every line.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.engine import MODERATOR, Event, EventType, Phase, Vis
from arena.golden import CASES, Case, path_of
from arena.render import labels, phrasebook
from arena.render.console import PLAIN, render_text
from arena.render.html import export_html
from arena.render.story import StoryOptions, VoteRound, build_story
from arena.transcript import load

LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
runner = CliRunner()


def _english(text: str, allowed: set[str]) -> list[str]:
    return [w for w in LATIN_WORD.findall(text) if w not in allowed]


def test_every_label_is_in_every_language_with_the_same_placeholders() -> None:
    en = labels.TABLES["en"]
    for lang, table in labels.TABLES.items():
        assert table.keys() == en.keys(), (
            f"{lang}: missing {en.keys() - table.keys()}, extra {table.keys() - en.keys()}"
        )
        for key, value in table.items():
            assert set(PLACEHOLDER.findall(value)) == set(PLACEHOLDER.findall(en[key])), f"{lang}.{key}: {value!r}"
    for key, value in labels.TABLES["ru"].items():
        assert not _english(PLACEHOLDER.sub("", value), {"JavaScript"}), f"ru.{key} is English: {value!r}"


def _sample(kind: EventType, value: str = "") -> Event:
    return Event(
        seq=1, day=2, phase=Phase.DAY, type=kind, vis=Vis.PUBLIC, seat=3, target=5, seats=(1, 5), counts=(3, 4),
        roles=("civilian", "sheriff"), count=2, value=value, text="",
        code="day_vote" if kind is EventType.GAME_ENDED else None,
    )  # fmt: skip


@pytest.mark.parametrize("kind", list(EventType), ids=lambda k: k.value)
def test_each_event_type_is_drawn_by_a_story_in_both_languages(kind: EventType) -> None:
    """A story draws an event as a line (`story_line`), a speech's or black message's head, a chapter or a vote
    table: each has its words in English and in Russian, and the Russian has no English word."""
    value = {EventType.PHASE_STARTED: "day", EventType.VOTING_STARTED: "main", EventType.SPEECH: "regular"}
    event = _sample(kind, value.get(kind, ""))
    for lang in labels.LANGS:
        line = phrasebook.story_line(event, lang)
        if line is None:  # drawn by the story itself
            assert kind in (
                EventType.PHASE_STARTED, EventType.SPEECH, EventType.BLACK_MESSAGE, EventType.VOTING_STARTED,
                EventType.VOTE_CAST, EventType.VOTES_COUNTED,
            ), f"{kind.value} has no {lang} line in a story"  # fmt: skip
            if kind is EventType.SPEECH:
                said = "".join(s.text for s in phrasebook.speech_head(event, lang))
            elif kind is EventType.BLACK_MESSAGE:
                said = "".join(s.text for s in phrasebook.black_message_head(event, lang))
            elif kind is EventType.PHASE_STARTED:
                said = labels.label("chapter_day", lang, n=2)
            else:  # a vote table: its title and legend
                round_ = VoteRound(1, "main", (1, 5), {(1, 3): "yes", (None, 4): "abstain"}, lang=lang)
                said = f"{round_.title} {round_.legend}"
        else:
            said = "".join(s.text for s in line)
        assert said.strip() and said != kind.value, f"{kind.value} ({lang}): {said!r}"
        if lang == "ru":
            assert not _english(said, set()), f"{kind.value}: English in a Russian story: {said!r}"


@pytest.mark.parametrize("kind", ["main", "revote", "lift", "acquittal", "threshold", "ballot"])
def test_vote_tables_have_russian_titles_and_legends(kind: str) -> None:
    yes_no = kind in ("lift", "acquittal", "threshold")
    marks = {(None, 2): "yes", (None, 3): "no"} if yes_no else {(1, 2): "yes", (1, 3): "default", (None, 4): "abstain"}
    en = VoteRound(1, kind, (1, 5), marks, yes_no=yes_no)
    ru = VoteRound(1, kind, (1, 5), marks, yes_no=yes_no, lang="ru")
    assert en.title != ru.title and en.legend != ru.legend
    assert not _english(f"{ru.title} {ru.legend}", {kind}), f"{ru.title!r} {ru.legend!r}"


def _shown(view: dict[str, Any]) -> list[str]:
    """Every string of a view's data that the page shows as it is (codes such as roles and styles are shown through
    the labels), but a player's own words (a line's quote) and names."""
    out = [view["title"], view.get("end_reason") or "", *view["timeline"]["columns"]]
    out += [s["fate"] or "" for s in view["seats"]]
    for chapter in view["chapters"]:
        out.append(chapter["title"])
        for item in chapter["items"]:
            if item["t"] == "line":
                out += [text for text, _style in item["spans"]]
            elif item["t"] == "vote":
                out += [item["title"], item["legend"], *(row["label"] for row in item["rows"])]
    return out


def _blocks(page: str) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """The page's labels, its views' data and its text outside the scripts and styles."""
    found = re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', page, re.S)
    data = [json.loads(text) for text in found]
    bare = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", page, flags=re.S)
    return data[0], data[1:], re.sub(r"<[^>]+>", " ", bare)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_no_english_on_a_russian_export_of_any_golden_game(case: Case) -> None:
    """The god view and every seat's view of each golden game, exported in Russian: every line, title, legend,
    fate, result and label is Russian. Allowed: a player's own words (a bot's speech in an English game), the
    players' names and the preset's name, which are data."""
    transcript = load(path_of(case))
    game = transcript.rebuild()
    names = {e.seat: e.agent.name for e in transcript.header.seats}
    page = export_html(
        game, transcript.calls, transcript.inputs, StoryOptions(names=names, status=transcript.status, lang="ru")
    )
    assert '<html lang="ru">' in page
    page_labels, views, text = _blocks(page)
    allowed = {game.rules.name, "JavaScript"}
    assert len(views) == game.n + 1
    found = [repr(text.strip()[:80]) for _ in _english(text, allowed)]
    for key, value in page_labels.items():
        words = value.values() if isinstance(value, dict) else [value]
        found += [f"label {key}: {w!r}" for w in words for _ in _english(PLACEHOLDER.sub("", w), allowed)]
    for view in views:
        found += [f"view {view['viewer']}: {s!r}" for s in _shown(view) for _ in _english(s, allowed)]
    assert not found, f"{len(found)} English words on a Russian export, e.g. {found[:6]}"


def test_the_russian_terminal_story_has_no_english() -> None:
    """`arena show --lang ru` of the club golden game (every rule family's events: intro day, acquittal, fouls) in
    the god view and a seat's view, player words aside."""
    transcript = load(path_of(next(c for c in CASES if c.name == "club")))
    game = transcript.rebuild()
    for viewer in (MODERATOR, 3):
        story = build_story(game, viewer, options=StoryOptions(lang="ru"))
        quotes = [item.quote for c in story.chapters for item in c.items if getattr(item, "quote", None)]
        text = render_text(game, viewer, options=replace(PLAIN, status=transcript.status, lang="ru"), width=400)
        for quote in sorted(quotes, key=len, reverse=True):
            text = text.replace(quote, "")
        assert not _english(text, {game.rules.name}), [w for w in _english(text, {game.rules.name})][:10]


def test_english_is_the_default_and_the_game_language_follows_the_header(tmp_path: Path) -> None:
    ru_game = path_of(next(c for c in CASES if c.name == "fiim-ru"))
    en_game = path_of(next(c for c in CASES if c.name == "fiim"))
    for game, lang, expected in (
        (ru_game, None, "ru"),
        (en_game, None, "en"),
        (ru_game, "en", "en"),
        (en_game, "ru", "ru"),
    ):
        out = tmp_path / f"{game.stem}-{lang}.html"
        result = runner.invoke(app, ["export", str(game), "--html", str(out), *(["--lang", lang] if lang else [])])
        assert result.exit_code == 0, result.output
        assert f'<html lang="{expected}">' in out.read_text(encoding="utf-8")
        shown = runner.invoke(
            app,
            ["show", str(ru_game if game == ru_game else en_game), *(["--lang", lang] if lang else [])],
            env={"COLUMNS": "200"},
        )
        assert shown.exit_code == 0, shown.output
        assert ("Подготовка" in shown.output) == (expected == "ru") and ("Setup" in shown.output) == (expected == "en")


def test_a_language_without_a_table_is_refused(tmp_path: Path) -> None:
    game = path_of(next(c for c in CASES if c.name == "fiim"))
    for command in (["export", str(game), "--html", str(tmp_path / "x.html")], ["show", str(game)]):
        result = runner.invoke(app, [*command, "--lang", "de"])
        assert result.exit_code == 2 and "--lang 'de': choose en or ru" in result.output
    assert not (tmp_path / "x.html").exists()


PAGE_TEXT = """() => { const body = document.body.cloneNode(true);
  body.querySelectorAll('.quote, script, style, noscript').forEach((node) => node.remove());
  return body.innerText + ' ' + Array.from(document.querySelectorAll('[title]')).map((n) => n.title).join(' '); }"""


@pytest.mark.parametrize("name", ["fiim-ru", "club"])
def test_a_russian_export_in_chromium_on_a_phone(name: str, tmp_path: Path) -> None:
    """The Russian page as Chromium draws it at 390×844: in every view, no English word on the screen or in a
    tooltip (a player's words and names aside), and nothing wider than the phone. `ARENA_SCREENSHOTS=DIR` keeps a
    screenshot of the god view's top and its first vote (docs/img/export-phone-ru*.png, from fiim-ru)."""
    from test_web_e2e import ARGS, CHROMIUM, SHOTS, _need_browser

    _need_browser()
    from playwright.sync_api import sync_playwright

    transcript = load(path_of(next(c for c in CASES if c.name == name)))
    out = tmp_path / "game.html"
    result = runner.invoke(
        app, ["export", str(path_of(next(c for c in CASES if c.name == name))), "--html", str(out), "--lang", "ru"]
    )
    assert result.exit_code == 0, result.output
    allowed = {transcript.rules.name, *(w for e in transcript.header.seats for w in LATIN_WORD.findall(e.agent.name))}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(out.as_uri())
        views = [o.get_attribute("value") or "" for o in page.locator("#viewer option").all()]
        assert len(views) == transcript.rebuild().n + 1
        for viewer in views:
            page.select_option("#viewer", viewer)
            text = page.evaluate(PAGE_TEXT)
            assert "Подготовка" in text or "Ночь 0" in text, text[:200]
            english = _english(text, allowed)
            assert not english, f"view {viewer}: {english[:10]}"
            wide = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
            assert wide <= 390, f"view {viewer}: {wide} px"
        if SHOTS and name == "fiim-ru":
            page.select_option("#viewer", "0")
            page.screenshot(path=str(Path(SHOTS) / "export-phone-ru.png"))
            page.evaluate("document.querySelector('#ch-d1 table.votes').scrollIntoView(); window.scrollBy(0, -150)")
            page.screenshot(path=str(Path(SHOTS) / "export-phone-ru-vote.png"))
        assert not errors, errors
        browser.close()


def test_the_live_feed_of_a_russian_game_is_russian() -> None:
    """`arena play --lang ru`'s live feed and status line (and a person's own feed at the terminal) word events
    through the Russian phrase table; it was English. The fiim-ru golden game's bots speak Russian, so no English
    word at all is left but the preset's name."""
    import io

    from arena.engine import visible_events
    from arena.live import EventPrinter, status_line
    from arena.render.console import make_console

    transcript = load(path_of(next(c for c in CASES if c.name == "fiim-ru")))
    game = transcript.rebuild()
    for lang, expected in (("ru", "Ночь 0"), ("en", "Night 0")):
        buffer = io.StringIO()
        printer = EventPrinter(make_console(buffer, 200, color=False), game.rules, lang=lang)
        for event in visible_events(game, MODERATOR):
            printer(event)
        printer.flush_votes()
        text = buffer.getvalue() + status_line(game, lang=lang).plain
        assert expected in text
        if lang == "ru":
            assert "голоса  #" in text and not _english(text, {game.rules.name}), _english(text, {game.rules.name})


def test_reasoning_and_model_calls_are_labelled_in_russian(tmp_path: Path) -> None:
    """`arena show --reasoning --calls --lang ru`: a note says whose reasoning or call it is and for which decision
    in Russian (the decision kinds are the web pages' words, `labels.REQUEST_KINDS`); English keeps the codes."""
    from review_games import play

    path = tmp_path / "club.jsonl"
    play("club", 4, path=path)
    ru = runner.invoke(app, ["show", str(path), "--reasoning", "--calls", "--lang", "ru"], env={"COLUMNS": "200"})
    en = runner.invoke(app, ["show", str(path), "--reasoning", "--calls"], env={"COLUMNS": "200"})
    assert ru.exit_code == en.exit_code == 0
    assert "✎ рассуждение #1 (речь): " in ru.stdout and "⚙ вызов модели #1 (речь): " in ru.stdout
    assert "новых сообщений: " in ru.stdout and "✎ reasoning of #" not in ru.stdout
    assert "✎ reasoning of #1 (speech): " in en.stdout and "new messages; reply: " in en.stdout
    assert "вызовы модели" in ru.stdout and "кэш запросов по местам" in ru.stdout and "prompt cache" in en.stdout


def test_arena_play_in_russian_prints_no_english(tmp_path: Path) -> None:
    """`arena play --lang ru`: its first line, the live feed, the deal, the failures and the result are Russian
    (the bots speak Russian); only the preset's and the agents' names, and the transcript's path line, are not."""
    result = runner.invoke(app, ["play", "--seed", "3", "--lang", "ru", "--out", str(tmp_path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if not line.startswith("transcript: ")]
    text = "\n".join(lines)
    assert "сид 3" in text and "Роли: #1" in text and "Ночь 0" in text
    assert not _english(text, {"fiim", "bot", "heuristic"}), _english(text, {"fiim", "bot", "heuristic"})[:10]
