// The table console (docs/console.md). This page derives nothing: every board, prompt and finding it shows
// is the service's answer (GET /console/<m>/state, POST /console/<m>/preview and /events), computed by the
// engine on the server. The page only numbers its events (seq), keeps them in IndexedDB until the service
// has them, and turns keys and taps into events.
"use strict";
(() => {
  const body = document.body;
  const match = body.dataset.match;
  const base = "/console/" + match.split("/").map(encodeURIComponent).join("/");
  const $ = (id) => document.getElementById(id);
  // The console is the browser, not the tab: its outbox (IndexedDB) is the browser's, and so is its id
  // (localStorage), so a console reopened after a crash or a closed tab holds its match's lease (kept by
  // the service) and goes on writing at once; another browser is another console.
  const browserId = () => {
    let id = localStorage.getItem("pc-console-id");
    if (!id) {
      id = "c-" + Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
      localStorage.setItem("pc-console-id", id);
    }
    return id;
  };
  const consoleId = browserId();
  let token = sessionStorage.getItem("pc-console-token") || "";
  let view = null; // the service's last answer
  // Answers adopted in the order their requests were sent: a GET /state sent before a POST /events and
  // answered after it holds the board before the POST, and must not hide the POST's answer.
  let asked = 0;
  let adopted = 0;
  const adopt = (ask, answer) => {
    if (ask < adopted) return false;
    adopted = ask;
    view = answer;
    if (answer && "clock" in answer) adoptClock(answer.clock); // a preview's answer has none: kept
    return true;
  };
  let outbox = []; // {match, seq, event, state: "draft" | "queued"}, seq order
  let online = true;
  let retry = null;
  let form = null; // the action being entered
  let cardInfo = {};

  // ------------------------------------------------------------------------------------ IndexedDB
  let db = null;
  const openDb = () =>
    new Promise((resolve, reject) => {
      const req = indexedDB.open("prizecheck-console", 1);
      req.onupgradeneeded = () => req.result.createObjectStore("outbox", { keyPath: ["match", "seq"] });
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  const tx = (mode, fn) =>
    new Promise((resolve, reject) => {
      const t = db.transaction("outbox", mode);
      const result = fn(t.objectStore("outbox"));
      t.oncomplete = () => resolve(result && result.result !== undefined ? result.result : undefined);
      t.onerror = () => reject(t.error);
    });
  const loadOutbox = async () => {
    const all = await tx("readonly", (s) => s.getAll(IDBKeyRange.bound([match, 0], [match, Infinity])));
    outbox = (all || []).sort((a, b) => a.seq - b.seq);
  };
  const save = (entries) => tx("readwrite", (s) => entries.forEach((e) => s.put(e)));
  const drop = (entries) => tx("readwrite", (s) => entries.forEach((e) => s.delete([e.match, e.seq])));

  // ------------------------------------------------------------------------------------------ HTTP
  const headers = () => {
    const h = { "Content-Type": "application/json" };
    if (token) h.Authorization = "Bearer " + token;
    return h;
  };
  // the page's language (its <html lang>: ?lang=, the event's, the browser's): the API answers in it, card
  // names, prompts, findings and errors alike
  const pageLang = new URLSearchParams(location.search).get("lang") || document.documentElement.lang;
  const withLang = (path) => (pageLang ? path + (path.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(pageLang) : path);
  const call = async (method, path, data) => {
    const response = await fetch(base + withLang(path), {
      method,
      headers: headers(),
      body: data === undefined ? undefined : JSON.stringify(data),
      cache: "no-store",
    });
    let answer = null;
    try {
      answer = await response.json();
    } catch (e) {
      answer = null;
    }
    return { status: response.status, answer };
  };
  const showError = (text) => {
    $("error").textContent = text || "";
    $("error").hidden = !text;
  };

  // ------------------------------------------------------------------------------------- numbering
  const nextSeq = () => {
    const last = outbox.length ? outbox[outbox.length - 1].seq + 1 : 1;
    return Math.max(view ? view.next_seq : 1, last);
  };
  const drafts = () => outbox.filter((e) => e.state === "draft");
  const queued = () => outbox.filter((e) => e.state === "queued");

  // What an outbox entry is, for a sentence: the action or prompt that made it (``label``) and its seqs.
  const what = (entries) => {
    const labels = [];
    entries.forEach((e) => {
      const l = e.label || e.event.type;
      if (!labels.includes(l)) labels.push(l);
    });
    const first = entries[0].seq;
    const last = entries[entries.length - 1].seq;
    return labels.join(", ") + _(" (seq {seqs})", { seqs: first + (last !== first ? "-" + last : "") });
  };
  // The service's reason as a clause (its own message, without a final full stop).
  const reason = (answer, fallback) => String((answer && answer.error) || fallback).replace(/[.\s]+$/, "");
  // What the operator can do about a refusal a retry cannot fix (docs/console.md, "Nothing lost").
  const TODO = {
    fenced: _("the board now shows what the archive holds: record it again if the table still shows it"),
    judge_only: _("only a judge may add it now: ask a judge to add it on the review page"),
    not_owner: _("this console's token may not write this match: ask a judge"),
    out_of_scope: _("this console's token may not write this match: use a token whose scope holds it"),
    playoff_parent: _("start the playoff game from its parent's console"),
  };
  // Events the service refused for a reason a retry cannot fix leave the outbox at once, and the
  // console says so in one sentence: what was not recorded, why, and what to do.
  const refuse = async (entries, answer, fallback) => {
    outbox = outbox.filter((e) => !entries.includes(e));
    await drop(entries);
    const code = answer && answer.code;
    const todo = TODO[code] || _("correct it and record it again");
    showError(_("Not recorded: the {what}: {why}; {todo}.", { what: what(entries), why: reason(answer, fallback), todo }));
  };

  const record = async (bodies, label, moment) => {
    if (view && view.lease && view.lease.held && !view.lease.mine) {
      return showError(
        _("Not recorded: the {what}: this console is read-only (another console writes this match); take over when it hands over, then record it again.", { what: label || bodies[0].type })
      );
    }
    const hold = $("hold").checked;
    const at = moment || new Date().toISOString();
    const start = nextSeq();
    const entries = bodies.map((b, i) => ({
      match,
      seq: start + i,
      event: Object.assign({ match, seq: start + i, at }, b),
      state: hold ? "draft" : "queued",
      label: label || b.type,
    }));
    if (!hold) drafts().forEach((e) => (e.state = "queued")); // live: the drafts before it go first, in order
    outbox.push(...entries);
    // Kept (IndexedDB) and sent at once: the write is asked for first, and the request does not wait for
    // its commit (that wait was most of the keypress's time before its request left: issue 40 item 5).
    // IndexedDB runs a store's read-write transactions in the order they were made, so the answer's drop
    // of these events always comes after this write, never before it (an event answered is never kept).
    const saved = save(hold ? entries : outbox.filter((e) => e.state === "queued"));
    showError("");
    await Promise.all([saved, hold ? preview(entries) : flush()]);
    return entries;
  };

  // The view with the draft folded on the archive; a draft the service refuses (a field the contract does
  // not allow) leaves the outbox, said at once.
  const preview = async (added) => {
    const pending = outbox.map((e) => e.event);
    if (!pending.length) return refresh();
    try {
      const ask = ++asked;
      const r = await call("POST", "/preview", { events: pending });
      setOnline(true);
      if (r.status === 200) {
        adopt(ask, Object.assign({}, r.answer, { lease: view ? view.lease : null }));
      } else if (r.status === 400 || r.status === 413) {
        const refused = added && added.length ? added : drafts();
        await refuse(refused, r.answer, _("refused ({status})", { status: r.status }));
        if (outbox.length) return preview();
      } else if (r.status === 401) {
        showError(_("Not shown: the service asks for the token again: give it below."));
        askToken();
      } else throw new Error("status " + r.status);
    } catch (e) {
      setOnline(false);
    }
    render();
  };

  const publish = async () => {
    const list = drafts();
    if (!list.length) return;
    list.forEach((e) => (e.state = "queued"));
    await Promise.all([save(list), flush()]); // kept and sent at once, as an action is (record)
  };

  const undo = async () => {
    const list = drafts();
    if (!list.length) return;
    const last = list[list.length - 1];
    // one action may be several events (a prompt's claims): drop every draft event of its moment
    const same = list.filter((e) => e.event.at === last.event.at);
    outbox = outbox.filter((e) => !same.includes(e));
    await drop(same);
    await preview();
  };

  // Send what waits, in seq order. Every answer is one of: recorded (each event's outcome), a refusal a
  // retry cannot fix (the events leave the outbox, said at once), or a wait a retry can end (offline, the
  // token asked again, another console's lease), said at once too.
  // One sending at a time, and whoever asks for one while it is under way (the action just recorded, the
  // 3-second timer, a refresh's answer) is answered when it is over: it sends, in the same run, what was
  // queued meanwhile. So the action that asks has the service's answer to its own events when its flush()
  // returns (the turn's end reads it: the checkup it accepts next), even when the timer came first.
  let flushing = null; // the run under way: its promise
  const flush = () => {
    if (!flushing) {
      flushing = (async () => {
        try {
          for (;;) {
            const sent = await sendQueued();
            // what was queued while the request was under way goes now, in the same run (an event the
            // service holds back, buffered behind a gap, is not sent again at once: only new ones)
            if (!sent || !queued().some((e) => !sent.includes(e))) break;
          }
        } finally {
          flushing = null; // in the same turn as the last look at the outbox: nothing queued is missed
        }
      })();
    }
    return flushing;
  };
  // One request with every queued event: the events sent when the service answered them, else null.
  const sendQueued = async () => {
    const list = queued();
    if (!list.length) {
      render();
      return null;
    }
    let answered = false;
    try {
      const ask = ++asked;
      const r = await call("POST", "/events", { console: consoleId, events: list.map((e) => e.event) });
      setOnline(true);
      const a = r.answer || {};
      if ((r.status === 200 || r.status === 400) && Array.isArray(a.outcomes)) {
        const outcome = (e) => a.outcomes.find((x) => x.seq === e.seq);
        const done = list.filter((e) => outcome(e) && outcome(e).status !== "buffered");
        const rejected = done.filter((e) => outcome(e).status === "rejected");
        outbox = outbox.filter((e) => !done.includes(e));
        await drop(done);
        if (rejected.length) {
          showError(_("Not recorded: the {what}: {why}; correct it and record it again.", { what: what(rejected), why: rejected.map((e) => outcome(e).reason).join("; ").replace(/[.\s]+$/, "") }));
        }
        adopt(ask, a);
        answered = true;
      } else if (r.status === 401) {
        showError(_("Not recorded yet: the {what}: the service asks for the token again; give it below and they are sent.", { what: what(list) }));
        askToken();
      } else if (r.status === 409 && a.code === "read_only") {
        showError(_("Not recorded yet: the {what}: another console writes this match; take over when it hands over and they are sent.", { what: what(list) }));
        await refresh(false);
      } else if (r.status === 400 || r.status === 403 || r.status === 409 || r.status === 413) {
        await refuse(list, a, _("refused ({status})", { status: r.status }));
        await refresh(false);
        await renumber();
      } else {
        throw new Error("status " + r.status);
      }
    } catch (e) {
      setOnline(false);
      clearTimeout(retry);
      retry = setTimeout(flush, 1000);
    }
    if (drafts().length) await preview();
    else render();
    return answered ? list : null;
  };

  // Drafts left behind refused events follow the archive again (a draft is the console's own: its seq is
  // only where it will go).
  const renumber = async () => {
    const list = drafts();
    if (!list.length || !view || queued().length || list[0].seq === view.next_seq) return;
    await drop(list);
    list.forEach((e, i) => {
      e.seq = view.next_seq + i;
      e.event = Object.assign({}, e.event, { seq: e.seq });
    });
    await save(list);
  };

  // The archive's view; with ``send`` (the default), what waits is sent after it.
  const refresh = async (send = true) => {
    try {
      const ask = ++asked;
      const r = await call("GET", "/state?console=" + encodeURIComponent(consoleId));
      if (r.status === 200) {
        adopt(ask, r.answer);
        setOnline(true);
        // what the archive holds already (sent before a reload, or by the service before it stopped)
        if (send && queued().length) await flush();
      } else if (r.status === 401) askToken();
      else showError((r.answer && r.answer.error) || _("status {status}", { status: r.status }));
    } catch (e) {
      setOnline(false);
    }
    render();
  };
  const setOnline = (yes) => {
    online = yes;
    $("net").dataset.state = yes ? "online" : "offline";
    $("net").textContent = yes ? _("online") : _("offline: events wait in this browser");
  };

  // quiet: the take when the page opens. A recorder scoped to tables cannot take the lease of a game not
  // started yet (its id does not show the table: the first publish, whose match_started does, takes it),
  // so a refusal then is no news; a refused button press is.
  const lease = async (action, quiet) => {
    const r = await call("POST", "/lease", { console: consoleId, action });
    if (r.status === 200) {
      if (view) view.lease = r.answer;
      await refresh();
    } else if (r.status === 403 && !quiet) showError((r.answer && r.answer.error) || _("refused"));
    else if (quiet) await refresh();
  };
  // A read never renews the lease (GET /state only looks): the writing console renews it, a write of its
  // own, well within the service's 20 s.
  const renew = async () => {
    try {
      const r = await call("POST", "/lease", { console: consoleId, action: "renew" });
      if (r.status === 200 && view) {
        view.lease = r.answer;
        render();
      }
    } catch (e) {
      setOnline(false);
    }
  };

  // ------------------------------------------------------------------------------------- rendering
  const el = (tag, text, cls) => {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  };
  const shownName = (name) => (view && view.names && view.names[name]) || name;
  const monText = (m) => {
    let text = shownName(m.name) + "  " + _("{left}/{hp} HP", { left: Math.max(0, (m.hp || 0) - m.damage), hp: m.hp || "?" });
    if (m.damage) text += "  " + _("({n} damage)", { n: m.damage });
    if (m.conditions && m.conditions.length) text += "  " + m.conditions.join(", ");
    if (m.attached && m.attached.length) text += "  [" + m.attached.map(shownName).join(", ") + "]";
    return text;
  };
  // What each part of the page was last built from (render's parts, by their node): the same again
  // leaves the part's nodes as they are.
  const builtFrom = new WeakMap();
  const same = (node, from) => {
    const key = JSON.stringify(from);
    if (builtFrom.get(node) === key) return true;
    builtFrom.set(node, key);
    return false;
  };
  const render = () => {
    $("waiting").textContent = _("{n} waiting", { n: queued().length });
    $("drafts").textContent = _("{n} in draft", { n: drafts().length });
    if (!view) return;
    body.dataset.next = String(view.next_seq); // for tests: the seq the service's last answer expects next
    body.dataset.status = view.status;
    const started = view.status !== "not_started";
    const showStart = !started && !!token && !drafts().length;
    if (showStart && $("start-box").hidden) setTimeout(() => $("start-form").p1.focus(), 0);
    $("start-box").hidden = !showStart;
    $("table").hidden = !started;
    const lease = view.lease || { held: false, mine: false, take_over: false };
    $("writer").textContent = lease.held ? (lease.mine ? _("this console writes") : _("read-only: another console writes")) : _("no console writes");
    $("writer").dataset.mine = String(!lease.held || lease.mine);
    // another console's lease: this token's own other console's, or any for a judge, may be taken over;
    // another token's console waits until it is handed over or lapses (its next publish takes it then)
    $("take").hidden = !lease.held || lease.mine || !lease.take_over;
    $("release").hidden = !lease.mine;
    if (!started) return;
    const board = view.board;
    const players = Object.keys(board.players);
    players.forEach((p, i) => {
      const side = $("side-" + i);
      const b = board.players[p];
      // built again only when what it shows changed: the page renders every few seconds (the refresh,
      // the lease's renewal), and a node replaced under a finger loses its tap
      if (same(side, [p, b, board.turn_player === p, view.names])) return;
      side.replaceChildren();
      side.classList.toggle("turn", board.turn_player === p);
      side.append(el("h3", p));
      side.append(el("p", _("prizes left {left} · taken {taken}/{needed} · deck {deck} · hand {hand} · discard {discard}", {
        left: b.prizes_left, taken: b.prizes_taken, needed: b.prizes_needed, deck: b.deck, hand: b.hand, discard: b.discard })));
      if (b.active) side.append(monButton(b.active, "Active"));
      b.bench.forEach((m) => side.append(monButton(m, "Bench")));
    });
    $("turn-line").textContent = _("turn {n}", { n: board.turn }) + (board.turn_player ? " · " + board.turn_player : "") + " · " + (STATUS[board.status] || board.status) + (board.result ? " · " + (board.result.winner ? _("{winner} wins", { winner: board.result.winner }) : board.result.outcome) + " (" + board.result.reason + ")" : "");
    const list = $("prompts");
    const rebuild = !same(list, view.prompts); // as the sides: a prompt's button kept under a finger
    if (rebuild) list.replaceChildren();
    if (rebuild) view.prompts.forEach((p, i) => {
      const li = el("li");
      const choices = p.choices || [];
      if (p.events && p.events.length) {
        const b = el("button", p.text + (i === 0 ? "  ⏎" : ""));
        b.type = "button";
        b.dataset.prompt = p.id;
        b.addEventListener("click", () => record(p.events, p.text));
        li.append(b);
      } else if (p.start) {
        const b = el("button", p.text);
        b.type = "button";
        b.dataset.prompt = p.id;
        b.addEventListener("click", () => startChild(p));
        li.append(b);
      } else li.append(el("span", p.text));
      choices.forEach((c, k) => {
        const b = el("button", "[" + (k + 1) + "] " + c.text);
        b.type = "button";
        b.dataset.choice = String(k + 1);
        b.addEventListener("click", () => record(c.events, p.text + ": " + c.text));
        li.append(b);
      });
      if (p.detail && p.detail.length) {
        const ul = el("ul", null, "detail");
        p.detail.forEach((d) => ul.append(el("li", d)));
        li.append(ul);
      }
      list.append(li);
    });
    const fl = $("findings");
    fl.replaceChildren();
    view.findings.forEach((f) => {
      const li = el("li", _("seq {seq}", { seq: f.seq }) + " · " + f.code + ": " + (f.text || f.message), f.severity);
      if (f.rule) {
        const a = el("a", " docs/rules.md §" + f.rule.section + " " + f.rule.title);
        a.href = f.rule.href;
        li.append(a);
      }
      fl.append(li);
    });
    const dl = $("draft-list");
    dl.replaceChildren();
    // the service's sentences (the review page's); an action it has not described yet shows its label
    const drafted = {};
    (view.draft || []).forEach((d) => (drafted[d.seq] = d.text));
    drafts().forEach((e) => dl.append(el("li", e.seq + " " + (drafted[e.seq] || e.label || e.event.type))));
    const ll = $("log-list");
    ll.replaceChildren();
    (view.log || []).slice().reverse().forEach((e) => {
      const li = el("li", e.seq + " " + e.text);
      li.dataset.seq = e.seq;
      // a fix after the end is a judge's (docs/console.md, "Draft, then live"): not offered here then
      if (view.status === "in_progress" && e.type !== "match_started" && e.type !== "correction") {
        const v = el("button", _("void"));
        v.type = "button";
        v.addEventListener("click", () => record([correction(e.seq, { action: "void" })], _("void of seq {seq}", { seq: e.seq })));
        li.append(v);
        if ("amount" in e) {
          const a = el("button", _("amend amount"));
          a.type = "button";
          a.addEventListener("click", () => {
            const amount = Number(window.prompt(_("amount for seq {seq}", { seq: e.seq }), String(e.amount)));
            if (Number.isInteger(amount) && amount >= 0) record([correction(e.seq, { action: "amend", event: { amount } })], _("amendment of seq {seq}", { seq: e.seq }));
          });
          li.append(a);
        }
      }
      ll.append(li);
    });
    renderKeys();
  };
  // A correction names who made it: this console's writer as the service names it (docs/events.md).
  const correction = (target, fields) =>
    Object.assign({ type: "correction", target }, fields, view && view.author ? { author: view.author } : {});

  // ----------------------------------------------------------------------------------------- actions
  const P = "player";
  const STATUS = { in_progress: _("in progress"), finished: _("finished"), awaiting_playoff: _("awaiting its playoff") };
  // Each action: its key, its fields, and the event(s) it builds from them (the contract's events).
  const ACTIONS = [
    { id: "setup", key: "s", label: _("setup"), fields: [P, "card", "hp", "rule", "bench", "mulligans"], build: (v) => [{ type: "setup", player: v.player, mulligans: v.mulligans || 0, active: { pid: pid(v.player, 0), card: card(v) }, bench: benchList(v) }] },
    { id: "turn", key: "t", label: _("turn start"), fields: [P], build: (v) => [{ type: "turn_started", player: v.player }] },
    { id: "draw", key: "d", label: _("draw"), fields: [P, "count", "cards", "hidden"], build: (v) => [withCards({ type: "drew", player: v.player, count: v.count || 1 }, v)] },
    { id: "bench", key: "b", label: _("bench"), fields: [P, "card", "hp", "rule"], build: (v) => [{ type: "played", player: v.player, pid: pid(v.player, 0), card: card(v), to: "bench" }] },
    { id: "evolve", key: "e", label: _("evolve"), fields: [P, "mon", "card", "hp", "rule"], build: (v) => [{ type: "evolved", player: v.player, pid: v.mon, card: card(v) }] },
    { id: "attach", key: "a", label: _("attach"), fields: [P, "mon", "card", "kind"], build: (v) => [{ type: "attached", player: v.player, pid: v.mon, card: { name: v.card, kind: v.kind || "energy" } }] },
    { id: "attack", key: "k", label: _("attack"), fields: [P, "mon", "attack", "target", "amount"], build: (v) => [{ type: "attack", player: v.player, pid: v.mon, name: v.attack }, ...(v.amount ? [{ type: "damage", pid: v.target, amount: v.amount, by: v.mon }] : [])] },
    // what the table did, even when it is not what the rules give: the engine's findings say the difference
    { id: "prize", key: "v", label: _("prize cards taken"), fields: [P, "count"], build: (v) => [{ type: "prize_taken", player: v.player, count: v.count || 1 }] },
    { id: "knocked", key: "j", label: _("knocked out (the table's call)"), fields: ["target"], build: (v) => [{ type: "knocked_out", pid: v.target }] },
    { id: "damage", key: "g", label: _("damage"), fields: ["target", "amount"], build: (v) => [{ type: "damage", pid: v.target, amount: v.amount || 0 }] },
    { id: "heal", key: "h", label: _("heal"), fields: ["target", "amount"], build: (v) => [{ type: "healed", pid: v.target, amount: v.amount || 0 }] },
    { id: "condition", key: "c", label: _("condition"), fields: ["target", "condition", "on"], build: (v) => [{ type: "condition", pid: v.target, condition: v.condition, on: v.on !== false }] },
    { id: "retreat", key: "r", label: _("retreat / switch"), fields: [P, "mon", "effect"], build: (v) => [Object.assign({ type: "switched", player: v.player, pid: v.mon }, v.effect ? { effect: v.effect } : {})] },
    { id: "trainer", key: "p", label: _("trainer / stadium"), fields: [P, "card", "trainer"], build: (v) => [{ type: "trainer_played", player: v.player, card: { name: v.card, kind: v.trainer || "item" } }] },
    { id: "search", key: "f", label: _("search (hidden)"), fields: [P, "count", "cards", "hidden"], build: (v) => [withCards({ type: "searched", player: v.player, count: v.count || 1 }, v)] },
    // the prize cards' identities, as the operator saw them: a note for review, marked hidden (no count moves)
    { id: "prizes", key: "i", label: _("prize cards (hidden)"), fields: [P, "cards"], build: (v) => [withCards({ type: "note", text: "prize cards of " + v.player, author: "console", player: v.player }, Object.assign({}, v, { hidden: true }))] },
    { id: "discard", key: "x", label: _("discard"), fields: [P, "count", "cards"], build: (v) => [Object.assign({ type: "discarded", player: v.player, count: v.count || 1 }, v.cards && v.cards.length ? { cards: v.cards } : {})] },
    { id: "endturn", key: "n", label: _("end turn"), fields: [P], direct: true, build: (v) => [{ type: "turn_ended", player: v.player }] },
    { id: "checkup", key: "u", label: _("checkup"), fields: [], build: () => [{ type: "checkup_started" }] },
    { id: "concede", key: "o", label: _("concede"), fields: [P], build: (v) => [{ type: "conceded", player: v.player }] },
    { id: "time", key: "m", label: _("time called"), fields: [], build: () => [{ type: "time_called" }] },
    // a prize penalty of the judge's count (JP サイドペナルティ: 1 or 3 first) carries it in "prizes"
    { id: "penalty", key: "y", label: _("penalty"), fields: [P, "penalty", "prizes", "text"], build: (v) => [Object.assign({ type: "penalty", player: v.player, kind: v.penalty }, v.penalty === "prize_penalty" ? { prizes: v.prizes || (view.prize_counts || [1])[0] } : {}, v.text ? { reason: v.text } : {})] },
    { id: "note", key: "q", label: _("note"), fields: ["text"], build: (v) => [{ type: "note", text: v.text || "-", author: "console" }] },
  ];
  const pid = (player, k) => {
    const i = view && view.board ? Object.keys(view.board.players).indexOf(player) : 0;
    return "p" + (i + 1) + "-" + nextSeq() + (k ? "-" + k : "");
  };
  const card = (v) => {
    const c = { name: v.card };
    if (v.hp) c.hp = v.hp;
    if (v.rule && v.rule !== "none") c.rule = v.rule;
    return c;
  };
  const benchList = (v) =>
    (v.bench || "")
      .split(";")
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s, k) => {
        const [name, hp, rule] = s.split(",").map((x) => x.trim());
        const c = { name };
        if (Number(hp)) c.hp = Number(hp);
        if (rule && rule !== "none") c.rule = rule;
        return { pid: pid(v.player, k + 1), card: c };
      });
  const withCards = (e, v) => {
    if (v.cards && v.cards.length) {
      e.cards = v.cards;
      if (v.hidden) e.hidden = ["cards"]; // the operator's mark: these cards are hidden (docs/console.md)
    }
    return e;
  };

  const FIELD = {
    player: () => select("player", players(), view.board.turn_player),
    mon: () => select("mon", mons(), null),
    target: () => select("target", mons(), null),
    card: () => input("card", "text", "card-names"),
    attack: () => input("attack", "text"),
    hp: () => input("hp", "number"),
    rule: () => select("rule", ["none", "ex", "V", "VSTAR", "VMAX", "GX", "EX", "tag_team", "radiant", "mega_ex"].map((r) => [r, r]), "none"),
    bench: () => input("bench", "text", null, _("Name, HP[, rule]; Name, HP")),
    mulligans: () => input("mulligans", "number"),
    count: () => input("count", "number"),
    cards: () => input("cards", "text", "card-names", _("names, ;-separated")),
    hidden: () => checkbox("hidden", true),
    on: () => checkbox("on", true),
    amount: () => input("amount", "number"),
    kind: () => select("kind", [["energy", _("energy")], ["tool", _("tool")], ["other", _("other")]], "energy"),
    trainer: () => select("trainer", [["item", _("item")], ["supporter", _("supporter")], ["stadium", _("stadium")], ["tool", _("tool")]], "item"),
    condition: () => select("condition", ["poisoned", "burned", "asleep", "paralyzed", "confused"].map((c) => [c, c]), "poisoned"),
    penalty: () => select("penalty", (view.penalties || ["caution", "warning", "double_prize", "quad_prize", "game_loss", "match_loss", "disqualification", "double_loss"]).map((c) => [c, c.replace(/_/g, " ")]), "warning"),
    prizes: () => input("prizes", "number", null, (view.prize_counts || []).join(" / ")),
    effect: () => input("effect", "text", null, _("the card that switched (empty: a retreat)")),
    text: () => input("text", "text"),
  };
  const players = () => Object.keys(view.board.players).map((p) => [p, p]);
  const mons = () => (view.pokemon || []).map((m) => [m.pid, m.player + ": " + m.name + " (" + (WHERE[m.where] || m.where) + ")"]);
  // the form's field names as the operator reads them (the event's own names stay in the events)
  const FIELD_WORDS = {
    player: _("player"), mon: _("Pokémon"), target: _("target"), card: _("card"), attack: _("attack"), hp: _("hp"),
    rule: _("rule"), bench: _("bench"), mulligans: _("mulligans"), count: _("count"), cards: _("cards"),
    hidden: _("hidden"), on: _("on"), amount: _("amount"), kind: _("kind"), trainer: _("trainer"),
    condition: _("condition"), penalty: _("penalty"), effect: _("effect"), text: _("text"),
  };
  const WHERE = { active: _("active"), bench: _("bench") };
  const wrap = (name, node) => {
    const label = el("label", FIELD_WORDS[name] || name);
    node.name = name;
    label.append(node);
    return label;
  };
  const select = (name, options, chosen) => {
    const s = document.createElement("select");
    options.forEach(([v, t]) => {
      const o = el("option", t);
      o.value = v;
      if (v === chosen) o.selected = true;
      s.append(o);
    });
    return wrap(name, s);
  };
  const input = (name, type, list, placeholder) => {
    const i = document.createElement("input");
    i.type = type;
    if (list) i.setAttribute("list", list);
    if (placeholder) i.placeholder = placeholder;
    if (name === "card" || name === "cards") i.addEventListener("input", () => typeAhead(i));
    if (name === "card") i.addEventListener("change", () => fillCard(i));
    // a number the catalogue filled in (HP) is typed over, not appended to ("60" then "10" is 10, not 6010)
    if (type === "number") i.addEventListener("focus", () => i.select());
    return wrap(name, i);
  };
  const checkbox = (name, on) => {
    const i = document.createElement("input");
    i.type = "checkbox";
    i.checked = on;
    return wrap(name, i);
  };
  let typing = null;
  const typeAhead = (i) => {
    clearTimeout(typing);
    const q = i.value.split(";").pop().trim();
    if (q.length < 2) return;
    typing = setTimeout(async () => {
      const r = await call("GET", "/cards?q=" + encodeURIComponent(q));
      if (r.status !== 200) return;
      const dl = $("card-names");
      dl.replaceChildren();
      r.answer.cards.forEach((c) => {
        cardInfo[c.name] = c;
        const o = el("option");
        o.value = c.name;
        // the card's names in the other languages, and the name as searched (kana as hiragana), so that
        // the list offers ピカチュウ to an operator typing ぴかちゅう and shows Pikachu beside it
        const also = [...new Set([...Object.values(c.names || {}), c.key])].filter((n) => n && n !== c.name);
        if (also.length) o.label = also.join(" · ");
        dl.append(o);
      });
    }, 120);
  };
  const fillCard = (i) => {
    const c = cardInfo[i.value];
    if (!c || !form) return;
    const hp = form.querySelector("[name=hp]");
    const rule = form.querySelector("[name=rule]");
    if (hp && !hp.value && c.hp) hp.value = c.hp;
    if (rule && c.rule) rule.value = c.rule;
  };

  const renderKeys = () => {
    const box = $("action-keys");
    if (box.childElementCount) return;
    ACTIONS.forEach((a) => {
      const b = el("button");
      b.type = "button";
      b.dataset.action = a.id;
      b.append(el("kbd", a.key), document.createTextNode(" " + a.label));
      b.addEventListener("click", () => openAction(a));
      box.append(b);
    });
  };
  // The board is the interface: a tap (or Enter) on a Pokémon offers what can be done with it or to it,
  // each opening its action's form with that Pokémon (and its player) chosen; a form is the fallback.
  const ON_MON = ["attack", "damage", "heal", "attach", "evolve", "condition", "retreat", "knocked"];
  const monButton = (m, where) => {
    const b = el("button", (where === "Active" ? _("Active") : _("Bench")) + ": " + monText(m), "mon" + (where === "Active" ? " active" : ""));
    b.type = "button";
    b.dataset.pid = m.pid;
    b.addEventListener("click", () => monMenu(m.pid, m.name));
    return b;
  };
  const monMenu = (pid, name) => {
    const menu = $("mon-menu");
    menu.replaceChildren(el("span", name + ":", "mon-menu-title"));
    ACTIONS.filter((a) => ON_MON.includes(a.id)).forEach((a) => {
      const b = el("button", a.label);
      b.type = "button";
      b.dataset.monAction = a.id;
      b.addEventListener("click", () => {
        menu.hidden = true;
        openAction(a, pid);
      });
      menu.append(b);
    });
    menu.hidden = false;
    menu.querySelector("button").focus();
  };
  const openAction = (a, pid) => {
    if (!view || !view.board) return;
    // ending the turn is the turn player's, always: no form (its checkup and the next turn's start and
    // draw are then one prompt when nothing is to place)
    if (a.direct && view.board.turn_player) {
      closeAction();
      return void endTurn(a);
    }
    form = $("action-form");
    opened += 1;
    form.dataset.action = a.id;
    $("action-title").textContent = a.label;
    const fields = $("action-fields");
    fields.replaceChildren(...a.fields.map((f) => FIELD[f]()));
    $("action-picks").replaceChildren();
    if (a.id === "attack") attackDefaults();
    if (pid) choose(a, pid);
    else if (["attach", "evolve"].includes(a.id)) activeOf(form.querySelector("[name=player]").value);
    ready = offer(a);
    form.hidden = false;
    const first = fields.querySelector("input, select");
    if (first) first.focus();
    if (!a.fields.length) form.querySelector("button[type=submit]").focus();
  };
  // The turn's end; when the engine says the checkup has nothing to place, flip or recover (and the next
  // turn's start neither ends the game nor asks for anything), its checkup, the next turn's start and its
  // draw follow in the same step: one action (one undo) for the operator.
  const endTurn = async (a) => {
    const at = new Date().toISOString();
    body.dataset.busy = "true"; // for tests: the step is not over after its first answer
    try {
      const ended = await record(a.build({ player: view.board.turn_player }), a.label, at);
      // the prompt of an answer that holds the turn_ended (its seq is behind the answer's next one): an
      // answer from before it (not sent yet, refused, offline) offers nothing to accept
      const seq = ended && ended.length ? ended[ended.length - 1].seq : Infinity;
      const next = view && view.next_seq > seq && view.prompts && view.prompts[0];
      if (next && next.id === "checkup" && next.then && !(next.detail || []).length && $("error").hidden) {
        await record(next.events, next.text, at);
      }
    } finally {
      delete body.dataset.busy;
    }
  };
  // The player's Active in the form's Pokémon (an attachment or an evolution is most often the Active's).
  const activeOf = (player) => {
    const m = (view.pokemon || []).find((x) => x.player === player && x.where === "active");
    const s = form && form.querySelector("[name=mon]");
    if (m && s && [...s.options].some((o) => o.value === m.pid)) s.value = m.pid;
  };
  // The Pokémon tapped on the board, in the form: the one acting (its player's) or the one acted on; in an
  // attack, the turn player's Pokémon attacks and the opponent's is the target.
  const choose = (a, pid) => {
    const m = (view.pokemon || []).find((x) => x.pid === pid);
    if (!m) return;
    const set = (name, value) => {
      const s = form.querySelector("[name=" + name + "]");
      if (s && [...s.options].some((o) => o.value === value)) s.value = value;
    };
    const acting = a.fields.includes("mon") && !(a.id === "attack" && m.player !== view.board.turn_player);
    set(acting ? "mon" : "target", pid);
    if (acting) set("player", m.player);
  };
  // The attack form: the attacking side's Active first and chosen, the opponent's Active the target.
  const attackDefaults = () => {
    const turn = view.board.turn_player;
    const mons = view.pokemon || [];
    const pick = (name, m) => {
      const s = form.querySelector("[name=" + name + "]");
      const o = s && m ? [...s.options].find((x) => x.value === m.pid) : null;
      if (o) {
        s.prepend(o);
        s.value = m.pid;
      }
    };
    pick("mon", mons.find((m) => m.player === turn && m.where === "active"));
    pick("target", mons.find((m) => m.player !== turn && m.where === "active"));
  };

  // ------------------------------------------------------------------------- picks: cards, no typing
  // The card catalogue's answer for a name (HP, rule box, stage, types, attacks and their printed damage),
  // asked once per name.
  const asking = {};
  const cardOf = (name) => {
    if (!name) return Promise.resolve(null);
    if (!asking[name]) {
      asking[name] = call("GET", "/cards?q=" + encodeURIComponent(name.slice(0, 128)))
        .then((r) => {
          const cards = r.status === 200 ? r.answer.cards || [] : [];
          cards.forEach((c) => (cardInfo[c.name] = cardInfo[c.name] || c));
          return cards.find((c) => c.name === name) || null;
        })
        .catch(() => {
          delete asking[name];
          return null;
        });
    }
    return asking[name];
  };
  // The match's deck lists' cards (the start form's, for the match's producer and judges): the preview's
  // while the start is a draft, else asked once of the archive (again while it has none).
  let deck = null;
  const deckCards = () => {
    if (view && view.deck) {
      view.deck.forEach((c) => (cardInfo[c.name] = cardInfo[c.name] || c));
      return Promise.resolve(view.deck);
    }
    if (!deck) {
      deck = call("GET", "/cards")
        .then((r) => {
          const cards = r.status === 200 ? (r.answer.cards || []).filter((c) => c.decks) : [];
          cards.forEach((c) => (cardInfo[c.name] = c));
          if (!cards.length) deck = null;
          return cards;
        })
        .catch(() => {
          deck = null;
          return [];
        });
    }
    return deck;
  };
  const trainerKind = (c) => {
    const k = String((c && c.kind) || "").toLowerCase();
    return k.includes("supporter") ? "supporter" : k.includes("stadium") ? "stadium" : k.includes("tool") ? "tool" : "item";
  };
  // The cards a player already recorded with ``types`` (the most recent first), from the published log.
  const used = (player, types) => {
    const names = [];
    (view.log || [])
      .slice()
      .reverse()
      .forEach((e) => {
        const n = e.card && e.card.name;
        if (types.includes(e.type) && e.player === player && n && !names.includes(n)) names.push(n);
      });
    return names;
  };
  const monOf = (pid) => (view.pokemon || []).find((x) => x.pid === pid);
  const value = (name) => {
    const n = form && form.querySelector("[name=" + name + "]");
    return n ? n.value : "";
  };
  const printed = (damage) => {
    const n = parseInt(damage || "", 10);
    return Number.isFinite(n) ? String(n) : "";
  };
  const asPokemon = (c) => ({ card: c.name, hp: c.hp ? String(c.hp) : "", rule: c.rule || "none" });
  // What each action's picks are: [label, the fields a pick fills], and which one is filled in at once.
  // The cards come from what the player recorded before, the match's deck lists and the card catalogue;
  // every field stays typed over when the table shows something else.
  const PICKS = {
    attack: async () => {
      const m = monOf(value("mon"));
      const c = m ? await cardOf(m.name) : null;
      const attacks = (c && c.attacks) || [];
      const damage = (c && c.damage) || [];
      const picks = attacks.map((n, i) => [n + (damage[i] ? " " + damage[i] : ""), { attack: n, amount: printed(damage[i]) }]);
      // the first attack that prints damage (the first one when none does)
      const first = Math.max(0, damage.findIndex((d) => printed(d)));
      return { picks, fill: picks[first] };
    },
    trainer: async (player) => {
      const mine = (await deckCards()).filter((c) => c.category === "trainer" && c.decks.includes(player));
      const names = [...used(player, ["trainer_played"]), ...mine.map((c) => c.name)];
      return { picks: [...new Set(names)].map((n) => [n, { card: n, trainer: trainerKind(cardInfo[n]) }]) };
    },
    attach: async (player) => {
      const m = monOf(value("mon"));
      const c = m ? await cardOf(m.name) : null;
      const mine = (await deckCards()).filter((x) => (x.category === "energy" || trainerKind(x) === "tool") && x.decks.includes(player));
      // a Basic Energy of the Pokémon's type, when the player has attached nothing and the deck says nothing
      const typed = ((c && c.types) || []).filter((t) => t !== "Colorless" && t !== "Dragon").map((t) => t + " Energy");
      const names = [...new Set([...used(player, ["attached"]), ...mine.map((x) => x.name), ...typed])];
      const kind = (n) => (cardInfo[n] && cardInfo[n].category === "trainer" ? "tool" : "energy");
      const picks = names.map((n) => [n, { card: n, kind: kind(n) }]);
      return { picks, fill: picks[0] };
    },
    bench: async (player) => {
      const mine = (await deckCards()).filter((c) => c.category === "pokemon" && (!c.stage || c.stage === "Basic") && c.decks.includes(player));
      return { picks: mine.map((c) => [c.name, asPokemon(c)]) };
    },
    evolve: async (player) => {
      const m = monOf(value("mon"));
      const mine = (await deckCards()).filter((c) => c.category === "pokemon" && c.decks.includes(player) && c.stage && c.stage !== "Basic");
      const next = mine.filter((c) => m && c.evolves_from === m.name);
      const picks = (next.length ? next : mine).map((c) => [c.name, asPokemon(c)]);
      return { picks, fill: next.length === 1 ? picks[0] : undefined };
    },
  };
  PICKS.setup = PICKS.bench; // the first pick is the Active, the next ones go to the Bench
  let ready = Promise.resolve();
  let opened = 0; // which opening of the action form the picks being asked for are for
  // Fill a pick's fields: at once for the offered one (never over what the operator typed), or when picked.
  const fillPick = (fields, picked) => {
    if (form && form.dataset.action === "setup" && picked && value("card")) {
      const b = form.querySelector("[name=bench]");
      b.value = (b.value ? b.value + "; " : "") + [fields.card, fields.hp, fields.rule !== "none" ? fields.rule : ""].filter(Boolean).join(", ");
      return;
    }
    Object.entries(fields).forEach(([name, v]) => {
      const n = form && form.querySelector("[name=" + name + "]");
      if (!n) return;
      if (n.tagName === "SELECT") {
        if ([...n.options].some((o) => o.value === v)) n.value = v;
      } else if (picked || !n.value || n.value === n.dataset.offered) {
        n.value = v;
        n.dataset.offered = v;
      }
    });
  };
  const offer = async (a) => {
    const make = PICKS[a.id];
    const box = $("action-picks");
    if (!make) return;
    const at = opened;
    const player = value("player");
    let got = { picks: [] };
    try {
      got = await make(player);
    } catch (e) {
      got = { picks: [] };
    }
    if (at !== opened || !form) return; // the form was closed or another opened meanwhile
    box.replaceChildren(
      ...got.picks.slice(0, 9).map(([label, fields], i) => {
        const b = el("button", "[" + (i + 1) + "] " + label, "pick");
        b.type = "button";
        b.dataset.pick = String(i + 1);
        b.addEventListener("click", () => fillPick(fields, true));
        return b;
      })
    );
    if (got.fill) fillPick(got.fill[1], false);
  };
  const closeAction = () => {
    $("mon-menu").hidden = true;
    if ($("action-form").contains(document.activeElement)) document.activeElement.blur();
    $("action-form").hidden = true;
    form = null;
  };
  const submitAction = async (ev) => {
    ev.preventDefault();
    if (!form) return;
    await ready; // what the form fills in from the catalogue is in it before it is read
    const a = ACTIONS.find((x) => x.id === $("action-form").dataset.action);
    const v = {};
    $("action-fields").querySelectorAll("input, select").forEach((n) => {
      if (n.type === "checkbox") v[n.name] = n.checked;
      else if (n.type === "number") v[n.name] = n.value === "" ? 0 : Number(n.value);
      else if (n.name === "cards") v[n.name] = n.value.split(";").map((s) => s.trim()).filter(Boolean);
      else v[n.name] = n.value;
    });
    // recorded (its request sent) before the form is closed: closing it (the blur, the hidden form) is
    // the page's work, not the event's
    const recorded = record(a.build(v), a.label);
    closeAction();
    await recorded;
  };

  // ------------------------------------------------------------------------------------------ start
  const deckText = (text) => (text || "").slice(0, 20000);
  const startMatch = async (ev) => {
    ev.preventDefault();
    const f = new FormData($("start-form"));
    const p1 = f.get("p1").trim();
    const p2 = f.get("p2").trim();
    const context = {};
    ["league", "event", "stage", "lang"].forEach((k) => f.get(k) && (context[k] = f.get(k)));
    ["round", "game"].forEach((k) => f.get(k) && (context[k] = Number(f.get(k))));
    if (f.get("table")) context.table = /^\d+$/.test(f.get("table")) ? Number(f.get("table")) : f.get("table");
    const e = {
      type: "match_started",
      players: [p1, p2],
      first: f.get("first") === "p2" ? p2 : p1,
      ruleset: f.get("ruleset"),
      source: { kind: "manual", producer: "prizecheck console", reports_knockouts: true },
      console: { delay: Number(f.get("delay") || 0), decks: { [p1]: deckText(f.get("deck1")), [p2]: deckText(f.get("deck2")) } },
    };
    if (Object.keys(context).length) e.context = context;
    if (f.get("must_decide")) e.must_decide = true;
    if (f.get("parent")) {
      e.parent = f.get("parent");
      e.playoff = f.get("playoff");
      if (f.get("prizes")) e.prizes = Number(f.get("prizes"));
    }
    view = view || { next_seq: 1 };
    document.activeElement.blur();
    await record([e], _("match start"));
  };
  const startChild = (p) => {
    sessionStorage.setItem("pc-console-child", JSON.stringify(p.start));
    window.location.href = "/console/" + p.child.split("/").map(encodeURIComponent).join("/");
  };
  const prefillChild = () => {
    const raw = sessionStorage.getItem("pc-console-child");
    if (!raw) return;
    const s = JSON.parse(raw);
    if (!s.parent || match !== s.parent + match.slice(s.parent.length) || !match.startsWith(s.parent + "/")) return;
    const f = $("start-form");
    f.p1.value = s.players[0];
    f.p2.value = s.players[1];
    f.ruleset.value = s.ruleset;
    f.parent.value = s.parent;
    f.playoff.value = s.playoff || "";
    f.prizes.value = s.prizes || "";
    const c = s.context || {};
    ["league", "event", "round", "table", "game", "stage", "lang"].forEach((k) => c[k] !== undefined && (f[k].value = c[k]));
  };

  // draft or live: the operator's choice, kept in this browser across reloads
  // Switching live sends the drafts first, in order: a live action never goes out before them.
  const setHold = async (on) => {
    $("hold").checked = on;
    localStorage.setItem("pc-console-hold", on ? "1" : "0");
    if (!on && drafts().length) await publish();
  };
  const askToken = () => {
    $("token-box").hidden = false;
    $("token").focus();
  };

  // ------------------------------------------------------------------------------------- the clock
  // The match clock the overlays show (POST /clock, docs/console.md): "." starts or pauses it; the time
  // called action (m), once published, stops it at 0. Shown as the service last said it, counted down here
  // between two answers.
  let clock = null; // { c: the service's clock, at: when it came }
  function adoptClock(c) {
    clock = c ? { c, at: performance.now() } : null;
    drawClock();
  }
  const drawClock = () => {
    const c = clock && clock.c;
    const running = !!(c && c.running);
    let text = "–:––";
    if (c) {
      const left = Math.max(0, Math.ceil(c.left - (running ? (performance.now() - clock.at) / 1000 : 0)));
      text = c.called ? _("time called") : Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
    }
    $("clock-shown").textContent = text;
    $("clock-shown").dataset.state = !c ? "unset" : c.called ? "called" : running ? "running" : "paused";
    $("clock-toggle").textContent = running ? _("pause the clock (.)") : _("start the clock (.)");
  };
  const setClock = async (action) => {
    const data = { console: consoleId, action };
    // the length typed goes with a reset, and with the start of a clock not yet started
    const fresh = !clock || (!clock.c.running && !clock.c.called && clock.c.left >= clock.c.limit);
    const minutes = $("clock-minutes").value.trim();
    if (minutes && (action === "reset" || (action === "start" && fresh))) data.minutes = Number(minutes);
    try {
      const r = await call("POST", "/clock", data);
      setOnline(true);
      if (r.status === 200) adoptClock(r.answer.clock);
      else if (r.status === 401) askToken();
      else showError(_("The clock was not set: {why}.", { why: reason(r.answer, _("status {status}", { status: r.status })) }));
    } catch (e) {
      setOnline(false);
      showError(_("The clock was not set: the service does not answer; press it again."));
    }
  };
  const toggleClock = () => setClock(clock && clock.c.running ? "pause" : "start");

  // --------------------------------------------------------------------------------------- keyboard
  document.addEventListener("keydown", (ev) => {
    // keys typed into a field, or pressed on a button or inside a form, are theirs (Enter submits there)
    const typingIn = ev.target.closest("input, select, textarea, button, form, a");
    if (ev.key === "Escape") return closeAction();
    if (typingIn || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (!view || !view.board) return;
    if (ev.key === "Enter") {
      const first = $("prompts").querySelector("button[data-prompt]");
      if (first) {
        ev.preventDefault();
        first.click();
      }
      return;
    }
    if (/^[1-9]$/.test(ev.key)) {
      const b = $("prompts").querySelector('button[data-choice="' + ev.key + '"]');
      if (b) {
        ev.preventDefault();
        b.click();
      }
      return;
    }
    if (ev.key === "l") return void (ev.preventDefault(), publish());
    if (ev.key === "z") return void (ev.preventDefault(), undo());
    if (ev.key === "w") return void (ev.preventDefault(), setHold(!$("hold").checked));
    if (ev.key === ".") return void (ev.preventDefault(), toggleClock());
    const a = ACTIONS.find((x) => x.key === ev.key);
    if (a) {
      ev.preventDefault();
      openAction(a);
    }
  });

  // ------------------------------------------------------------------------------------------ start
  const main = async () => {
    $("export-jsonl").href = base + "/export?format=jsonl";
    $("export-csv").href = base + "/export?format=csv";
    $("overlay-link").href = "/overlay/" + match.split("/").map(encodeURIComponent).join("/");
    // a window of its own, not a tab behind the console: a browser throttles a hidden tab's timers and
    // stops drawing it, and the overlay's board then lags by seconds (issue 33 item 9)
    $("overlay-link").addEventListener("click", (ev) => {
      ev.preventDefault();
      window.open($("overlay-link").href, "prizecheck-overlay", "popup,width=1280,height=720");
    });
    // the console's own timers (the retry, the poll) are throttled while its tab is hidden: whatever
    // waits is sent the moment it is shown again, not at the next throttled tick
    document.addEventListener("visibilitychange", () => {
      if (document.hidden) return;
      if (queued().length) flush();
      else if (!drafts().length) refresh();
    });
    $("token-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      token = $("token").value.trim();
      sessionStorage.setItem("pc-console-token", token);
      $("token-box").hidden = true;
      await lease("take", true);
    });
    $("start-form").addEventListener("submit", startMatch);
    $("hold").checked = localStorage.getItem("pc-console-hold") !== "0";
    $("hold").addEventListener("change", () => setHold($("hold").checked));
    $("action-form").addEventListener("submit", submitAction);
    // Enter adds the action from any of its fields (a select does not submit a form by itself)
    $("action-form").addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && ev.target.tagName === "SELECT") {
        ev.preventDefault();
        $("action-form").requestSubmit();
      }
      // 1-9 picks a card or an attack, from anywhere in the form but a field being typed in
      const typed = ev.target.tagName === "TEXTAREA" || (ev.target.tagName === "INPUT" && ev.target.type !== "checkbox");
      if (/^[1-9]$/.test(ev.key) && !typed && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
        const b = $("action-picks").querySelector('button[data-pick="' + ev.key + '"]');
        if (b) {
          ev.preventDefault();
          b.click();
        }
      }
    });
    // another player or Pokémon in the form: its picks (and its Active, for an attachment or an evolution)
    $("action-fields").addEventListener("change", (ev) => {
      const a = form && ACTIONS.find((x) => x.id === form.dataset.action);
      if (!a || !["player", "mon"].includes(ev.target.name)) return;
      if (ev.target.name === "player" && ["attach", "evolve"].includes(a.id)) activeOf(ev.target.value);
      ready = offer(a);
    });
    $("action-cancel").addEventListener("click", closeAction);
    $("publish").addEventListener("click", publish);
    $("undo").addEventListener("click", undo);
    $("take").addEventListener("click", () => lease("take_over"));
    $("release").addEventListener("click", () => lease("release"));
    $("clock-toggle").addEventListener("click", toggleClock);
    $("clock-reset").addEventListener("click", () => setClock("reset"));
    setInterval(() => clock && clock.c.running && drawClock(), 250);
    window.addEventListener("online", flush);
    db = await openDb();
    await loadOutbox();
    render(); // what waits in this browser's outbox shows at once, before the service answers
    prefillChild();
    if (!token) askToken();
    else await lease("take", true);
    setInterval(() => (queued().length ? flush() : drafts().length ? null : refresh()), 3000);
    setInterval(() => (view && view.lease && view.lease.mine && !queued().length ? renew() : null), 5000);
    body.dataset.ready = "true";
  };
  main();
})();
