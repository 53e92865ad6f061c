"""The PTCGL importer compiles one language's sentences, when a log in that language is met (issue 40 item
2): importing the package compiled every language's ~230 templates (0.3 s of a 0.55 s `import ptcgl`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import ROOT

PROBE = """
import sys
from replay.sources.ptcgl.sentences import Sentences
import replay.sources.intake
import replay.sources.ptcgl as ptcgl
print(Sentences.for_language.cache_info().currsize)
ptcgl.parse_ptcgl(open(sys.argv[1], encoding="utf-8").read(), match="m")
print(Sentences.for_language.cache_info().currsize)
"""


@pytest.mark.parametrize(("log", "most"), [("deck_out.txt", 1), ("lang_fr.txt", 2)])
def test_a_log_compiles_its_own_language_only(log: str, most: int) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(ROOT / "tests" / "data" / "ptcgl" / log)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    at_import, after = map(int, done.stdout.split())
    assert at_import == 0  # nothing compiled by importing the importer
    assert 1 <= after <= most  # its language (French logs share English headers: a tie may compile both)
