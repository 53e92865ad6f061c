// The judges' review page: a battle log beside the board (docs/web.md).
// Reads /review/<match>/meta once (the record, the steps and the battle log), then
// /review/<match>/state?seq=N for the board and the derived outputs of every step.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const match = decodeURIComponent(location.pathname.replace(/^\/review\//, "").replace(/\/+$/, ""));
  const enc = (m) => m.split("/").map(encodeURIComponent).join("/");
  const api = (suffix) => "/review/" + enc(match) + suffix;

  let record = null;
  let steps = []; // [[seq, type], ...]
  let log = []; // battle log lines (see streams/http/battle_log.py)
  let lineOfSeq = new Map(); // seq -> its first log <li>
  let turnOfSeq = new Map(); // seq -> turn number (the source's)
  let current = []; // the highlighted <li>s
  let index = 0;
  let request = 0;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "onclick") node.addEventListener("click", v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  const fmt = (v) => (typeof v === "string" ? v : JSON.stringify(v));
  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");
  const seqButton = (seq, label) =>
    el("button", { class: "seqlink", "data-seq": seq, onclick: () => goTo(seq) }, label ?? "seq " + seq);
  const reviewLink = (m) => el("a", { href: "/review/" + enc(m), class: "match-link" }, m);
  const ruleLink = (rule) =>
    rule ? el("a", { class: "rule", href: rule.href, target: "_blank", title: rule.title }, "rules §" + rule.section) : null;

  function showError(message) {
    const e = $("error");
    e.textContent = message;
    e.hidden = false;
  }

  function koNumber(seq, pid) {
    const i = (record?.knockouts || []).findIndex((k) => k.seq === seq && k.pid === pid);
    return i < 0 ? null : i + 1;
  }

  function describe(o) {
    switch (o.type) {
      case "ko": {
        const n = koNumber(o.seq, o.pid);
        const card = record?.knockouts?.[n - 1]?.card;
        return `Knockout${n ? " #" + n : ""}: ${card ? card + " (" + o.pid + ")" : o.pid}, ${o.owner}'s, ` +
          `gives ${plural(o.prizes, "prize")} (${o.window} window, batch ${o.batch})`;
      }
      case "prizes_due":
        return `Prizes due: ${o.player} takes ${o.count}`;
      case "promotion_due":
        return `Promotion due: ${o.player} must promote a new Active (order ${o.order})`;
      case "deck_out":
        return `Deck-out: ${o.player} cannot draw at the start of the turn`;
      case "game_over":
        return `Game over: ${o.outcome}${o.winner ? ", winner " + o.winner : ""} (${o.reason})`;
      case "playoff_required":
        return `Playoff required: ${o.child} (${o.playoff}, ${o.prizes} prizes)`;
      case "finding":
        return `Finding [${o.severity}] ${o.code}: ${o.message}${o.detail ? " (judges: " + o.detail + ")" : ""}`;
      default: {
        const rest = { ...o };
        delete rest.type;
        return `${o.type}: ${JSON.stringify(rest)}`;
      }
    }
  }

  function resultSummary(result) {
    if (!result) return "In progress: no result yet";
    const at = result.decided_at != null ? ` at seq ${result.decided_at}` : "";
    const turn = result.decided_at != null && turnOfSeq.get(result.decided_at) != null
      ? `, turn ${turnOfSeq.get(result.decided_at)}` : "";
    if (result.outcome === "win") return `${result.winner} beat ${result.loser} by ${result.reason}${at}${turn}`;
    if (result.outcome === "draw") return `Draw (${result.reason})${at}${turn}`;
    return `No winner (${result.reason})${at}${turn}`;
  }

  // ------------------------------------------------------------------ header, record lists
  function renderMeta() {
    $("match-id").textContent = match;
    document.title = "Prizecheck · review " + match;
    const r = record || {};
    const ctx = r.context ? Object.entries(r.context).map(([k, v]) => `${k} ${v}`).join(", ") : "";
    $("match-info").textContent = [
      (r.players || []).join(" vs "),
      r.first ? "first: " + r.first : "",
      r.ruleset ? r.ruleset + (r.ruleset_version ? ` v${r.ruleset_version}` : "") : "",
      ctx,
    ].filter(Boolean).join(" · ");

    const result = r.result;
    $("result-text").replaceChildren(el("strong", {}, resultSummary(result)));
    $("result-box").dataset.status = r.status || "";
    if (result?.conditions) {
      $("conditions").textContent = "why: " + Object.entries(result.conditions)
        .map(([p, c]) => `${p} ${c.length ? c.join(", ") : "none"}`).join(" · ");
      $("conditions").title = "the win conditions each player met at the judgment";
    }
    const claim = $("claim");
    claim.replaceChildren();
    if (r.claimed) {
      const word = r.agrees === true ? "agrees" : r.agrees === false ? "DISAGREES" : "not compared";
      claim.append(el("span", { class: r.agrees === false ? "sev-violation" : "muted" },
        `source claimed ${r.claimed.outcome}${r.claimed.winner ? " " + r.claimed.winner : ""}: ${word}`));
    }
    if (result?.reason === "playoff") claim.append(el("span", { class: "muted" }, " · decided by its playoff game"));
    const jump = $("jump-decision");
    jump.hidden = result?.decided_at == null;
    if (!jump.hidden) jump.textContent = `jump to decision (seq ${result.decided_at})`;

    const kos = $("knockouts");
    kos.replaceChildren();
    (r.knockouts || []).forEach((k, i) => {
      const turn = turnOfSeq.get(k.seq);
      kos.append(el("li", { "data-ko": i + 1 }, seqButton(k.seq, `#${i + 1}`),
        ` seq ${k.seq}${turn != null ? ", turn " + turn : ""}: ${k.card} (${k.pid}), ${k.owner}'s, ` +
        `${plural(k.prizes, "prize")}, ${k.window}${k.verified ? "" : ", from the source's claim"}`));
    });
    if (!kos.children.length) kos.append(el("li", { class: "muted" }, "none"));

    const fs = $("findings");
    fs.replaceChildren();
    for (const f of r.findings || []) {
      fs.append(el("li", { class: "sev-" + f.severity }, f.seq != null ? seqButton(f.seq) : "match",
        ` [${f.severity}] ${f.code}: ${f.message}${f.detail ? " (judges: " + f.detail + ")" : ""} `,
        ruleLink(rules[f.code])));
    }
    if (!fs.children.length) fs.append(el("li", { class: "muted" }, "none"));

    const pl = $("playoff-links");
    pl.replaceChildren();
    if (r.parent) pl.append(el("li", { id: "parent-link" }, "parent game: ", reviewLink(r.parent)));
    if (r.playoff_of) pl.append(el("li", {}, `this game is a playoff (${r.playoff_of.kind || "?"})`));
    if (r.playoff) {
      pl.append(el("li", {}, `playoff ${r.playoff.kind} with ${plural(r.playoff.prizes, "prize")}: `,
        reviewLink(r.playoff.child)));
    }
    for (const c of r.children || []) {
      if (r.playoff && c === r.playoff.child) continue;
      pl.append(el("li", { class: "child-link" }, "child game: ", reviewLink(c)));
    }
    if (!pl.children.length) pl.append(el("li", { class: "muted" }, "none"));
  }

  // ------------------------------------------------------------------ the record's history
  // Every change to a finished record is a version naming the event that caused it (docs/records.md).
  function versionLine(v, last) {
    const cause = v.cause.match === match
      ? el("a", { href: "#seq=" + v.cause.seq, class: "cause", onclick: () => { $("history").open = false; } },
        "seq " + v.cause.seq)
      : el("a", { href: "/review/" + enc(v.cause.match) + "#seq=" + v.cause.seq, class: "cause" },
        `${v.cause.match} seq ${v.cause.seq}`);
    const sig = v.signature.status === "unsigned" ? "unsigned"
      : `signed ${v.signature.key_id || ""} (${v.signature.status.replace("_", " ")})`;
    const claim = v.agrees === true ? "claim agrees" : v.agrees === false ? "claim DISAGREES" : "no claim";
    return el("li", { "data-version": v.version, class: v.version === last ? "current" : null },
      el("b", {}, "v" + v.version), " ",
      v.unreadable ? "unreadable" : `${(v.status || "").replace("_", " ")}: ${resultSummary(v.result)}`,
      " · caused by ", cause, " · ",
      el("a", { href: "/matches/" + enc(match) + "/record?version=" + v.version, class: "record-link",
        target: "_blank" }, "record"),
      el("span", { class: "muted" }, v.unreadable ? ` · ${sig}` : ` · ${plural(v.events, "event")}, ${claim}, ${sig}`),
      v.version === last ? el("span", { class: "muted" }, " · current") : null);
  }

  async function loadHistory() {
    const box = $("history");
    let versions;
    try {
      const resp = await fetch("/matches/" + enc(match) + "/versions");
      versions = await resp.json();
      if (!resp.ok) throw new Error(versions.error || resp.statusText);
    } catch (err) {
      box.hidden = true;
      box.dataset.error = String(err.message || err);
      return;
    }
    box.dataset.versions = String(versions.length);
    if (!versions.length) { box.hidden = true; return; }
    const last = versions[versions.length - 1].version;
    $("history-summary").textContent = `History (${plural(versions.length, "version")})`;
    $("history-summary").title = "every change to the finished record, and the event that caused it";
    $("history-list").replaceChildren(...versions.map((v) => versionLine(v, last)));
    box.hidden = false;
  }

  // ------------------------------------------------------------------ the battle log
  let rules = {};

  function markNode(m) {
    const cls = "mark mark-" + m.kind + (m.severity ? " sev-" + m.severity : "");
    const attrs = { class: cls };
    if (m.kind === "ko") attrs["data-ko"] = m.n;
    return el("div", attrs, m.kind === "ko" ? "✖ " : m.kind === "prize" ? "★ " : m.kind === "finding" ? "⚠ " : "",
      m.text, m.rule ? " " : "", ruleLink(m.rule));
  }

  function renderLog() {
    const root = $("log");
    const frag = document.createDocumentFragment();
    const turns = $("turn-select");
    turns.replaceChildren(el("option", { value: "" }, "—"));
    let group = undefined;
    log.forEach((line, i) => {
      const key = line.turn == null ? "setup" : String(line.turn);
      if (key !== group) {
        group = key;
        const label = line.turn == null ? "Setup" : `Turn ${line.turn}` + (line.player ? ` · ${line.player}` : "");
        frag.append(el("li", { class: "turn-head", "data-turn": key }, label));
        turns.append(el("option", { value: String(line.seq) }, label));
      }
      if (line.turn != null) turnOfSeq.set(line.seq, line.turn);
      const classes = ["line", "kind-" + line.kind, "type-" + line.type];
      for (const m of line.marks) classes.push("has-" + m.kind);
      const li = el("li", { class: classes.join(" "), "data-seq": line.seq, "data-i": i },
        el("span", { class: "lseq" }, line.seq),
        el("div", { class: "ltext" },
          line.kind !== "event" ? el("span", { class: "sev-violation" }, `${line.kind} event: `) : null,
          line.text),
        line.marks.length ? el("div", { class: "marks" }, line.marks.map(markNode)) : null);
      li.addEventListener("click", (e) => {
        if (e.target instanceof HTMLAnchorElement) return; // a rules link
        goTo(line.seq);
      });
      if (!lineOfSeq.has(line.seq)) lineOfSeq.set(line.seq, li);
      frag.append(li);
    });
    root.replaceChildren(frag);
    $("log-count").textContent = `${log.length} events`;
  }

  function highlight(seq) {
    for (const li of current) li.classList.remove("current");
    current = [...document.querySelectorAll(`#log li.line[data-seq="${seq}"]`)];
    for (const li of current) li.classList.add("current");
    const first = current[0];
    if (first) {
      const box = $("log");
      const top = first.offsetTop; // the log is the lines' offset parent
      const head = 28; // the sticky turn heading covers the top of the list
      if (top < box.scrollTop + head || top + first.offsetHeight > box.scrollTop + box.clientHeight) {
        box.scrollTop = Math.max(0, top - box.clientHeight / 3);
      }
    }
    const turn = turnOfSeq.get(seq);
    const sel = $("turn-select");
    let value = "";
    for (const opt of sel.options) {
      if (opt.value && Number(opt.value) <= seq) value = opt.value;
    }
    sel.value = value;
    sel.dataset.turn = turn == null ? "" : String(turn);
  }

  // ------------------------------------------------------------------ board and step
  function mon(p, active) {
    if (!p) return el("div", { class: "mon empty" }, active ? "no Active Pokémon" : "");
    const left = p.hp != null ? Math.max(0, p.hp - p.damage) : null;
    const pct = p.hp ? Math.round((100 * left) / p.hp) : 0;
    return el("div", { class: "mon" + (active ? " active" : ""), "data-pid": p.pid },
      el("div", { class: "mon-line" },
        el("span", { class: "name" }, p.name), " ", el("span", { class: "meta" }, p.pid),
        el("span", { class: "hpnum" }, p.hp != null ? `${left}/${p.hp}` : `dmg ${p.damage}`)),
      p.hp != null ? el("div", { class: "hp" + (pct <= 30 ? " low" : "") }, el("span", { style: `width:${pct}%` })) : null,
      (p.attached?.length || p.conditions?.length || p.damage) ? el("div", { class: "meta" },
        p.damage ? `damage ${p.damage}` : "", p.damage && p.attached?.length ? " · " : "",
        p.attached?.length ? p.attached.join(", ") : "",
        (p.conditions || []).map((c) => el("span", { class: "cond" }, c))) : null);
  }

  function renderBoard(board) {
    const root = $("board");
    root.replaceChildren();
    const order = record?.players?.length ? record.players : Object.keys(board.players || {});
    for (const name of order) {
      const p = board.players?.[name];
      if (!p) continue;
      root.append(el("div", { class: "player" + (board.turn_player === name ? " to-move" : ""), "data-player": name },
        el("h3", {}, name, board.turn_player === name ? el("span", { class: "muted" }, " · to play") : ""),
        el("div", { class: "counts" },
          el("span", { class: "prizes" }, "prizes left ", el("b", { class: "prizes-left" }, p.prizes_left),
            ` (taken ${p.prizes_taken}/${p.prizes_needed})`),
          el("span", {}, "deck ", el("b", {}, p.deck)),
          el("span", {}, "hand ", el("b", {}, p.hand)),
          el("span", {}, "discard ", el("b", {}, p.discard)),
          p.lost_zone ? el("span", {}, "lost zone ", el("b", {}, p.lost_zone)) : null),
        el("div", { class: "zone" }, "Active"), mon(p.active, true),
        el("div", { class: "zone" }, `Bench (${(p.bench || []).length})`),
        el("div", { class: "bench" }, (p.bench || []).map((b) => mon(b, false)))));
    }
    $("board-seq").textContent = board.seq ?? "";
    const turn = turnOfSeq.get(Number(board.seq));
    $("turn").textContent = (turn != null ? `· turn ${turn}, ${board.turn_player}'s turn` : "· setup") +
      (board.status !== "in_progress" ? ` · ${board.status}` : "");
  }

  function render(state) {
    const ev = state.event;
    $("seq").textContent = "#" + state.seq;
    $("event-type").textContent = ev ? ev.type : "(no event at this seq: a gap)";
    const line = log.find((l) => l.seq === state.seq && l.kind === "event");
    $("event-text").textContent = line ? line.text : "";
    const fields = $("event-fields");
    fields.replaceChildren();
    if (ev) {
      for (const [k, v] of Object.entries(ev)) {
        if (k === "match" || k === "seq" || k === "type") continue;
        fields.append(el("tr", {}, el("th", {}, k), el("td", {}, fmt(v))));
      }
    }
    const extra = $("extra");
    extra.replaceChildren();
    for (const x of state.extra || []) {
      extra.append(el("p", { class: "sev-violation" }, `${x.kind} event archived here: `, fmt(x.event)));
    }
    const outs = $("outputs");
    outs.replaceChildren();
    for (const o of state.outputs || []) {
      outs.append(el("li", { class: "out-" + o.type }, describe(o), o.type === "finding" ? " " : "",
        o.type === "finding" ? ruleLink(rules[o.code]) : null));
    }
    if (!outs.children.length) outs.append(el("li", { class: "muted" }, "nothing"));
    renderBoard(state.board);
    highlight(state.seq);

    const decided = record?.result?.decided_at;
    const here = decided != null && decided === state.seq;
    $("result-box").classList.toggle("decided-here", here);
    $("event-panel").classList.toggle("decided", here);
    document.body.dataset.seq = String(state.seq);
    document.body.dataset.decided = here ? "1" : "0";
  }

  function indexOf(seq) {
    let lo = 0;
    let hi = steps.length - 1;
    while (lo < hi) { // the last step at or below seq
      const mid = (lo + hi + 1) >> 1;
      if (steps[mid][0] <= seq) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  async function goTo(seq) {
    index = indexOf(seq);
    const target = steps[index] ? steps[index][0] : seq;
    $("slider").value = String(index);
    $("seq-input").value = String(target);
    highlight(target);
    const mine = ++request;
    try {
      const resp = await fetch(api("/state?seq=" + target));
      const state = await resp.json();
      if (mine !== request) return; // a later step was asked for meanwhile
      if (!resp.ok) throw new Error(state.error || resp.statusText);
      render(state);
      history.replaceState(null, "", "#seq=" + state.seq);
    } catch (err) {
      if (mine === request) showError("Could not load seq " + target + ": " + err.message);
    }
  }

  const step = (delta) => {
    const i = Math.min(Math.max(index + delta, 0), steps.length - 1);
    if (steps[i]) goTo(steps[i][0]);
  };

  async function start() {
    let meta;
    try {
      const resp = await fetch(api("/meta"));
      meta = await resp.json();
      if (!resp.ok) throw new Error(meta.error || resp.statusText);
    } catch (err) {
      showError("Could not load match " + match + ": " + err.message);
      return;
    }
    record = meta.record;
    steps = meta.steps;
    log = meta.log || [];
    rules = meta.rules || {};
    $("slider").max = String(Math.max(0, steps.length - 1));
    $("last").textContent = meta.last;
    renderLog();
    renderMeta();
    const history = loadHistory();
    $("prev").addEventListener("click", () => step(-1));
    $("next").addEventListener("click", () => step(1));
    $("slider").addEventListener("input", (e) => {
      const s = steps[Number(e.target.value)];
      if (s) goTo(s[0]);
    });
    $("seq-input").addEventListener("change", (e) => goTo(Number(e.target.value) || 1));
    $("turn-select").addEventListener("change", (e) => {
      if (e.target.value) goTo(Number(e.target.value));
    });
    $("jump-decision").addEventListener("click", () => goTo(record.result.decided_at));
    document.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
      if (e.key === "ArrowLeft") { e.preventDefault(); step(-1); }
      if (e.key === "ArrowRight") { e.preventDefault(); step(1); }
    });
    window.addEventListener("hashchange", () => {
      const m = /seq=(\d+)/.exec(location.hash);
      if (m && Number(m[1]) !== Number(document.body.dataset.seq)) goTo(Number(m[1]));
    });
    const wanted = /seq=(\d+)/.exec(location.hash);
    await goTo(wanted ? Number(wanted[1]) : steps.length ? steps[0][0] : 1);
    await history;
    document.body.dataset.ready = "1";
  }

  start();
})();
