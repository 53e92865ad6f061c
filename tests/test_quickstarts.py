"""The quick starts of docs/quickstart/ (a judge, a stream operator, an organiser; all three in Japanese and
in Korean), run as written (issue 31 item 10): every ``sh`` block of each page as one script, in a scratch
directory, with this checkout's ``.venv/bin`` on PATH, as a newcomer would paste it.

A ``prizecheck serve`` line cannot run to the end of a script: it is run until it listens (on a free port,
whatever the page says), its first page is fetched, and it is stopped with Ctrl-C; what it printed is
checked for the token sentence the page tells the reader to look for.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT
from tests.test_readme import readme_blocks

BIN = Path(sys.executable).parent
PAGES = sorted((ROOT / "docs" / "quickstart").glob("*.md"))

# Stands for `prizecheck serve ARGS`: serve until it listens, fetch /ui, Ctrl-C; exit 0 only if all went
# well. Its stderr (the token lines) is kept in serve.stderr in the block's directory.
SERVE = r"""
prizecheck_serve() {
  python - "$@" <<'PY'
import os, signal, subprocess, sys, urllib.request
proc = subprocess.Popen(["prizecheck", "serve", *sys.argv[1:], "--port", "0"], stdout=subprocess.PIPE,
                        stderr=open("serve.stderr", "w"), text=True, start_new_session=True)
try:
    line = proc.stdout.readline()
    assert "listening on http://" in line, line
    url = line.split("listening on ")[1].split()[0].replace("0.0.0.0", "127.0.0.1")
    with urllib.request.urlopen(url + "/ui", timeout=30) as answer:
        assert answer.status == 200
finally:
    os.killpg(proc.pid, signal.SIGINT)
    code = proc.wait(timeout=60)
sys.exit(code)
PY
}
"""


def test_there_is_a_quick_start_for_each_user() -> None:
    # and one for all three in Japanese and in Korean (issue 34 item 7)
    assert {p.stem for p in PAGES} == {"judge", "streamer", "organiser", "ja", "ko"}
    for page in PAGES:
        assert readme_blocks(page), page.name
        for block in readme_blocks(page):
            assert block[0] == 'PATH="$PWD/.venv/bin:$PATH"; cd "$(mktemp -d)"', (page.name, block[0])


@pytest.mark.redis
@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_a_quick_start_runs_as_written(page: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("PRIZECHECK_")}
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env["TMPDIR"] = str(scratch)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".venv").symlink_to(BIN.parent)
    for block in readme_blocks(page):
        lines = [re.sub(r"^prizecheck serve\b", "prizecheck_serve", line) for line in block]
        script = "set -e\n" + SERVE + "\n".join(lines) + "\n"
        done = subprocess.run(
            ["bash", "-c", script], cwd=checkout, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, (page.name, block, done.stderr[-2000:])
        assert "Traceback" not in done.stderr, (page.name, block)
    assert sorted(p.name for p in checkout.iterdir()) == [".venv"]  # nothing left in the checkout
    served = [p.read_text() for p in scratch.glob("*/serve.stderr")]
    if page.stem in ("ja", "ko"):  # the judge's serve (a token made first) and the stream operator's (none)
        assert any("configured token(s)" in text for text in served)
        assert any("local admin token for this run" in text for text in served)
    if page.stem == "judge":  # a token was made first: serve says so, and how to get another
        assert served and "configured token(s)" in served[0]
    if page.stem == "streamer":  # the first block's serve makes the local admin token it mentions
        assert any("local admin token for this run" in text for text in served)
        assert any("configured token(s)" in text for text in served)  # the second's, on 0.0.0.0
