"""Card catalogue benchmark: the packaged ``cards.bin`` beside a baseline catalogue, in the same run.

    python bench/catalogue.py [--baseline REV] [--runs 21]

The baseline is ``replay/sources/cards.bin`` as committed at REV (default ``6fde23a``: the last catalogue
without Japanese and Korean printings, issue 34, in the format ``prizecheck-cards/2``, whose load decoded
every language's names and the printings' ids at once: :func:`load_v2` does what its reader did). Prints
each file's size and its load, median of ``runs`` loads taken in turn so that both see the same machine:
the packaged file's load alone (the printings' ids), with the English names (what an English log's import
pays) and with every language's names (what the console's type-ahead pays, once); then the type-ahead: the
first search (it folds every name once) and the next ones (kana, hangul, kanji). These machines are noisy:
read the ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from replay.sources.cards import CardDatabase

ROOT = Path(__file__).resolve().parent.parent
PACKAGED = ROOT / "replay" / "sources" / "cards.bin"


def load_v2(data: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the ``prizecheck-cards/2`` reader did at load: the header, then the one index part (every
    language's names and every printing's id)."""
    end = data.index(b"\n", len(b"prizecheck-cards/2\n"))
    head = json.loads(data[len(b"prizecheck-cards/2\n") : end])
    at, n = head["index"]
    index: dict[str, Any] = msgspec.json.decode(zlib.decompress(data[end + 1 + at : end + 1 + at + n]))
    return head, index


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
    data = PACKAGED.read_bytes()

    def english() -> None:
        CardDatabase(data).by_name["en"]

    def every() -> None:
        db = CardDatabase(data)
        for lang in db.by_name:
            db.by_name[lang]

    loads: dict[str, Callable[[], object]] = {
        f"baseline ({args.baseline}) load": lambda: load_v2(base),
        "packaged load": lambda: CardDatabase(data),
        "packaged load + English names": english,
        "packaged load + every language's names": every,
    }
    times: dict[str, list[float]] = {k: [] for k in loads}
    for _ in range(args.runs):
        for name, load in loads.items():
            t = time.perf_counter()
            load()
            times[name].append(time.perf_counter() - t)
    first = statistics.median(times[next(iter(loads))])
    head, index = load_v2(base)
    db = CardDatabase(data)
    print(f"baseline: {len(base) / 1e6:.2f} MB, {head['count']} cards, {len(index['prints'])} printings")
    print(f"packaged: {len(data) / 1e6:.2f} MB, {db.count} cards, {len(db.prints)} printings")
    for name, ts in times.items():
        ms = statistics.median(ts)
        print(f"{name}: {ms * 1e3:.1f} ms ({ms / first:.2f}x the baseline's load)")
    tracemalloc.start()
    kept: object = load_v2(base)
    held_base = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept
    tracemalloc.start()
    db = CardDatabase(data)
    db.by_name["en"]
    held_en = tracemalloc.get_traced_memory()[0]
    for lang in db.by_name:
        db.by_name[lang]
    held_all = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    print(
        f"index memory: baseline {held_base / 1e6:.1f} MB; packaged with the English names "
        f"{held_en / 1e6:.1f} MB, with every language's {held_all / 1e6:.1f} MB"
    )
    db = CardDatabase(data)
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
