"""Importer benchmark: generated PTCGL battle logs imported and replayed, against a plain scan, in one run.

    python bench/importers.py [--logs 200] [--lines 400] [--seed 1] [--runs 5]

Prints, for a corpus of generated ~400-line logs (replay/sources/synthetic.py, never real players'
logs): (a) the baselines on the same text: splitting into lines, and one compiled regex over every line;
(b) parse_ptcgl alone; (c) parse_ptcgl + Game.apply of every event + the record; per log (ms) and lines/s,
with the ratios to the baselines. Pinned to one core. Target (issue 3): a 400-line log imported and
replayed in under 10 ms. These machines are noisy: read the ratios, measured in the same run.
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

from replay import Game
from replay.sources.cards import Catalogue
from replay.sources.ptcgl import parse_ptcgl
from replay.sources.synthetic import synthetic_log

# the baseline's regex: one pass that finds each line's leading handle (what any line classifier must do)
SCAN = re.compile(r"^(?:- )?(\S+?)(?:'s)? ")


def best_of(runs: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logs", type=int, default=200)
    ap.add_argument("--lines", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

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
            parse_ptcgl(text, match=f"b{i}")

    def import_and_replay(with_hp: bool) -> Callable[[], None]:
        def run() -> None:
            nonlocal events_total
            events_total = 0
            for i, (text, cat) in enumerate(corpus):
                res = parse_ptcgl(text, match=f"b{i}", cards=cat if with_hp else None)
                game = Game()
                for ev in res.events:
                    game.apply(ev)
                game.record()
                events_total += len(res.events)

        return run

    t_split = best_of(args.runs, split_only)
    t_scan = best_of(args.runs, regex_scan)
    t_import = best_of(args.runs, import_only)
    t_full = best_of(args.runs, import_and_replay(False))
    t_full_hp = best_of(args.runs, import_and_replay(True))
    n = len(corpus)

    def row(label: str, t: float, base: float | None = None) -> None:
        ratio = f"  {t / base:6.1f}x the regex scan" if base else ""
        print(f"{label:<44} {t / n * 1e3:7.3f} ms/log  {nlines / t:>12,.0f} lines/s{ratio}")

    row("baseline: split into lines", t_split)
    row("baseline: split + one regex per line", t_scan)
    row("parse_ptcgl (events + findings)", t_import, t_scan)
    row("parse_ptcgl + replay + record (no HP)", t_full, t_scan)
    row("parse_ptcgl + replay + record (HP catalogue)", t_full_hp, t_scan)
    print(f"events per log: {events_total / n:.0f}")

    # One 400-line log, timed alone many times: the figure.
    text, cat = max(corpus, key=lambda c: len(c[0].splitlines()))
    size = len(text.splitlines())
    one: list[float] = []
    for _ in range(50):
        t0 = time.perf_counter()
        res = parse_ptcgl(text, match="one", cards=cat)
        game = Game()
        for ev in res.events:
            game.apply(ev)
        game.record()
        one.append(time.perf_counter() - t0)
    med = statistics.median(one)
    base_one = best_of(50, lambda: [SCAN.match(line) for line in text.splitlines()])
    print(
        f"one {size}-line log imported and replayed: median {med * 1e3:.2f} ms, best {min(one) * 1e3:.2f} ms "
        f"(regex scan of the same text {base_one * 1e3:.3f} ms, ratio {med / base_one:.0f}x)"
    )
    print(
        f"target: a 400-line log imported and replayed in under 10 ms: {'met' if med < 0.010 else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
