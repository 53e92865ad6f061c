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
    start = Stream().events[0]
    far = {"match": "m1", "seq": 10**12, "type": "note", "text": "far away"}
    for name, data in (("g.jsonl", encode_jsonl([start, far])), ("g.msgpack", encode_msgpack([start, far]))):
        path = tmp_path / name
        path.write_bytes(data)
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
        assert record["findings"][0]["message"] == f"events 2..{10**12 - 1} are missing before seq {10**12}"
