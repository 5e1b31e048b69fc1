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
