// The import page (docs/web.md, "Import"): each file (or the pasted log) is one POST /import, one after
// the other, so a batch has a progress bar and each file its own line: its matches with their review
// pages, or one sentence saying what is wrong with it. Nothing here reads a file's content: the service
// does, with the same importers as the command line.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const form = $("import-form");
  const results = $("results");
  const progress = $("progress");
  const summary = $("summary");
  const queue = $("queue");
  let queued = [];

  // a photo or a PDF of printed sheets (the service tells by its bytes; this only decides which files
  // get the fields that name their sheets by hand, as import scan's --players and --match)
  const SCAN = /\.(jpe?g|png|pdf)$/i;
  const isScan = (f) => (f.type || "").startsWith("image/") || f.type === "application/pdf" || SCAN.test(f.name);

  function field(cls, label, hint) {
    const wrap = document.createElement("label");
    wrap.className = cls;
    const input = document.createElement("input");
    input.autocomplete = "off";
    input.placeholder = hint;
    wrap.append(label, " ", input);
    return [wrap, input];
  }

  function queueLine(item) {
    // a queued file; a photo's or a PDF's its own players and match id (optional; ; between sheets)
    const li = document.createElement("li");
    const label = document.createElement("span");
    label.className = "file";
    label.textContent = item.name;
    li.append(label);
    if (item.scan) {
      const [who, players] = field("sheet-players", _("players"), _("A,B: the names printed on it if empty"));
      const [which, match] = field("sheet-match", _("match id"), _("its own if empty"));
      players.maxLength = 1000;
      match.maxLength = 4000;
      li.append(who, which);
      item.players = players;
      item.match = match;
    }
    queue.append(li);
  }

  // one entry a sheet of the file, ; between them (a PDF of several sheets), each sent as its own field
  const entries = (input) => (input ? input.value.split(";").map((v) => v.trim()).filter(Boolean) : []);

  function entryFiles(entry, path) {
    // a dropped folder: every file in it, in its sub-folders too
    return new Promise((resolve) => {
      if (entry.isFile) {
        entry.file((f) => resolve([f]), () => resolve([]));
        return;
      }
      const reader = entry.createReader();
      const all = [];
      const more = () =>
        reader.readEntries(async (entries) => {
          if (!entries.length) {
            const nested = await Promise.all(all.map((e) => entryFiles(e, path + "/" + e.name)));
            resolve(nested.flat());
            return;
          }
          all.push(...entries);
          more();
        }, () => resolve([]));
      more();
    });
  }

  function line(name) {
    const li = document.createElement("li");
    li.className = "pending";
    const label = document.createElement("span");
    label.className = "file";
    label.textContent = name;
    const said = document.createElement("span");
    said.className = "said";
    said.textContent = _("waiting");
    li.append(label, " ", said);
    results.append(li);
    return li;
  }

  function show(li, ok, body) {
    li.className = ok ? "done" : "refused";
    const said = li.querySelector(".said");
    said.textContent = "";
    if (!ok) {
      said.textContent = body;
      return;
    }
    for (const m of body.matches) {
      const a = document.createElement("a");
      a.href = langLink(m.review);
      a.className = "review";
      a.textContent = m.match;
      const notes = [_("{n} events", { n: m.events }), _("{n} findings", { n: m.findings })];
      if (m.unread_lines) notes.push(_("{n} unread line(s)", { n: m.unread_lines }));
      if (m.low_confidence) notes.push(_("{n} unclear mark(s) to check", { n: m.low_confidence }));
      if (m.refused.length) notes.push(_("{n} event(s) refused: {reason}", { n: m.refused.length, reason: m.refused[0].reason }));
      said.append(a, " (" + notes.join(", ") + ") ");
    }
  }

  async function send(item, fields) {
    const data = new FormData();
    if (item.file) data.append("file", item.file, item.name);
    else data.append("paste", item.text);
    for (const [k, v] of Object.entries(fields)) {
      if (Array.isArray(v)) for (const one of v) data.append(k, one);
      else if (v) data.append(k, v);
    }
    try {
      // the page's language: a photo's refusal (how to retake it) comes back in it
      const lang = document.documentElement.lang;
      const answer = await fetch("/import" + (lang ? "?lang=" + encodeURIComponent(lang) : ""),
        { method: "POST", body: data, credentials: "same-origin" });
      const body = await answer.json().catch(() => ({ error: _("the service answered {status}", { status: answer.status }) }));
      if (answer.ok) return [true, body];
      return [false, body.error || _("the service answered {status}", { status: answer.status }), body.field];
    } catch (err) {
      return [false, _("not sent: the service could not be reached ({error}); nothing was imported", { error: err.message })];
    }
  }

  async function run(items) {
    if (!items.length) {
      summary.textContent = _("Nothing to import: paste a battle log or choose files.");
      return;
    }
    const base = $("match").value.trim();
    const common = { event: $("event").value.trim(), round: $("round").value.trim(),
      table: $("table").value.trim(), ruleset: $("ruleset").value, partial: $("partial").checked ? "1" : "" };
    progress.hidden = false;
    progress.max = items.length;
    progress.value = 0;
    const lines = items.map((item) => line(item.name));
    // the batch's players by match id (import scan --players-file's ID,A,B lines): sent with each photo,
    // read by the service; its answers give back the list's ids, to name a line no sheet used at the end
    const byId = $("players-by-id").value.trim() ? $("players-by-id").value : "";
    const listed = {};
    const imported = new Set();
    let ok = 0;
    let scansDone = 0;
    let listBad = false;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      // the batch's match id names logs and sheet files; a photo's sheets are named by its own fields
      const match = item.scan ? entries(item.match) : base && items.length > 1 ? base + "." + (i + 1) : base;
      const players = item.scan ? entries(item.players) : [];
      const named = item.scan ? byId : "";
      if (item.scan && listBad) {
        // the list cannot be read (said on the photo it was first sent with): every photo sent with it
        // would be refused alike, so the batch's other photos are not sent (its logs still are)
        show(lines[i], false, _("not sent: mend the players by match id (said above), then import this photo again"));
      } else {
        const [done, body, about] = await send(item, { ...common, match, players, players_by_id: named });
        show(lines[i], done, body);
        if (done) {
          ok++;
          if (item.scan) scansDone++;
          for (const m of body.matches) imported.add(m.match);
          Object.assign(listed, body.players_by_id || {});
        } else if (about === "players_by_id") {
          listBad = true;
        }
      }
      progress.value = i + 1;
      summary.textContent = _("{read} of {total} file(s) read: {ok} imported, {refused} refused", { read: i + 1, total: items.length, ok, refused: i + 1 - ok });
    }
    for (const [match, n] of Object.entries(listed).sort((a, b) => a[1] - b[1])) {
      if (imported.has(match)) continue;
      // a line no sheet imported used: a typo in its id, or its sheet refused (said above)
      const li = line(_("players by match id"));
      show(li, false, _("line {line}: no sheet imported has match id {match}: this line names no sheet", { line: n, match }));
    }
    if (byId && !listBad && !scansDone && items.some((item) => item.scan)) {
      // every photo refused (said above): no answer gave the list's ids back, and none of its lines was used
      const li = line(_("players by match id"));
      show(li, false, _("used by no sheet: no photo of the batch was imported (each said above)"));
    }
    if (listBad) $("players-by-id").focus();
    document.body.dataset.imported = String(items.length); // the batch is done (for tests and scripts)
  }

  function add(files) {
    for (const f of files) {
      const item = { file: f, name: f.webkitRelativePath || f.name, scan: isScan(f) };
      queued.push(item);
      queueLine(item);
    }
    queue.hidden = !queued.length;
    $("queue-hint").hidden = !queued.some((item) => item.scan);
    summary.textContent = _("{n} file(s) ready: press import", { n: queued.length });
  }

  $("players-file").addEventListener("change", async (e) => {
    // the same text file as import scan --players-file: into the box, where it can still be read and fixed
    const file = e.target.files[0];
    if (file) $("players-by-id").value = await file.text();
  });
  for (const id of ["files", "folder", "camera"]) $(id).addEventListener("change", (e) => add(e.target.files));
  const drop = $("drop");
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", async (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const entries = [...e.dataTransfer.items].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
    if (entries.length) add((await Promise.all(entries.map((en) => entryFiles(en, en.name)))).flat());
    else add(e.dataTransfer.files);
  });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const items = [...queued];
    const text = $("paste").value;
    if (text.trim()) items.unshift({ text, name: _("pasted log") });
    else if ($("paste").value && !items.length) {
      summary.textContent = _("The pasted text is empty: nothing to import.");
      return;
    }
    queued = [];
    queue.textContent = "";
    queue.hidden = $("queue-hint").hidden = true;
    results.textContent = "";
    delete document.body.dataset.imported;
    run(items);
  });
})();
