// Streamer overlay (docs/web.md): the public board over Server-Sent Events (/matches/<match>/live) and
// the public score beside it (/overlay/<match>/score: best-of-three score, playoff state). Nothing is
// drawn until there is a board to show, and connection trouble never shows on air: EventSource
// reconnects by itself, and the server sends the current board first on every connection.
// URL options: ?side=left|right (a column at that edge instead of the bottom bar), ?bench=0 (no Bench),
// ?scale=0.75 (size), ?swap=1 (the players the other way round, to match the table camera), ?lang=ja|ko
// (card names in Japanese or Korean: each browser source its own; /score carries the names).
// A name or an HP line too long for its box is cut with an ellipsis and shown whole in its title.
// A stream table's or slot's overlay (body[data-follow]: /overlay/table/E/T, /overlay/slot/S) asks its
// "now" every second: the match to show (it switches by itself), its clock, and for a slot the scene on
// air, the sides and the Bench (streams/http/tables.py). A match's own overlay asks for its clock
// (/overlay/<match>/clock) every 5 s.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const follow = document.body.dataset.follow || null;
  let match = follow ? null : decodeURIComponent(location.pathname.replace(/^\/overlay\//, "").replace(/\/+$/, ""));
  const enc = (m) => m.split("/").map(encodeURIComponent).join("/");
  const opts = new URLSearchParams(location.search);
  // Any source size: the layout is drawn for 1920x1080 and scaled to the frame (1280x720: 2/3, 3840x2160:
  // 2); a narrow source (a side panel, taller than wide) is a column, scaled to its width.
  const narrow = () => innerWidth / innerHeight < 1.2;
  const frame = () => (narrow() ? Math.min(innerWidth / 608, innerHeight / 1080) : Math.min(innerWidth / 1920, innerHeight / 1080));
  const side = ["left", "right"].includes(opts.get("side")) ? opts.get("side") : narrow() ? "left" : null;
  let bench = opts.get("bench") !== "0";
  const scale = Math.min(3, Math.max(0.25, Number.parseFloat(opts.get("scale")) || 1));
  let swap = ["1", "true", "yes"].includes(opts.get("swap") || "");
  const lang = ["en", "ja", "ko"].includes(opts.get("lang")) ? opts.get("lang") : null;
  // card names as the events write them -> as this overlay's language shows them (from /score)
  const shown = (name) => score?.names?.[name] ?? name;
  const asked = new Set(); // the names /score was last asked about: a new one asks again
  document.body.classList.add(side ? "column" : "row", ...(side ? ["at-" + side] : []));
  document.body.classList.toggle("no-bench", !bench);
  let drawn = scale * frame(); // the scale asked for, at this source's size
  const sized = () => {
    drawn = scale * frame();
    const style = $("stage").style;
    style.setProperty("--scale", String(drawn));
    style.setProperty("--frame", String(frame()));
    style.setProperty("--user-scale", String(scale));
  };
  sized();

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
    time: _("TIME"), double_loss: _("DOUBLE LOSS"), sudden_death: _("SUDDEN DEATH"), tiebreak: _("TIEBREAK"), tiebreaker_game: _("TIEBREAKER GAME"),
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

  // The organiser's card image pack (body[data-card-images]: /cards/<slug>), the Active's art when the pack
  // has it; a card it has not is not asked for again.
  const images = document.body.dataset.cardImages === "1";
  const noImage = new Set();
  const slug = (name) => String(name).normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 100);
  function art(mon) {
    const s = slug(mon.name);
    if (!images || !s || noImage.has(s)) return null;
    const img = el("img", "art");
    img.alt = "";
    img.addEventListener("error", () => { noImage.add(s); img.remove(); });
    img.src = "/cards/" + s;
    return img;
  }

  function active(p) {
    const a = p.active;
    if (!a) return el("div", "active none", el("div", "mon-name", _("no Active Pokémon")));
    return el("div", "active",
      art(a),
      titled(el("div", "mon-name", shown(a.name))),
      a.hp != null ? hpBar(a, "hpbar") : null,
      titled(el("div", "hptext", a.hp != null ? _("HP {left}/{hp}", { left: Math.max(0, a.hp - a.damage), hp: a.hp }) : _("HP ?"),
        a.damage ? el("span", "dmg", _(" · {n} damage", { n: a.damage })) : null)),
      attachedRow(a));
  }

  // Special Conditions, then attached Energy and Tools, one chip each, on a line of their own under the HP
  // (an Energy by its name: the board names the cards only)
  function attachedRow(mon) {
    const conds = mon.conditions || [];
    const cards = mon.attached || [];
    if (!conds.length && !cards.length) return null;
    return titled(el("div", "attached",
      conds.map((c) => el("span", "cond", c)),
      cards.map((c) => el("span", /energy/i.test(c) ? "att energy" : "att tool", shown(c)))));
  }

  function benchRow(p) {
    return el("div", "bench", (p.bench || []).map((b) =>
      el("div", "benched", titled(el("div", "b-name", shown(b.name))),
        b.hp != null ? hpBar(b, "hpbar small") : null,
        el("div", "b-hp", b.hp != null ? `${Math.max(0, b.hp - b.damage)}/${b.hp}` : b.damage ? _("HP ? · {n} dmg", { n: b.damage }) : _("HP ?")),
        (b.attached || []).length ? el("div", "b-att", `+${b.attached.length}`) : null)));
  }

  function prizes(p) {
    const total = Math.max(0, (p.prizes_left ?? 0) + (p.prizes_taken ?? 0));
    const pips = el("div", "pips");
    // prizes left as cards face down, prizes taken as cards turned over (greyed)
    for (let i = 0; i < Math.min(total, 12); i++) pips.append(el("span", "pip" + (i < p.prizes_left ? " on" : " taken")));
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
      playing ? titled(el("div", "who-turn", board.turn_player || "")) : null,
      lastAttack(board.last_attack));
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

  // The last attack and the damage its attack placed (the board's last_attack)
  function lastAttack(la) {
    if (!la || !la.name) return null;
    // the name gives way (an ellipsis), never the damage
    // the attacker and its attack in the overlay's language (/score's names and moves)
    const move = score?.moves?.[la.attacker]?.[la.name] ?? la.name;
    return titled(el("div", "last-attack", el("span", "la-name", `${la.attacker ? shown(la.attacker) + ": " : ""}${move}`),
      la.damage ? el("span", "dmg", ` · ${la.damage}`) : null));
  }

  // The bar never leaves the frame: when its content would not fit at the chosen scale (a long Bench in a
  // column at 1.5), it is drawn smaller. Layout sizes ignore transforms, so this never feeds back.
  function fit() {
    const bar = $("bar");
    const f = Math.min(1, (innerWidth - 48) / (bar.offsetWidth * drawn), (innerHeight - 48) / (bar.offsetHeight * drawn));
    $("stage").style.setProperty("--fit", String(Math.max(0.1, f)));
    document.body.dataset.fit = f < 1 ? f.toFixed(3) : "1";
  }
  window.addEventListener("resize", () => { sized(); if (!$("bar").hidden) fit(); });

  // ------------------------------------------------------------------ data
  let fetching = null;
  async function refreshScore() {
    if (fetching) return fetching;
    if (!match) return null;
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
    // a Pokémon not yet named in the overlay's language: /score names it (the page's language, however it
    // was chosen: ?lang=, the event's setting or the browser's; English names are the events' own)
    const named = (lang || document.documentElement.lang) !== "en";
    const unseen = named ? Object.values(b.players || {}).flatMap((p) => [p.active, ...(p.bench || [])])
      .filter((m) => m && !asked.has(m.name)) : [];
    unseen.forEach((m) => asked.add(m.name));
    // an attack not yet named in the overlay's language: /score names it too
    const la = b.last_attack;
    if (named && la?.name && !asked.has("\u0000" + la.attacker + "\u0000" + la.name)) {
      asked.add("\u0000" + la.attacker + "\u0000" + la.name);
      unseen.push(la);
    }
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

  // ------------------------------------------------------------------ a stream table or slot
  let source = null;
  function show(m) {
    if (m === match && (source || !m)) return;
    source?.close();
    child?.source.close();
    child = null;
    board = score = lastStatus = null;
    match = m;
    document.body.dataset.match = m || "";
    render();
    source = m ? live(m, (b) => { if (m === match) onBoard(b); }) : null;
  }

  const rows = (id, items) => fill($(id), ...items.map((cells) => el("li", null, cells.map((c) => el("span", null, c)))));
  function scenes(now) {
    const scene = now.scene || "game";
    document.body.dataset.scene = scene;
    $("scene-standings").hidden = scene !== "standings";
    $("scene-next").hidden = scene !== "next";
    if (scene === "standings") {
      rows("standings-rows", (now.standings || []).map((r) => [r.rank, r.player, `${r.win}-${r.loss}-${r.tie}`, _("{n} pts", { n: r.points })]));
    }
    if (scene === "next") {
      rows("next-rows", (now.next || []).map((n) => [n.players.length ? n.players.join(_(" vs ")) : n.match, n.round != null ? _("round {n}", { n: n.round }) : ""]));
    }
    $("stage").classList.toggle("off-game", scene !== "game");
  }

  // The match clock (a slot's, or the one the table console sets): shown once it was started or time was
  // called, on the game scene only; it counts down here between two answers (a match's own overlay asks
  // every 5 s, a table's or slot's every second).
  let clock = null; // { c: the answer's clock, at: when it came, scene }
  function setClock(c, scene) {
    clock = c ? { c, at: performance.now(), scene } : null;
    drawClock();
  }
  function drawClock() {
    const c = clock?.c;
    const shown = c && (c.running || c.called || c.left < c.limit);
    $("clock").hidden = !shown || clock.scene !== "game";
    document.body.dataset.clock = !shown ? "none" : c.called ? "called" : c.running ? "running" : "paused"; // for tests
    if (!shown) return;
    const left = Math.max(0, Math.ceil(c.left - (c.running ? (performance.now() - clock.at) / 1000 : 0)));
    $("clock").textContent = c.called ? _("TIME") : `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    $("clock").classList.toggle("paused", !c.running);
  }
  setInterval(() => clock?.c?.running && drawClock(), 250);

  async function poll() {
    try {
      const resp = await fetch(follow, { cache: "no-store" });
      if (resp.ok) {
        const now = await resp.json();
        if (typeof now.swap === "boolean") swap = now.swap;
        if (typeof now.bench === "boolean") {
          bench = now.bench;
          document.body.classList.toggle("no-bench", !bench);
        }
        if ("slot" in now) scenes(now);
        setClock(now.clock || null, now.scene || "game");
        show(now.match || null);
        if (board) render();
      }
    } catch (err) {
      // off air: the next poll asks again; the last board stays up
    }
    setTimeout(poll, 1000);
  }

  // a match's own overlay: its clock, as the table console sets it (GET /overlay/<match>/clock: light, it
  // reads no archive)
  async function pollClock() {
    try {
      const resp = await fetch("/overlay/" + enc(match) + "/clock", { cache: "no-store" });
      if (resp.ok) setClock((await resp.json()).clock, "game");
    } catch (err) {
      // off air: the next poll asks again; the clock stays as it was
    }
    setTimeout(pollClock, 5000);
  }

  if (follow) poll();
  else {
    live(match, onBoard);
    pollClock();
  }
})();
