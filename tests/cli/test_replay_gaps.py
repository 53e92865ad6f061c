"""``prizecheck replay`` of a file whose second event has a huge seq: one gap, bounded memory."""

from __future__ import annotations

import json
import pathlib
import resource
import subprocess
import sys

from replay.codec import encode_jsonl, encode_msgpack
from tests.builder import Stream

LIMIT = 1 << 30  # bytes of address space for the whole process: far more than a replay needs


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def test_replay_of_a_two_line_file_with_a_huge_seq(tmp_path: pathlib.Path) -> None:
    """A seq beyond the contract's limit is refused at the edge, naming it; the largest one it allows
    leaves a gap of almost all of it, which costs one range (the engine's own test,
    tests/engine/test_stream.py, hands it seqs far beyond)."""
    start = Stream().events[0]
    too_far = {"match": "m1", "seq": 10**12, "type": "note", "text": "far away"}
    far = {"match": "m1", "seq": 100_000, "type": "note", "text": "far away"}
    for name, encode in (("g.jsonl", encode_jsonl), ("g.msgpack", encode_msgpack)):
        path = tmp_path / name
        path.write_bytes(encode([start, too_far]))
        p = subprocess.run(
            [sys.executable, "-m", "replay.cli", "replay", "--json", str(path)],
            capture_output=True,
            timeout=120,
            preexec_fn=_limited,
        )
        assert p.returncode == 2 and b"field seq" in p.stderr and b"100000" in p.stderr, p.stderr
        path.write_bytes(encode([start, far]))
        p = subprocess.run(
            [sys.executable, "-m", "replay.cli", "replay", "--json", str(path)],
            capture_output=True,
            timeout=120,
            preexec_fn=_limited,
        )
        assert p.returncode == 0, p.stderr.decode()[-2000:]
        record = json.loads(p.stdout)
        assert record["chain"]["events"] == 2
        assert [f["code"] for f in record["findings"]] == ["seq_gap"]
        assert record["findings"][0]["message"] == "events 2..99999 are missing before seq 100000"
