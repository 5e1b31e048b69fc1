// Mafia Arena pages: a seat, the spectators, a replay, the create-a-table form.
// Plain DOM, no framework, no external URL. Every text from the server is set with textContent (never as markup).
"use strict";
(function () {
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const W = JSON.parse(document.getElementById("words").textContent);
  const $ = (id) => document.getElementById(id);

  function el(tag, props, text) {
    const node = document.createElement(tag);
    if (props) {
      for (const [key, value] of Object.entries(props)) {
        if (key === "dataset") Object.assign(node.dataset, value);
        else node[key] = value;
      }
    }
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function clear(node) { while (node && node.firstChild) node.removeChild(node.firstChild); }
  function t(key, vars) {
    let s = W[key] || key;
    if (vars) for (const [k, v] of Object.entries(vars)) s = s.replace("{" + k + "}", String(v));
    return s;
  }
  const seats = (list) => list.map((s) => "#" + s).join(", ");

  // ----- drawing a view ---------------------------------------------------------------------------------------
  function drawTable(state) {
    const box = $("table");
    if (!box) return;
    clear(box);
    const row = el("div", { className: "seats-row" });
    for (const s of state.table) {
      const cls = ["seatbox", s.status];
      if (s.me) cls.push("me");
      if (s.nominated) cls.push("nominated");
      const cell = el("div", { className: cls.join(" "), id: "seat-" + s.seat, title: t(s.status) });
      cell.appendChild(el("div", null, "#" + s.seat + (s.mate ? " ♠" : "")));
      cell.appendChild(el("div", { className: "dim" }, t(s.status)));
      if (s.fouls) cell.appendChild(el("div", { className: "fouls" }, s.fouls + " " + t("fouls")));
      row.appendChild(cell);
    }
    box.appendChild(row);
    if (state.nominees && state.nominees.length) box.appendChild(el("p", null, t("nominees") + ": " + seats(state.nominees)));
  }

  function drawLog(state) {
    const log = $("log");
    if (!log) return;
    const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 20;
    clear(log);
    for (const line of state.log) {
      log.appendChild(el("li", { className: line.audience, dataset: { seq: String(line.seq) } }, line.text));
    }
    if (atEnd) log.scrollTop = log.scrollHeight;
  }

  function drawRole(state) {
    const box = $("role");
    if (!box) return;
    clear(box);
    if (state.role) {
      box.appendChild(el("p", { className: "status", id: "role-name" }, t("your_role") + ": " + (state.role_label || state.role)));
      if (state.teammates && state.teammates.length) box.appendChild(el("p", null, t("teammates") + ": " + seats(state.teammates)));
    }
    const forb = $("forbidden");
    if (forb && state.forbidden && state.forbidden.length) forb.textContent = t("forbidden") + ": " + state.forbidden.join(", ");
  }

  function drawGod(god) {
    const box = $("god");
    if (!box || !god) return;
    clear(box);
    const roles = el("div", { className: "seats-row", id: "god-roles" });
    for (const r of god.roles || []) roles.appendChild(el("div", { className: "seatbox" }, "#" + r.seat + " " + (r.label || r.role)));
    box.appendChild(roles);
    if (god.reasoning && god.reasoning.length) {
      box.appendChild(el("h3", null, t("reasoning")));
      const list = el("ul");
      for (const r of god.reasoning) list.appendChild(el("li", null, "#" + r.seat + ": " + r.text));
      box.appendChild(list);
    }
  }

  let speakerEnd = 0, speakerSeat = null, askEnd = 0;
  function tick() {
    const sp = $("speaker");
    if (sp) sp.textContent = speakerSeat ? t("speaker") + ": #" + speakerSeat + " · " + Math.max(0, Math.ceil((speakerEnd - Date.now()) / 1000)) + " s" : "";
    const left = $("time-left");
    if (left && askEnd) left.textContent = t("time_left") + ": " + Math.max(0, Math.ceil((askEnd - Date.now()) / 1000)) + " s";
  }
  setInterval(tick, 250);

  function drawStatus(state) {
    const st = $("status");
    if (!st) return;
    st.className = "status";
    if (state.over) {
      st.textContent = t("game_over") + (state.winner ? " · " + t("winner") + ": " + (state.winner_label || state.winner) : "");
      st.id = "status";
      st.dataset.over = "1";
    } else if (state.pending) {
      st.textContent = t("your_turn");
      st.className = "status turn";
    } else if (state.speaker && state.speaker.seat !== state.seat) {
      st.textContent = t("waiting_speech", { seat: "#" + state.speaker.seat });
    } else {
      st.textContent = t("waiting");
    }
    speakerSeat = state.speaker && !state.over ? state.speaker.seat : null;
    speakerEnd = state.speaker ? Date.now() + state.speaker.left_s * 1000 : 0;
    const err = $("error");
    if (err) err.textContent = state.error || "";
  }

  // ----- a seat's controls ------------------------------------------------------------------------------------
  let currentAsk = null;
  let send = null; // set by the connection

  function reply(text, good) {
    const box = $("reply");
    if (!box) return;
    box.className = good ? "good" : "bad";
    box.textContent = text;
  }

  function counter(area, form) {
    const line = el("div", { className: "counter", id: "counter" });
    const warn = el("div", { className: "warn", id: "forbidden-hit" });
    const update = () => {
      const text = area.value;
      const words = text.trim() ? text.trim().split(/\s+/).length : 0;
      line.textContent = words + " / " + form.max_words + " " + t("words") + " · " + text.length + " / " + form.max_chars + " " + t("chars");
      line.className = "counter" + (words > form.max_words || text.length > form.max_chars ? " over" : "");
      const low = text.toLowerCase();
      const hits = (form.forbidden || []).filter((p) => low.includes(p));
      warn.textContent = hits.length ? t("forbidden") + ": " + hits.join(", ") : "";
    };
    area.addEventListener("input", update);
    update();
    return [line, warn];
  }

  function pickButtons(box, form, onPick) {
    const row = el("div", { className: "picks" });
    for (const s of form.options) {
      const b = el("button", { type: "button", className: "pick", dataset: { seat: String(s) } }, "#" + s);
      b.addEventListener("click", () => onPick(s));
      row.appendChild(b);
    }
    if (form.allow_none) {
      const b = el("button", { type: "button", className: "pick", id: "pick-none" }, t("nobody"));
      b.addEventListener("click", () => onPick(null));
      row.appendChild(b);
    }
    box.appendChild(row);
  }

  function drawControls(state) {
    const box = $("controls");
    if (!box) return;
    const pending = state.pending;
    if (!pending) {
      if (currentAsk !== null) { clear(box); currentAsk = null; askEnd = 0; delete box.dataset.ask; }
      return;
    }
    if (pending.ask === currentAsk) return; // keep what is being typed
    currentAsk = pending.ask;
    askEnd = pending.left_s === null ? 0 : Date.now() + pending.left_s * 1000;
    clear(box);
    reply("", true);
    const form = pending.form;
    box.dataset.kind = form.kind;
    box.dataset.ask = pending.ask;
    const submit = (answer) => send({ type: "decide", ask: pending.ask, answer: answer });
    box.appendChild(el("h2", { id: "ask-title" }, t("your_turn") + ": " + (W["kind_" + form.kind] || form.kind.replace("_", " ")) + (form.speech ? " (" + form.speech.replace("_", " ") + ")" : "")));
    if (pending.problem) box.appendChild(el("p", { className: "bad" }, t("refused") + ": " + pending.problem));
    box.appendChild(el("p", { className: "dim", id: "time-left" }));
    box.appendChild(el("p", { className: "dim" }, t("default") + ": " + form.default));

    if (form.kind === "speech" || form.kind === "black_message") {
      const area = el("textarea", { id: "speech", maxLength: form.max_chars, placeholder: form.kind === "speech" ? t("speech_prompt") : t("message") });
      box.appendChild(area);
      for (const node of counter(area, form)) box.appendChild(node);
      if (form.kind === "speech" && form.forbidden && form.forbidden.length) box.appendChild(el("p", { className: "warn" }, t("forbidden") + ": " + form.forbidden.join(", ")));
      let nominate = null, extra = null;
      const orders = [];
      if (form.kind === "speech" && form.may_nominate) {
        nominate = el("select", { id: "nominate" });
        nominate.appendChild(el("option", { value: "" }, t("no_nomination")));
        for (const s of form.nominate_options) nominate.appendChild(el("option", { value: String(s) }, "#" + s));
        const label = el("label", null, t("nominate") + " ");
        label.appendChild(nominate);
        box.appendChild(label);
        if (form.already_nominated.length) box.appendChild(el("span", { className: "dim" }, " (" + t("already_nominated") + ": " + form.already_nominated.join(", ") + ")"));
      }
      if (form.may_request_extra) {
        extra = el("input", { type: "checkbox", id: "extra" });
        const label = el("label", null, " " + t("extra"));
        label.prepend(extra);
        box.appendChild(label);
      }
      if (form.kind === "black_message" && form.may_set_order) {
        const label = el("p", null, t("kill_order") + ": ");
        for (let i = 0; i < form.max_targets; i++) {
          const sel = el("select", { className: "order" });
          sel.appendChild(el("option", { value: "" }, "—"));
          for (const s of form.options) sel.appendChild(el("option", { value: String(s) }, "#" + s));
          orders.push(sel);
          label.appendChild(sel);
        }
        box.appendChild(label);
      }
      const go = el("button", { type: "button", id: "send" }, t("send"));
      go.addEventListener("click", () => {
        const answer = { text: area.value };
        if (form.kind === "speech") {
          answer.nominate = nominate && nominate.value ? [Number(nominate.value)] : [];
          if (extra) answer.extra = extra.checked;
        } else if (form.may_set_order) {
          answer.targets = orders.map((s) => s.value).filter((v) => v).map(Number);
        }
        submit(answer);
      });
      box.appendChild(el("div")).appendChild(go);
    } else if (form.kind === "vote") {
      const who = form.subject === "lift" ? seats(form.candidates) : "#" + form.candidate;
      box.appendChild(el("p", { className: "status" }, t("vote_on") + " " + who + "?"));
      const yes = el("button", { type: "button", id: "vote-yes" }, t("yes"));
      const no = el("button", { type: "button", id: "vote-no" }, t("no"));
      yes.addEventListener("click", () => submit({ vote: true }));
      no.addEventListener("click", () => submit({ vote: false }));
      box.appendChild(yes);
      box.appendChild(no);
    } else if (form.kind === "best_move") {
      box.appendChild(el("p", null, t("best_move") + " (≤ " + form.max_targets + ")"));
      const boxes = [];
      for (const s of form.options) {
        const cb = el("input", { type: "checkbox", value: String(s), className: "best" });
        const label = el("label", null, " #" + s + " ");
        label.prepend(cb);
        boxes.push(cb);
        box.appendChild(label);
      }
      const go = el("button", { type: "button", id: "send" }, t("send"));
      go.addEventListener("click", () => submit({ targets: boxes.filter((b) => b.checked).map((b) => Number(b.value)) }));
      box.appendChild(el("div")).appendChild(go);
    } else if (form.kind === "choose_side") {
      for (const choice of form.choices) {
        const b = el("button", { type: "button", className: "pick choice" }, choice);
        b.addEventListener("click", () => submit({ action: choice }));
        box.appendChild(b);
      }
    } else if (form.kind === "probe") {
      // private: how likely each seat is to be black, as a percentage per seat (never shown to anyone else)
      box.appendChild(el("p", null, t("probe")));
      const inputs = [];
      for (const s of form.options) {
        const input = el("input", { type: "number", min: "0", max: "100", step: "1", value: "30", className: "probe", dataset: { seat: String(s) } });
        const label = el("label", null, " #" + s + " ");
        label.appendChild(input);
        label.appendChild(document.createTextNode(" % "));
        inputs.push(input);
        box.appendChild(label);
      }
      const go = el("button", { type: "button", id: "send" }, t("send"));
      go.addEventListener("click", () => {
        const beliefs = {};
        for (const input of inputs) beliefs[input.dataset.seat] = Math.min(100, Math.max(0, Number(input.value) || 0)) / 100;
        submit({ beliefs: beliefs });
      });
      box.appendChild(el("div")).appendChild(go);
    } else if (form.kind === "sheriff") {
      let action = null;
      if (form.actions.length > 1) {
        action = el("select", { id: "action" });
        for (const a of form.actions) action.appendChild(el("option", { value: a }, a));
        box.appendChild(action);
      }
      pickButtons(box, form, (s) => submit({ action: action ? action.value : form.actions[0] || "check", target: s }));
    } else {
      // every targeted kind (ballot, shoot, checks, heal, visit, maniac, and any newer one such as a probe)
      box.appendChild(el("p", null, t("choose") + ":"));
      pickButtons(box, form, (s) => submit({ target: s }));
    }
    tick();
  }

  function draw(state) {
    drawRole(state);
    drawStatus(state);
    drawTable(state);
    drawLog(state);
    if (boot.mode === "seat") drawControls(state);
    if (state.god) drawGod(state.god);
  }

  // ----- the live connection (WebSocket, with an HTTP fallback while it is down) --------------------------------
  function connect() {
    let socket = null, delay = 500, polling = null;
    const lang = "?lang=" + encodeURIComponent(boot.lang);
    const api = "/api/state/" + encodeURIComponent(boot.token) + lang;
    const poll = () => fetch(api, { cache: "no-store" }).then((r) => r.ok ? r.json() : null).then((s) => s && draw(s)).catch(() => {});
    send = (message) => {
      if (socket && socket.readyState === 1) { socket.send(JSON.stringify(message)); return; }
      fetch("/api/decide/" + encodeURIComponent(boot.token), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(message) })
        .then((r) => r.json()).then(onMessage).then(poll).catch(() => reply(t("connection_lost"), false));
    };
    function onMessage(msg) {
      if (!msg) return;
      if (msg.type === "state") draw(msg.state);
      else if (msg.type === "accepted") reply(t("accepted"), true);
      else if (msg.type === "refused") reply(t("refused") + ": " + msg.reason, false);
    }
    function open() {
      const scheme = location.protocol === "https:" ? "wss://" : "ws://";
      socket = new WebSocket(scheme + location.host + "/ws/" + encodeURIComponent(boot.token) + lang);
      socket.onopen = () => { delay = 500; if (polling) { clearInterval(polling); polling = null; } const e = $("error"); if (e) e.textContent = ""; };
      socket.onmessage = (ev) => { try { onMessage(JSON.parse(ev.data)); } catch (e) { /* a bad frame is ignored */ } };
      socket.onclose = () => {
        const e = $("error");
        if (e) e.textContent = t("connection_lost");
        if (!polling) polling = setInterval(poll, 3000);
        setTimeout(open, delay);
        delay = Math.min(delay * 2, 10000);
      };
    }
    poll();
    open();
  }

  // ----- replays -------------------------------------------------------------------------------------------------
  function replay() {
    let step = boot.steps;
    const viewAs = $("view-as");
    viewAs.appendChild(el("option", { value: "0" }, t("god_view")));
    for (let s = 1; s <= boot.players; s++) viewAs.appendChild(el("option", { value: String(s) }, t("seat") + " #" + s));
    const load = () => {
      const url = "/api/replay/" + encodeURIComponent(boot.token) + "/" + encodeURIComponent(boot.name) + "?seat=" + viewAs.value + "&step=" + step + "&lang=" + encodeURIComponent(boot.lang);
      fetch(url, { cache: "no-store" }).then((r) => r.json()).then((state) => {
        $("step").textContent = String(state.step);
        if (state.detail) { $("error").textContent = state.detail; return; }
        drawRole(state); drawTable(state); drawLog(state);
        const god = $("god");
        clear(god);
        if (state.roles) drawGod(state);
      });
    };
    const go = (to) => { step = Math.max(0, Math.min(boot.steps, to)); load(); };
    $("first").addEventListener("click", () => go(0));
    $("prev").addEventListener("click", () => go(step - 1));
    $("next").addEventListener("click", () => go(step + 1));
    $("last").addEventListener("click", () => go(boot.steps));
    viewAs.addEventListener("change", load);
    load();
  }

  // ----- create a table ------------------------------------------------------------------------------------------
  function create() {
    const preset = $("preset"), list = $("seat-list"), lang = $("table-lang");
    lang.value = boot.lang;
    for (const name of Object.keys(boot.presets)) preset.appendChild(el("option", { value: name }, name));
    const drawSeats = () => {
      clear(list);
      for (let s = 1; s <= boot.presets[preset.value]; s++) {
        const sel = el("select", { className: "agent", dataset: { seat: String(s) } });
        for (const a of boot.agents) sel.appendChild(el("option", { value: a }, a));
        const label = el("label", null, "#" + s + " ");
        label.appendChild(sel);
        list.appendChild(label);
      }
    };
    preset.addEventListener("change", drawSeats);
    drawSeats();
    $("create").addEventListener("click", () => {
      const seatsMap = {};
      for (const sel of list.querySelectorAll("select.agent")) seatsMap[sel.dataset.seat] = sel.value;
      fetch("/api/tables/" + encodeURIComponent(boot.token), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ preset: preset.value, lang: lang.value, seats: seatsMap }) })
        .then((r) => r.json()).then((data) => {
          const out = $("links");
          clear(out);
          if (data.error) { reply(data.error, false); return; }
          out.appendChild(el("p", null, t("links")));
          const ul = el("ul");
          for (const [who, url] of Object.entries(data.links)) {
            const li = el("li", null, who + ": ");
            li.appendChild(el("a", { href: url }, url));
            ul.appendChild(li);
          }
          out.appendChild(ul);
        });
    });
  }

  if (boot.mode === "seat" || boot.mode === "watch") connect();
  else if (boot.mode === "replay") replay();
  else if (boot.mode === "create") create();
})();
