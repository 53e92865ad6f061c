"""Card catalogue benchmark: the packaged ``cards.bin`` beside a baseline catalogue, in the same run.

    python bench/catalogue.py [--baseline REV] [--runs 21]

The baseline is ``replay/sources/cards.bin`` as committed at REV (default ``6fde23a``: the last catalogue
without Japanese and Korean printings, issue 34). Prints each file's size, its load (the index only: what
``card_database()`` costs a process once), median of ``runs`` loads taken in turn so that both see the same
machine, and the memory its index holds; then, for the packaged file, the console's type-ahead: the first
search (it folds every name once) and the next ones (kana, hangul, kanji). These machines are noisy: read
the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
import tracemalloc
from pathlib import Path

from replay.sources.cards import CardDatabase

ROOT = Path(__file__).resolve().parent.parent
PACKAGED = ROOT / "replay" / "sources" / "cards.bin"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", default="6fde23a", help="a git revision whose cards.bin is the baseline")
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    base = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{args.baseline}:replay/sources/cards.bin"],
        capture_output=True,
        check=True,
    ).stdout
    files = {f"baseline ({args.baseline})": base, "packaged": PACKAGED.read_bytes()}
    times: dict[str, list[float]] = {k: [] for k in files}
    for _ in range(args.runs):
        for name, data in files.items():
            t = time.perf_counter()
            CardDatabase(data)
            times[name].append(time.perf_counter() - t)
    loads = {k: statistics.median(v) for k, v in times.items()}
    for name, data in files.items():
        tracemalloc.start()
        db = CardDatabase(data)
        held = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        print(
            f"{name}: {len(data) / 1e6:.2f} MB, {db.count} cards, {len(db.prints)} printings, "
            f"languages {','.join(db.by_name)}; load {loads[name] * 1e3:.1f} ms, index {held / 1e6:.1f} MB"
        )
    first, packaged = list(loads)
    print(
        f"packaged / baseline: size {len(files[packaged]) / len(files[first]):.2f}x, "
        f"load {loads[packaged] / loads[first]:.2f}x"
    )
    db = CardDatabase(files[packaged])
    t = time.perf_counter()
    db.search("ぴか")
    once = time.perf_counter() - t
    queries = ("ぴかちゅう", "ピカチュウ", "ﾋﾟｶﾁｭｳ", "피카츄", "研究", "char", "Pika")
    t = time.perf_counter()
    for q in queries * 10:
        db.search(q)
    each = (time.perf_counter() - t) / (len(queries) * 10)
    print(f"type-ahead: first search {once * 1e3:.0f} ms (folds every name once), then {each * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
