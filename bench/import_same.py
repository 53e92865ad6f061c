"""The PTCGL importer's output, this checkout's against the code before, byte for byte (issue 40 item 2).

    python bench/import_same.py --before DIR [--logs 200] [--sims 60] [--keep FOLDER]

A change made for speed must not change what the importer writes. This writes one corpus of battle logs
into a folder: every log under tests/data/ptcgl (real exports in seven languages, the fixtures), ``--logs``
generated English logs (replay/generators/synthetic.py, each also translated into German and French) and
``--sims`` simulated games with same-named Pokémon printed as the client prints them
(tests/sources/ptcgl_render.py, the round-trip test's games: twins, guesses and their corrections). Then
``parse_ptcgl`` reads every log once in a process running this checkout's code and once in a process
running DIR's (DIR first on the path, run in DIR), each writing every log's events, findings, unread and
partly read lines, metadata (or the error it raised) as JSON; the two outputs are compared byte for byte and
the first difference is printed. Not a timing: nothing here is timed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "data" / "ptcgl"


def write_corpus(folder: Path, logs: int, sims: int) -> int:
    """The corpus's files in ``folder`` (this checkout's generators); how many."""
    sys.path[:0] = [str(ROOT)]
    from replay.generators import simulate
    from replay.generators.synthetic import synthetic_log, translate_log
    from tests.sources.ptcgl_render import render

    n = 0
    for path in sorted(FIXTURES.rglob("*.txt")):
        (folder / f"fixture-{n:03d}-{path.name}").write_bytes(path.read_bytes())
        n += 1
    for seed in range(1, logs + 1):
        text = synthetic_log(seed, target_lines=300)[0]
        (folder / f"synthetic-{seed:04d}-en.txt").write_text(text, "utf-8")
        n += 1
        if seed % 10 == 0:  # a sample in two other languages
            for code in ("de", "fr"):
                (folder / f"synthetic-{seed:04d}-{code}.txt").write_text(translate_log(text, code), "utf-8")
                n += 1
    for seed in range(sims):
        for scenario in ("prizes", "no_pokemon"):
            events = simulate.simulate_series(seed, f"rt-{seed}", scenario=scenario)[0]
            text = render(events)
            if text is not None:
                (folder / f"sim-{seed:04d}-{scenario}.txt").write_text(text, "utf-8")
                n += 1
    return n


def dump(folder: Path, out: Path) -> None:
    """Every log of ``folder`` through ``parse_ptcgl`` (the code first on the path), as JSON Lines."""
    import replay
    from replay.engine import InputError
    from replay.sources.ptcgl import parse_ptcgl

    if not Path(replay.__file__).resolve().is_relative_to(Path.cwd().resolve()):
        raise SystemExit(f"the code run is {replay.__file__}, not the code in {Path.cwd()}")

    with out.open("w", encoding="utf-8") as fh:
        for path in sorted(folder.iterdir()):
            text = path.read_text("utf-8", errors="replace")
            for partial in (False, True):
                try:
                    res = parse_ptcgl(text, match="m1", filename=path.name, partial=partial)
                except InputError as e:
                    row: object = {"error": str(e)}
                else:
                    row = {
                        "events": res.events,
                        "findings": [f.as_dict() for f in res.findings],
                        "unmatched": res.unmatched,
                        "partly": res.partly,
                        "meta": res.meta,
                    }
                fh.write(json.dumps({"log": path.name, "partial": partial, "out": row}, ensure_ascii=False))
                fh.write("\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", metavar="DIR", help="the code before (a `git archive` export)")
    ap.add_argument("--logs", type=int, default=200)
    ap.add_argument("--sims", type=int, default=60)
    ap.add_argument("--keep", type=Path, help="keep the corpus and both outputs in this folder")
    ap.add_argument("--dump", nargs=2, metavar=("CORPUS", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.dump:
        dump(Path(args.dump[0]), Path(args.dump[1]))
        return 0
    if not args.before:
        ap.error("--before DIR is needed")
    with tempfile.TemporaryDirectory(prefix="pcbench-same-") as tmp:
        work = args.keep or Path(tmp)
        corpus = work / "corpus"
        corpus.mkdir(parents=True, exist_ok=True)
        n = write_corpus(corpus, args.logs, args.sims)
        outputs = []
        for name, code in (("after", ROOT), ("before", Path(args.before).resolve())):
            out = work / f"{name}.jsonl"
            env = {**os.environ, "PYTHONPATH": str(code), "PYTHONHASHSEED": "0"}
            script = str(Path(__file__).resolve())
            cmd = [sys.executable, script, "--dump", str(corpus), str(out)]
            subprocess.run(cmd, env=env, cwd=code, check=True)
            outputs.append(out.read_bytes())
        after, before = outputs
        print(f"{n} logs, each read whole and --partial: {len(after):,} bytes of output after, "
              f"{len(before):,} before")  # fmt: skip
        if after == before:
            print("the same, byte for byte")
            return 0
        for a, b in zip(after.splitlines(), before.splitlines(), strict=False):
            if a != b:
                log = json.loads(a)["log"]
                i = next(i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
                print(f"DIFFERENT, first in {log}: after ...{a[max(0, i - 200) : i + 200]!r}")
                print(f"                      before ...{b[max(0, i - 200) : i + 200]!r}")
                break
        else:
            print("DIFFERENT: one output has more lines")
        return 1


if __name__ == "__main__":
    sys.exit(main())
