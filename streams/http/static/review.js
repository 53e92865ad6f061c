// The judges' review page: a battle log beside the board (docs/web.md).
// Reads /review/<match>/meta once: the record, the battle log and every step of the game (the board of
// each step whole at every meta.snapshot-th step, a delta of the one before otherwise, see
// streams/http/frames.py). Stepping to any seq then happens here, with no server round trip: a step's
// board is rebuilt when first shown, folding the deltas forward from the snapshot at or before it.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const match = document.body.dataset.match ||
    decodeURIComponent(location.pathname.replace(/^\/review\//, "").replace(/\/+$/, ""));
  const enc = (m) => m.split("/").map(encodeURIComponent).join("/");
  const api = (suffix) => "/review/" + enc(match) + suffix;
  // Read by the browser test and bench/review.py: when the page could step (open), the /meta request's
  // start and answer, each step's render time, and goTo (a step as the keys make it).
  const timings = { open: null, steps: [] };
  window.__review = timings;
  // A case file (GET /review/<match>/case) carries the game in the page itself: no request at all.
  const caseData = document.getElementById("case-data");
  const embedded = caseData ? JSON.parse(caseData.textContent) : null;
  // The perspective switch: ?view=public shows the game as a spectator saw it (no hidden card, no
  // judge-only detail); the link beside the result goes from one view to the other at the same moment.
  const publicView = !embedded && new URLSearchParams(location.search).get("view") === "public";
  const viewLink = document.getElementById("view-link");
  if (viewLink) {
    viewLink.textContent = publicView ? _("judge view") : _("spectator view");
    viewLink.title = publicView ? _("back to everything a judge sees") : _("the game exactly as the public saw it");
    viewLink.addEventListener("click", (e) => {
      e.preventDefault();
      const url = new URL(location.href);
      if (publicView) url.searchParams.delete("view");
      else url.searchParams.set("view", "public");
      location.assign(url.toString());
    });
    if (publicView) document.body.classList.add("public-view");
  }

  let record = null;
  let frames = []; // one per step: {seq, event, extra, outputs, status, findings_so_far, due, board (delta)}
  let boards = []; // the full board of each step, rebuilt when first needed (boardAt)
  let snapshot = Infinity; // every this many steps a frame's board is whole (meta.snapshot)
  let log = []; // battle log lines (streams/http/battle_log.py)
  let names = {}; // card name -> display name (the log's names, on the board too)
  let rules = {};
  let linesOfSeq = new Map(); // seq -> its log lines' indexes
  let textOfSeq = new Map(); // seq -> the sentence of its event
  let turnOfSeq = new Map(); // seq -> turn number (the source's)
  let turnStarts = []; // step indexes where a turn starts
  let koSteps = []; // step indexes with a knockout
  let findingSteps = []; // step indexes with a finding
  let index = 0;
  let playing = null;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "onclick") node.addEventListener("click", v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  // counts in words, in the page's language (static/i18n.js): one form for 1, another for the rest
  const prizes = (n) => (n === 1 ? _("{n} prize", { n }) : _("{n} prizes", { n }));
  const eventsN = (n) => (n === 1 ? _("{n} event", { n }) : _("{n} events", { n }));
  const versionsN = (n) => (n === 1 ? _("{n} version", { n }) : _("{n} versions", { n }));
  // the record's codes as words (statuses, outcomes, reasons, win conditions); any other code as written
  const WORDS = {
    in_progress: _("in progress"), awaiting_playoff: _("awaiting its playoff"), finished: _("finished"),
    win: _("win"), draw: _("draw (outcome)"), no_winner: _("no winner"), prizes: _("prizes"), no_pokemon: _("no pokemon"),
    deck_out: _("deck out"), concession: _("concession"), penalty: _("penalty"), effect: _("effect"),
    simultaneous: _("simultaneous"), playoff: _("playoff"), time: _("time"),
  };
  const words = (s) => WORDS[s] || String(s ?? "").replace(/_/g, " ");
  // The window a knockout was checked in (docs/rules.md §3): the engine's code, in the page's words.
  const WINDOWS = { attack: _("attack"), checkup: _("checkup") };
  const windowWord = (w) => WINDOWS[w] || words(w);
  const cardName = (n) => names[n] || n;
  const seqButton = (seq, label) =>
    el("button", { class: "seqlink", "data-seq": seq, onclick: () => goTo(seq) }, label ?? _("seq {seq}", { seq }));
  const reviewLink = (m, cls) => el("a", { href: langLink("/review/" + enc(m)), class: cls || "match-link" }, m);
  const ruleLink = (rule) =>
    rule ? el("a", { class: "rule", href: rule.href, target: "_blank", title: rule.title }, _("rules §{section}", { section: rule.section })) : null;

  function showError(message) {
    const e = $("error");
    e.textContent = message;
    e.hidden = false;
  }

  // A field's value as sent, in words: nested maps and lists as readable text, never raw JSON.
  function shown(v) {
    if (v === null || v === undefined) return _("none");
    if (Array.isArray(v)) return v.length ? v.map(shown).join(", ") : _("(none)");
    // a map's keys are the contract's field names, its values shown as the fields' own are (fieldValue)
    if (typeof v === "object") return Object.entries(v).map(([k, x]) => `${FIELDS[k] || k}: ${fieldValue(k, x)}`).join(" · ");
    if (typeof v === "boolean") return v ? _("yes") : _("no");
    return String(v);
  }

  // The event's contract fields as the review page shows them (issue 34 item 5): each field's name and
  // each value the contract enumerates (a zone, a kind, a condition...) in the page's language, the
  // contract's own name kept as the cell's title; a card by its name in the page's language; a person's
  // own words (a note's text, an author, a name) as written, never translated.
  const FIELDS = {
    action: _("action"), active: _("active"), amount: _("amount"), at: _("at"), author: _("author"),
    bench: _("bench"), by: _("by"), card: _("card"), cards: _("cards"), condition: _("condition"),
    context: _("context"), count: _("count"), deck: _("deck"), delta: _("delta"), effect: _("effect"),
    event: _("event"), exporter: _("exporter"), first: _("first"), from: _("from"), game: _("game"),
    hp: _("HP"), id: _("id"), kind: _("kind"), lang: _("language"), league: _("league"),
    mulligans: _("mulligans"), must_decide: _("must decide"), name: _("name"), on: _("on"),
    outcome: _("outcome"), parent: _("parent"), pid: _("Pokémon id"), player: _("player"),
    players: _("players"), playoff: _("playoff"), prizes: _("prizes"), producer: _("producer"),
    reason: _("reason"), reports_knockouts: _("reports knockouts"), revealed: _("revealed"),
    round: _("round"), rule: _("rule"), ruleset: _("ruleset"), season: _("season"), series: _("series"),
    source: _("source"), stage: _("stage"), table: _("table"), target: _("target"), text: _("text"),
    time_result: _("time result"), to: _("to"), turn: _("turn"), winner: _("winner"), wins: _("wins"),
    zone: _("zone"),
  };
  const VALUES = {
    // zones
    active: _("Active Spot"), bench: _("Bench"), hand: _("hand"), deck: _("deck"), discard: _("discard pile"),
    prizes: _("Prize cards"), lost_zone: _("Lost Zone"), stadium: _("Stadium"), in_play: _("in play"),
    // kinds: trainers, penalties, sources
    item: _("Item"), supporter: _("Supporter"), tool: _("Pokémon Tool"), energy: _("Energy"),
    caution: _("caution"), warning: _("warning"), prize_penalty: _("prize penalty"),
    double_prize: _("double prize"), quad_prize: _("quad prize"), game_loss: _("game loss"),
    match_loss: _("match loss"), disqualification: _("disqualification"), double_loss: _("double loss"),
    digital: _("digital client"), manual: _("kept by hand"), scanned: _("scanned game sheet"), other: _("other"),
    // conditions
    asleep: _("Asleep"), burned: _("Burned"), confused: _("Confused"), paralyzed: _("Paralyzed"), poisoned: _("Poisoned"),
    // outcomes, playoffs, stages, corrections
    win: _("win"), draw: _("draw (outcome)"), no_winner: _("no winner"), sudden_death: _("sudden death"),
    tiebreak: _("tiebreak"), tiebreaker_game: _("tiebreaker game"), swiss: _("Swiss rounds"),
    single_elimination: _("single elimination"), amend: _("amend"), void: _("void"),
  };
  // the fields whose values are codes the contract enumerates (shown as words)
  const CODED = new Set(["kind", "condition", "outcome", "playoff", "stage", "to", "from", "zone", "action",
    "time_result", "reason"]);
  // the fields that are a person's own words: quoted as written
  const QUOTED = new Set(["text", "author", "name", "exporter", "producer", "rule"]);

  function fieldValue(k, v) {
    if (QUOTED.has(k)) return shown(v);
    if (k === "effect" && typeof v === "string") return cardName(v); // a card's effect: the card's name
    if ((k === "card" || k === "active") && v && typeof v === "object" && !Array.isArray(v) && v.name)
      return [cardName(String(v.name)), ...Object.entries(v).filter(([x]) => x !== "name").map(([x, y]) => ` · ${FIELDS[x] || x}: ${fieldValue(x, y)}`)].join("");
    if (k === "cards" && Array.isArray(v))
      return v.length ? v.map((c) => (c && typeof c === "object" && c.name ? cardName(String(c.name)) : shown(c))).join(", ") : _("(none)");
    if (CODED.has(k) && typeof v === "string") return k === "reason" ? words(v) : VALUES[v] || words(v);
    return shown(v);
  }

  // ------------------------------------------------------------------ derived outputs, in words
  const REASONS = {
    prizes: _("took every Prize card needed"),
    no_pokemon: _("the opponent had no Pokémon left in play"),
    deck_out: _("the opponent could not draw at the start of their turn"),
    concession: _("the opponent conceded"),
    penalty: _("a penalty decided it"),
    effect: _("a card effect decided it"),
    simultaneous: _("both players met a win condition at once"),
    playoff: _("the playoff game decided it"),
    double_loss: _("a loss for both players"),
    time: _("time was called"),
  };
  const PLAYOFFS = { sudden_death: _("sudden death"), tiebreak: _("tiebreak"), tiebreaker_game: _("tiebreaker game") };
  const playoffWord = (k) => PLAYOFFS[k] || words(k || "playoff");

  function koNumber(seq, pid) {
    const i = (record?.knockouts || []).findIndex((k) => k.seq === seq && k.pid === pid);
    return i < 0 ? null : i + 1;
  }

  function describe(o) {
    switch (o.type) {
      case "ko": {
        const n = koNumber(o.seq, o.pid);
        const card = record?.knockouts?.[n - 1]?.card;
        const name = card ? cardName(typeof card === "string" ? card : card.name) : null;
        return _("Knockout{n}: {mon}, {owner}'s, gives {prizes} ({window} window, batch {batch})", {
          n: n ? " #" + n : "", mon: name ? name + " (" + o.pid + ")" : o.pid, owner: o.owner,
          prizes: prizes(o.prizes), window: windowWord(o.window), batch: o.batch });
      }
      case "prizes_due":
        return _("Prizes due: {player} takes {count}", { player: o.player, count: o.count });
      case "promotion_due":
        return _("Promotion due: {player} must promote a new Active (order {order})", { player: o.player, order: o.order });
      case "deck_out":
        return _("Deck-out: {player} cannot draw at the start of the turn", { player: o.player });
      case "game_over":
        return _("Game over: {outcome}{winner} ({reason})", { outcome: words(o.outcome),
          winner: o.winner ? _(", winner {name}", { name: o.winner }) : "", reason: words(o.reason) });
      case "playoff_required":
        return _("Playoff required: {kind} with {prizes}: ", { kind: playoffWord(o.playoff), prizes: prizes(o.prizes) });
      case "finding":
        return _("Finding [{severity}] {code}: {message}", { severity: o.severity, code: o.code, message: o.text || o.message });
      default:
        return `${words(o.type)}: ` + Object.entries(o).filter(([k]) => k !== "type")
          .map(([k, v]) => `${k} ${shown(v)}`).join(", ");
    }
  }

  function resultSummary(result) {
    if (!result) return _("In progress: no result yet");
    const at = result.decided_at != null ? _(" at seq {seq}", { seq: result.decided_at }) : "";
    const turn = result.decided_at != null && turnOfSeq.get(result.decided_at) != null
      ? _(", turn {n}", { n: turnOfSeq.get(result.decided_at) }) : "";
    const reason = result.reason === "playoff" && result.playoff
      ? _("its playoff game {game}", { game: result.playoff }) : words(result.reason);
    const when = at + turn;
    if (result.outcome === "win") {
      return _("{winner} beat {loser} by {reason}{when}", { winner: result.winner, loser: result.loser, reason, when });
    }
    if (result.outcome === "draw") return _("Draw ({reason}){when}", { reason: words(result.reason), when });
    return _("No winner ({reason}){when}", { reason: words(result.reason), when });
  }

  // The record's reason in words, with its detail (docs/records.md: "the penalty and lead rule, the
  // concession reason, the effect card").
  function reasonText(result) {
    if (!result) return "";
    const detail = result.detail
      ? String(result.detail).replace(/^(sudden_death|tiebreak|tiebreaker_game):/, (_, k) => playoffWord(k) + ":")
      : "";
    let text = detail || REASONS[result.reason] || "";
    if (result.reason === "playoff" && result.drawn) {
      text = _("drawn ({reason}) at seq {seq}, then {then}", { reason: words(result.drawn.reason),
        seq: result.drawn.decided_at, then: detail || _("its playoff game decided it") });
    }
    return text;
  }

  // ------------------------------------------------------------------ header, record lists
  function renderMeta() {
    document.title = "Prizecheck · " + _("review") + " " + match;
    const r = record || {};
    $("status-word").textContent = r.status ? words(r.status) : "";
    $("status-word").dataset.status = r.status || "";
    const ctx = r.context ? Object.entries(r.context).map(([k, v]) => `${FIELDS[k] || k} ${fieldValue(k, v)}`).join(", ") : "";
    $("match-info").textContent = [
      (r.players || []).join(_(" vs ")),
      r.first ? _("first: {player}", { player: r.first }) : "",
      r.ruleset ? r.ruleset + (r.ruleset_version ? ` v${r.ruleset_version}` : "") : "",
      ctx,
    ].filter(Boolean).join(" · ");

    const result = r.result;
    $("result-text").replaceChildren(el("strong", {}, resultSummary(result)));
    const why = reasonText(result);
    $("reason-text").textContent = why ? "· " + why : "";
    $("result-box").dataset.status = r.status || "";
    const met = Object.entries(result?.conditions || {}).filter(([, c]) => c.length);
    $("conditions").textContent = met.length
      ? _("win conditions met: {list}", { list: met.map(([p, c]) => `${p} ${c.map(words).join(", ")}`).join(" · ") }) : "";
    $("conditions").title = _("the win conditions each player met at the judgment");
    const claim = $("claim");
    claim.replaceChildren();
    if (r.claimed) {
      const word = r.agrees === true ? _("agrees") : r.agrees === false ? _("DISAGREES") : _("not compared");
      claim.append(el("span", { class: r.agrees === false ? "sev-violation" : "muted" },
        _("source claimed {outcome}{winner}: {word}", { outcome: words(r.claimed.outcome),
          winner: r.claimed.winner ? " " + r.claimed.winner : "", word })));
    }
    // Playoffs in view: the parent links each playoff game, the child links its parent.
    const head = $("playoff-head");
    head.replaceChildren();
    if (r.parent) {
      head.append(el("span", { id: "parent-head" }, _("{kind} of ", { kind: playoffWord(r.playoff_of?.kind) }),
        reviewLink(r.parent, "parent-link")));
    }
    const children = [...new Set([r.playoff?.child, ...(r.children || [])].filter(Boolean))];
    if (children.length) {
      const pending = r.status === "awaiting_playoff";
      head.append(el("span", { id: "children-head" },
        r.playoff ? (pending ? _("{kind} (pending): ", { kind: playoffWord(r.playoff.kind) })
          : _("{kind}: ", { kind: playoffWord(r.playoff.kind) })) : _("playoff games: "),
        children.map((c, i) => [i ? ", " : "", reviewLink(c, "child-link")])));
    }
    const jump = $("jump-decision");
    jump.hidden = result?.decided_at == null;
    if (!jump.hidden) jump.textContent = _("jump to decision (seq {seq})", { seq: result.decided_at });

    const kos = $("knockouts");
    kos.replaceChildren();
    (r.knockouts || []).forEach((k, i) => {
      const turn = turnOfSeq.get(k.seq);
      const card = cardName(typeof k.card === "string" ? k.card : k.card?.name);
      kos.append(el("li", { "data-ko": i + 1 }, seqButton(k.seq, `#${i + 1}`),
        _(" seq {seq}{turn}: {card} ({pid}), {owner}'s, {prizes}, {window}{claimed}", { seq: k.seq,
          turn: turn != null ? _(", turn {n}", { n: turn }) : "", card, pid: k.pid, owner: k.owner,
          prizes: prizes(k.prizes), window: windowWord(k.window), claimed: k.verified ? "" : _(", from the source's claim") })));
    });
    if (!kos.children.length) kos.append(el("li", { class: "muted" }, _("none")));

    renderFindings(r.findings || []);

    const pl = $("playoff-links");
    pl.replaceChildren();
    if (r.parent) pl.append(el("li", { id: "parent-link" }, _("parent game: "), reviewLink(r.parent)));
    if (r.playoff_of) pl.append(el("li", {}, _("this game is a playoff ({kind})", { kind: playoffWord(r.playoff_of.kind) })));
    if (r.playoff) {
      pl.append(el("li", {}, _("playoff {kind} with {prizes}: ", { kind: playoffWord(r.playoff.kind), prizes: prizes(r.playoff.prizes) }),
        reviewLink(r.playoff.child)));
    }
    for (const c of r.children || []) {
      if (r.playoff && c === r.playoff.child) continue;
      pl.append(el("li", { class: "child-link" }, _("child game: "), reviewLink(c)));
    }
    if (!pl.children.length) pl.append(el("li", { class: "muted" }, _("none")));
  }

  // Findings apart by severity, violations first. One <li> per finding, built by findingItem: another
  // part adds to a finding of its code through window.prizecheckFindingExtras[code](finding) -> Node
  // (the scan part's crop image beside low_confidence findings).
  const SEVERITIES = [["violation", _("Violations")], ["warning", _("Warnings")], ["info", _("Info")]];
  function findingItem(f) {
    const li = el("li", { class: "finding sev-" + f.severity, "data-code": f.code, "data-seq": f.seq ?? "" },
      f.seq != null ? seqButton(f.seq) : _("match"), ` ${f.code}: ${f.text || f.message} `, ruleLink(rules[f.code]),
      f.detail ? el("div", { class: "detail", title: _("judges only") }, f.detail_text || f.detail) : null);
    const extra = (window.prizecheckFindingExtras || {})[f.code];
    if (typeof extra === "function") {
      const node = extra(f);
      if (node instanceof Node) li.append(el("div", { class: "finding-extra" }, node));
    }
    return li;
  }

  // whose a finding is: the player of its event (the one who acted), else whose turn it was; none for
  // a finding of the whole match
  function playerOf(f) {
    if (f.seq == null) return null;
    const frame = frames.find((x) => x.seq === f.seq);
    const who = frame?.event?.player ?? frame?.event?.by;
    if (typeof who === "string") return who;
    const line = log.find((l) => l.seq === f.seq);
    return line?.player ?? null;
  }

  function renderFindings(list) {
    const root = $("findings");
    root.replaceChildren();
    if ($("findings-by")?.value === "player") {
      const players = (record && record.players) || [];
      for (const who of [...players, null]) {
        const mine = list.filter((f) => (playerOf(f) ?? null) === who ||
          (who === null && !players.includes(playerOf(f))));
        if (!mine.length) continue;
        const order = (f) => SEVERITIES.findIndex(([s]) => s === f.severity);
        mine.sort((a, b) => order(a) - order(b) || (a.seq ?? 0) - (b.seq ?? 0));
        root.append(el("h3", { class: "player-head" }, `${who ?? _("the match")} (${mine.length})`),
          el("ul", { class: "links", "data-player": who ?? "" }, mine.map(findingItem)));
      }
      if (!list.length) root.append(el("p", { class: "muted" }, _("none")));
      return;
    }
    for (const [sev, label] of SEVERITIES) {
      const mine = list.filter((f) => f.severity === sev);
      if (!mine.length) continue;
      root.append(el("h3", { class: "sev-head sev-" + sev }, `${label} (${mine.length})`),
        el("ul", { class: "links", "data-severity": sev }, mine.map(findingItem)));
    }
    const other = list.filter((f) => !SEVERITIES.some(([s]) => s === f.severity));
    if (other.length) root.append(el("ul", { class: "links" }, other.map(findingItem)));
    if (!list.length) root.append(el("p", { class: "muted" }, _("none")));
  }

  // ------------------------------------------------------------------ the prize race
  // Prizes left of each player at the start of every turn and at the end, as lines over the turns (SVG
  // drawn with presentation attributes: the page's policy allows no inline style); a point opens its turn.
  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, ...kids) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    node.append(...kids);
    return node;
  }

  function renderRace() {
    const players = (record && record.players) || [];
    const points = [...turnStarts, total - 1].filter((i, k, all) => all.indexOf(i) === k);
    const box = $("race-box");
    if (players.length !== 2 || points.length < 2) { box.hidden = true; return; }
    const left = (i, p) => boardAt(i)?.players?.[p]?.prizes_left;
    const top = Math.max(1, ...points.flatMap((i) => players.map((p) => left(i, p) ?? 0)));
    const w = 28 * (points.length - 1) + 40, h = 120, x0 = 24, y0 = 10;
    const x = (k) => x0 + k * 28, y = (v) => y0 + (h - 2 * y0) * (1 - v / top);
    const colours = ["#2a6df4", "#d0471f"];
    const chart = svg("svg", { viewBox: `0 0 ${w} ${h}`, width: w, height: h, role: "img",
      "aria-label": _("prizes left by turn: {players}", { players: players.join(_(" and ")) }) });
    chart.append(svg("line", { x1: x0, y1: y(0), x2: x(points.length - 1), y2: y(0), stroke: "#999" }));
    players.forEach((p, n) => {
      const path = points.map((i, k) => `${k ? "L" : "M"}${x(k)},${y(left(i, p) ?? top)}`).join(" ");
      chart.append(svg("path", { d: path, fill: "none", stroke: colours[n], "stroke-width": 2 }));
      points.forEach((i, k) => {
        const seq = frames[i].seq;
        const dot = svg("circle", { cx: x(k), cy: y(left(i, p) ?? top), r: 4, fill: colours[n], tabindex: 0,
          class: "race-point", "data-seq": seq },
        svg("title", {}, _("{player}: {left} left at seq {seq}", { player: p, left: left(i, p), seq }) + (turnOfSeq.has(seq) ? _(", turn {n}", { n: turnOfSeq.get(seq) }) : "")));
        dot.addEventListener("click", () => goTo(seq));
        dot.addEventListener("keydown", (e) => { if (e.key === "Enter") goTo(seq); });
        chart.append(dot);
      });
    });
    $("race").replaceChildren(chart, el("p", { class: "muted race-key" },
      ...players.map((p, n) => el("span", { class: "race-name race-" + n }, (n ? " · " : "") + "— " + p))));
    box.hidden = false;
  }

  // ------------------------------------------------------------------ the record's history
  // Every change to a finished record is a version naming the event that caused it (docs/records.md).
  function versionLine(v, last) {
    const cause = v.cause.match === match
      ? el("a", { href: "#seq=" + v.cause.seq, class: "cause", onclick: () => { $("history").open = false; } },
        _("seq {seq}", { seq: v.cause.seq }))
      : el("a", { href: langLink("/review/" + enc(v.cause.match)) + "#seq=" + v.cause.seq, class: "cause" },
        _("{match} seq {seq}", { match: v.cause.match, seq: v.cause.seq }));
    const sig = v.signature.status === "unsigned" ? _("unsigned")
      : _("signed {key} ({status})", { key: v.signature.key_id || "", status: v.signature.status.replace("_", " ") });
    const claim = v.agrees === true ? _("claim agrees") : v.agrees === false ? _("claim DISAGREES") : _("no claim");
    return el("li", { "data-version": v.version, class: v.version === last ? "current" : null },
      el("b", {}, "v" + v.version), " ",
      v.unreadable ? _("unreadable") : `${words(v.status)}: ${resultSummary(v.result)}`,
      _(" · caused by "), cause, " · ",
      el("a", { href: "/matches/" + enc(match) + "/record?version=" + v.version, class: "record-link",
        target: "_blank" }, _("record")),
      el("span", { class: "muted" }, v.unreadable ? ` · ${sig}` : ` · ${eventsN(v.events)}, ${claim}, ${sig}`),
      v.version === last ? el("span", { class: "muted" }, _(" · current")) : null);
  }

  async function loadHistory() {
    const box = $("history");
    let versions;
    try {
      if (embedded) versions = embedded.versions || [];
      else {
        const resp = await fetch("/matches/" + enc(match) + "/versions");
        versions = await resp.json();
        if (!resp.ok) throw new Error(versions.error || resp.statusText);
      }
    } catch (err) {
      box.hidden = true;
      box.dataset.error = String(err.message || err);
      return;
    }
    box.dataset.versions = String(versions.length);
    if (!versions.length) { box.hidden = true; return; }
    const last = versions[versions.length - 1].version;
    $("history-summary").textContent = _("History ({versions})", { versions: versionsN(versions.length) });
    $("history-summary").title = _("every change to the finished record, and the event that caused it");
    $("history-list").replaceChildren(...versions.map((v) => versionLine(v, last)));
    box.hidden = false;
  }

  // ------------------------------------------------------------------ the battle log
  // The log is a virtual list, one path for every game: a row per turn heading and per line (logRows),
  // and in the <ol> only the rows in the log's view and LOG_MARGIN rows either side of it, between two
  // spacers that stand for the rows before and after (a 50,000-line log lays out some hundreds of rows
  // at open, not 50,000; a short game's rows all fit in its margin). A row's height is its measured one
  // once it has been shown, an estimate before (a line, its marks, a heading: each measured once); when
  // the rows above the view turn out taller or shorter than estimated, the view is kept where it was.
  // The lines themselves (their text, marks, seqs) are looked up in the data, never in the DOM.
  const LOG_MARGIN = 40;
  // A step (a jump far off most of all) builds only the rows in view and NEAR rows either side, then
  // lays the page out once; the rest of the margin is filled when the browser is idle (fillLater). A
  // step whose rows are held already (the view and NEAR rows) changes nothing in the list.
  const NEAR = 4; // each row put in is laid out in the step: 4, not 10 (docs/performance.md, sixth pass)
  let viewHeight = null; // the log's clientHeight, kept: read again after a resize or a tab change
  let viewTop = 0; // the log's scrollTop as last set or scrolled: read back only after a layout
  const logHeight = () => viewHeight ?? (viewHeight = $("log").clientHeight);
  let logRows = []; // {turn, label} for a turn heading, {i} for log[i]
  let rowOfLine = []; // log index -> its row
  let headOfRow = null; // Int32Array: row -> the row of its turn heading
  let rowHeight = null; // Float64Array: each row's height, measured or estimated
  let measured = null; // Uint8Array: 1 where rowHeight was measured
  let quietRow = null; // Uint8Array: 1 for a quiet note (hidden until asked for)
  let rowTops = null; // Float64Array(rows + 1): each row's top in the list, from rowHeight
  let topsStale = true;
  let shownRows = new Map(); // row -> its <li>, the rows in the <ol> now
  let shownFrom = -1;
  let shownTo = -1;
  let currentSeq = null;
  let notesHidden = true;
  const guess = { line: null, mark: 22, head: null }; // a line's and a heading's height, once measured
  const topSpacer = el("li", { class: "spacer", "aria-hidden": "true" });
  const bottomSpacer = el("li", { class: "spacer", "aria-hidden": "true" });

  function markNode(m) {
    const cls = "mark mark-" + m.kind + (m.severity ? " sev-" + m.severity : "");
    const attrs = { class: cls };
    if (m.kind === "ko") attrs["data-ko"] = m.n;
    return el("div", attrs, m.kind === "ko" ? "✖ " : m.kind === "prize" ? "★ " : m.kind === "finding" ? "⚠ " : "",
      m.text, m.child ? [" ", reviewLink(m.child, "child-link")] : null,
      m.rule ? " " : "", ruleLink(m.rule),
      m.detail ? el("div", { class: "detail", title: _("judges only") }, m.detail) : null);
  }

  // A source's note (an importer's, most of all) is one line: its finding's judge-only detail is the
  // note's own text, already the line's.
  const marksOf = (line) => (line.type === "note"
    ? line.marks.map((m) => (m.detail && String(line.text).includes(m.detail) ? { ...m, detail: null } : m))
    : line.marks);
  // hidden until asked for: a note the source flagged only as info (an importer's); a note with no
  // finding (a judge's, a recorder's) or with a warning always shows
  function isQuiet(line) {
    const flags = line.marks.filter((m) => m.kind === "finding");
    return line.type === "note" && flags.length > 0 && flags.every((m) => m.severity === "info");
  }
  const headLabel = (line) =>
    line.turn == null ? _("Setup") : _("Turn {n}", { n: line.turn }) + (line.player ? ` · ${line.player}` : "");

  function lineNode(i) {
    const line = log[i];
    const classes = ["line", "kind-" + line.kind, "type-" + line.type];
    for (const m of line.marks) classes.push("has-" + m.kind);
    if (quietRow[rowOfLine[i]]) classes.push("quiet-note");
    if (line.seq === currentSeq) classes.push("current");
    const marks = marksOf(line);
    const li = el("li", { class: classes.join(" "), "data-seq": line.seq, "data-i": i, tabindex: "0",
      "aria-posinset": i + 1, "aria-setsize": log.length, "aria-label": `seq ${line.seq}: ${line.text}` },
      el("span", { class: "lseq" }, line.seq),
      el("div", { class: "ltext" },
        line.kind !== "event" ? el("span", { class: "sev-violation" }, _("{kind} event: ", { kind: line.kind })) : null,
        line.text),
      marks.length ? el("div", { class: "marks" }, marks.map(markNode)) : null);
    return li; // its click and Enter: the list's own listeners (renderLog)
  }

  // Rows once built are kept (up to ROWS_KEPT, the oldest out of the list dropped first): a step back to
  // a part of the log seen before builds nothing again.
  const ROWS_KEPT = 4000;
  const built = new Map(); // row -> its <li>
  function rowNode(r) {
    let li = built.get(r);
    if (li === undefined) {
      li = logRows[r].i === undefined
        ? el("li", { class: "turn-head", "data-turn": logRows[r].turn }, logRows[r].label)
        : lineNode(logRows[r].i);
      built.set(r, li);
      if (built.size > ROWS_KEPT) {
        for (const [k, old] of built) {
          if (built.size <= ROWS_KEPT * 0.75) break;
          if (!old.isConnected) built.delete(k);
        }
      }
    } else if (logRows[r].i !== undefined) {
      li.classList.toggle("current", log[logRows[r].i].seq === currentSeq); // a step since it was shown
    }
    return li;
  }

  function estimate(r) {
    const row = logRows[r];
    return row.i === undefined ? guess.head ?? 26 : (guess.line ?? 22) + guess.mark * log[row.i].marks.length;
  }

  // The log's lines as the game's windows bring them (appendLog), after the lines before them: their
  // rows, turn headings and look-ups added, the arrays of row heights grown, the spacer below resized.
  let group;
  let head = -1;
  let quietCount = 0;
  function grown(old, n) {
    const out = new old.constructor(n);
    out.set(old.subarray(0, Math.min(old.length, n)));
    return out;
  }
  function noteCount() {
    const toggle = $("show-notes");
    toggle.closest("label").hidden = !quietCount;
    toggle.nextSibling.textContent = " " + _("notes ({n})", { n: quietCount });
  }
  function appendLog(lines) {
    const turns = $("turn-select");
    const first = log.length;
    const firstRow = logRows.length;
    const heads = [];
    for (const line of lines) log.push(line);
    for (let i = first; i < log.length; i++) {
      const line = log[i];
      const key = line.turn == null ? "setup" : String(line.turn);
      if (key !== group) {
        group = key;
        head = logRows.length;
        logRows.push({ turn: key, label: headLabel(line) });
        heads.push(head);
        turns.append(el("option", { value: String(line.seq) }, headLabel(line)));
      }
      if (line.turn != null) turnOfSeq.set(line.seq, line.turn);
      rowOfLine[i] = logRows.length;
      logRows.push({ i });
      heads.push(head);
      if (!linesOfSeq.has(line.seq)) linesOfSeq.set(line.seq, []);
      linesOfSeq.get(line.seq).push(i);
      if (line.kind === "event" && !textOfSeq.has(line.seq)) textOfSeq.set(line.seq, line.text);
    }
    const n = logRows.length;
    headOfRow = grown(headOfRow, n);
    headOfRow.set(heads, firstRow);
    quietRow = grown(quietRow, n);
    for (let i = first; i < log.length; i++) if (isQuiet(log[i])) { quietRow[rowOfLine[i]] = 1; quietCount += 1; }
    rowHeight = grown(rowHeight, n);
    for (let r = firstRow; r < n; r++) rowHeight[r] = estimate(r);
    measured = grown(measured, n);
    rowTops = new Float64Array(n + 1);
    topsStale = true;
    $("log-count").textContent = _("{n} events", { n: log.length });
    noteCount();
    if (shownTo >= 0) bottomSpacer.style.height = tops()[n] - tops()[shownTo] + "px"; // the rows held stay
  }

  // A mark derived after its line came in (a conflicting event's finding on the seq it reuses, archived
  // later): added to the line, whose row is built again when it is next shown.
  function lateMark(i, mark) {
    const line = log[i];
    if (!line) return;
    line.marks.push(mark);
    const r = rowOfLine[i];
    if (!quietRow[r] && isQuiet(line)) { quietRow[r] = 1; quietCount += 1; }
    else if (quietRow[r] && !isQuiet(line)) { quietRow[r] = 0; quietCount -= 1; }
    noteCount();
    if (!measured[r]) rowHeight[r] = estimate(r);
    measured[r] = 0;
    topsStale = true;
    const old = built.get(r);
    built.delete(r);
    if (old && shownRows.get(r) === old) {
      const li = rowNode(r);
      old.replaceWith(li);
      shownRows.set(r, li);
    }
  }

  function renderLog() {
    $("turn-select").replaceChildren(el("option", { value: "" }, "—"));
    log = [];
    logRows = [];
    rowOfLine = [];
    headOfRow = new Int32Array(0);
    quietRow = new Uint8Array(0);
    rowHeight = new Float64Array(0);
    measured = new Uint8Array(0);
    rowTops = new Float64Array(1);
    topsStale = true;
    const root = $("log");
    root.replaceChildren(topSpacer, bottomSpacer);
    const toggle = $("show-notes");
    notesHidden = !toggle.checked;
    root.classList.toggle("hide-notes", notesHidden);
    toggle.onchange = () => {
      notesHidden = !toggle.checked;
      root.classList.toggle("hide-notes", notesHidden);
      topsStale = true;
      renderRows(true);
      inView();
    };
    $("log-find").addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      e.preventDefault();
      findInLog(e.target.value, e.shiftKey ? -1 : 1);
    });
    $("log-find").addEventListener("input", () => { $("log-found").textContent = ""; });
    // a click on a line (not on its rules or playoff link), or Enter on it, goes there
    root.addEventListener("click", (e) => {
      const li = e.target instanceof Element ? e.target.closest("li.line") : null;
      if (li && !(e.target instanceof HTMLAnchorElement)) goTo(Number(li.dataset.seq));
    });
    root.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && e.target instanceof HTMLLIElement && e.target.classList.contains("line")) {
        e.preventDefault();
        goTo(Number(e.target.dataset.seq));
      }
    });
    let pending = 0;
    root.addEventListener("scroll", () => {
      viewTop = root.scrollTop;
      if (!pending) pending = requestAnimationFrame(() => { pending = 0; renderRows(false); });
    }, { passive: true });
    window.addEventListener("resize", () => { viewHeight = null; renderRows(true); });
    if (window.ResizeObserver) new ResizeObserver(() => { viewHeight = null; }).observe(root);
  }

  // The rest of the margin, built when the browser has nothing else to do (a step asks for it; the
  // next step or scroll before it runs asks again).
  let filling = 0;
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 50));
  function fillLater() {
    if (filling) return;
    filling = idle(() => { filling = 0; renderRows(false, undefined, LOG_MARGIN, LOG_MARGIN); });
  }

  // A quiet note out of the step on screen takes no room while the notes are hidden (review.css).
  const hiddenRow = (r) => notesHidden && quietRow[r] === 1 && log[logRows[r].i].seq !== currentSeq;

  function tops() {
    if (topsStale) {
      let y = 0;
      const n = logRows.length;
      for (let r = 0; r < n; r++) {
        rowTops[r] = y;
        if (!hiddenRow(r)) y += rowHeight[r];
      }
      rowTops[n] = y;
      topsStale = false;
    }
    return rowTops;
  }

  function rowAt(y) { // the last row whose top is at or above y
    const t = tops();
    let lo = 0;
    let hi = Math.max(0, logRows.length - 1);
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (t[mid] <= y) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  // The rows in view and a margin in the <ol>, the spacers sized for the rest; then each shown row
  // measured (a row's height depends on its marks and the log's width), and the view kept on the row it
  // showed at its top. `at`: the scrollTop wanted (a step's), set once the rows are in: the page is laid
  // out once, not once to read where the view is and again after the rows go in. Nothing changes when
  // the rows held cover the view and `need` rows either side; else the view and `margin` rows either side
  // are held (a step: NEAR), and the rest of LOG_MARGIN is filled on idle.
  function renderRows(force, at, margin = LOG_MARGIN, need = NEAR) {
    const box = $("log");
    const n = logRows.length;
    if (!n) return;
    const h = logHeight();
    for (let pass = 0; pass < 3; pass++) {
      const t = tops();
      const y = at ?? viewTop;
      const anchor = rowAt(y);
      const offset = y - t[anchor];
      let from;
      let to;
      if (h) {
        from = anchor;
        to = rowAt(y + h) + 1;
      } else { // a hidden log (the phone's other tabs): around the step on screen
        const mine = linesOfSeq.get(currentSeq) || [];
        from = mine.length ? rowOfLine[mine[0]] : 0;
        to = from + 1;
      }
      const covered = shownFrom <= Math.max(0, from - need) && Math.min(n, to + need) <= shownTo;
      if (!force && covered) { // held already (and measured, past pass 0)
        if (at !== undefined && at !== viewTop) { box.scrollTop = at; viewTop = box.scrollTop; }
        if (shownFrom > Math.max(0, from - LOG_MARGIN) || Math.min(n, to + LOG_MARGIN) > shownTo) fillLater();
        return;
      }
      force = false;
      from = Math.max(0, from - margin);
      to = Math.min(n, to + margin);
      // the turn heading of the first row shown, carried in: it sticks at the top of the log
      const carried = logRows[from].i !== undefined ? headOfRow[from] : -1;
      const rows = carried >= 0 ? [carried] : [];
      for (let r = from; r < to; r++) rows.push(r);
      const kept = new Map();
      for (const r of rows) kept.set(r, shownRows.get(r) || rowNode(r));
      for (const [r, li] of shownRows) if (!kept.has(r)) li.remove();
      shownRows = kept;
      shownFrom = from;
      shownTo = to;
      const lift = carried >= 0 ? rowHeight[carried] : 0;
      topSpacer.style.height = Math.max(0, t[from] - lift) + "px"; // CSSOM: the page's policy allows it
      bottomSpacer.style.height = t[n] - t[to] + "px";
      // rows kept stay in place (a focused line keeps its focus), new ones go in around them, each run
      // of new ones at once
      if (topSpacer.parentNode !== box) box.replaceChildren(topSpacer, bottomSpacer);
      let next = topSpacer.nextSibling;
      let batch = null;
      for (const li of kept.values()) {
        if (li === next) {
          if (batch) { box.insertBefore(batch, next); batch = null; }
          next = next.nextSibling;
        } else (batch ??= document.createDocumentFragment()).append(li);
      }
      if (batch) box.insertBefore(batch, next);
      if (margin < LOG_MARGIN) fillLater();
      if (!h) return; // nothing to measure in a hidden log
      if (at !== undefined) box.scrollTop = at; // the one layout: the step's board and these rows
      viewTop = box.scrollTop;
      let changed = false;
      for (const [r, li] of kept) {
        if (hiddenRow(r)) continue;
        const rh = li.offsetHeight + (logRows[r].i === undefined ? headMargin(li) : 0);
        if (!rh) continue;
        learn(r, rh);
        if (rowHeight[r] !== rh) { rowHeight[r] = rh; changed = true; }
        measured[r] = 1;
      }
      if (!changed) return;
      topsStale = true;
      const t2 = tops();
      topSpacer.style.height = Math.max(0, t2[from] - (carried >= 0 ? rowHeight[carried] : 0)) + "px";
      bottomSpacer.style.height = t2[n] - t2[to] + "px";
      at = t2[anchor] + offset;
      box.scrollTop = at;
      viewTop = box.scrollTop;
    }
  }

  let headMarginPx = null;
  function headMargin(li) {
    if (headMarginPx === null) headMarginPx = parseFloat(getComputedStyle(li).marginTop) || 0;
    return headMarginPx;
  }

  // The rows measured give the estimates of the rows not shown yet: a heading (the first measured), a
  // line (the shortest line with no mark measured: one line of text; a line that wraps is the exception
  // in most logs, and a first guess from one left every later row off by a line, which cost each step a
  // second layout once the rows were measured).
  function learn(r, h) {
    const row = logRows[r];
    if (row.i === undefined) {
      if (guess.head !== null) return;
      guess.head = h;
    } else if ((guess.line === null || h < guess.line) && !log[row.i].marks.length && log[row.i].kind === "event") {
      guess.line = h;
    } else return;
    for (let k = 0; k < logRows.length; k++) if (!measured[k]) rowHeight[k] = estimate(k);
    topsStale = true;
  }

  // Find in the log: every line's sentence and marks (in the data: the lines not held in the list too),
  // the next from the step on screen (Enter) or the one before (Shift+Enter), round the end; the line
  // found is stepped to, so it is scrolled to and highlighted like any other.
  function findInLog(query, dir) {
    const q = query.trim().toLocaleLowerCase();
    const said = $("log-found");
    if (!q) { said.textContent = ""; return; }
    const hits = [];
    log.forEach((line, i) => {
      const marks = line.marks.map((m) => m.text || "").join(" ");
      if ((line.text + " " + marks).toLocaleLowerCase().includes(q)) hits.push(i);
    });
    if (!hits.length) { said.textContent = _("not found"); return; }
    const here = frames[index]?.seq ?? 0;
    let k = -1;
    if (dir > 0) k = hits.findIndex((i) => log[i].seq > here);
    else for (let j = hits.length - 1; j >= 0 && k < 0; j--) if (log[hits[j]].seq < here) k = j;
    if (k < 0) k = dir > 0 ? 0 : hits.length - 1;
    said.textContent = _("{i} of {n}", { i: k + 1, n: hits.length });
    goTo(log[hits[k]].seq);
  }

  // The current line in the log's view (again when the log becomes visible: the phone's Log tab; a
  // hidden log has no height to scroll in).
  function inView() {
    const rows = (linesOfSeq.get(currentSeq) || []).map((i) => rowOfLine[i]).filter((r) => !hiddenRow(r));
    const h = logHeight();
    if (!rows.length || !h) { renderRows(false); return; }
    const head = 28; // the sticky turn heading covers the top of the list
    for (let pass = 0; pass < 3; pass++) {
      const t = tops();
      const top = t[rows[0]];
      if (top >= viewTop + head && t[rows[0] + 1] <= viewTop + h) {
        if (pass) return;
        renderRows(false); // in view already: the rows held, unless some are missing
      } else {
        renderRows(false, Math.max(0, top - h / 3), NEAR);
      }
    }
  }

  function highlight(seq) {
    const quietAt = (s) => (linesOfSeq.get(s) || []).some((i) => quietRow[rowOfLine[i]]);
    if (notesHidden && (quietAt(seq) || quietAt(currentSeq))) topsStale = true; // a quiet note shows or hides
    currentSeq = seq;
    for (const li of $("log").querySelectorAll("li.current")) li.classList.remove("current");
    for (const i of linesOfSeq.get(seq) || []) shownRows.get(rowOfLine[i])?.classList.add("current");
    const sel = $("turn-select");
    let value = "";
    for (const opt of sel.options) {
      if (opt.value && Number(opt.value) <= seq) value = opt.value;
    }
    sel.value = value;
    const turn = turnOfSeq.get(seq);
    sel.dataset.turn = turn == null ? "" : String(turn);
    // last: the log's rows placed and measured after every other change of the step, so that the page
    // is laid out once for all of them (a change after it would lay the page out again)
    inView();
  }

  // ------------------------------------------------------------------ board and step
  function mon(p, active) {
    if (!p) return el("div", { class: "mon empty" }, active ? _("no Active Pokémon") : "");
    const left = p.hp != null ? Math.max(0, p.hp - p.damage) : null;
    const pct = p.hp ? Math.round((100 * left) / p.hp) : 0;
    const name = cardName(p.name);
    let bar = null;
    if (p.hp != null) {
      const fill = el("span");
      fill.style.width = pct + "%"; // CSSOM, which the page's Content-Security-Policy allows
      bar = el("div", { class: "hp" + (pct <= 30 ? " low" : "") }, fill);
    }
    return el("div", { class: "mon" + (active ? " active" : ""), "data-pid": p.pid },
      el("div", { class: "mon-line" },
        el("span", { class: "name", title: name }, name), " ", el("span", { class: "meta" }, p.pid),
        el("span", { class: "hpnum" }, p.hp != null ? `${left}/${p.hp}` : _("dmg {n}", { n: p.damage }))),
      bar,
      (p.attached?.length || p.conditions?.length || p.damage) ? el("div", { class: "meta" },
        p.damage ? _("damage {n}", { n: p.damage }) : "", p.damage && p.attached?.length ? " · " : "",
        p.attached?.length ? p.attached.map(cardName).join(", ") : "",
        (p.conditions || []).map((c) => el("span", { class: "cond" }, c))) : null);
  }

  // The DOM under `parent` made to match `nodes` (built anew, not in the page) where it differs: an
  // element of the same tag kept, its attributes and children patched; a text changed in place; any
  // other node put in. A step's board and event are built whole (one way to draw them) but laid out only
  // where they changed: most of a board is the same from one step to the next, and a subtree built again
  // is laid out again (with the log's new rows, the bulk of a step's layout; docs/performance.md).
  // The nodes patched carry no listeners of their own (those of the page are delegated or on nodes
  // that are not patched).
  function patch(parent, nodes) {
    const olds = parent.childNodes;
    let k = 0;
    for (const node of nodes) {
      const old = olds[k++];
      if (old === undefined) parent.append(node);
      else if (old.nodeType === Node.TEXT_NODE && node.nodeType === Node.TEXT_NODE) {
        if (old.data !== node.data) old.data = node.data;
      } else if (old.nodeType === Node.ELEMENT_NODE && old.nodeName === node.nodeName) {
        for (const { name, value } of node.attributes) {
          if (name === "style") { if (old.style.cssText !== node.style.cssText) old.style.cssText = node.style.cssText; }
          else if (old.getAttribute(name) !== value) old.setAttribute(name, value);
        }
        for (const { name } of [...old.attributes]) if (!node.hasAttribute(name)) old.removeAttribute(name);
        patch(old, [...node.childNodes]);
      } else old.replaceWith(node);
    }
    while (olds.length > k) olds[olds.length - 1].remove();
  }

  function renderBoard(board, due) {
    const drawn = [];
    const order = record?.players?.length ? record.players : Object.keys(board.players || {});
    for (const name of order) {
      const p = board.players?.[name];
      if (!p) continue;
      // Prizes are shown taken at the step they are taken: a knockout's prizes are due until the
      // source's prize_taken takes them (streams/http/frames.py).
      const owed = due?.[name] || 0;
      drawn.push(el("div", { class: "player" + (board.turn_player === name ? " to-move" : ""), "data-player": name },
        el("h3", {}, name, board.turn_player === name ? el("span", { class: "muted" }, _(" · to play")) : ""),
        el("div", { class: "counts" },
          el("span", { class: "prizes" }, _("prizes left") + " ", el("b", { class: "prizes-left" }, p.prizes_left + owed),
            _(" (taken {taken}/{needed})", { taken: p.prizes_taken - owed, needed: p.prizes_needed }),
            owed ? el("span", { class: "due", title: _("the knockout's prizes, not taken yet") }, _(" · {n} due", { n: owed })) : null),
          el("span", {}, _("deck") + " ", el("b", {}, p.deck)),
          el("span", {}, _("hand") + " ", el("b", {}, p.hand)),
          el("span", {}, _("discard") + " ", el("b", {}, p.discard)),
          p.lost_zone ? el("span", {}, _("lost zone") + " ", el("b", {}, p.lost_zone)) : null),
        el("div", { class: "zone" }, _("Active")), mon(p.active, true),
        el("div", { class: "zone" }, _("Bench ({n})", { n: (p.bench || []).length })),
        el("div", { class: "bench" }, (p.bench || []).map((b) => mon(b, false)))));
    }
    patch($("board"), drawn);
    $("board-seq").textContent = board.seq ?? "";
    const turn = turnOfSeq.get(Number(board.seq));
    $("turn").textContent = (turn != null ? _("· turn {n}, {player}'s turn", { n: turn, player: board.turn_player }) : _("· setup")) +
      (board.status !== "in_progress" ? ` · ${words(board.status)}` : "");
  }

  function render(frame, board) {
    const ev = frame.event;
    $("seq").textContent = "#" + frame.seq;
    $("event-type").textContent = ev ? ev.type : _("(no event at this seq: a gap)");
    $("event-text").textContent = textOfSeq.get(frame.seq) || "";
    // the event, what was archived beside it and what the engine derived: patched like the board
    const fields = [];
    if (ev) {
      for (const [k, v] of Object.entries(ev)) {
        if (k === "match" || k === "seq" || k === "type") continue;
        fields.push(el("tr", { "data-field": k }, el("th", { title: k }, FIELDS[k] || k),
          el("td", typeof v === "string" && (CODED.has(k)) ? { title: v } : {}, fieldValue(k, v))));
      }
    }
    patch($("event-fields"), fields);
    const extra = [];
    for (const x of frame.extra || []) {
      const line = (linesOfSeq.get(frame.seq) || []).map((i) => log[i]).find((l) => l.kind === x.kind);
      extra.push(el("p", { class: "sev-violation" }, _("{kind} event archived here: ", { kind: x.kind }),
        line ? line.text : x.event.type,
        el("span", { class: "muted" }, " · " + shown(x.event))));
    }
    patch($("extra"), extra);
    const outs = [];
    for (const o of frame.outputs || []) {
      outs.push(el("li", { class: "out-" + o.type }, describe(o),
        o.type === "playoff_required" && o.child ? reviewLink(o.child, "child-link") : null,
        o.type === "finding" ? " " : "", o.type === "finding" ? ruleLink(rules[o.code]) : null,
        o.type === "finding" && o.detail ? el("div", { class: "detail" }, o.detail_text || o.detail) : null));
    }
    if (!outs.length) outs.push(el("li", { class: "muted" }, _("nothing")));
    patch($("outputs"), outs);
    renderBoard(board, frame.due);

    const decided = record?.result?.decided_at;
    const here = decided != null && decided === frame.seq;
    $("result-box").classList.toggle("decided-here", here);
    $("event-panel").classList.toggle("decided", here);
    document.body.dataset.seq = String(frame.seq);
    document.body.dataset.decided = here ? "1" : "0";
    highlight(frame.seq); // last: it lays the page out (the log's rows measured)
  }

  function indexOf(seq) {
    let lo = 0;
    let hi = frames.length - 1;
    while (lo < hi) { // the last step at or below seq
      const mid = (lo + hi + 1) >> 1;
      if (frames[mid].seq <= seq) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  // Step i, once its window is in (at once when it is: a step the keys make within the windows read so
  // far renders with no wait); the last step asked for wins.
  let asked = 0;
  function show(i) {
    if (!total) return;
    i = Math.min(Math.max(i, 0), total - 1);
    const ticket = ++asked;
    if (i >= frames.length) { loaded(() => i < frames.length).then(() => { if (ticket === asked) show(i); }); return; }
    const t0 = performance.now();
    index = i;
    const frame = frames[index];
    $("slider").value = String(index);
    $("seq-input").value = String(frame.seq);
    render(frame, boardAt(index));
    keepAddress(frame.seq);
    timings.steps.push(performance.now() - t0);
    if (timings.steps.length > 5000) timings.steps.splice(0, 1000);
  }

  // The address names the step shown (#seq=N), written once the steps pause (HASH_AFTER ms): a held key
  // or the play writes the page's history once, not at every step (a write took ~5 ms of each step,
  // and a browser refuses a page that writes it too often). An address set meanwhile (a link, the
  // scan's "correct it…", a judge's record and reload) is left alone: its hashchange moves the page
  // there, and a write of the older step would have turned that hashchange into a step back.
  const HASH_AFTER = 100;
  let hashTimer = 0;
  function keepAddress(seq) {
    clearTimeout(hashTimer);
    const was = location.hash;
    hashTimer = setTimeout(() => {
      if (location.hash === was && was !== "#seq=" + seq) history.replaceState(null, "", "#seq=" + seq);
    }, HASH_AFTER);
  }

  // The step of seq: a seq past the windows read so far waits for them to reach it.
  function goTo(seq) {
    seq = Number(seq);
    const reached = () => complete || frames[frames.length - 1].seq >= seq;
    if (reached()) { show(indexOf(seq)); return; }
    const ticket = ++asked;
    loaded(reached).then(() => { if (ticket === asked) show(indexOf(seq)); });
  }
  timings.goTo = goTo; // for the browser test and the bench: a step as the keys make it
  timings.board = () => boardAt(index); // for the browser test: the board of the step shown
  const step = (delta) => show(index + delta);

  // The next (dir 1) or previous (dir -1) step of a sorted list of step indexes.
  function jump(list, dir) {
    if (dir > 0) {
      const i = list.find((x) => x > index);
      if (i !== undefined) show(i);
    } else {
      const before = list.filter((x) => x < index);
      if (before.length) show(before[before.length - 1]);
    }
  }

  function stopPlay() {
    if (playing !== null) clearInterval(playing);
    playing = null;
    $("play").textContent = _("▶ play");
    $("play").setAttribute("aria-pressed", "false");
    document.body.dataset.playing = "0";
  }

  function togglePlay() {
    if (playing !== null) { stopPlay(); return; }
    if (index >= total - 1) show(0);
    const every = Number($("speed").value) || 500;
    playing = setInterval(() => {
      if (index >= total - 1) { stopPlay(); return; }
      step(1);
    }, every);
    $("play").textContent = _("⏸ pause");
    $("play").setAttribute("aria-pressed", "true");
    document.body.dataset.playing = "1";
  }

  function onKey(e) {
    const t = e.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const keys = {
      ArrowLeft: () => step(-1),
      ArrowRight: () => step(1),
      ArrowUp: () => jump(turnStarts, -1),
      PageUp: () => jump(turnStarts, -1),
      ArrowDown: () => jump(turnStarts, 1),
      PageDown: () => jump(turnStarts, 1),
      Home: () => show(0),
      End: () => show(total - 1),
      k: () => jump(koSteps, 1),
      K: () => jump(koSteps, -1),
      f: () => jump(findingSteps, 1),
      F: () => jump(findingSteps, -1),
      d: () => { if (record?.result?.decided_at != null) goTo(record.result.decided_at); },
      " ": () => togglePlay(),
    };
    const action = keys[e.key];
    if (!action) return;
    if (e.key === " " && t instanceof HTMLButtonElement && t.id !== "play") return; // the button's own Space
    e.preventDefault();
    action();
  }

  function setTab(name) {
    $("review-main").dataset.tab = name;
    for (const b of $("tabs").querySelectorAll("button")) b.setAttribute("aria-selected", String(b.dataset.tab === name));
    viewHeight = null; // the log shown or hidden: its height read again
    if (name === "log") inView();
  }

  // The board of step i: kept once rebuilt; else the nearest board known at or before i (a snapshot at
  // worst) with the deltas after it folded forward.
  function boardAt(i) {
    let k = i;
    while (boards[k] === undefined && k % snapshot !== 0) k -= 1;
    if (boards[k] === undefined) boards[k] = frames[k].board;
    for (let j = k + 1; j <= i; j++) boards[j] = applyDelta(boards[j - 1], frames[j].board);
    return boards[i];
  }

  function applyDelta(before, delta) {
    if (!before) return delta;
    const board = { ...before };
    for (const k of delta["-"] || []) delete board[k];
    for (const [k, v] of Object.entries(delta)) if (k !== "players" && k !== "-") board[k] = v;
    if (delta.players) {
      const players = { ...before.players };
      for (const [name, change] of Object.entries(delta.players)) {
        const was = players[name];
        if (was && change && typeof was === "object" && typeof change === "object") {
          const merged = { ...was };
          for (const k of change["-"] || []) delete merged[k];
          for (const [k, v] of Object.entries(change)) if (k !== "-") merged[k] = v;
          players[name] = merged;
        } else players[name] = change;
      }
      board.players = players;
    }
    return board;
  }

  // ------------------------------------------------------------------ the game, window by window
  // /meta?from=&to= answers the steps from..to and their log lines (streams/http/review_window.py): the
  // page opens on the first window and reads the next ones after it, in order, while the reader looks
  // (one path for every game: a short game's first window is the whole of it). A step past the windows
  // read so far waits for them (show, goTo).
  // the first window's steps: one of the server's snapshots (64 steps), as few as fill the log's view,
  // so that the server folds no more than that before the page shows the game (the next windows come
  // while the reader looks). The page's HTML preloads this window (<link rel="preload">,
  // streams.http.pages.first_window_url; firstWindow below asks for that URL), so that it is asked for
  // while the scripts load.
  const FIRST = 64;
  const WINDOW = 4096; // each window after it
  let total = 0; // the game's steps (meta.count)
  let complete = false;
  let waiting = []; // [test, resolve]: show and goTo waiting for a window
  let failed = null; // a window that could not be read: nothing waits for the next one
  const loaded = (test) => (test() || complete || failed
    ? Promise.resolve() : new Promise((resolve) => waiting.push([test, resolve])));

  // The first window as the page's HTML preloads it (streams.http.pages.first_window_url), so that the
  // preload answers this request; a page without the link asks for it as for any window.
  function firstWindow() {
    const link = document.querySelector('link[rel="preload"][as="fetch"]');
    return link ? link.href : undefined;
  }

  function windowQuery(from, to) {
    const query = new URLSearchParams();
    if (publicView) query.set("view", "public");
    // the page's language is the battle log's, the findings' and the card names': the meta route
    // chooses it as the page did (?lang=, passed on; the match's context.lang; the browser's)
    const lang = new URLSearchParams(location.search).get("lang");
    if (lang) query.set("lang", lang);
    query.set("from", String(from));
    query.set("to", String(to));
    return api("/meta?" + query);
  }

  // ``url``: the first window's is the page's own preload link (the server writes it, one spelling)
  async function fetchWindow(from, to, url = windowQuery(from, to)) {
    const resp = await fetch(url);
    const meta = await resp.json().catch(() => ({ error: `HTTP ${resp.status}` }));
    if (!resp.ok) throw new Error(meta.error || resp.statusText);
    return meta;
  }

  // A window's steps and lines added after those read so far; the last one completes the game: what
  // needs all of it (the race, the due next, the knockouts' turns) is drawn then.
  function addWindow(meta) {
    const at = frames.length;
    for (const f of meta.frames || []) frames.push(f); // the same array: static/scan.js reads it
    for (let i = at; i < frames.length; i++) {
      const f = frames[i];
      const t = f.event?.type;
      if (t === "turn_started") turnStarts.push(i);
      if ((f.outputs || []).some((o) => o.type === "ko")) koSteps.push(i);
      if ((f.outputs || []).some((o) => o.type === "finding")) findingSteps.push(i);
    }
    // each window names the cards its steps' events give (the server reads no further than the window):
    // a board up to a step shows only cards named by then, all in the windows read before it
    Object.assign(names, meta.names || {});
    appendLog(meta.log || []);
    for (const [i, mark] of meta.late_marks || []) lateMark(i, mark);
    complete = frames.length >= total;
    if (complete) {
      renderMeta();
      renderRace();
      // what the rules ask for next at the archive's head: the engine's answer (replay.due), in the
      // table console's words
      const due = meta.due || [];
      $("due-next").hidden = !due.length;
      $("due-next").textContent = due.length
        ? _("· due next (after seq {seq}): {due}", { seq: last, due: due.map((d) => d.text).join("; ") }) : "";
    }
    const still = [];
    for (const [test, resolve] of waiting) (test() || complete ? resolve : () => still.push([test, resolve]))();
    waiting = still;
  }

  let last = null;
  function cannotShow(err) {
    // Said where the result would be: never "loading…" forever.
    $("result-text").replaceChildren(el("strong", { class: "sev-violation" }, _("Cannot show this match")));
    $("reason-text").textContent = "· " + (err.message || err);
    showError(_("Could not load match {match}: {error}", { match, error: err.message || err }));
    document.body.dataset.ready = "error";
  }

  async function start() {
    let meta;
    try {
      timings.request = performance.now();
      // a case file: the whole game is in the page, no request
      meta = embedded ? { ...embedded, count: (embedded.frames || []).length } : await fetchWindow(0, FIRST, firstWindow());
      timings.answer = performance.now();
    } catch (err) {
      cannotShow(err);
      return;
    }
    record = meta.record;
    // each finding's sentence in the page's language (findings_text, in the record's order) shown in
    // place of the record's own English message, which stays as stored
    // (and a judge's view: each detail in it, findings_detail)
    (record?.findings || []).forEach((f, i) => {
      f.text = (meta.findings_text || [])[i];
      f.detail_text = (meta.findings_detail || [])[i];
    });
    frames = [];
    timings.frames = frames; // read by the scan part (static/scan.js): a sheet row's events
    rules = meta.rules || {};
    names = meta.names || {};
    snapshot = Math.max(1, Number(meta.snapshot) || Infinity); // none said: only the first board is whole
    boards = [];
    total = meta.count;
    last = meta.last;
    $("slider").max = String(Math.max(0, total - 1));
    $("last").textContent = meta.last;
    renderLog();
    addWindow(meta);
    if (!complete) renderMeta(); // drawn again with the last window
    $("findings-by").addEventListener("change", () => renderFindings((record && record.findings) || []));
    const history = loadHistory();
    $("first").addEventListener("click", () => show(0));
    $("prev").addEventListener("click", () => step(-1));
    $("next").addEventListener("click", () => step(1));
    $("last-step").addEventListener("click", () => show(total - 1));
    $("play").addEventListener("click", togglePlay);
    $("speed").addEventListener("change", () => { if (playing !== null) { stopPlay(); togglePlay(); } });
    $("slider").addEventListener("input", (e) => show(Number(e.target.value)));
    $("seq-input").addEventListener("change", (e) => goTo(Number(e.target.value) || 1));
    $("turn-select").addEventListener("change", (e) => { if (e.target.value) goTo(Number(e.target.value)); });
    $("jump-decision").addEventListener("click", () => goTo(record.result.decided_at));
    for (const b of $("tabs").querySelectorAll("button")) b.addEventListener("click", () => setTab(b.dataset.tab));
    document.addEventListener("keydown", onKey);
    window.addEventListener("hashchange", () => {
      const m = /seq=(\d+)/.exec(location.hash);
      if (m && Number(m[1]) !== Number(document.body.dataset.seq)) goTo(Number(m[1]));
    });
    const rest = (async () => {
      try {
        while (!complete) addWindow(await fetchWindow(frames.length, frames.length + WINDOW));
      } catch (err) {
        failed = err;
        for (const [, resolve] of waiting) resolve();
        waiting = [];
      }
    })();
    const wanted = /seq=(\d+)/.exec(location.hash);
    if (wanted) { // a link to a step: its window read first
      const seq = Number(wanted[1]);
      await loaded(() => frames[frames.length - 1].seq >= seq);
      goTo(seq);
    } else show(0);
    timings.open = performance.now(); // from the navigation's start: the page is readable and steps
    document.body.dataset.open = "1";
    await rest;
    if (failed) { cannotShow(failed); return; }
    await history;
    timings.ready = performance.now(); // every window read (bench/review.py)
    document.body.dataset.ready = "1";
  }

  start();
})();
