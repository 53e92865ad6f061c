"""What ``parse_ptcgl`` reads from a corpus of battle logs, as one digest a log and mode.

``python -m tests.sources.ptcgl_outputs --pure`` prints the digests of the plain-Python importer (its compiled
modules hidden: tools/pure_engine.py ``use_pure_importer``), and tests/sources/test_ptcgl_compiled.py
compares them with the digests of the importer it imports. A digest covers every event, finding, unread and
partly read line and the metadata, or the error raised. The corpus: every log under tests/data/ptcgl (real
exports in seven languages, the fixtures) and generated English logs, some translated into German and French.
"""

from __future__ import annotations

import hashlib
import json
import sys


def corpus(generated: int = 24) -> list[tuple[str, str]]:
    """(name, text) of every log of the corpus."""
    from replay.generators.synthetic import synthetic_log, translate_log
    from tests.paths import ROOT

    logs = [
        (p.name, p.read_text("utf-8")) for p in sorted((ROOT / "tests" / "data" / "ptcgl").rglob("*.txt"))
    ]
    for seed in range(1, generated + 1):
        text = synthetic_log(seed, target_lines=300)[0]
        logs.append((f"synthetic-{seed}", text))
        if seed % 8 == 0:
            logs += [(f"synthetic-{seed}-{code}", translate_log(text, code)) for code in ("de", "fr")]
    return logs


def digests() -> list[str]:
    """One digest per log of ``corpus()``, read whole and then ``partial``."""
    from replay.engine import InputError
    from replay.sources.ptcgl import parse_ptcgl

    out = []
    for name, text in corpus():
        for partial in (False, True):
            try:
                res = parse_ptcgl(text, match="m1", filename=name, partial=partial)
            except InputError as e:
                row: object = {"error": str(e)}
            else:
                row = [res.events, [f.as_dict() for f in res.findings], res.unmatched, res.partly, res.meta]
            out.append(hashlib.sha256(json.dumps(row, ensure_ascii=False).encode()).hexdigest())
    return out


def main() -> int:
    if "--pure" in sys.argv:
        from tools.pure_engine import use_pure_importer

        use_pure_importer()
    import replay.sources.ptcgl.walk

    print(json.dumps({"walk_module": replay.sources.ptcgl.walk.__file__, "digests": digests()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
