// Streamer overlay (docs/web.md): the public board over Server-Sent Events (/matches/<match>/live) and
// the public score beside it (/overlay/<match>/score: best-of-three score, playoff state). Nothing is
// drawn until there is a board to show, and connection trouble never shows on air: EventSource
// reconnects by itself, and the server sends the current board first on every connection.
// URL options: ?side=left|right (a column at that edge instead of the bottom bar), ?bench=0 (no Bench),
// ?scale=0.75 (size), ?swap=1 (the players the other way round, to match the table camera), ?lang=ja|ko
// (card names in Japanese or Korean: each browser source its own; /score carries the names).
// A name or an HP line too long for its box is cut with an ellipsis and shown whole in its title.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const match = decodeURIComponent(location.pathname.replace(/^\/overlay\//, "").replace(/\/+$/, ""));
  const enc = (m) => m.split("/").map(encodeURIComponent).join("/");
  const opts = new URLSearchParams(location.search);
  const side = ["left", "right"].includes(opts.get("side")) ? opts.get("side") : null;
  const bench = opts.get("bench") !== "0";
  const scale = Math.min(3, Math.max(0.25, Number.parseFloat(opts.get("scale")) || 1));
  const swap = ["1", "true", "yes"].includes(opts.get("swap") || "");
  const lang = ["en", "ja", "ko"].includes(opts.get("lang")) ? opts.get("lang") : null;
  // card names as the events write them -> as this overlay's language shows them (from /score)
  const shown = (name) => score?.names?.[name] ?? name;
  const asked = new Set(); // the names /score was last asked about: a new one asks again
  document.body.classList.add(side ? "column" : "row", ...(side ? ["at-" + side] : []));
  document.body.classList.toggle("no-bench", !bench);
  if (scale !== 1) $("stage").style.setProperty("--scale", String(scale));

  let board = null;
  let score = null;
  let child = null; // the playoff game's live board, while the playoff is played
  let lastStatus = null;

  function el(tag, cls, ...children) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  const fill = (node, ...kids) => node.replaceChildren(...kids.filter((k) => k !== null && k !== undefined && k !== false));
  // the codes shown on air, as words in the overlay's language (?lang=, static/i18n.js)
  const WORDS = {
    prizes: _("PRIZES"), no_pokemon: _("NO POKEMON"), deck_out: _("DECK OUT"), concession: _("CONCESSION"),
    penalty: _("PENALTY"), effect: _("EFFECT"), simultaneous: _("SIMULTANEOUS"), playoff: _("PLAYOFF"),
    time: _("TIME"), sudden_death: _("SUDDEN DEATH"), tiebreak: _("TIEBREAK"), tiebreaker_game: _("TIEBREAKER GAME"),
  };
  const cap = (s) => WORDS[s] || String(s ?? "").replace(/_/g, " ").toUpperCase();
  const titled = (node) => { node.title = node.textContent; return node; };

  function hpBar(mon, cls) {
    const left = Math.max(0, mon.hp - mon.damage);
    const pct = mon.hp ? (100 * left) / mon.hp : 0;
    const bar = el("div", cls + (pct <= 25 ? " low" : pct <= 50 ? " mid" : ""), el("span"));
    bar.firstChild.style.width = pct + "%";
    return bar;
  }

  function active(p) {
    const a = p.active;
    if (!a) return el("div", "active none", el("div", "mon-name", _("no Active Pokémon")));
    return el("div", "active",
      titled(el("div", "mon-name", shown(a.name))),
      a.hp != null ? hpBar(a, "hpbar") : null,
      titled(el("div", "hptext", a.hp != null ? _("HP {left}/{hp}", { left: Math.max(0, a.hp - a.damage), hp: a.hp }) : "",
        a.damage ? el("span", "dmg", _(" · {n} damage", { n: a.damage })) : null,
        (a.conditions || []).map((c) => el("span", "cond", c)))));
  }

  function benchRow(p) {
    return el("div", "bench", (p.bench || []).map((b) =>
      el("div", "benched", titled(el("div", "b-name", shown(b.name))),
        b.hp != null ? hpBar(b, "hpbar small") : null,
        el("div", "b-hp", b.hp != null ? `${Math.max(0, b.hp - b.damage)}/${b.hp}` : b.damage ? _("{n} dmg", { n: b.damage }) : ""))));
  }

  function prizes(p) {
    const total = Math.max(0, (p.prizes_left ?? 0) + (p.prizes_taken ?? 0));
    const pips = el("div", "pips");
    for (let i = 0; i < Math.min(total, 12); i++) pips.append(el("span", "pip" + (i < p.prizes_left ? " on" : "")));
    return el("div", "prizes", el("div", "n prizes-left", p.prizes_left), el("div", "label", _("PRIZES LEFT")), pips);
  }

  function gamesWon(name) {
    const s = score?.series;
    if (!s) return null;
    const dots = el("span", "games", `${s.wins[name] ?? 0}`);
    dots.title = _("games won in this match");
    return dots;
  }

  const hasSomething = (b) =>
    b && (b.result || Object.values(b.players || {}).some((p) => p.active || (p.bench || []).length));

  // The board is the newer word, except for a drawn game whose playoff was decided after its last event:
  // its record (the score's) settles it.
  const settled = () => board.status === "awaiting_playoff" && score?.status === "finished";
  const status = () => (settled() ? score.status : board.status);

  function banner() {
    const r = settled() ? score.result : board.result;
    const status = settled() ? score.status : board.status;
    const po = score?.playoff;
    if (status === "awaiting_playoff" && po?.state !== "decided") {
      return { cls: "draw", head: _("DRAW"), why: _("{kind} TO DECIDE THE GAME", { kind: cap(po?.kind || "playoff") }) };
    }
    if (status === "in_progress" || !r) return null;
    if (r.outcome === "win") {
      const why = r.reason === "playoff" ? _("WON THE {kind}", { kind: cap(po?.kind || "playoff") }) : _("BY {reason}", { reason: cap(r.reason) });
      return { cls: "win", head: _("GAME OVER · {winner} WINS", { winner: r.winner }), why };
    }
    return { cls: "draw", head: r.outcome === "draw" ? _("GAME OVER · DRAW") : _("GAME OVER · NO WINNER"), why: cap(r.reason) };
  }

  function render() {
    if (board) document.body.dataset.seq = String(board.seq ?? "");
    if (!hasSomething(board)) {
      $("bar").hidden = true;
      $("banner").hidden = true;
      document.body.dataset.state = "empty";
      return;
    }
    const names = Object.keys(board.players || {}).slice(0, 2);
    if (swap) names.reverse();
    const playing = status() === "in_progress";
    names.forEach((name, i) => {
      const p = board.players[name];
      const node = $("side-" + i);
      node.dataset.player = name;
      node.classList.toggle("to-move", playing && board.turn_player === name);
      fill(node,
        el("div", "main",
          el("div", "who", el("div", "name", titled(el("span", "player-name", name)), gamesWon(name)),
            el("div", "sub", _("deck {deck} · hand {hand}", { deck: p.deck, hand: p.hand }))),
          prizes(p),
          active(p)),
        bench && (p.bench || []).length ? benchRow(p) : null);
    });
    const turn = board.source_turn ?? board.turn;
    const s = score?.series;
    const po = score?.playoff_of;
    fill($("middle"),
      s ? el("div", "series", _("GAME {n} · {score}", { n: s.game ?? "?", score: names.map((n) => s.wins[n] ?? 0).join("–") })) : null,
      po ? el("div", "tag", cap(po.kind || "playoff")) : null,
      el("div", "t", turn ? _("TURN {n}", { n: turn }) : _("SETUP")),
      playing ? titled(el("div", "who-turn", board.turn_player || "")) : null);
    const b = banner();
    $("banner").hidden = !b;
    if (b) {
      $("banner").className = "banner " + b.cls;
      $("banner").replaceChildren(el("span", "head", b.head), el("span", "why", b.why));
    }
    $("bar").hidden = false;
    fit();
    document.body.dataset.state = b ? (b.cls === "win" ? "over" : "decided-draw") : "live";
    if (status() === "awaiting_playoff") {
      document.body.dataset.state = "awaiting-playoff";
    }
  }

  // The bar never leaves the frame: when its content would not fit at the chosen scale (a long Bench in a
  // column at 1.5), it is drawn smaller. Layout sizes ignore transforms, so this never feeds back.
  function fit() {
    const bar = $("bar");
    const f = Math.min(1, (innerWidth - 48) / (bar.offsetWidth * scale), (innerHeight - 48) / (bar.offsetHeight * scale));
    $("stage").style.setProperty("--fit", String(Math.max(0.1, f)));
    document.body.dataset.fit = f < 1 ? f.toFixed(3) : "1";
  }
  window.addEventListener("resize", () => { if (!$("bar").hidden) fit(); });

  // ------------------------------------------------------------------ data
  let fetching = null;
  async function refreshScore() {
    if (fetching) return fetching;
    fetching = (async () => {
      try {
        const query = lang ? "?lang=" + lang : "";
        const resp = await fetch("/overlay/" + enc(match) + "/score" + query, { cache: "no-store" });
        if (resp.ok) score = await resp.json();
      } catch (err) {
        // off air: the next board or reconnection asks again
      } finally {
        fetching = null;
      }
      followPlayoff();
      render();
    })();
    return fetching;
  }

  function followPlayoff() {
    const po = score?.playoff;
    const wanted = po && po.state !== "decided" ? po.child : null;
    if (child && child.match !== wanted) {
      child.source.close();
      child = null;
    }
    if (wanted && !child) {
      child = { match: wanted, source: live(wanted, onChildBoard) };
    }
  }

  let settleTries = 0;
  function onChildBoard(b) {
    if (b.status === "in_progress") return;
    // The playoff game ended: its parent is settled in the same ingest step or just after it.
    refreshScore().then(() => {
      if (score?.playoff && score.playoff.state !== "decided" && settleTries++ < 10) {
        setTimeout(() => onChildBoard(b), 500);
      }
    });
  }

  function onBoard(b) {
    board = b;
    // a Pokémon not yet named in the overlay's language: /score names it (only with ?lang=)
    const unseen = lang ? Object.values(b.players || {}).flatMap((p) => [p.active, ...(p.bench || [])])
      .filter((m) => m && !asked.has(m.name)) : [];
    unseen.forEach((m) => asked.add(m.name));
    if (score === null || b.status !== lastStatus || unseen.length) {
      lastStatus = b.status;
      refreshScore();
    }
    render();
  }

  function live(m, handler) {
    const holder = { es: null, close() { this.closed = true; this.es?.close(); } };
    const open = () => {
      if (holder.closed) return;
      const es = new EventSource("/matches/" + enc(m) + "/live");
      holder.es = es;
      es.addEventListener("board", (e) => handler(JSON.parse(e.data)));
      es.addEventListener("open", () => {
        if (m === match) document.body.dataset.connection = "open";
      });
      es.addEventListener("error", () => {
        if (m === match) document.body.dataset.connection = "down"; // for tests; never shown on air
        if (es.readyState === EventSource.CLOSED) setTimeout(open, 2000); // a proxy's 502: try again
      });
    };
    open();
    return holder;
  }

  live(match, onBoard);
})();
