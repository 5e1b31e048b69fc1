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
  // the page's words, in its language (arena/render/labels.py): t("key", {n: 1}) fills a pattern's {n}
  var L = JSON.parse(document.getElementById("labels").textContent);
  function t(key, values) {
    return String(L[key]).replace(/\{(\w+)\}/g, function (all, name) {
      return values && values[name] !== undefined ? String(values[name]) : all;
    });
  }
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
    return name ? el("span", "role r-" + name, L.roles[name] || name) : el("span", "role unknown", "?");
  }
  function column(key) {  // a timeline column's short head from its chapter key: n1 is N1, d2 is D2
    return t(key.charAt(0) === "n" ? "short_night" : "short_day", { n: key.slice(1) });
  }

  function summary(v) {
    var box = el("div", "card summary");
    box.appendChild(el("h2", null, t(v.viewer === 0 ? "god_view" : "seat_view")));
    box.appendChild(el("div", "s-label", v.title));
    var meta = t("rules_line", { rules: v.rules, players: v.players });
    if (v.seed !== undefined) meta += t("seed", { seed: v.seed });
    if (v.status) meta += t("transcript", { status: L.statuses[v.status] || v.status });
    box.appendChild(el("div", "s-dim", meta));
    if (v.viewer !== 0) {
      var who = el("div", "who");
      who.appendChild(document.createTextNode(t("you_are_page")));
      who.appendChild(seat(v.viewer));
      who.appendChild(document.createTextNode(" "));
      who.appendChild(role(v.role));
      if (v.side === "mafia_ally") who.appendChild(document.createTextNode(t("ally")));
      box.appendChild(who);
      if (v.teammates.length) {
        var team = el("div", null, t("black_team_page"));
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
    var outcome = L.winners[v.winner] || v.winner;
    var result = el("div", "result", v.winner ? t("result") + outcome : t("not_over"));
    if (v.winner && v.end_reason) result.appendChild(el("span", "s-dim", " (" + v.end_reason + ")"));
    box.appendChild(result);
    return box;
  }

  function card(title, content) {  // a titled card of the side column
    var box = el("div", "card");
    box.appendChild(el("h2", null, title));
    box.appendChild(content);
    return box;
  }

  function seatsCard(v) {
    var table = el("table", "seats");
    var head = el("tr");
    var named = v.seats.some(function (s) { return s.name; });
    ["col_seat"].concat(named ? ["col_player"] : []).concat(["col_role", "col_left_page"]).forEach(function (h) {
      head.appendChild(el("th", null, t(h)));
    });
    table.appendChild(head);
    v.seats.forEach(function (s) {
      var tr = el("tr");
      var c = el("td"); c.appendChild(seat(s.seat)); tr.appendChild(c);
      if (named) tr.appendChild(el("td", null, s.name));
      c = el("td"); c.appendChild(role(s.role));
      if (s.seat === v.viewer) c.appendChild(el("span", "s-dim", t("you")));
      tr.appendChild(c);
      tr.appendChild(el("td", "fate", s.fate || ""));
      table.appendChild(tr);
    });
    return card(t(v.viewer === 0 ? "seats_god" : "seats_seat"), table);
  }

  function timelineCard(v) {
    var table = el("table", "timeline");
    var head = el("tr");
    head.appendChild(el("th"));
    var keys = v.chapters.map(function (c) { return c.key; }).filter(function (k) {
      return k !== "setup" && k !== "end";
    });  // the timeline's columns are the story's days and nights, in order
    v.timeline.columns.forEach(function (c, i) {
      var key = keys[i] || "";
      var th = el("th", key.charAt(0) === "n" ? "night" : "", key ? column(key) : c);
      th.title = c;
      head.appendChild(th);
    });
    table.appendChild(head);
    v.timeline.rows.forEach(function (r) {
      var tr = el("tr");
      tr.appendChild(el("td", "seat", "#" + r.seat));
      r.cells.forEach(function (cell, i) {
        var night = (keys[i] || "").charAt(0) === "n" ? " night" : "";
        var td;
        if (cell === "alive") td = el("td", "alive" + night);
        else if (cell.indexOf("out:") === 0) {
          td = el("td", "out", "✝");
          td.title = (L.out[cell.slice(4)] || cell.slice(4)) + " (" + v.timeline.columns[i] + ")";
        }
        else td = el("td", night.trim());
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    return card(t("alive_title"), table);
  }

  function navCard(v) {
    var nav = el("nav", "chapters");
    v.chapters.forEach(function (c) {
      var a = el("a", c.key.charAt(0) === "n" ? "night" : "", c.title);
      a.href = "#ch-" + c.key;
      nav.appendChild(a);
    });
    return card(t("chapters"), nav);
  }

  function line(v, item) {
    var row = el("div", "item aud-" + item.aud);
    row.appendChild(el("div", "marker", item.event === "speech" ? "»" : MARKERS[item.aud]));
    var body = el("div", "body");
    if (item.aud === "black") body.appendChild(el("span", "tag black", t("tag_black")));
    if (item.aud === "moderator") body.appendChild(el("span", "tag moderator", t("tag_moderator")));
    if (item.aud === "private") {
      var to = item.to.map(function (s) { return "#" + s; }).join(", ");
      body.appendChild(el("span", "tag private", v.viewer === 0 ? t("tag_to", { who: to }) : t("tag_you")));
    }
    item.spans.forEach(function (s) { body.appendChild(el("span", "s-" + s[1], s[0])); });
    if (item.quote !== null && item.quote !== undefined) {
      body.appendChild(el("span", "quote" + (item.quote === L.silence ? " silence" : ""), item.quote));
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
      var why = t(secret ? "ballots_hidden" : "no_votes");
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
    var what = t(item.kind === "reasoning" ? "reasoning_of" : "call_of", { seat: "#" + item.seat });
    what += " (" + (L.kinds[item.request] || item.request || t("decision")) + "): ";
    if (item.kind === "reasoning") {
      body.appendChild(el("strong", null, what));
      body.appendChild(document.createTextNode(item.text));
    } else {
      var details = el("details");
      details.appendChild(el("summary", null, what + item.text));
      var call = item.call || {};
      (call.messages || []).forEach(function (m) {
        var box = el("div", "msg");
        box.appendChild(el("div", "who", m.role || t("message")));
        var content = typeof m.content === "string" ? m.content : JSON.stringify(m.content, null, 1);
        box.appendChild(el("pre", null, content));
        details.appendChild(box);
      });
      if (call.prefix_ref !== null && call.prefix_ref !== undefined) {
        var extends_ = t("extends_call", { ref: call.prefix_ref, n: call.prefix_messages });
        details.appendChild(el("div", "s-dim", extends_));
      }
      details.appendChild(el("div", "who", t("reply")));
      details.appendChild(el("pre", null, call.raw || t("empty")));
      if (call.parsed) {
        details.appendChild(el("div", "who", t("parsed")));
        details.appendChild(el("pre", null, JSON.stringify(call.parsed, null, 1)));
      }
      if (call.error) details.appendChild(el("div", "s-bad", t("error", { error: call.error })));
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
        items.appendChild(el("div", "s-dim", t(v.viewer === 0 ? "nothing_god_page" : "nothing_seat_page")));
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
    select.appendChild(el("option", null, v === 0 ? t("option_god") : t("option_seat", { seat: v }))).value = String(v);
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
