"""`arena export --html`: one self-contained HTML page to review a game in a browser, offline.

Why it exists: a transcript is shared with people who will not run the CLI. The page carries the god view and every
seat's view, each as its own JSON block built by `story.build_story` from the engine's `view` for that one seat, so
choosing "seat 3" shows exactly what seat 3 saw and the page never filters anything itself. `--seat N` writes a page
with seat N's view alone, safe to hand to that player.

Safety: no CDN, no external URL; the CSS and the small script (`arena/render/page/`, files so that they read as
CSS and JavaScript) are inlined into the page. Player text only ever reaches the DOM
through `textContent`, and the JSON sits in `<script type="application/json">` blocks with `<`, `>` and `&` escaped
as `\\u003c`, `\\u003e` and `\\u0026`, so no text can close the block or inject markup.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from arena.engine import MODERATOR, Game, Input
from arena.players.base import ModelCall
from arena.render import labels
from arena.render.labels import label
from arena.render.notes import Note, input_anchors
from arena.render.story import EVERYTHING, Line, Story, StoryOptions, VoteRound, build_story


def _vote_json(round_: VoteRound) -> dict[str, Any]:
    voters = round_.voters
    rows = []
    for row in round_.rows:
        if round_.yes_no:
            marks = [round_.marks.get((None, v)) for v in voters]
            name = label("row_yes_no", round_.lang)
        else:
            marks = [round_.marks.get((row, v)) for v in voters]
            name = f"#{row}" if row is not None else label("row_abstain", round_.lang)
        rows.append({"label": name, "marks": marks, "total": round_.row_total(row)})
    return {
        "t": "vote",
        "seq": round_.seq,
        "kind": round_.kind,
        "title": round_.title,
        "yes_no": round_.yes_no,
        "voters": voters,
        "rows": rows,
        "legend": round_.legend,
    }


def _note_json(note: Note) -> dict[str, Any]:
    out: dict[str, Any] = {
        "t": "note",
        "kind": note.kind,
        "seq": note.seq,
        "seat": note.seat,
        "request": note.request,
        "text": note.text,
    }
    if note.call is not None:
        out["call"] = note.call.model_dump(mode="json")
    return out


def story_json(story: Story) -> dict[str, Any]:
    """The plain data of one view, as the page's script draws it. A seat's view holds no seed and no hidden role."""
    chapters = []
    for chapter in story.chapters:
        items: list[dict[str, Any]] = []
        for item in chapter.items:
            if isinstance(item, Line):
                items.append(
                    {
                        "t": "line",
                        "seq": item.seq,
                        "event": item.event,
                        "aud": item.audience,
                        "spans": [[s.text, s.style] for s in item.spans],
                        "quote": item.quote,
                        "speaker": item.speaker,
                        "to": list(item.to),
                    }
                )
            elif isinstance(item, VoteRound):
                items.append(_vote_json(item))
            else:
                items.append(_note_json(item))
        chapters.append({"key": chapter.key, "title": chapter.title, "items": items})
    data: dict[str, Any] = {
        "viewer": story.viewer,
        "title": story.title,
        "rules": story.rules,
        "players": story.players,
        "status": story.status,
        "role": story.role,
        "side": story.side,
        "teammates": list(story.teammates),
        "seats": [{"seat": s.seat, "name": s.name, "role": s.role, "fate": s.fate} for s in story.seats],
        "chapters": chapters,
        "timeline": {
            "columns": story.timeline_columns,
            "rows": [{"seat": seat, "cells": cells} for seat, cells in story.timeline.items()],
        },
        "winner": story.winner,
        "end_reason": story.end_reason,
    }
    if story.seed is not None:
        data["seed"] = story.seed
    return data


def embed_json(data: object) -> str:
    """JSON that is safe inside a `<script type="application/json">` block: no `<`, `>` or `&` at all."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def export_html(
    game: Game,
    calls: Sequence[ModelCall] = (),
    inputs: Sequence[Input] = (),
    options: StoryOptions = EVERYTHING,
    *,
    seat: int | None = None,
    title: str | None = None,
) -> str:
    """The whole page, in `options.lang` (en, ru). With `seat`, only that seat's view; otherwise the god view and
    every seat's view."""
    lang = labels.pick(options.lang)
    viewers = [seat] if seat is not None else [MODERATOR, *range(1, game.n + 1)]
    anchors = input_anchors(game, inputs) if inputs else None
    blocks = []
    for viewer in viewers:
        story = build_story(game, viewer, calls, inputs, options, anchors=anchors)
        blocks.append(
            f'<script type="application/json" class="view" data-viewer="{viewer}">'
            f"{embed_json(story_json(story))}</script>"
        )
    heading = title or label("page_title", lang, rules=game.rules.name, players=game.n)
    words = {key: html.escape(label(key, lang)) for key in ("view", "reasoning", "calls", "noscript", "footer")}
    return _asset("review.html").format(
        lang=lang,
        title=html.escape(heading),
        css=_asset("review.css"),
        js=_asset("review.js"),
        labels=f'<script type="application/json" id="labels">{embed_json(labels.page(lang))}</script>',
        views="\n".join(blocks),
        **words,
    )


@cache
def _asset(name: str) -> str:
    """One of the page's parts in `arena/render/page/`: the HTML around the views, its CSS and its script."""
    return (resources.files("arena.render") / "page" / name).read_text(encoding="utf-8")
