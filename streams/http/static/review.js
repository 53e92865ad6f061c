// The judges' review page: step through a match event by event (docs/web.md).
// Reads /review/<match>/meta once, then /review/<match>/state?seq=N for every step.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const match = decodeURIComponent(location.pathname.replace(/^\/review\//, "").replace(/\/+$/, ""));
  const enc = (m) => m.split("/").map(encodeURIComponent).join("/");
  const api = (suffix) => "/review/" + enc(match) + suffix;

  let meta = null;
  let record = null;
  let steps = []; // [[seq, type], ...]
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
  const seqButton = (seq, label) =>
    el("button", { class: "seqlink", "data-seq": seq, onclick: () => goTo(seq) }, label ?? "seq " + seq);
  const reviewLink = (m) => el("a", { href: "/review/" + enc(m), class: "match-link" }, m);

  function showError(message) {
    const e = $("error");
    e.textContent = message;
    e.hidden = false;
  }

  function plural(n, word) {
    return n + " " + word + (n === 1 ? "" : "s");
  }

  function koCard(seq, pid) {
    const ko = (record?.knockouts || []).find((k) => k.seq === seq && k.pid === pid);
    return ko?.card || pid;
  }

  function describe(o) {
    switch (o.type) {
      case "ko":
        return `Knockout: ${koCard(o.seq, o.pid)} (${o.pid}, ${o.owner}) gives ${plural(o.prizes, "prize")}` +
          `, ${o.window} window, batch ${o.batch}`;
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
        return `Finding [${o.severity}] ${o.code}: ${o.message}`;
      default: {
        const rest = { ...o };
        delete rest.type;
        return `${o.type}: ${JSON.stringify(rest)}`;
      }
    }
  }

  function resultSummary(result) {
    if (!result) return "No result yet: the game is in progress.";
    const at = result.decided_at != null ? ` at seq ${result.decided_at}` : "";
    const turn = result.turn != null ? `, turn ${result.turn}` : "";
    if (result.outcome === "win") return `${result.winner} beat ${result.loser} by ${result.reason}${at}${turn}`;
    if (result.outcome === "draw") return `Draw (${result.reason})${at}${turn}`;
    return `No winner (${result.reason})${at}${turn}`;
  }

  function renderMeta() {
    $("match-id").textContent = match;
    document.title = "Prizecheck · review " + match;
    const r = record || {};
    const ctx = r.context ? Object.entries(r.context).map(([k, v]) => `${k} ${v}`).join(", ") : "";
    $("match-info").textContent = [
      (r.players || []).join(" vs "),
      r.first ? "first: " + r.first : "",
      r.ruleset ? "ruleset " + r.ruleset + (r.ruleset_version ? ` (version ${r.ruleset_version})` : "") : "",
      r.status ? "status " + r.status : "",
      ctx,
    ].filter(Boolean).join(" · ");

    const box = $("result");
    box.replaceChildren();
    const result = r.result;
    box.append(el("p", { id: "result-text", class: "result-text" }, el("strong", {}, resultSummary(result))));
    if (result?.conditions) {
      const ul = el("ul", { id: "conditions" });
      for (const [player, conds] of Object.entries(result.conditions)) {
        ul.append(el("li", {}, `${player}: `, conds.length ? conds.join(", ") : "no win condition met"));
      }
      box.append(el("p", {}, "Why: the win conditions each player met at the judgment"), ul);
    }
    if (result?.reason === "playoff") {
      box.append(el("p", {}, `This game was drawn at seq ${result.decided_at}; the playoff game decided it ` +
        "(see the playoff links below)."));
    }
    if (result?.detail) box.append(el("p", {}, "Detail: " + fmt(result.detail)));
    if (r.claimed) {
      box.append(el("p", { class: r.agrees === false ? "sev-violation" : "" },
        `Source claimed: ${r.claimed.outcome}${r.claimed.winner ? ", winner " + r.claimed.winner : ""}` +
        (r.claimed.reason ? ` (${r.claimed.reason})` : "") +
        ` — ${r.agrees === true ? "agrees" : r.agrees === false ? "DISAGREES" : "not compared"}`));
    }
    if (r.prizes) {
      box.append(el("p", { class: "muted" }, "Prizes: " + Object.entries(r.prizes)
        .map(([p, v]) => `${p} took ${v.taken}/${v.needed}, ${v.remaining} left in pile`).join("; ")));
    }
    const jump = $("jump-decision");
    if (result?.decided_at != null) {
      jump.hidden = false;
      jump.textContent = `jump to decision (seq ${result.decided_at})`;
    } else {
      jump.hidden = true;
    }

    const kos = $("knockouts");
    kos.replaceChildren();
    for (const k of r.knockouts || []) {
      kos.append(el("li", {}, seqButton(k.seq), `: ${k.card} (${k.owner}) gives ${plural(k.prizes, "prize")}, ` +
        `${k.window} window${k.verified ? "" : ", from the source's claim"}`));
    }
    if (!kos.children.length) kos.append(el("li", { class: "muted" }, "none"));

    const fs = $("findings");
    fs.replaceChildren();
    for (const f of r.findings || []) {
      fs.append(el("li", { class: "sev-" + f.severity }, f.seq != null ? seqButton(f.seq) : "match",
        ` [${f.severity}] ${f.code}: ${f.message}`));
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

  function mon(p, active) {
    if (!p) return el("div", { class: "mon empty" }, active ? "no Active Pokémon" : "");
    const left = p.hp != null ? Math.max(0, p.hp - p.damage) : null;
    const pct = p.hp ? Math.round((100 * left) / p.hp) : 0;
    return el("div", { class: "mon" + (active ? " active" : ""), "data-pid": p.pid },
      el("div", {}, el("span", { class: "name" }, p.name), " ", el("span", { class: "meta" }, p.pid)),
      p.hp != null ? el("div", { class: "hp" + (pct <= 30 ? " low" : "") }, el("span", { style: `width:${pct}%` })) : null,
      el("div", { class: "meta" },
        p.hp != null ? `HP ${left}/${p.hp}` : "HP unknown", `, damage ${p.damage}`,
        p.attached?.length ? ", attached: " + p.attached.join(", ") : ""),
      (p.conditions || []).map((c) => el("span", { class: "cond" }, c)));
  }

  function renderBoard(board) {
    const root = $("board");
    root.replaceChildren();
    const order = record?.players?.length ? record.players : Object.keys(board.players || {});
    for (const name of order) {
      const p = board.players?.[name];
      if (!p) continue;
      root.append(el("div", { class: "player" + (board.turn_player === name ? " to-move" : ""), "data-player": name },
        el("h3", {}, name, board.turn_player === name ? " (turn)" : ""),
        el("div", { class: "counts" },
          el("span", { class: "prizes" }, "prizes ", el("b", {}, `${p.prizes_taken}/${p.prizes_needed}`),
            " taken, ", el("b", { class: "prizes-left" }, p.prizes_left), " left"),
          el("span", {}, "deck ", el("b", {}, p.deck)),
          el("span", {}, "hand ", el("b", {}, p.hand)),
          el("span", {}, "discard ", el("b", {}, p.discard)),
          p.lost_zone ? el("span", {}, "lost zone ", el("b", {}, p.lost_zone)) : null),
        el("div", { class: "muted" }, "Active"), mon(p.active, true),
        el("div", { class: "muted" }, `Bench (${(p.bench || []).length})`),
        (p.bench || []).map((b) => mon(b, false))));
    }
    $("board-seq").textContent = board.seq ?? "";
    $("turn").textContent = board.turn ? `· turn ${board.turn}, ${board.turn_player}'s turn · ${board.status}` :
      `· ${board.status}`;
  }

  function render(state) {
    const ev = state.event;
    $("seq").textContent = "#" + state.seq;
    $("event-type").textContent = ev ? ev.type : "(no event at this seq: a gap)";
    const fields = $("event-fields");
    fields.replaceChildren();
    if (ev) {
      for (const [k, v] of Object.entries(ev)) {
        if (k === "match" || k === "seq" || k === "type") continue;
        fields.append(el("tr", {}, el("th", {}, k), el("td", {}, fmt(v))));
      }
      if (!fields.children.length) fields.append(el("tr", {}, el("td", { class: "muted" }, "no fields")));
    }
    const extra = $("extra");
    extra.replaceChildren();
    for (const x of state.extra || []) {
      extra.append(el("p", { class: "sev-violation" }, `${x.kind} event archived here: `, fmt(x.event)));
    }
    const outs = $("outputs");
    outs.replaceChildren();
    for (const o of state.outputs || []) outs.append(el("li", { class: "out-" + o.type }, describe(o)));
    if (!outs.children.length) outs.append(el("li", { class: "muted" }, "none"));
    renderBoard(state.board);

    const decided = record?.result?.decided_at;
    const here = decided != null && decided === state.seq;
    $("result-box").classList.toggle("decided-here", here);
    $("event-panel").classList.toggle("decided", here);
    document.body.dataset.seq = String(state.seq);
    document.body.dataset.decided = here ? "1" : "0";
  }

  function indexOf(seq) {
    let lo = 0;
    for (let i = 0; i < steps.length; i++) {
      if (steps[i][0] <= seq) lo = i;
      else break;
    }
    return lo;
  }

  async function goTo(seq) {
    index = indexOf(seq);
    const target = steps[index] ? steps[index][0] : seq;
    $("slider").value = String(index);
    $("seq-input").value = String(target);
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
    $("slider").max = String(Math.max(0, steps.length - 1));
    $("last").textContent = meta.last;
    renderMeta();
    $("prev").addEventListener("click", () => step(-1));
    $("next").addEventListener("click", () => step(1));
    $("slider").addEventListener("input", (e) => {
      const s = steps[Number(e.target.value)];
      if (s) goTo(s[0]);
    });
    $("seq-input").addEventListener("change", (e) => goTo(Number(e.target.value) || 1));
    $("jump-decision").addEventListener("click", () => goTo(record.result.decided_at));
    document.addEventListener("keydown", (e) => {
      if (e.target instanceof HTMLInputElement) return;
      if (e.key === "ArrowLeft") step(-1);
      if (e.key === "ArrowRight") step(1);
    });
    window.addEventListener("hashchange", () => {
      const m = /seq=(\d+)/.exec(location.hash);
      if (m && Number(m[1]) !== Number(document.body.dataset.seq)) goTo(Number(m[1]));
    });
    const wanted = /seq=(\d+)/.exec(location.hash);
    await goTo(wanted ? Number(wanted[1]) : steps.length ? steps[0][0] : 1);
    document.body.dataset.ready = "1";
  }

  start();
})();
