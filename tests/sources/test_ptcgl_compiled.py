"""The PTCGL importer's walk compiled by mypyc (``make compile``, tools/compile_engine.py's importer part) is
the one imported, is current, and reads exactly what the same code reads as plain Python.

``make install`` builds the importer's hot modules in place, as it builds the engine's; without them the same
``.py`` files run as plain Python. ``make test`` sets PRIZECHECK_EXPECT_COMPILED=1, so a build that silently
did not happen fails here instead of testing the pure importer twice.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

from replay.sources import table
from replay.sources.ptcgl import importer, lines
from tests.compiled import assert_current_and_imported, manifest
from tests.paths import ROOT

MANIFEST = ROOT / "replay" / "sources" / "ptcgl" / "_compiled.manifest"


def _manifest() -> dict[str, str]:
    return manifest(MANIFEST, "importer")


def test_compiled_importer_modules_are_current_and_imported() -> None:
    modules = _manifest()
    assert "replay/sources/ptcgl/walk.py" in modules and "replay/sources/table.py" in modules
    assert_current_and_imported(modules)
    # Native classes: no __dict__, attributes in C slots.
    assert not hasattr(table.Table(["a", "b"]), "__dict__")
    assert "__mypyc_attrs__" in vars(importer.Window) and "__mypyc_attrs__" in vars(lines.Line)


def test_compiled_importer_reads_what_the_pure_importer_reads() -> None:
    """Every event, finding, unread line and metadata of the real and generated logs, whole and partial:
    the same bytes from both importers."""
    _manifest()
    proc = subprocess.run(
        [sys.executable, "-m", "tests.sources.ptcgl_outputs", "--pure"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    pure = json.loads(proc.stdout)
    # the subprocess really ran plain Python
    assert pure["walk_module"].endswith("replay/sources/ptcgl/walk.py")

    from tests.sources.ptcgl_outputs import digests

    compiled = digests()
    assert len(compiled) == len(pure["digests"]) > 100
    differ = [i for i, (a, b) in enumerate(zip(compiled, pure["digests"], strict=True)) if a != b]
    assert differ == [], f"{len(differ)} logs read differently, first {differ[:5]}"


def test_a_table_copy_copies_every_attribute() -> None:
    """``Table.snapshot`` (the sheet's amended rows) copies attribute by attribute (a class compiled by mypyc
    has no copy protocol of its own): every attribute a table has is in the list it copies, and the copy
    shares nothing that can change with the original."""
    t = table.Table(["a", "b"])
    attrs = getattr(type(t), "__mypyc_attrs__", None) or tuple(vars(t))
    assert sorted(a for a in attrs if not a.startswith("__")) == sorted(table.TABLE_STATE)
    t.new_mon("a", "Pikachu", {"id": "sv1-1"})
    t.zones["a"].discarded.append("Potion")
    snap = t.snapshot()
    for name in table.TABLE_STATE:
        assert getattr(snap, name) == getattr(t, name), name
    snap.mons["A1"].attached.append("Energy")
    snap.mons["A1"].card["id"] = "x"
    snap.zones["a"].discarded.append("Switch")
    snap.bench["a"].append("A9")
    assert t.mons["A1"].attached == [] and t.mons["A1"].card == {"id": "sv1-1"}
    assert t.zones["a"].discarded == ["Potion"] and t.bench["a"] == []
    assert copy.deepcopy(t.mons["A1"]) == t.mons["A1"] and copy.deepcopy(t.zones["a"]) == t.zones["a"]
