"""Fuzz the canonical-MessagePack scanner of ``replay/engine/_link.c`` with libFuzzer, ASan and UBSan.

    apt-get install clang libclang-rt-14-dev     # once (Debian)
    python tools/fuzz_canonical.py [--seconds 150]

The scanner reads Kafka message values, which are untrusted input, in C. This builds it without Python
(the functions between ``#define MAX_DEPTH`` and ``canonical_``), seeds a corpus with simulated events in
canonical and in insertion-order MessagePack, and runs libFuzzer; a memory error or undefined behaviour
stops it with a report. Not part of ``make test`` (it needs clang's fuzzer runtime and minutes).
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
HARNESS = """#include <stddef.h>
#include <stdint.h>
#include <string.h>
{scanner}
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{{
    cursor c;
    c.p = data;
    c.end = data + size;
    (void)(check_value(&c, 0) && c.p == c.end);
    return 0;
}}
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=150)
    args = ap.parse_args()
    if shutil.which("clang") is None:
        print("clang not found: apt-get install clang libclang-rt-14-dev", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    import msgpack

    from replay.engine import canonical_bytes
    from replay.generators.simulate import simulate_corpus

    source = (ROOT / "replay" / "engine" / "_link.c").read_text("utf-8")
    scanner = source[source.index("#define MAX_DEPTH") : source.index("static PyObject *\ncanonical_(")]
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        (work / "fuzz.c").write_text(HARNESS.format(scanner=scanner), "utf-8")
        build = ["clang", "-g", "-O1", "-fsanitize=fuzzer,address,undefined"]
        build += ["-fno-sanitize-recover=undefined", "fuzz.c", "-o", "fuzz"]
        subprocess.run(build, cwd=work, check=True)
        corpus = work / "corpus"
        corpus.mkdir()
        n = 0
        for stream in simulate_corpus(5, 1):
            for event in stream[:40]:
                (corpus / f"c{n}").write_bytes(canonical_bytes(event))
                (corpus / f"m{n}").write_bytes(msgpack.packb(event))
                n += 1
        run = ["./fuzz", f"-max_total_time={args.seconds}", "-max_len=512", "corpus"]
        return subprocess.run(run, cwd=work).returncode


if __name__ == "__main__":
    sys.exit(main())
