"""`arena export --html`: one self-contained HTML page to review a game in a browser, offline.

Why it exists: a transcript is shared with people who will not run the CLI. The page carries the god view and every
seat's view, each as its own JSON block built by `story.build_story` from the engine's `view` for that one seat, so
choosing "seat 3" shows exactly what seat 3 saw and the page never filters anything itself. `--seat N` writes a page
with seat N's view alone, safe to hand to that player.

Safety: no CDN, no external URL; the CSS and the small script are inline. Player text only ever reaches the DOM
through `textContent`, and the JSON sits in `<script type="application/json">` blocks with `<`, `>` and `&` escaped
as `\\u003c`, `\\u003e` and `\\u0026`, so no text can close the block or inject markup.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from arena.engine import MODERATOR, Game, Input
from arena.players.base import ModelCall
from arena.render.notes import Note, input_anchors
from arena.render.story import Line, Story, VoteRound, build_story


def _vote_json(round_: VoteRound) -> dict[str, Any]:
    voters = round_.voters
    rows = []
    for row in round_.rows:
        if round_.yes_no:
            marks = [round_.marks.get((None, v)) for v in voters]
            label = "yes / no"
        else:
            marks = [round_.marks.get((row, v)) for v in voters]
            label = f"#{row}" if row is not None else "abstain"
        rows.append({"label": label, "marks": marks, "total": round_.row_total(row)})
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
    *,
    seat: int | None = None,
    names: Mapping[int, str] | None = None,
    status: str | None = None,
    title: str | None = None,
    call_positions: Sequence[int] | None = None,
    models: Mapping[int, str] | None = None,
) -> str:
    """The whole page. With `seat`, only that seat's view; otherwise the god view and every seat's view."""
    viewers = [seat] if seat is not None else [MODERATOR, *range(1, game.n + 1)]
    anchors = input_anchors(game, inputs) if inputs else None
    blocks = []
    for viewer in viewers:
        story = build_story(
            game,
            viewer,
            calls,
            inputs,
            names=names,
            status=status,
            anchors=anchors,
            call_positions=call_positions,
            models=models,
        )
        blocks.append(
            f'<script type="application/json" class="view" data-viewer="{viewer}">'
            f"{embed_json(story_json(story))}</script>"
        )
    heading = title or f"Mafia Arena: {game.rules.name}, {game.n} players"
    return _PAGE.format(
        title=html.escape(heading),
        css=_CSS,
        js=_JS,
        views="\n".join(blocks),
    )


_CSS = """
:root { --bg:#f6f4ef; --card:#fff; --ink:#1d1d1f; --dim:#77736b; --line:#e3ded3; --seat:#0b6e8a; --role:#8a2b80;
  --black:#26262b; --red:#b3261e; --good:#1e7d3a; --warn:#b35c00; --night:#1f2433; --nightink:#e9e6f5; }
* { box-sizing:border-box; }
body { margin:0; font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; background:var(--bg);
  color:var(--ink); }
header.bar { position:sticky; top:0; z-index:5; display:flex; gap:18px; align-items:center; flex-wrap:wrap;
  padding:10px 22px; background:var(--black); color:#fff; }
header.bar h1 { font-size:17px; margin:0 12px 0 0; font-weight:650; }
header.bar label { font-size:14px; display:flex; gap:6px; align-items:center; }
header.bar select { font-size:14px; padding:3px 6px; border-radius:6px; }
.layout { display:grid; grid-template-columns:minmax(300px,380px) 1fr; gap:20px; padding:18px 22px; align-items:start; }
aside { position:sticky; top:64px; display:flex; flex-direction:column; gap:14px; max-height:calc(100vh - 80px);
  overflow:auto; }
.card { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:12px 14px; }
.card h2 { font-size:14px; text-transform:uppercase; letter-spacing:.05em; color:var(--dim); margin:0 0 8px; }
.summary .who { font-size:16px; margin:4px 0; }
.summary .result { font-weight:650; margin-top:6px; }
table { border-collapse:collapse; }
table.seats td, table.seats th { padding:3px 8px 3px 0; text-align:left; font-size:14px; }
table.seats th { color:var(--dim); font-weight:500; }
.role { display:inline-block; padding:0 7px; border-radius:9px; font-size:13px; background:#f1e6f0; color:var(--role); }
.role.r-mafia, .role.r-don { background:var(--black); color:#fff; }
.role.r-sheriff { background:#fde8e6; color:var(--red); }
.role.r-maniac { background:#eadcff; color:#5b2ba6; }
.role.r-doctor, .role.r-lover { background:#e3f3e6; color:var(--good); }
.role.unknown { background:transparent; color:var(--dim); }
.fate { color:var(--red); font-size:13px; }
table.timeline td, table.timeline th { width:26px; height:22px; text-align:center; font-size:11px; padding:0; }
table.timeline th { color:var(--dim); font-weight:500; }
table.timeline th.night, table.timeline td.night { background:#eceaf3; }
table.timeline td.alive::after { content:"●"; color:var(--good); }
table.timeline td.out { color:#fff; background:var(--red); border-radius:4px; font-weight:700; }
table.timeline td.seat { text-align:left; width:34px; color:var(--seat); font-weight:600; }
nav.chapters a { display:inline-block; margin:0 6px 4px 0; padding:1px 7px; border-radius:8px; background:#ece7dc;
  color:var(--ink); text-decoration:none; font-size:13px; }
nav.chapters a.night { background:var(--night); color:var(--nightink); }
section.chapter { background:var(--card); border:1px solid var(--line); border-radius:10px; margin-bottom:16px;
  overflow:hidden; }
section.chapter > h3 { margin:0; padding:8px 14px; font-size:15px; background:#ece7dc; }
section.chapter.night > h3 { background:var(--night); color:var(--nightink); }
section.chapter .items { padding:8px 14px; }
.item { display:grid; grid-template-columns:22px 1fr; gap:6px; padding:3px 0; }
.marker { color:var(--dim); text-align:center; }
.aud-black .marker, .aud-private .marker, .aud-moderator .marker { color:var(--warn); }
.tag { font-size:11px; padding:0 6px; border-radius:8px; margin-right:6px; text-transform:uppercase;
  letter-spacing:.04em; }
.tag.black { background:var(--black); color:#fff; }
.tag.private { background:#fff1d6; color:var(--warn); }
.tag.moderator { background:#fff6b8; color:#6b5600; }
.quote { display:block; margin:2px 0 2px 0; padding:4px 10px; border-left:3px solid var(--line); background:#faf8f3;
  white-space:pre-wrap; overflow-wrap:anywhere; font-style:italic; }
.quote.silence { color:var(--dim); }
.s-seat { color:var(--seat); font-weight:650; }
.s-role { color:var(--role); font-weight:650; }
.s-dim { color:var(--dim); }
.s-good { color:var(--good); }
.s-bad { color:var(--red); font-weight:600; }
.s-label { font-weight:650; }
.s-black { font-weight:650; }
.s-private { color:var(--warn); }
.s-moderator { color:#6b5600; font-weight:600; }
.s-warn { color:var(--warn); }
table.votes { margin:6px 0 8px; font-size:13px; justify-self:start; }
table.votes caption { text-align:left; font-weight:650; padding-bottom:3px; }
table.votes th, table.votes td { border:1px solid var(--line); padding:2px 6px; text-align:center; min-width:28px; }
table.votes th.row { text-align:left; color:var(--seat); }
table.votes td.yes, table.votes td.aye { color:var(--good); font-weight:700; }
table.votes td.default { color:var(--good); }
table.votes td.no { color:var(--red); }
table.votes td.total { font-weight:700; }
.note { display:none; }
body.show-reasoning .note.reasoning, body.show-calls .note.call { display:grid; }
.note.reasoning .body { color:#23459c; font-style:italic; white-space:pre-wrap; }
.note.call .body { color:#6a2c8a; }
.note.call details pre, .note.call .msg pre { white-space:pre-wrap; overflow-wrap:anywhere; background:#f7f2fa;
  padding:6px 8px; border-radius:6px; margin:4px 0; font-size:12px; max-height:360px; overflow:auto; }
.msg .who { font-size:11px; text-transform:uppercase; color:var(--dim); }
footer { padding:6px 22px 30px; color:var(--dim); font-size:12px; }
@media (max-width:900px) { .layout { grid-template-columns:1fr; } aside { position:static; max-height:none; } }
"""

_JS = r"""
(function () {
  "use strict";
  var views = {};
  var order = [];
  document.querySelectorAll('script.view[type="application/json"]').forEach(function (node) {
    var data = JSON.parse(node.textContent);
    views[data.viewer] = data;
    order.push(data.viewer);
  });
  order.sort(function (a, b) { return a - b; });
  var MARKERS = { "public": "•", "black": "♠", "private": "◆", "moderator": "⚖" };
  var VOTES = { "yes": "●", "default": "○", "no": "✗", "abstain": "●", "aye": "✓" };

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function seat(n) { return el("span", "s-seat", "#" + n); }
  function role(name) {
    return name ? el("span", "role r-" + name, name) : el("span", "role unknown", "?");
  }

  function summary(v) {
    var box = el("div", "card summary");
    box.appendChild(el("h2", null, v.viewer === 0 ? "God view" : "Seat view"));
    box.appendChild(el("div", "s-label", v.title));
    var meta = "Rules " + v.rules + " · " + v.players + " players";
    if (v.seed !== undefined) meta += " · seed " + v.seed;
    if (v.status) meta += " · transcript " + v.status;
    box.appendChild(el("div", "s-dim", meta));
    if (v.viewer !== 0) {
      var who = el("div", "who");
      who.appendChild(document.createTextNode("You are "));
      who.appendChild(seat(v.viewer));
      who.appendChild(document.createTextNode(" "));
      who.appendChild(role(v.role));
      if (v.side === "mafia_ally") who.appendChild(document.createTextNode(" (ally of the mafia)"));
      box.appendChild(who);
      if (v.teammates.length) {
        var team = el("div", null, "Your black team: ");
        v.teammates.forEach(function (m) {
          team.appendChild(seat(m));
          team.appendChild(document.createTextNode(" "));
          var info = v.seats[m - 1];
          team.appendChild(role(info ? info.role : null));
          team.appendChild(document.createTextNode("  "));
        });
        box.appendChild(team);
      }
    }
    var outcome = v.winner === "draw" ? "a draw" : v.winner + " wins";
    var result = el("div", "result", v.winner ? "Result: " + outcome : "The game is not over.");
    if (v.winner && v.end_reason) result.appendChild(el("span", "s-dim", " (" + v.end_reason + ")"));
    box.appendChild(result);
    return box;
  }

  function seatsCard(v) {
    var box = el("div", "card");
    box.appendChild(el("h2", null, v.viewer === 0 ? "Seats and roles" : "Seats (roles this seat knows)"));
    var table = el("table", "seats");
    var head = el("tr");
    var named = v.seats.some(function (s) { return s.name; });
    ["seat"].concat(named ? ["player"] : []).concat(["role", "left"]).forEach(function (h) {
      head.appendChild(el("th", null, h));
    });
    table.appendChild(head);
    v.seats.forEach(function (s) {
      var tr = el("tr");
      var c = el("td"); c.appendChild(seat(s.seat)); tr.appendChild(c);
      if (named) tr.appendChild(el("td", null, s.name));
      c = el("td"); c.appendChild(role(s.role));
      if (s.seat === v.viewer) c.appendChild(el("span", "s-dim", " (you)"));
      tr.appendChild(c);
      tr.appendChild(el("td", "fate", s.fate || ""));
      table.appendChild(tr);
    });
    box.appendChild(table);
    return box;
  }

  function timelineCard(v) {
    var box = el("div", "card");
    box.appendChild(el("h2", null, "Who was alive"));
    var table = el("table", "timeline");
    var head = el("tr");
    head.appendChild(el("th"));
    v.timeline.columns.forEach(function (c) {
      var th = el("th", c.indexOf("Night") === 0 ? "night" : "", c.replace("Night ", "N").replace("Day ", "D"));
      th.title = c;
      head.appendChild(th);
    });
    table.appendChild(head);
    v.timeline.rows.forEach(function (r) {
      var tr = el("tr");
      tr.appendChild(el("td", "seat", "#" + r.seat));
      r.cells.forEach(function (cell, i) {
        var night = v.timeline.columns[i].indexOf("Night") === 0 ? " night" : "";
        var td;
        if (cell === "alive") td = el("td", "alive" + night);
        else if (cell.indexOf("out:") === 0) {
          td = el("td", "out", "✝");
          td.title = cell.slice(4) + " (" + v.timeline.columns[i] + ")";
        }
        else td = el("td", night.trim());
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    box.appendChild(table);
    return box;
  }

  function navCard(v) {
    var box = el("div", "card");
    box.appendChild(el("h2", null, "Days and nights"));
    var nav = el("nav", "chapters");
    v.chapters.forEach(function (c) {
      var a = el("a", c.key.charAt(0) === "n" ? "night" : "", c.title);
      a.href = "#ch-" + c.key;
      nav.appendChild(a);
    });
    box.appendChild(nav);
    return box;
  }

  function line(v, item) {
    var row = el("div", "item aud-" + item.aud);
    row.appendChild(el("div", "marker", item.event === "speech" ? "»" : MARKERS[item.aud]));
    var body = el("div", "body");
    if (item.aud === "black") body.appendChild(el("span", "tag black", "black team"));
    if (item.aud === "moderator") body.appendChild(el("span", "tag moderator", "moderator only"));
    if (item.aud === "private") {
      var to = item.to.map(function (s) { return "#" + s; }).join(", ");
      body.appendChild(el("span", "tag private", v.viewer === 0 ? "to " + to : "only you"));
    }
    item.spans.forEach(function (s) { body.appendChild(el("span", "s-" + s[1], s[0])); });
    if (item.quote !== null && item.quote !== undefined) {
      body.appendChild(el("span", "quote" + (item.quote === "(silence)" ? " silence" : ""), item.quote));
    }
    row.appendChild(body);
    return row;
  }

  function voteTable(item) {
    var wrap = el("div", "item");
    wrap.appendChild(el("div", "marker", "☐"));
    var table = el("table", "votes");
    table.appendChild(el("caption", null, item.title));
    var head = el("tr");
    head.appendChild(el("th"));
    item.voters.forEach(function (v) { head.appendChild(el("th", "s-seat", "#" + v)); });
    head.appendChild(el("th", null, "Σ"));
    table.appendChild(head);
    item.rows.forEach(function (r) {
      var tr = el("tr");
      tr.appendChild(el("th", "row", r.label));
      r.marks.forEach(function (m) {
        var mark = item.yes_no && m === "yes" ? "aye" : m;
        tr.appendChild(el("td", mark || "", mark ? VOTES[mark] || mark : ""));
      });
      tr.appendChild(el("td", "total", r.total));
      table.appendChild(tr);
    });
    if (!item.voters.length) {
      var secret = item.rows.some(function (r) { return r.total > 0; });
      var why = secret ? "the ballots are not shown to this view: totals only" : "no votes were cast";
      wrap.appendChild(el("div", "s-dim", why));
    }
    var box = el("div");
    box.appendChild(table);
    if (item.legend) { box.appendChild(el("div", "s-dim legend", item.legend)); }
    wrap.appendChild(box);
    return wrap;
  }

  function note(item) {
    var row = el("div", "item note " + item.kind);
    row.appendChild(el("div", "marker", item.kind === "reasoning" ? "✎" : "⚙"));
    var body = el("div", "body");
    var what = (item.kind === "reasoning" ? "reasoning of #" : "model call of #") + item.seat;
    what += " (" + (item.request || "decision") + "): ";
    if (item.kind === "reasoning") {
      body.appendChild(el("strong", null, what));
      body.appendChild(document.createTextNode(item.text));
    } else {
      var details = el("details");
      details.appendChild(el("summary", null, what + item.text));
      var call = item.call || {};
      (call.messages || []).forEach(function (m) {
        var box = el("div", "msg");
        box.appendChild(el("div", "who", m.role || "message"));
        var content = typeof m.content === "string" ? m.content : JSON.stringify(m.content, null, 1);
        box.appendChild(el("pre", null, content));
        details.appendChild(box);
      });
      if (call.prefix_ref !== null && call.prefix_ref !== undefined) {
        var shared = " (" + call.prefix_messages + " shared messages)";
        details.appendChild(el("div", "s-dim", "extends call " + call.prefix_ref + shared));
      }
      details.appendChild(el("div", "who", "reply"));
      details.appendChild(el("pre", null, call.raw || "(empty)"));
      if (call.parsed) {
        details.appendChild(el("div", "who", "parsed"));
        details.appendChild(el("pre", null, JSON.stringify(call.parsed, null, 1)));
      }
      if (call.error) details.appendChild(el("div", "s-bad", "error: " + call.error));
      body.appendChild(details);
    }
    row.appendChild(body);
    return row;
  }

  function render(viewer) {
    var v = views[viewer];
    var side = document.getElementById("side");
    var main = document.getElementById("story");
    side.replaceChildren(summary(v), seatsCard(v), timelineCard(v), navCard(v));
    main.replaceChildren();
    v.chapters.forEach(function (c) {
      var sec = el("section", "chapter" + (c.key.charAt(0) === "n" ? " night" : ""));
      sec.id = "ch-" + c.key;
      sec.appendChild(el("h3", null, c.title));
      var items = el("div", "items");
      if (!c.items.some(function (item) { return item.t !== "note"; })) {
        items.appendChild(el("div", "s-dim", v.viewer === 0 ? "Nothing happened." : "Nothing this seat could see."));
      }
      c.items.forEach(function (item) {
        if (item.t === "line") items.appendChild(line(v, item));
        else if (item.t === "vote") items.appendChild(voteTable(item));
        else items.appendChild(note(item));
      });
      sec.appendChild(items);
      main.appendChild(sec);
    });
  }

  var select = document.getElementById("viewer");
  order.forEach(function (v) {
    select.appendChild(el("option", null, v === 0 ? "God view (moderator)" : "Seat #" + v)).value = String(v);
  });
  select.addEventListener("change", function () { render(Number(select.value)); });
  [["reasoning", "show-reasoning"], ["calls", "show-calls"]].forEach(function (pair) {
    var box = document.getElementById(pair[0]);
    box.addEventListener("change", function () { document.body.classList.toggle(pair[1], box.checked); });
  });
  var hash = /view=(\d+)/.exec(location.hash);
  var first = hash && views[Number(hash[1])] ? Number(hash[1]) : order[0];
  select.value = String(first);
  render(first);
})();
"""

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<header class="bar">
  <h1>{title}</h1>
  <label>View <select id="viewer"></select></label>
  <label><input type="checkbox" id="reasoning"> reasoning</label>
  <label><input type="checkbox" id="calls"> model calls</label>
</header>
<noscript><p style="padding:20px">This page draws the game with a small inline script;
please enable JavaScript.</p></noscript>
<div class="layout">
  <aside id="side"></aside>
  <main id="story"></main>
</div>
<footer>Mafia Arena review page. Each view is built by the engine's own view function for that seat.</footer>
{views}
<script>{js}</script>
</body>
</html>
"""
