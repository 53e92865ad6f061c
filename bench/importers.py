"""Importer benchmark: the issue-12 targets on every real battle log in tests/, then throughput on generated
logs against a plain scan, then the memory bound, in one run.

    python bench/importers.py [--real DIR ...] [--logs 200] [--lines 400] [--seed 1] [--runs 5] [--no-memory]

Targets over the real logs (tests/data/ptcgl/real/; --real adds other folders of exports, e.g. ones whose
licence does not let them be committed): lines read by a client sentence; logs whose replay ends with the
log's own winner and reason, or with a finding that explains the difference; knockouts verified from HP;
silent guesses (a board change the importer made without a finding: counted from card-count findings the
engine raises, which mean the events moved cards the log never showed); every turn header rewritten to
the client bug ``[playerName]'s Turn`` keeps every prize pickup and the result.

Prints, for a corpus of generated ~400-line logs (replay/generators/synthetic.py, never real players'
logs): (a) the baselines on the same text: splitting into lines, and one compiled regex over every line;
(b) parse_ptcgl alone; (c) parse_ptcgl + Game.apply of every event + the record; per log (ms) and lines/s,
with the ratios to the baselines. Pinned to one core, timed in CPU seconds (what another process's load
changes least). Target (issue 3): a 400-line log imported and replayed in under 10 ms. These machines are
noisy: read the ratios, measured in the same run.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from replay import Game
from replay.engine import REASON_KINDS, reason_kind
from replay.generators.synthetic import synthetic_log
from replay.sources.cards import LANGUAGES, Catalogue, _key, card_database, load_catalogue
from replay.sources.ptcgl import normalise, parse_ptcgl
from replay.sources.ptcgl.language import detect_locale
from replay.sources.ptcgl.locales import NUMBERED
from replay.sources.ptcgl.sentences import Sentences

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "data" / "ptcgl" / "real"


def replay_record(events: list[dict[str, object]]) -> tuple[Game, dict[str, object]]:
    game = Game()
    for ev in events:
        game.apply(ev)
    return game, game.record()


def without_names(text: str) -> str | None:
    """The log with every turn header rewritten to the client bug ``[playerName]'s Turn`` (in the log's
    language); None when it has no header with a name."""
    raw = normalise(text)
    loc = detect_locale(raw, "<bench>")
    out, changed = [], False
    for line in raw:
        s = line.strip()
        nm = NUMBERED.match(s)
        prefix, rest = (s[: len(s) - len(nm.group("rest"))], nm.group("rest")) if nm else ("", s)
        if loc.turn.match(rest) and "[playerName]" not in rest:
            out.append(prefix + loc.turn_prefix + "[playerName]" + loc.turn_suffix)
            changed = True
        else:
            out.append(line)
    return "\n".join(out) if changed else None


def real_targets(folders: list[Path]) -> int:
    """Print the issue-12 targets over the real logs; the exit status says whether they hold."""
    files = sorted(f for d in folders for f in d.glob("*.txt"))
    card_database()  # loaded once, outside the figures
    lines = read = logs = ending_ok = explained = kos = verified = silent = partly = unknown = 0
    header_logs = header_ok = 0
    for f in files:
        text = f.read_text("utf-8-sig")
        res = parse_ptcgl(text, match="real", filename=f.name)
        logs += 1
        n = sum(1 for ln in text.splitlines() if ln.strip())
        lines += n
        read += n - len(res.unmatched) - len(res.partly)
        partly += len(res.partly)
        unknown += sum(1 for x in res.findings if x.code == "importer_count_unknown")
        _, rec = replay_record(res.events)
        result = rec["result"] or {}
        claimed = res.meta.get("winner")
        same = isinstance(result, dict) and result.get("winner") == claimed
        claimed_reason = str(res.meta.get("reason"))
        kind = REASON_KINDS.get(claimed_reason, claimed_reason)
        same = same and bool(result) and reason_kind(result) == kind  # type: ignore[arg-type]
        codes = {x["code"] for x in rec["findings"]}  # type: ignore[union-attr]
        if same:
            ending_ok += 1
        elif codes & {
            "result_mismatch",
            "reason_mismatch",
            "importer_unknown_reason",
            "importer_deck_out_turn",
        }:
            explained += 1
        else:
            print(
                f"  NOT explained: {f.name}: result {result} vs the log's {claimed} {res.meta.get('reason')}"
            )
        knockouts = rec["knockouts"]
        kos += len(knockouts)  # type: ignore[arg-type]
        verified += sum(1 for k in knockouts if k["verified"])  # type: ignore[union-attr]
        silent += sum(1 for x in rec["findings"] if x["code"] == "card_count")  # type: ignore[union-attr]
        # the client bug: headers without the player's name
        bugged = without_names(text)
        if bugged is not None:
            res2 = parse_ptcgl(bugged, match="bug", filename=f.name)
            _, rec2 = replay_record(res2.events)

            def prizes(events: list[dict[str, object]]) -> list[tuple[object, object]]:
                return [(e["player"], e["count"]) for e in events if e["type"] == "prize_taken"]

            header_logs += 1

            def outcome(r: dict[str, object]) -> tuple[object, ...]:
                got = r["result"] or {}
                assert isinstance(got, dict)
                return (got.get("winner"), got.get("reason"), r["agrees"])

            header_ok += prizes(res2.events) == prizes(res.events) and outcome(rec2) == outcome(rec)
    pct = 100 * read / lines if lines else 100.0
    where = ", ".join(str(d.relative_to(ROOT) if d.is_relative_to(ROOT) else d) for d in folders)
    print(f"real logs: {logs} ({where})")
    print(f"  lines read by a client sentence: {read}/{lines} = {pct:.2f} %  (target >= 99.5 %)")
    print(f"  lines only partly read (a vaguer sentence read them, importer_partly_read): {partly}")
    print(
        f"  ending with the log's winner and reason: {ending_ok}/{logs}; with a finding explaining the "
        f"difference: {explained}; unexplained: {logs - ending_ok - explained}  (target 0 unexplained)"
    )
    print(f"  knockouts verified from HP (audit.basis hp): {verified}/{kos}")
    print(
        f"  silent guesses (cards moved that the log never showed, card_count findings): {silent}  (target 0)"
    )
    print(f"  cards the log moves without showing where from (importer_count_unknown, said so): {unknown}")
    print(f"  [playerName]'s Turn headers: {header_ok}/{header_logs} logs keep every prize pickup and result")
    ok = pct >= 99.5 and logs - ending_ok - explained == 0 and header_ok == header_logs
    print(f"  targets: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


def issue35_targets(folders: list[Path]) -> int:
    """The issue-35 targets, per log: the winner and the reason right (the replay's result, strictly: a
    finding that explains a difference does not count), every knockout verified from HP (a log with no
    knockout counts as verified), and the lines no sentence read (unmatched; partly read ones apart)."""
    files = sorted(f for d in folders for f in d.glob("*.txt"))
    right = all_hp = lines = unread = partly = 0
    print(f"issue-35 targets over {len(files)} real logs:")
    for f in files:
        text = f.read_text("utf-8-sig")
        res = parse_ptcgl(text, match="real", filename=f.name)
        _, rec = replay_record(res.events)
        result = rec["result"] or {}
        assert isinstance(result, dict)
        claimed = str(res.meta.get("reason"))
        ok = bool(result) and result.get("winner") == res.meta.get("winner")
        ok = ok and reason_kind(result) == REASON_KINDS.get(claimed, claimed)
        kos = rec["knockouts"]
        assert isinstance(kos, list)
        hp = all(k["verified"] for k in kos)
        n = sum(1 for ln in text.splitlines() if ln.strip())
        lines, unread, partly = lines + n, unread + len(res.unmatched), partly + len(res.partly)
        right, all_hp = right + ok, all_hp + hp
        verified = sum(1 for k in kos if k["verified"])
        print(
            f"  {f.name}: winner and reason {'right' if ok else 'WRONG'} ({result.get('winner')} "
            f"{result.get('reason')}; the log: {res.meta.get('winner')} {claimed}); knockouts verified "
            f"{verified}/{len(kos)}; lines unread {len(res.unmatched)}/{n}"
        )
    logs = len(files) or 1
    pct_hp, pct_unread = 100 * all_hp / logs, 100 * unread / (lines or 1)
    print(f"  winner and reason right: {right}/{len(files)}  (target: every log)")
    print(
        f"  logs with every knockout verified from HP: {all_hp}/{len(files)} = {pct_hp:.0f} %"
        "  (target >= 90 %)"
    )
    print(f"  lines unread: {unread}/{lines} = {pct_unread:.2f} %  (target <= 0.1 %); partly read: {partly}")
    ok = right == len(files) and pct_hp >= 90 and pct_unread <= 0.1
    print(f"  targets: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


def memory_bound() -> None:
    """The import's memory, each run in a fresh interpreter: the largest log it accepts (4 MiB of real-log
    lines, turns repeated) imported in full, and a 60 MB file given to ``prizecheck import ptcgl``."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        real = (REAL / "en_slowking-vs-beedrill.txt").read_text("utf-8")
        lines = real.splitlines()
        i = lines.index("cdierkens's Turn")
        j = next(k for k, ln in enumerate(lines) if ln.endswith(" wins."))
        body = "\n".join(lines[i:j])
        for size in (4 * 1024 * 1024 - 4096, 60 * 1000 * 1000):
            path = Path(tmp) / f"log-{size}.txt"
            with path.open("w", encoding="utf-8") as fh:
                fh.write("\n".join(lines[:i]) + "\n")
                for _ in range(max(1, size // (len(body.encode()) + 1))):
                    fh.write(body + "\n")
                fh.write(lines[j] + "\n")
            code = (
                "import resource, sys, time\n"
                "from replay.cli import main\n"
                "t0 = time.perf_counter()\n"
                "rc = main(['import', 'ptcgl', '-q', sys.argv[1], '-o', sys.argv[1] + '.jsonl'])\n"
                "print(rc, round(time.perf_counter() - t0, 1),"
                " resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\n"
            )
            run = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
            rc, secs, peak = run.stdout.split()
            what = (
                "imported"
                if rc == "0"
                else f"refused (exit {rc}): " + run.stderr.strip().splitlines()[-1][-90:]
            )
            print(
                f"  {path.stat().st_size / 1e6:5.1f} MB log: {what}; {secs} s, peak {peak} MB (limit 300 MB)"
            )


def catalogue_load(runs: int = 5) -> None:
    """The packaged catalogue's load (issue 19: under 100 ms), best of ``runs``, beside the old load
    measured on the same file in the same run: every record decoded and every name, attack and Ability
    indexed in every language, as the catalogue was read before it became lazy."""

    def new() -> None:
        load_catalogue()

    def old() -> None:
        db = load_catalogue()
        by_name: dict[str, dict[str, list[int]]] = {lang: {} for lang in LANGUAGES}
        moves: dict[str, dict[str, set[str]]] = {lang: {} for lang in LANGUAGES}
        abilities: dict[str, dict[str, set[str]]] = {lang: {} for lang in LANGUAGES}
        for i, info in enumerate(db.cards()):
            for lang, name in info.names.items():
                if lang not in by_name:
                    continue
                k = _key(name)
                by_name[lang].setdefault(k, []).append(i)
                for a in info.attacks:
                    if lang in a:
                        moves[lang].setdefault(k, set()).add(_key(a[lang]))
                for b in info.abilities:
                    if lang in b:
                        abilities[lang].setdefault(k, set()).add(_key(b[lang]))

    t_new, t_old = best_of(runs, new), best_of(runs, old)
    print(
        f"card catalogue load: {t_new * 1e3:.1f} ms (target < 100 ms: {'met' if t_new < 0.1 else 'NOT met'});"
        " "
        f"the old load (every record decoded and indexed) {t_old * 1e3:.1f} ms, {t_old / t_new:.1f}x"
    )


# the baseline's regex: one pass that finds each line's leading handle (what any line classifier must do)
SCAN = re.compile(r"^(?:- )?(\S+?)(?:'s)? ")


def one_alternation(sen: Sentences) -> re.Pattern[str]:
    """Every template of one language in one regex, most specific first, each its own named group (the
    issue-40 idea of dispatching on the group that matched), to measure against the word index."""
    alts = []
    for i in sorted(range(len(sen.templates)), key=sen.rank.__getitem__):
        # each template's groups renamed apart: (?P<name>...) and (?P=name) -> t<i>_name
        p = re.sub(r"\(\?P([<=])(\w+)", rf"(?P\1t{i}_\2", sen.templates[i].pattern)
        alts.append(f"(?P<t{i}>{p})")
    return re.compile("|".join(alts))


def best_of(runs: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        t0 = time.process_time()  # CPU time: on a shared machine, what another process's load changes least
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logs", type=int, default=200)
    ap.add_argument("--lines", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--real", type=Path, action="append", default=[], help="another folder of real logs")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory-bound runs")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    catalogue_load()
    status = real_targets([REAL, *args.real])
    status |= issue35_targets([REAL, *args.real])
    if not args.no_memory:
        print("memory bound (a fresh interpreter each; limit 300 MB):")
        memory_bound()

    corpus: list[tuple[str, Catalogue]] = []
    seed = args.seed
    while len(corpus) < args.logs:
        text, hp, _, _ = synthetic_log(seed, target_lines=args.lines)
        seed += 1
        if len(text.splitlines()) >= args.lines * 0.9:  # keep logs near the target size
            corpus.append((text, Catalogue(hp=hp)))
    nlines = sum(len(t.splitlines()) for t, _ in corpus)
    per = nlines / len(corpus)
    print(f"corpus: {len(corpus)} generated logs, {per:.0f} lines/log on average, {nlines} lines")

    def split_only() -> None:
        for text, _ in corpus:
            text.splitlines()

    def regex_scan() -> None:
        match = SCAN.match
        for text, _ in corpus:
            for line in text.splitlines():
                match(line)

    events_total = 0

    def import_only() -> None:
        for i, (text, _) in enumerate(corpus):
            parse_ptcgl(text, match=f"b{i}", catalogue=False)

    def import_and_replay(with_hp: bool) -> Callable[[], None]:
        def run() -> None:
            nonlocal events_total
            events_total = 0
            for i, (text, cat) in enumerate(corpus):
                res = parse_ptcgl(text, match=f"b{i}", cards=cat if with_hp else None, catalogue=False)
                game = Game()
                for ev in res.events:
                    game.apply(ev)
                game.record()
                events_total += len(res.events)

        return run

    # the sentences alone: every line of the corpus (headers and card lists aside) read by the English
    # table as classify reads it, and by one alternation of the whole table (issue 40 item 2)
    sen = Sentences.for_language("en")
    body = [
        s[2:] if s.startswith("- ") else s
        for text, _ in corpus
        for raw in normalise(text)
        if (s := raw.strip()) and not s.startswith("•")
    ]
    every = one_alternation(sen)

    def sentences() -> None:
        sen._seen.clear()  # each run from an empty memo (Sentences.match keeps each line's reading)
        for s in body:
            sen.match(s)

    def alternation() -> None:
        for s in body:
            every.fullmatch(s)

    t_split = best_of(args.runs, split_only)
    t_scan = best_of(args.runs, regex_scan)
    t_sen = best_of(args.runs, sentences)
    t_alt = best_of(args.runs, alternation)
    t_import = best_of(args.runs, import_only)
    t_full = best_of(args.runs, import_and_replay(False))
    t_full_hp = best_of(args.runs, import_and_replay(True))
    n = len(corpus)

    def row(label: str, t: float, base: float | None = None) -> None:
        ratio = f"  {t / base:6.1f}x the regex scan" if base else ""
        print(f"{label:<44} {t / n * 1e3:7.3f} ms/log  {nlines / t:>12,.0f} lines/s{ratio}")

    row("baseline: split into lines", t_split)
    row("baseline: split + one regex per line", t_scan)
    print(
        f"{'the sentences alone (Sentences.match)':<44} {len(body) / t_sen:>27,.0f} lines/s  "
        f"(one alternation of the table: {len(body) / t_alt:,.0f} lines/s, {t_alt / t_sen:.1f}x slower)"
    )
    row("parse_ptcgl (events + findings)", t_import, t_scan)
    row("parse_ptcgl + replay + record (no HP)", t_full, t_scan)
    row("parse_ptcgl + replay + record (HP catalogue)", t_full_hp, t_scan)
    print(f"events per log: {events_total / n:.0f}")

    # One 400-line log, timed alone many times: the issue's figure.
    text, cat = max(corpus, key=lambda c: len(c[0].splitlines()))
    size = len(text.splitlines())
    one: list[float] = []
    for _ in range(50):
        t0 = time.process_time()
        res = parse_ptcgl(text, match="one", cards=cat, catalogue=False)
        game = Game()
        for ev in res.events:
            game.apply(ev)
        game.record()
        one.append(time.process_time() - t0)
    med = statistics.median(one)
    base_one = best_of(50, lambda: [SCAN.match(line) for line in text.splitlines()])
    print(
        f"one {size}-line log imported and replayed: median {med * 1e3:.2f} ms, best {min(one) * 1e3:.2f} ms "
        f"(regex scan of the same text {base_one * 1e3:.3f} ms, ratio {med / base_one:.0f}x)"
    )
    print(
        f"target: a 400-line log imported and replayed in under 10 ms: {'met' if med < 0.010 else 'NOT met'}"
    )
    return status


if __name__ == "__main__":
    sys.exit(main())
