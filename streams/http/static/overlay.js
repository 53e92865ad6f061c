// Streamer overlay: subscribes to the public board (/matches/<match>/live, Server-Sent Events) and
// draws prizes left, the Active Pokémon with HP, the turn and a game-over banner. It reads nothing
// else: the public board has counts only for hands, decks and prizes, never a hidden card.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const match = decodeURIComponent(location.pathname.replace(/^\/overlay\//, "").replace(/\/+$/, ""));
  const enc = (m) => m.split("/").map(encodeURIComponent).join("/");

  function el(tag, cls, ...children) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function prizes(p) {
    const total = Math.max(0, (p.prizes_left ?? 0) + (p.prizes_taken ?? 0));
    const pips = el("div", "pips");
    for (let i = 0; i < Math.min(total, 12); i++) pips.append(el("span", "pip" + (i < p.prizes_left ? " on" : "")));
    const box = el("div", "prizes", el("div", "n prizes-left", p.prizes_left), el("div", "label", "PRIZES LEFT"), pips);
    return box;
  }

  function active(p) {
    const a = p.active;
    if (!a) return el("div", "active", el("div", "mon-name", "—"), el("div", "hptext", "no Active Pokémon"));
    const left = a.hp != null ? Math.max(0, a.hp - a.damage) : null;
    const pct = a.hp ? (100 * left) / a.hp : 100;
    const bar = el("div", "hpbar" + (pct <= 25 ? " low" : pct <= 50 ? " mid" : ""), el("span"));
    bar.firstChild.style.width = pct + "%";
    return el("div", "active",
      el("div", "mon-name", a.name),
      a.hp != null ? bar : null,
      el("div", "hptext", a.hp != null ? `HP ${left}/${a.hp}` : `damage ${a.damage}`,
        (a.conditions || []).map((c) => el("span", "cond", c))));
  }

  function render(board) {
    const names = Object.keys(board.players || {});
    names.slice(0, 2).forEach((name, i) => {
      const p = board.players[name];
      const side = $("side-" + i);
      side.dataset.player = name;
      side.classList.toggle("to-move", board.turn_player === name && board.status === "in_progress");
      side.replaceChildren(
        el("div", "who", el("div", "name", name), el("div", "sub", `bench ${(p.bench || []).length} · deck ${p.deck}`)),
        prizes(p),
        active(p));
    });
    $("turn").replaceChildren(
      el("div", "t", board.turn ? `TURN ${board.turn}` : "SETUP"),
      el("div", "who-turn", board.turn_player || ""));
    const banner = $("banner");
    const r = board.result;
    if (board.status !== "in_progress" && r) {
      banner.hidden = false;
      banner.classList.toggle("draw", r.outcome !== "win");
      const head = r.outcome === "win" ? `GAME OVER · ${r.winner} wins` : r.outcome === "draw" ? "GAME OVER · DRAW" : "GAME OVER";
      const why = board.status === "awaiting_playoff" ? `${r.reason} · playoff to follow` : r.reason;
      banner.replaceChildren(head, el("span", "why", why));
    } else {
      banner.hidden = true;
    }
    $("bar").hidden = false;
    document.body.dataset.seq = String(board.seq ?? "");
  }

  const source = new EventSource("/matches/" + enc(match) + "/live");
  source.addEventListener("board", (e) => {
    $("status").textContent = "live";
    $("status").classList.remove("down");
    render(JSON.parse(e.data));
  });
  source.addEventListener("error", () => {
    $("status").textContent = "reconnecting…";
    $("status").classList.add("down");
  });
})();
