// Mafia Arena pages: a seat, the spectators, a replay, the create-a-table form.
// Plain DOM, no framework, no external URL: the page is a few hundred nodes redrawn from one state message, which
// vanilla code does well; a library would add a build step and a supply chain for nothing. Every text from the
// server is set with textContent, never as markup. Positions are set through the CSSOM (allowed by the strict CSP).
"use strict";
(function () {
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const W = JSON.parse(document.getElementById("words").textContent);
  const $ = (id) => document.getElementById(id);
  const RU = boot.lang === "ru";

  function el(tag, props, text) {
    const node = document.createElement(tag);
    if (props) {
      for (const [key, value] of Object.entries(props)) {
        if (key === "dataset") Object.assign(node.dataset, value);
        else if (key === "aria") for (const [k, v] of Object.entries(value)) node.setAttribute("aria-" + k, String(v));
        else node[key] = value;
      }
    }
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function clear(node) { while (node && node.firstChild) node.removeChild(node.firstChild); }
  function t(key, vars) {
    let s = W[key] || key;
    if (vars) for (const [k, v] of Object.entries(vars)) s = s.split("{" + k + "}").join(String(v));
    return s;
  }
  const seatName = (s) => "#" + s;
  const seats = (list) => list.map(seatName).join(", ");
  function plural(n, stem) { // "1 foul", "2 fouls"; Russian: 1 фол, 2 фола, 5 фолов
    const m10 = n % 10, m100 = n % 100;
    if (!RU) return n + " " + t(stem + (n === 1 ? "_one" : "_many"));
    const form = m10 === 1 && m100 !== 11 ? "_one" : m10 >= 2 && m10 <= 4 && (m100 < 12 || m100 > 14) ? "_few" : "_many";
    return n + " " + t(stem + form);
  }
  const secs = (n) => n + " " + t("sec");
  const howWord = (how) => W["how_" + how] || String(how || "").replace(/_/g, " ");
  function checkWord(mark) {
    const v = mark.value === "not_sheriff" ? "not_sheriff" : mark.value;
    return W["check_" + v] || v;
  }
  function show(node, on) { if (node) node.hidden = !on; }

  // ----- sounds (off by default; a short tone made on the page, no file, no URL) --------------------------------
  const sound = {
    on: false,
    ctx: null,
    init() {
      const box = $("sound");
      if (!box) return;
      try { this.on = window.localStorage.getItem("arena-sound") === "on"; } catch (e) { this.on = false; }
      box.checked = this.on;
      box.addEventListener("change", () => {
        this.on = box.checked;
        try { window.localStorage.setItem("arena-sound", this.on ? "on" : "off"); } catch (e) { /* private mode */ }
        if (this.on) this.play("turn");
      });
    },
    play(kind) {
      if (!this.on || !window.AudioContext) return;
      if (!this.ctx) this.ctx = new window.AudioContext();
      const notes = kind === "night" ? [392, 262, 196] : [660, 880];
      notes.forEach((freq, i) => {
        const osc = this.ctx.createOscillator(), gain = this.ctx.createGain();
        const at = this.ctx.currentTime + i * 0.16;
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(0.15, at + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.15);
        osc.connect(gain).connect(this.ctx.destination);
        osc.start(at);
        osc.stop(at + 0.16);
      });
    },
  };

  function announce(text) { // for screen readers: the turn, the night, the end
    const box = $("announce");
    if (!box || !text) return;
    box.textContent = "";
    setTimeout(() => { box.textContent = text; }, 30);
  }

  // ----- the table: seats around it -------------------------------------------------------------------------------
  let choosing = null; // the pending decision's seats: {options, selected, toggle, onPick}
  let lastState = null;

  function markChips(mark) {
    if (mark.kind === "sheriff_check") return { cls: mark.value === "black" || mark.value === "yes" ? "chip black" : "chip red", text: "⚲ " + checkWord(mark), title: t("checked_by_sheriff", { night: mark.night, value: checkWord(mark) }) };
    if (mark.kind === "don_check") return { cls: mark.value === "sheriff" ? "chip sheriff" : "chip plain", text: "♚ " + checkWord(mark), title: t("checked_by_don", { night: mark.night, value: checkWord(mark) }) };
    return null;
  }

  function seatLabel(s, info) { // what a screen reader says of a seat
    const parts = [t("seat") + " " + s.seat, t(s.status)];
    if (s.me) parts.push(t("you"));
    if (info.role) parts.push(info.role);
    if (s.fouls) parts.push(plural(s.fouls, "foul"));
    if (s.nominated) parts.push(s.nominated_by ? t("nominated_by", { seat: seatName(s.nominated_by) }) : t("nominated"));
    for (const chip of info.chips) parts.push(chip.title || chip.text);
    if (info.speaking) parts.push(t("speaker"));
    if (info.hands !== null) parts.push(plural(info.hands, "hand"));
    if (s.out) parts.push(howWord(s.out.how));
    return parts.join(", ");
  }

  function drawRing(state, end) {
    const ring = $("ring");
    if (!ring) return;
    const n = state.table.length;
    ring.dataset.n = String(n);
    ring.setAttribute("aria-label", t("table_label", { n: n }));
    const hadFocus = ring.contains(document.activeElement);
    const focused = hadFocus ? document.activeElement.dataset.seat : null;
    clear(ring);
    const revealed = {};
    if (end) for (const r of end.seats) revealed[r.seat] = r;
    const hands = {};
    const live = !state.over; // after the end the table shows the cards, not the last vote or night
    if (live && state.tally && !state.tally.yes_no) for (const c of state.tally.candidates) hands[c.seat] = c.hands;
    const acted = {};
    if (live) for (const a of state.tonight || []) if (a.target !== null && a.target !== undefined) acted[a.target] = a;
    const shot = state.pending && state.pending.form.kind === "best_move"; // asked for a best move: shot tonight
    const speaking = state.speaker ? state.speaker.seat : null;
    state.table.forEach((s, i) => {
      const cls = ["seat", s.status];
      const info = { role: null, chips: [], speaking: speaking === s.seat && !state.over, hands: s.seat in hands ? hands[s.seat] : null };
      if (s.me) cls.push("me");
      if (s.mate) cls.push("mate");
      if (s.nominated) cls.push("nominated");
      if (info.speaking) cls.push("speaking");
      const reveal = revealed[s.seat];
      if (reveal) { info.role = reveal.label; if (reveal.black) cls.push("black-role"); }
      else if (s.me && state.role_label) info.role = state.role_label;
      const seen = new Set();
      for (const mark of (s.marks || []).slice().reverse()) { // the latest of each kind of check, once
        if ((mark.kind === "team" || mark.kind === "card") && !reveal && !s.me) info.role = mark.label || mark.value;
        const chip = markChips(mark);
        if (chip && !seen.has(mark.kind)) { seen.add(mark.kind); info.chips.unshift(chip); }
      }
      if (s.mate && !reveal) cls.push("black-role");
      const pick = choosing && choosing.options.has(s.seat);
      if (pick) cls.push("choosable");
      if (choosing && choosing.selected.has(s.seat)) cls.push("chosen");
      if (acted[s.seat]) cls.push("target");
      if (live && state.tally && state.tally.candidates.some((c) => c.seat === s.seat)) cls.push("candidate");
      if (shot && s.me) cls.push("shot");
      const seat = el("button", { type: "button", className: cls.join(" "), id: "seat-" + s.seat, dataset: { seat: String(s.seat) }, tabIndex: -1 });
      seat.classList.add("sp-" + s.seat);
      const angle = (-90 + (360 * (i + 0.5)) / n) * Math.PI / 180;
      seat.style.setProperty("--x", (50 + 43 * Math.cos(angle)).toFixed(2) + "%");
      seat.style.setProperty("--y", (50 + 41 * Math.sin(angle)).toFixed(2) + "%");
      seat.appendChild(el("span", { className: "num" }, s.seat));
      if (info.role) seat.appendChild(el("span", { className: "role" }, info.role));
      else if (s.me) seat.appendChild(el("span", { className: "role" }, t("you")));
      if (shot && s.me) seat.appendChild(el("span", { className: "out" }, "✝ " + t("shot_tonight")));
      else if (s.status !== "alive" && s.out) seat.appendChild(el("span", { className: "out", title: howWord(s.out.how) }, "✝ " + (W["out_" + s.out.how] || howWord(s.out.how))));
      else if (s.status !== "alive") seat.appendChild(el("span", { className: "out" }, t(s.status)));
      if (s.fouls) {
        const f = el("span", { className: "fouls", title: plural(s.fouls, "foul") }, "●".repeat(Math.min(s.fouls, 4)));
        f.setAttribute("aria-hidden", "true");
        seat.appendChild(f);
      }
      const chips = el("span", { className: "chips" });
      for (const chip of info.chips) chips.appendChild(el("span", { className: chip.cls, title: chip.title }, chip.text));
      if (s.nominated) chips.appendChild(el("span", { className: "chip nom", title: s.nominated_by ? t("nominated_by", { seat: seatName(s.nominated_by) }) : t("nominated") }, s.nominated_by ? "⚑ " + s.nominated_by : "⚑"));
      if (info.hands !== null && info.hands > 0) chips.appendChild(el("span", { className: "chip hands" }, "▲" + info.hands));
      if (acted[s.seat]) chips.appendChild(el("span", { className: "chip act" }, W["act_" + acted[s.seat].kind] || acted[s.seat].kind));
      if (s.lost_vote) chips.appendChild(el("span", { className: "chip plain" }, t("no_vote_right")));
      if (chips.childNodes.length) seat.appendChild(chips);
      seat.setAttribute("aria-label", seatLabel(s, info));
      if (pick) {
        seat.setAttribute("aria-pressed", choosing.selected.has(s.seat) ? "true" : "false");
        seat.addEventListener("click", () => choosing && choosing.onPick(s.seat));
      } else {
        seat.setAttribute("aria-disabled", "true");
      }
      ring.appendChild(seat);
    });
    // one tab stop for the whole table; the arrow keys move between seats (a roving tabindex)
    const buttons = Array.from(ring.querySelectorAll("button.seat"));
    const start = buttons.find((b) => b.dataset.seat === focused) || buttons.find((b) => b.classList.contains("choosable")) || buttons[0];
    if (start) start.tabIndex = 0;
    if (hadFocus && start) start.focus(); // a redraw keeps the keyboard where it was
  }

  function ringKeys() {
    const ring = $("ring");
    if (!ring) return;
    ring.addEventListener("keydown", (ev) => {
      const buttons = Array.from(ring.querySelectorAll("button.seat"));
      const i = buttons.indexOf(document.activeElement);
      if (i < 0) return;
      let j = null;
      if (ev.key === "ArrowRight" || ev.key === "ArrowDown") j = (i + 1) % buttons.length;
      else if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") j = (i - 1 + buttons.length) % buttons.length;
      else if (ev.key === "Home") j = 0;
      else if (ev.key === "End") j = buttons.length - 1;
      if (j === null) return;
      ev.preventDefault();
      buttons[i].tabIndex = -1;
      buttons[j].tabIndex = 0;
      buttons[j].focus();
    });
  }

  // ----- the centre of the table: the phase, the speaker, the one clock, the vote ---------------------------------
  const clock = { deadline: 0, total: 0, onZero: null, fired: false };

  function setClock(leftS, totalS, onZero) {
    clock.deadline = leftS === null || leftS === undefined ? 0 : Date.now() + leftS * 1000;
    clock.total = totalS || 0;
    clock.onZero = onZero || null;
    clock.fired = false;
    tick();
  }

  function tick() {
    const box = $("clock");
    if (!box) return;
    if (!clock.deadline || !clock.total) { box.hidden = true; return; }
    box.hidden = false;
    const left = Math.max(0, (clock.deadline - Date.now()) / 1000);
    const fill = $("clock-fill");
    fill.style.width = Math.max(0, Math.min(100, (100 * left) / clock.total)).toFixed(1) + "%";
    box.classList.toggle("low", left <= 10);
    $("clock-text").textContent = secs(Math.ceil(left));
    if (left <= 0 && clock.onZero && !clock.fired) { clock.fired = true; clock.onZero(); }
  }
  setInterval(tick, 200);

  function drawTally(state) {
    const box = $("tally");
    if (!box) return;
    clear(box);
    const tally = state.tally;
    if (!tally || state.phase !== "day") { box.hidden = true; return; }
    box.hidden = false;
    const mine = state.pending && state.pending.form.kind === "vote" ? state.pending.form.candidate : null;
    box.appendChild(el("div", { className: "tally-title" }, (W["vote_" + tally.kind] || tally.kind) + ": " + seats(tally.candidates.map((c) => c.seat)) + (tally.counted ? " · " + t("counted") : "")));
    const list = el("ul", { className: "tally-list", id: "tally-list" });
    if (tally.yes_no) {
      for (const key of ["yes", "no"]) {
        const row = el("li", { className: "tally-row" });
        row.appendChild(el("span", { className: "who" }, t(key)));
        row.appendChild(el("span", { className: "count" }, tally[key].length));
        row.appendChild(el("span", { className: "voters" }, tally[key].map(seatName).join(" ")));
        list.appendChild(row);
      }
    } else {
      for (const c of tally.candidates) {
        const row = el("li", { className: "tally-row" + (c.seat === mine ? " now" : "") });
        row.appendChild(el("span", { className: "who" }, seatName(c.seat)));
        row.appendChild(el("span", { className: "count", title: plural(c.hands, "hand") }, c.hands));
        row.appendChild(el("span", { className: "voters" }, c.voters.map((v) => (v.default ? "(#" + v.seat + ")" : "#" + v.seat)).join(" ")));
        list.appendChild(row);
      }
      if (tally.abstain.length) {
        const row = el("li", { className: "tally-row" });
        row.appendChild(el("span", { className: "who" }, t("abstain")));
        row.appendChild(el("span", { className: "count" }, tally.abstain.length));
        row.appendChild(el("span", { className: "voters" }, tally.abstain.map(seatName).join(" ")));
        list.appendChild(row);
      }
    }
    box.appendChild(list);
  }

  function drawCenter(state) {
    const phase = $("phase");
    if (phase) phase.textContent = state.over ? t("won_by", { side: state.winner_label || state.winner || "?" })
      : state.lobby ? t("lobby") : (state.paused ? t("paused") + " · " : "") + (state.phase_label || "");
    document.body.classList.toggle("paused", !!state.paused && !state.over);
    const sp = $("speaker");
    if (sp) {
      const who = state.speaker && !state.over ? state.speaker.seat : null;
      sp.textContent = who === null ? "" : who === state.seat ? t("your_speech_now") : t("speaking_now", { seat: seatName(who) });
    }
    drawTally(state);
  }

  // ----- the log: speeches in the speaker's colour ----------------------------------------------------------------
  function drawLog(lines, id) {
    const log = $(id || "log");
    if (!log) return;
    const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 30;
    clear(log);
    for (const line of lines) {
      const cls = [line.audience];
      if (line.type) cls.push("ev-" + line.type);
      if (line.speaker) cls.push("spoken", "sp-" + line.speaker);
      log.appendChild(el("li", { className: cls.join(" "), dataset: { seq: String(line.seq) } }, line.text));
    }
    if (atEnd) log.scrollTop = log.scrollHeight;
  }

  // ----- the seat's own card ----------------------------------------------------------------------------------
  function drawRole(state) {
    const box = $("role");
    if (!box) return;
    clear(box);
    if (!state.role) { show($("rolecard"), boot.mode === "seat"); return; }
    show($("rolecard"), true);
    box.appendChild(el("p", { className: "status", id: "role-name" }, t("your_role") + ": " + (state.role_label || state.role)));
    if (state.teammates && state.teammates.length) box.appendChild(el("p", { id: "teammates" }, t("teammates") + ": " + seats(state.teammates)));
    const checks = [];
    for (const s of state.table) for (const m of s.marks || []) if (m.kind === "sheriff_check" || m.kind === "don_check") checks.push([s.seat, m]);
    if (checks.length) {
      const ul = el("ul", { className: "checks", id: "my-checks" });
      checks.sort((a, b) => a[1].night - b[1].night);
      for (const [seat, m] of checks) {
        const chip = markChips(m);
        ul.appendChild(el("li", { className: chip.cls }, seatName(seat) + ": " + chip.title));
      }
      box.appendChild(ul);
    }
    const forb = $("forbidden");
    if (forb && state.forbidden && state.forbidden.length) {
      clear(forb);
      const det = el("details");
      det.appendChild(el("summary", null, t("forbidden")));
      det.appendChild(el("p", null, state.forbidden.map((p) => "«" + p + "»").join(", ")));
      forb.appendChild(det);
    }
  }

  function drawStatus(state) {
    const st = $("status");
    if (!st) return;
    st.className = "status";
    delete st.dataset.over;
    if (state.over) {
      st.textContent = t("game_over");  // the winner is the header's line and the end card's title, not a third time
      st.dataset.over = "1";
    } else if (state.pending) {
      const form = state.pending.form;
      st.textContent = t("your_turn") + ": " + (W["kind_" + form.kind] || form.kind);
      st.className = "status turn";
    } else if (state.speaker && state.speaker.seat !== state.seat) {
      st.textContent = t("waiting_speech", { seat: seatName(state.speaker.seat) });
    } else {
      st.textContent = t("waiting");
    }
    const err = $("error");
    if (err) err.textContent = state.error || "";
    show($("status-card"), boot.mode !== "seat" || !(state.pending || state.end) || !!state.error);
  }

  // ----- a seat's controls ------------------------------------------------------------------------------------
  let currentAsk = null;
  let sentAsk = null;
  let send = null; // set by the connection
  let sendQuiet = () => {}; // a message that needs no answer and no fallback (a draft): the socket only

  function reply(text, good) {
    const box = $("reply");
    if (!box) return;
    box.className = text ? (good ? "good" : "bad") : "";
    box.textContent = text || "";
  }

  function speechCounter(area, form, go, note) {
    const line = el("div", { className: "counter", id: "counter", aria: { live: "polite" } });
    const warn = el("div", { className: "forbidden-hit", id: "forbidden-hit", role: "alert" });
    const update = () => {
      const text = area.value;
      const words = text.trim() ? text.trim().split(/\s+/).length : 0;
      line.textContent = words + " / " + form.max_words + " " + t("words") + " · " + text.length + " / " + form.max_chars + " " + t("chars");
      const overWords = words - form.max_words, overChars = text.length - form.max_chars;
      const over = overWords > 0 || overChars > 0;
      line.className = "counter" + (over ? " over" : "");
      if (over) line.appendChild(el("span", { className: "over-note" }, " · " + (overWords > 0 ? t("over_words", { n: overWords }) : t("over_chars", { n: overChars }))));
      if (go) go.disabled = over;
      const low = text.toLowerCase().split(/\s+/).join(" ");
      const hits = (form.forbidden || []).filter((p) => low.includes(p));
      warn.textContent = hits.length ? t("forbidden_hit", { list: hits.map((p) => "«" + p + "»").join(", ") }) : "";
      warn.hidden = !hits.length;
      if (note) note(text);
    };
    area.addEventListener("input", update);
    return [line, warn, update];
  }

  // "I nominate 5", «выставляю 5» in the text: the picker is set to it (the words alone nominate nobody)
  const SPOKEN = /(?:^|[^\p{L}\p{N}])(?:i\s+nominate|my\s+nomination\s+is|(?<!не\s)выставляю|моя\s+кандидатура)[\s:,—-]*(?:(?:seat|player|number|игрока|игрок|номер|место|№)\s*)*#?\s*(\d{1,2})(?!\d)/iu;

  function knownOf(seat) { // what the seat's own checks said of a seat, to mark it where it is offered again
    const row = lastState && lastState.table.find((r) => r.seat === seat);
    const marks = row ? (row.marks || []).filter((m) => m.kind === "sheriff_check" || m.kind === "don_check") : [];
    return marks.length ? markChips(marks[marks.length - 1]) : null;
  }

  function pickButtons(box, form, onPick) {
    const row = el("div", { className: "picks", role: "group" });
    for (const s of form.options) {
      const known = knownOf(s);
      const b = el("button", { type: "button", className: "pick" + (known ? " checked" : ""), dataset: { seat: String(s) }, title: known ? known.title : "" }, seatName(s) + (known ? " " + known.text : ""));
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

  function choose(options, onPick, toggle) {
    choosing = { options: new Set(options), selected: new Set(), toggle: !!toggle, onPick: onPick };
  }

  function drawControls(state) {
    const box = $("controls");
    if (!box) return;
    const card = $("controls-card");
    const pending = state.pending;
    if (!pending) {
      if (currentAsk !== null) { clear(box); currentAsk = null; delete box.dataset.ask; delete box.dataset.kind; }
      choosing = null;
      if (sentAsk !== null || state.over) { reply("", true); sentAsk = null; } // a stale "Accepted" goes
      if (state.speaker && state.speaker.seat !== state.seat) setClock(state.speaker.left_s, state.speaker.seconds);
      else if (!state.speaker) setClock(null, 0);
      show(card, false);
      return;
    }
    show(card, true);
    if (pending.ask === currentAsk) return; // keep what is being typed
    if (currentAsk === null || pending.ask !== currentAsk) { sound.play("turn"); announce(t("your_turn") + ": " + (W["kind_" + pending.form.kind] || pending.form.kind)); }
    currentAsk = pending.ask;
    sentAsk = null;
    choosing = null;
    clear(box);
    reply("", true);
    const form = pending.form;
    box.dataset.kind = form.kind;
    box.dataset.ask = pending.ask;
    const submit = (answer) => { sentAsk = pending.ask; send({ type: "decide", ask: pending.ask, answer: answer }); };
    const title = t("your_turn") + ": " + (W["kind_" + form.kind] || form.kind) + (form.speech && form.speech !== "regular" ? " (" + (W["speech_" + form.speech] || form.speech) + ")" : "");
    box.appendChild(el("h2", { id: "ask-title" }, title));
    if (pending.problem) box.appendChild(el("p", { className: "bad" }, t("refused") + ": " + pending.problem));
    if (form.rule) box.appendChild(el("p", { className: "rule", id: "vote-rule" }, form.rule));
    box.appendChild(el("p", { className: "dim", id: "default" }, t("default") + ": " + form.default));
    let onZero = null;

    if (form.kind === "speech" || form.kind === "black_message") {
      const area = el("textarea", { id: "speech", maxLength: form.max_chars, placeholder: form.kind === "speech" ? t("speech_prompt") : t("message") });
      area.setAttribute("aria-label", form.kind === "speech" ? t("speech_prompt") : t("message"));
      box.appendChild(area);
      const go = el("button", { type: "button", id: "send", className: "primary" }, t("send"));
      let nominate = null, extra = null;
      let saveDraft = () => {};
      const heard = el("p", { className: "dim", id: "heard" });
      // one place sets the nomination (the text, a click on the table, the list) and says what it is now
      const setNomination = (seat, how) => {
        nominate.value = seat === null ? "" : String(seat);
        if (choosing) choosing.selected = seat === null ? new Set() : new Set([seat]);
        heard.textContent = seat === null ? "" : t(how === "text" ? "heard_nomination" : "your_nomination", { seat: seatName(seat) });
        if (hint) hint.textContent = seat === null ? t("click_seat_nominate") : t("nomination_withdraw");
        redrawRing();
        saveDraft();
      };
      let hint = null;
      const onText = (text) => {
        if (!nominate) return;
        const m = SPOKEN.exec(text);
        const seat = m ? Number(m[1]) : null;
        if (seat !== null && form.nominate_options.includes(seat) && !nominate.value) setNomination(seat, "text");
      };
      const [counterLine, warn, update] = speechCounter(area, form, go, onText);
      box.appendChild(counterLine);
      box.appendChild(warn);
      const orders = [];
      if (form.kind === "speech" && form.may_nominate) {
        nominate = el("select", { id: "nominate" });
        nominate.appendChild(el("option", { value: "" }, t("no_nomination")));
        for (const s of form.nominate_options) nominate.appendChild(el("option", { value: String(s) }, seatName(s)));
        const label = el("label", { className: "field" }, t("nominate") + " ");
        label.appendChild(nominate);
        box.appendChild(label);
        if (form.already_nominated.length) box.appendChild(el("span", { className: "dim" }, " (" + t("already_nominated") + ": " + form.already_nominated.join(", ") + ")"));
        box.appendChild(heard);
        hint = el("p", { className: "dim", id: "nominate-hint" }, t("click_seat_nominate"));
        box.appendChild(hint);
        const withdraw = el("button", { type: "button", id: "withdraw", className: "link" }, t("withdraw"));
        withdraw.addEventListener("click", () => setNomination(null));
        box.appendChild(withdraw);
        // a click on the table nominates that seat, as the hint says; it never takes a nomination back (the
        // "withdraw" button and the list's "no nomination" do)
        choose(form.nominate_options, (s) => setNomination(s, "click"));
        nominate.addEventListener("change", () => setNomination(nominate.value ? Number(nominate.value) : null, "list"));
      }
      if (form.may_request_extra) {
        extra = el("input", { type: "checkbox", id: "extra" });
        const label = el("label", { className: "field" }, " " + t("extra"));
        label.prepend(extra);
        box.appendChild(label);
      }
      if (form.kind === "black_message" && form.may_set_order) {
        const label = el("p", null, t("kill_order") + ": ");
        for (let i = 0; i < form.max_targets; i++) {
          const sel = el("select", { className: "order" });
          sel.setAttribute("aria-label", t("kill_order") + ": " + t("night") + " " + (i + 1));
          label.appendChild(el("span", { className: "dim order-night" }, " " + t("night") + " " + (i + 1) + " "));
          sel.appendChild(el("option", { value: "" }, "—"));
          for (const s of form.options) sel.appendChild(el("option", { value: String(s) }, seatName(s)));
          orders.push(sel);
          label.appendChild(sel);
        }
        box.appendChild(label);
      }
      const answerOf = (text) => {
        const answer = { text: text };
        if (form.kind === "speech") {
          answer.nominate = nominate && nominate.value ? [Number(nominate.value)] : [];
          if (extra) answer.extra = extra.checked;
        } else if (form.may_set_order) {
          answer.targets = orders.map((s) => s.value).filter((v) => v).map(Number);
        }
        return answer;
      };
      // what is typed is kept: in the browser (a reload gets it back) and, as it is typed, on the server (when the
      // clock runs out and the page sent nothing, the typed speech and its nomination are the answer)
      const draftKey = "arena-draft:" + boot.token + ":" + pending.ask;
      let draftTimer = null;
      saveDraft = () => {
        try { window.localStorage.setItem(draftKey, JSON.stringify(answerOf(area.value))); } catch (e) { /* private mode */ }
        if (draftTimer) return;
        draftTimer = setTimeout(() => { draftTimer = null; sendQuiet({ type: "draft", ask: pending.ask, answer: answerOf(area.value) }); }, 600);
      };
      area.addEventListener("input", saveDraft);
      if (extra) extra.addEventListener("change", saveDraft);
      for (const o of orders) o.addEventListener("change", saveDraft);
      let kept = null;
      try { kept = JSON.parse(window.localStorage.getItem(draftKey) || "null"); } catch (e) { kept = null; }
      kept = kept || pending.draft;
      if (kept) {
        area.value = typeof kept.text === "string" ? kept.text : "";
        if (nominate && kept.nominate && kept.nominate.length && form.nominate_options.includes(kept.nominate[0])) nominate.value = String(kept.nominate[0]);
        if (extra) extra.checked = !!kept.extra;
        (kept.targets || []).forEach((v, i) => { if (orders[i]) orders[i].value = String(v); });
      }
      go.addEventListener("click", () => { if (!go.disabled) submit(answerOf(area.value)); });
      area.addEventListener("keydown", (ev) => { if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); go.click(); } });
      const row = el("div", { className: "actions" });
      row.appendChild(go);
      row.appendChild(el("span", { className: "dim keys" }, t("keys_speech")));
      box.appendChild(row);
      update();
      if (nominate && nominate.value) setNomination(Number(nominate.value), "click");
      if (form.kind === "speech" && pending.left_s !== null) {
        onZero = () => { // the rules' time binds: what was typed goes, cut to the word budget
          const words = area.value.trim().split(/\s+/).filter((w) => w).slice(0, form.max_words);
          submit(answerOf(words.join(" ").slice(0, form.max_chars)));
          reply(t("time_up_sent"), true);
        };
      }
      setTimeout(() => area.focus({ preventScroll: true }), 0); // a phone keeps its header in view
    } else if (form.kind === "vote") {
      const question = form.subject === "lift" ? t("vote_lift_q", { seats: seats(form.candidates) })
        : form.candidate === state.seat ? t("vote_on_self", { seat: seatName(form.candidate) })
        : t("vote_on_q", { seat: seatName(form.candidate) });
      box.appendChild(el("p", { className: "status", id: "vote-question" }, question));
      const yes = el("button", { type: "button", id: "vote-yes", className: "primary" }, t("yes"));
      const no = el("button", { type: "button", id: "vote-no" }, t("no"));
      yes.addEventListener("click", () => submit({ vote: true }));
      no.addEventListener("click", () => submit({ vote: false }));
      const row = el("div", { className: "actions" });
      row.append(yes, no, el("span", { className: "dim keys" }, t("keys_vote")));
      box.appendChild(row);
      setTimeout(() => yes.focus({ preventScroll: true }), 0);
    } else if (form.kind === "best_move") {
      box.appendChild(el("p", { className: "status", id: "shot-tonight" }, t("you_were_shot")));
      box.appendChild(el("p", { id: "best-move-what" }, t("best_move_what", { n: form.max_targets })));
      box.appendChild(el("p", null, t("click_seats_best", { n: form.max_targets })));
      const boxes = [];
      const list = el("div", { className: "picks" });
      for (const s of form.options) {
        const cb = el("input", { type: "checkbox", value: String(s), className: "best" });
        const label = el("label", { className: "field" }, " " + seatName(s) + " ");
        label.prepend(cb);
        boxes.push(cb);
        list.appendChild(label);
        cb.addEventListener("change", () => { if (cb.checked) choosing.selected.add(s); else choosing.selected.delete(s); redrawRing(); });
      }
      box.appendChild(list);
      choose(form.options, (s) => {
        const cb = boxes.find((b) => Number(b.value) === s);
        if (!choosing.selected.has(s) && choosing.selected.size >= form.max_targets) return;
        cb.checked = !cb.checked;
        if (cb.checked) choosing.selected.add(s); else choosing.selected.delete(s);
        redrawRing();
      }, true);
      const go = el("button", { type: "button", id: "send", className: "primary" }, t("send"));
      go.addEventListener("click", () => submit({ targets: boxes.filter((b) => b.checked).map((b) => Number(b.value)) }));
      box.appendChild(el("div", { className: "actions" })).appendChild(go);
    } else if (form.kind === "choose_side") {
      const row = el("div", { className: "actions" });
      for (const choice of form.choices) {
        const b = el("button", { type: "button", className: "pick choice", dataset: { choice: choice } }, W["side_" + choice] || choice);
        b.addEventListener("click", () => submit({ action: choice }));
        row.appendChild(b);
      }
      box.appendChild(row);
    } else if (form.kind === "probe") {
      // private: how likely each seat is to be black, as a percentage per seat (never shown to anyone else)
      box.appendChild(el("p", null, t("probe")));
      const inputs = [];
      const list = el("div", { className: "picks" });
      for (const s of form.options) {
        const input = el("input", { type: "number", min: "0", max: "100", step: "1", value: "30", className: "probe", dataset: { seat: String(s) } });
        input.setAttribute("aria-label", seatName(s) + " %");
        const label = el("label", { className: "field" }, " " + seatName(s) + " ");
        label.appendChild(input);
        label.appendChild(document.createTextNode(" % "));
        inputs.push(input);
        list.appendChild(label);
      }
      box.appendChild(list);
      const go = el("button", { type: "button", id: "send", className: "primary" }, t("send"));
      go.addEventListener("click", () => {
        const beliefs = {};
        for (const input of inputs) beliefs[input.dataset.seat] = Math.min(100, Math.max(0, Number(input.value) || 0)) / 100;
        submit({ beliefs: beliefs });
      });
      box.appendChild(el("div", { className: "actions" })).appendChild(go);
    } else {
      // every targeted kind (ballot, shoot, checks, heal, visit, maniac, sheriff): a click on the table, or a button
      let action = null;
      if (form.kind === "sheriff" && form.actions.length > 1) {
        action = el("select", { id: "action" });
        action.setAttribute("aria-label", t("choose"));
        for (const a of form.actions) action.appendChild(el("option", { value: a }, W["action_" + a] || a));
        box.appendChild(action);
      }
      const pickOne = (s) => {
        const answer = { target: s };
        if (form.kind === "sheriff") answer.action = action ? action.value : form.actions[0] || "check";
        submit(answer);
      };
      box.appendChild(el("p", null, t("click_seat")));
      // the don checks for the sheriff: his own team is no question (still legal; the engine would take it)
      const mates = new Set(form.kind === "don_check" ? [...(state.teammates || []), state.seat] : []);
      const offered = { ...form, options: form.options.filter((s) => !mates.has(s)) };
      pickButtons(box, offered, pickOne);
      choose(offered.options, pickOne);
    }
    setClock(pending.left_s, pending.limit_s, onZero);
    redrawRing();
  }

  function redrawRing() { if (lastState) drawRing(lastState, lastState.end); }

  function onKey(ev) { // Y / N answer a pending yes-no vote when no field has the focus
    const tag = (ev.target && ev.target.tagName) || "";
    if (tag === "TEXTAREA" || tag === "INPUT" || tag === "SELECT" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const key = ev.key.toLowerCase();
    const yes = $("vote-yes"), no = $("vote-no");
    if (yes && (key === "y" || key === "д")) { ev.preventDefault(); yes.click(); }
    else if (no && (key === "n" || key === "н")) { ev.preventDefault(); no.click(); }
  }

  // ----- the end: every card, how each seat left, the summary ---------------------------------------------------
  function drawEnd(end, state) {
    const box = $("end");
    if (!box) return;
    show($("end-card"), !!end);
    clear(box);
    if (!end) return;
    box.appendChild(el("h2", { id: "end-title" }, t("end_title") + " · " + t("won_by", { side: end.winner_label || end.winner })));
    if (end.reason) box.appendChild(el("p", { className: "dim" }, end.reason));
    const links = el("p", { className: "links", id: "review-links" });
    const withLang = (url) => url + (url.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(boot.lang);
    if (state.review && state.review.seat) links.appendChild(el("a", { href: withLang(state.review.seat), id: "review-seat" }, t("replay_seat")));
    if (state.review && state.review.god) links.appendChild(el("a", { href: withLang(state.review.god), id: "review-god" }, t("replay_god")));
    if (state.review && state.review.protocol) links.appendChild(el("a", { href: withLang(state.review.protocol), id: "review-protocol" }, t("score_sheet")));
    if (links.childNodes.length) box.appendChild(links);
    if (state.sheet) drawSheet(state.sheet, box, state);
    box.appendChild(el("h3", null, t("every_card")));
    const cards = el("ul", { className: "cards", id: "reveal" });
    for (const r of end.seats) {
      const li = el("li", { className: "card-line" + (r.black ? " black-role" : "") + (r.seat === state.seat ? " me" : "") });
      li.appendChild(el("b", null, seatName(r.seat) + " "));
      li.appendChild(el("span", { className: "role" }, r.label + (r.side ? " (" + (W["side_" + r.side] || r.side) + ")" : "")));
      li.appendChild(el("span", { className: "dim" }, r.out ? " · " + howWord(r.out.how) + " · " + (r.out.phase === "night" ? t("night") : t("day")) + " " + r.out.day : ""));
      cards.appendChild(li);
    }
    box.appendChild(cards);
    drawSummary(end.summary, box, end);
  }

  // the score sheet's points (the server's words: arena/render/protocol.py end_table); the whole sheet is linked
  function drawSheet(sheet, box, state) {
    const sec = el("section", { className: "sheet", id: "score-sheet", aria: { labelledby: "sheet-title" } });
    sec.appendChild(el("h3", { id: "sheet-title" }, sheet.title + " · " + sheet.scoring));
    sec.appendChild(el("p", { className: "dim", id: "sheet-result" }, sheet.result));
    const wrap = el("div", { className: "sheet-wrap" });
    const table = el("table", { className: "sheet-table", id: "sheet-points" });
    const head = el("tr");
    sheet.head.forEach((h, i) => head.appendChild(el("th", { className: i === 0 ? "" : "n" }, h)));
    table.appendChild(el("thead")).appendChild(head);
    const body = el("tbody");
    for (const r of sheet.rows) {
      const tr = el("tr", { className: r.team + (r.seat === state.seat ? " me" : ""), dataset: { seat: String(r.seat) } });
      tr.appendChild(el("td", null, seatName(r.seat)));
      tr.appendChild(el("td", { className: "n" }, r.fouls ? String(r.fouls) : ""));
      for (const g of r.groups) tr.appendChild(el("td", { className: "n" }, g));
      tr.appendChild(el("td", { className: "n total" })).appendChild(el("b", null, r.points));
      body.appendChild(tr);
    }
    table.appendChild(body);
    wrap.appendChild(table);
    sec.appendChild(wrap);
    sec.appendChild(el("p", { className: "dim small" }, sheet.legend));
    if (sheet.awards.length) {
      const ul = el("ul", { className: "awards", id: "sheet-awards" });
      for (const a of sheet.awards) ul.appendChild(el("li", null, a));
      sec.appendChild(ul);
    }
    if (sheet.open) sec.appendChild(el("p", { className: "dim", id: "sheet-open" }, t("sheet_open")));
    box.appendChild(sec);
  }

  function drawSummary(summary, box, end) {
    const labels = {};
    for (const r of end.seats) labels[r.seat] = r.label;
    box.appendChild(el("h3", null, t("summary")));
    const checks = el("div", { className: "summary", id: "summary-checks" });
    checks.appendChild(el("h4", null, t("checks")));
    const cl = el("ul");
    for (const c of summary.checks) {
      cl.appendChild(el("li", null, t("checked_line", { night: c.night, who: t("who_" + c.who), by: seatName(c.by), target: seatName(c.target), value: checkWord(c) })));
    }
    if (!summary.checks.length) cl.appendChild(el("li", { className: "dim" }, t("none_yet")));
    checks.appendChild(cl);
    box.appendChild(checks);
    const claims = el("div", { className: "summary", id: "summary-claims" });
    claims.appendChild(el("h4", null, t("claims")));
    const ml = el("ul");
    for (const c of summary.claims) {
      const said = [...c.black.map((s) => seatName(s) + " " + t("check_black")), ...c.red.map((s) => seatName(s) + " " + t("check_red"))];
      const role = c.label || c.role;
      ml.appendChild(el("li", null, t("day") + " " + c.day + ": " + t("claimed", { seat: seatName(c.seat), role: role }) + (said.length ? " · " + t("claim_checks", { list: said.join(", ") }) : "")));
    }
    if (!summary.claims.length) ml.appendChild(el("li", { className: "dim" }, t("none_yet")));
    claims.appendChild(ml);
    box.appendChild(claims);
    const days = el("div", { className: "summary", id: "summary-votes" });
    days.appendChild(el("h4", null, t("votes_by_day")));
    for (const d of summary.days) {
      const sec = el("section", { className: "day-sum" });
      sec.appendChild(el("h5", null, t("day") + " " + d.day));
      const ul = el("ul");
      if (d.morning && d.morning.seats.length) ul.appendChild(el("li", null, t("morning") + ": " + seats(d.morning.seats)));
      if (d.nominations.length) ul.appendChild(el("li", null, t("nominations") + ": " + d.nominations.map((n) => seatName(n.by) + " → " + seatName(n.target)).join(", ")));
      for (const r of d.rounds) {
        let text = (W["vote_" + r.kind] || r.kind) + " (" + seats(r.candidates) + "): ";
        if (r.kind === "lift" || r.kind === "acquittal" || r.kind === "threshold") {
          const yes = r.votes.filter((v) => v.value === "yes").map((v) => v.seat);
          text += t("yes") + " " + yes.length + (yes.length ? " (" + yes.join(", ") + ")" : "");
        } else {
          text += r.candidates.map((c) => {
            const by = r.votes.filter((v) => v.target === c).map((v) => v.seat);
            return seatName(c) + " " + by.length + (by.length ? " (" + by.join(", ") + ")" : "");
          }).join(" · ");
        }
        ul.appendChild(el("li", null, text));
      }
      ul.appendChild(el("li", null, t("left_game") + ": " + (d.left.length ? d.left.map((l) => seatName(l.seat) + " " + (labels[l.seat] || "") + " (" + howWord(l.how) + ")").join(", ") : t("nobody_left"))));
      sec.appendChild(ul);
      days.appendChild(sec);
    }
    box.appendChild(days);
  }

  // ----- the god view (spectators after the end, the admin's replays) -----------------------------------------
  function drawGod(god) {
    const box = $("god");
    show($("god-card"), !!god || boot.mode === "watch");
    if (!box || !god) return;
    clear(box);
    const roles = el("div", { className: "seats-row", id: "god-roles" });
    for (const r of god.roles || []) roles.appendChild(el("div", { className: "seatbox" + (r.role === "mafia" || r.role === "don" ? " black-role" : "") }, seatName(r.seat) + " " + (r.label || r.role)));
    box.appendChild(roles);
    box.appendChild(el("h3", null, t("god_log")));
    const log = el("ol", { className: "log god-log", id: "god-log" });
    box.appendChild(log);
    drawLog(god.log || [], "god-log");
    if (god.reasoning && god.reasoning.length) {
      box.appendChild(el("h3", null, t("reasoning")));
      const list = el("ul", { className: "reasoning" });
      for (const r of god.reasoning) list.appendChild(el("li", null, seatName(r.seat) + ": " + r.text));
      box.appendChild(list);
    }
  }

  // ----- the lobby: who is here and ready; the game starts when every person is, or when the host starts it -----
  function drawLobby(state) {
    const box = $("lobby");
    show($("lobby-card"), !!state.lobby);
    if (!box) return;
    clear(box);
    const lobby = state.lobby;
    if (!lobby) return;
    box.appendChild(el("p", { className: "dim" }, t("lobby_hint")));
    if (lobby.seats.length) {
      const list = el("ul", { className: "lobby-seats", id: "lobby-seats" });
      for (const s of lobby.seats) {
        const li = el("li", { className: "lobby-seat " + s.presence + (s.ready ? " ready" : ""), dataset: { seat: String(s.seat) } });
        li.appendChild(el("b", null, seatName(s.seat) + (s.seat === state.seat ? " (" + t("you") + ")" : "")));
        li.appendChild(el("span", null, " · " + t("presence_" + s.presence) + (s.ready ? " · " + t("is_ready") : "")));
        list.appendChild(li);
      }
      box.appendChild(list);
    }
    if (boot.mode === "seat") {
      const b = el("button", { type: "button", id: "ready", className: lobby.ready ? "" : "primary" }, lobby.ready ? t("not_ready") : t("ready"));
      b.addEventListener("click", () => sendReady(!lobby.ready));
      box.appendChild(el("div", { className: "actions" })).appendChild(b);
    }
  }
  let sendReady = () => {};
  let sendGuess = () => {};

  // ----- a blinded table's end: "which seats were not human?", then who was who -----------------------------------
  let guessShown = false;
  function drawBlind(state) {
    const box = $("blind");
    const blind = state.blind;
    show($("blind-card"), !!blind);
    if (!box || !blind) return;
    if (blind.ask) {
      if (guessShown) return; // keep the sliders as they are being set
      guessShown = true;
      clear(box);
      box.appendChild(el("p", null, t("blind_question")));
      const inputs = [];
      for (const s of blind.others) {
        const row = el("label", { className: "field guess" }, seatName(s) + " ");
        const input = el("input", { type: "range", min: "0", max: "100", step: "5", value: "50", className: "guess", dataset: { seat: String(s) } });
        input.setAttribute("aria-label", t("blind_label", { seat: seatName(s) }));
        const out = el("span", { className: "dim" }, "50 %");
        input.addEventListener("input", () => { out.textContent = input.value + " %"; });
        row.append(input, out);
        inputs.push(input);
        box.appendChild(row);
      }
      const go = el("button", { type: "button", id: "guess-send", className: "primary" }, t("send"));
      go.addEventListener("click", () => {
        const guesses = {};
        for (const input of inputs) guesses[input.dataset.seat] = Number(input.value) / 100;
        sendGuess(guesses);
      });
      box.appendChild(el("div", { className: "actions" })).appendChild(go);
      return;
    }
    guessShown = false;
    clear(box);
    if (!blind.truth) { box.appendChild(el("p", { className: "dim" }, t("blind_wait"))); return; }
    const ul = el("ul", { id: "blind-truth" });
    for (const [seat, who] of Object.entries(blind.truth)) {
      const mine = blind.mine[seat];
      ul.appendChild(el("li", { className: who === "human" ? "human" : "machine" }, seatName(seat) + ": " + (who === "human" ? t("blind_person") : who) + (mine !== undefined ? " · " + t("blind_yours", { p: Math.round(mine * 100) }) : "")));
    }
    box.appendChild(ul);
  }

  let lastPhase = null;
  function draw(state) {
    lastState = state;
    document.body.classList.toggle("night", state.phase === "night" && !state.over && !state.lobby);
    document.body.classList.toggle("over", !!state.over);
    const phaseKey = state.phase + state.day;
    if (lastPhase !== null && phaseKey !== lastPhase && !state.over) {
      if (state.phase === "night") { sound.play("night"); announce(t("night_falls") + ": " + state.phase_label); }
      else if (state.phase === "day") announce(t("day_breaks") + ": " + state.phase_label);
    }
    if (state.over && lastPhase !== null && !lastPhase.startsWith("end")) announce(t("game_over") + " · " + t("winner") + ": " + (state.winner_label || state.winner));
    lastPhase = phaseKey;
    drawLobby(state);
    drawBlind(state);
    drawRole(state);
    drawStatus(state);
    drawCenter(state);
    if (boot.mode === "seat") drawControls(state);
    else setClock(state.speaker ? state.speaker.left_s : null, state.speaker ? state.speaker.seconds : 0);
    drawRing(state, state.end);
    drawLog(state.log);
    drawEnd(state.end, state);
    if (boot.mode === "watch") drawGod(state.god);
  }

  // ----- the live connection (WebSocket, with an HTTP fallback while it is down) --------------------------------
  function connect() {
    let socket = null, delay = 500, polling = null;
    const lang = "?lang=" + encodeURIComponent(boot.lang);
    const api = "/api/state/" + encodeURIComponent(boot.token) + lang;
    const poll = () => fetch(api, { cache: "no-store" }).then((r) => r.ok ? r.json() : null).then((s) => s && fresh(s)).catch(() => {});
    send = (message) => {
      if (socket && socket.readyState === 1) { socket.send(JSON.stringify(message)); return; }
      fetch("/api/decide/" + encodeURIComponent(boot.token), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(message) })
        .then((r) => r.json()).then(onMessage).then(poll).catch(() => reply(t("connection_lost"), false));
    };
    sendQuiet = (message) => { if (socket && socket.readyState === 1) socket.send(JSON.stringify(message)); };
    sendGuess = (guesses) => { if (socket && socket.readyState === 1) socket.send(JSON.stringify({ type: "guess", guesses: guesses })); };
    sendReady = (ready) => {
      if (socket && socket.readyState === 1) { socket.send(JSON.stringify({ type: "ready", ready: ready })); return; }
      fetch("/api/ready/" + encodeURIComponent(boot.token), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ ready: ready }) }).then(poll).catch(() => {});
    };
    function onMessage(msg) {
      if (!msg) return;
      if (msg.type === "state") fresh(msg.state);
      else if (msg.type === "accepted") {
        reply(t("sent_waiting"), true);
        try { // the drafts of this link are done with
          const prefix = "arena-draft:" + boot.token + ":";
          for (let i = window.localStorage.length - 1; i >= 0; i--) { const k = window.localStorage.key(i); if (k && k.startsWith(prefix)) window.localStorage.removeItem(k); }
        } catch (e) { /* private mode */ }
        const box = $("controls");
        if (box && box.dataset.ask === sentAsk) { for (const b of box.querySelectorAll("button, textarea, select, input")) b.disabled = true; }
        choosing = null;
        redrawRing();
      } else if (msg.type === "refused") { sentAsk = null; reply(t("refused") + ": " + msg.reason, false); }
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
    if (window.WebSocket) open(); // the socket's first message is the whole current state: no poll races it
    else { poll(); polling = setInterval(poll, 3000); }
  }

  // A state is drawn only if it is newer than the last one drawn: an HTTP answer that comes late (computed before a
  // push the page already drew) is dropped, so the page never goes back to an older table.
  let drawnVersion = 0;
  function fresh(state) {
    const v = typeof state.version === "number" ? state.version : 0;
    if (v && v < drawnVersion) return;
    if (v && v === drawnVersion && lastState) return; // the same state again: keep what is being typed
    drawnVersion = v;
    draw(state);
  }

  // ----- replays -------------------------------------------------------------------------------------------------
  function replay() {
    let step = boot.steps;
    const viewAs = $("view-as");
    if (boot.god !== false) viewAs.appendChild(el("option", { value: "0" }, t("god_view")));
    for (let s = 1; s <= boot.players; s++) viewAs.appendChild(el("option", { value: String(s) }, t("seat") + " #" + s));
    if (boot.seat) viewAs.value = String(boot.seat);
    else if (boot.as === "god") viewAs.value = "0";
    const load = () => {
      const url = boot.api + (boot.api.includes("?") ? "&" : "?") + "seat=" + viewAs.value + "&step=" + step + "&lang=" + encodeURIComponent(boot.lang);
      fetch(url, { cache: "no-store" }).then((r) => r.json()).then((state) => {
        $("step").textContent = String(state.step);
        const jump = $("jump");
        if (jump && state.phases && !jump.options.length) {
          for (const p of state.phases) jump.appendChild(el("option", { value: String(p.step) }, p.label));
        }
        if (jump && state.phases) { // the phase this step is in
          let at = null;
          for (const p of state.phases) if (p.step <= state.step) at = String(p.step);
          if (at !== null) jump.value = at;
        }
        if (state.detail) { $("error").textContent = state.detail; return; }
        lastState = state;
        drawRole(state);
        const phase = $("phase");
        if (phase) phase.textContent = state.phase_label || "";
        drawTally(state);
        drawRing(state, null);
        drawLog(state.log);
        const god = $("god");
        clear(god);
        show($("god-card"), !!state.roles);
        if (state.roles) {
          const roles = el("div", { className: "seats-row", id: "god-roles" });
          for (const r of state.roles) roles.appendChild(el("div", { className: "seatbox" + (r.role === "mafia" || r.role === "don" ? " black-role" : "") }, seatName(r.seat) + " " + (r.label || r.role)));
          god.appendChild(roles);
          if (state.reasoning && state.reasoning.length) {
            god.appendChild(el("h3", null, t("reasoning")));
            const list = el("ul", { className: "reasoning" });
            for (const r of state.reasoning) list.appendChild(el("li", null, seatName(r.seat) + ": " + r.text));
            god.appendChild(list);
          }
        }
      });
    };
    const go = (to) => { step = Math.max(0, Math.min(boot.steps, to)); load(); };
    $("first").addEventListener("click", () => go(0));
    $("prev").addEventListener("click", () => go(step - 1));
    $("next").addEventListener("click", () => go(step + 1));
    $("last").addEventListener("click", () => go(boot.steps));
    $("jump").addEventListener("change", () => go(Number($("jump").value)));
    let playing = null; // autoplay: one step a second, stops at the end or on a click
    $("play").addEventListener("click", () => {
      if (playing) { clearInterval(playing); playing = null; $("play").textContent = t("autoplay"); return; }
      $("play").textContent = t("stop");
      playing = setInterval(() => {
        if (step >= boot.steps) { clearInterval(playing); playing = null; $("play").textContent = t("autoplay"); return; }
        go(step + 1);
      }, 1000);
    });
    viewAs.addEventListener("change", load);
    load();
  }

  // ----- create a table ------------------------------------------------------------------------------------------
  function create() {
    const preset = $("preset"), list = $("seat-list"), lang = $("table-lang");
    lang.value = boot.lang;
    for (const name of Object.keys(boot.presets)) preset.appendChild(el("option", { value: name }, name));
    preset.value = boot.default_preset || ("fiim" in boot.presets ? "fiim" : Object.keys(boot.presets)[0]);
    const drawSeats = () => {
      clear(list);
      for (let s = 1; s <= boot.presets[preset.value]; s++) {
        const sel = el("select", { className: "agent", dataset: { seat: String(s) } });
        sel.setAttribute("aria-label", t("seat") + " " + s);
        for (const a of boot.agents) sel.appendChild(el("option", { value: a }, a));
        const label = el("label", null, "#" + s + " ");
        label.appendChild(sel);
        list.appendChild(label);
      }
    };
    const about = () => { $("preset-about").textContent = (boot.about || {})[preset.value] || ""; };
    preset.addEventListener("change", () => { drawSeats(); about(); });
    drawSeats();
    about();
    const button = $("create"), busy = $("busy");
    button.addEventListener("click", () => {
      const seatsMap = {};
      for (const sel of list.querySelectorAll("select.agent")) seatsMap[sel.dataset.seat] = sel.value;
      const body = { preset: preset.value, lang: lang.value, seats: seatsMap };
      const seed = $("seed").value.trim(), limit = $("time-limit").value.trim();
      if (seed) body.seed = Number(seed);
      if (limit) body.human_timeout = Number(limit);
      const delay = $("bot-delay").value.trim();
      if (delay) body.bot_delay = Number(delay);
      button.disabled = true;
      busy.hidden = false;
      $("create-form").setAttribute("aria-busy", "true");
      reply("", true);
      fetch("/api/tables/" + encodeURIComponent(boot.token), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
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
        })
        .catch(() => reply(t("connection_lost"), false))
        .finally(() => { button.disabled = false; busy.hidden = true; $("create-form").removeAttribute("aria-busy"); });
    });
  }

  // ----- the join link: a person picks a free seat and gets its own link -----------------------------------------
  function join() {
    const box = $("join-seats");
    if (!boot.free.length) box.appendChild(el("p", { className: "dim" }, boot.started ? t("join_started") : t("join_none")));
    for (const seat of boot.free) {
      const b = el("button", { type: "button", className: "pick", dataset: { seat: String(seat) } }, t("take_seat", { seat: seatName(seat) }));
      b.addEventListener("click", () => {
        fetch("/api/join/" + encodeURIComponent(boot.token), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ seat: seat }) })
          .then((r) => r.json()).then((data) => {
            if (data.url) { window.location.href = data.url + "?lang=" + encodeURIComponent(boot.lang); return; }
            reply(data.error || "?", false);
            b.disabled = true;
          }).catch(() => reply(t("connection_lost"), false));
      });
      box.appendChild(b);
    }
  }

  // ----- the host's tables: who is here and ready, Start ---------------------------------------------------------
  function tables() {
    const box = $("tables-list");
    const load = () => fetch("/api/tables-state/" + encodeURIComponent(boot.token), { cache: "no-store" }).then((r) => r.json()).then((data) => {
      clear(box);
      if (!data.tables.length) box.appendChild(el("p", { className: "dim" }, t("none_yet")));
      for (const table of data.tables) {
        const sec = el("section", { className: "table-entry", dataset: { table: table.id } });
        const status = table.over ? t("game_over") : table.started ? t("day") + " " + table.day : t("lobby");
        sec.appendChild(el("h2", null, t("table") + " " + table.id + " · " + status));
        const ul = el("ul", { className: "lobby-seats" });
        for (const s of table.seats) ul.appendChild(el("li", { className: "lobby-seat " + s.presence + (s.ready ? " ready" : "") }, seatName(s.seat) + " · " + t("presence_" + s.presence) + (s.ready ? " · " + t("is_ready") : "")));
        sec.appendChild(ul);
        const links = el("ul", { className: "links" });
        for (const [who, url] of Object.entries(table.links)) { const li = el("li", null, who + ": "); li.appendChild(el("a", { href: url }, url)); links.appendChild(li); }
        sec.appendChild(links);
        if (!table.started) {
          const b = el("button", { type: "button", className: "primary start", dataset: { table: table.id } }, t("start_now"));
          b.addEventListener("click", () => fetch("/api/start/" + encodeURIComponent(boot.token) + "/" + table.id, { method: "POST" }).then(load));
          sec.appendChild(b);
        }
        box.appendChild(sec);
      }
    }).catch(() => reply(t("connection_lost"), false));
    load();
    setInterval(load, 2000);
  }

  // ----- the judge: the public view, and fouls, removals, pause, extra time -----------------------------------
  function judge() {
    const api = "/api/judge-state/" + encodeURIComponent(boot.token) + "?lang=" + encodeURIComponent(boot.lang);
    const seatSel = $("judge-seat");
    for (let s = 1; s <= boot.players; s++) seatSel.appendChild(el("option", { value: String(s) }, seatName(s)));
    let paused = false;
    const load = () => fetch(api, { cache: "no-store" }).then((r) => r.ok ? r.json() : null).then((state) => {
      if (!state) return;
      fresh(state);
      paused = state.judge.paused;
      show($("judge-awards"), !!state.judge.awards);
      show($("judge-close"), !!state.judge.closable);
      $("judge-pause").textContent = paused ? t("judge_resume") : t("judge_pause");
    }).catch(() => {});
    const act = (action) => {
      const body = { action: action, seat: Number(seatSel.value), reason: $("judge-reason").value, seconds: Number($("judge-seconds").value) || 0 };
      if (action === "award") { body.award = $("judge-award").value; body.points = body.award === "extra" ? Number($("judge-points").value) || 0 : 0; }
      fetch("/api/judge/" + encodeURIComponent(boot.token), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
        .then((r) => r.json()).then((data) => { reply(data.error ? t("refused") + ": " + data.error : t("accepted"), !data.error); load(); })
        .catch(() => reply(t("connection_lost"), false));
    };
    $("judge-foul").addEventListener("click", () => act("foul"));
    $("judge-remove").addEventListener("click", () => act("remove"));
    $("judge-extra").addEventListener("click", () => act("extra_time"));
    $("judge-pause").addEventListener("click", () => act(paused ? "resume" : "pause"));
    $("judge-give").addEventListener("click", () => act("award"));
    $("judge-close").addEventListener("click", () => act("close"));
    load();
    setInterval(load, 1000);
  }

  sound.init();
  ringKeys();
  document.addEventListener("keydown", onKey);
  if (boot.mode === "seat" || boot.mode === "watch") connect();
  else if (boot.mode === "replay") replay();
  else if (boot.mode === "create") create();
  else if (boot.mode === "join") join();
  else if (boot.mode === "judge") judge();
  else if (boot.mode === "tables") tables();
})();
