"""Run the engine (or the PTCGL importer) as plain Python even where its compiled modules are built (``make
compile``).

    from tools.pure_engine import use_pure_engine
    use_pure_engine()  # before anything imports replay
    import replay      # every replay module now comes from its .py file

``use_pure_importer()`` does the same for the importer's compiled modules (replay/sources/ptcgl/ and
replay/sources/table.py, tools/compile_engine.py's IMPORTER_MODULES).

Python imports an extension module before a source file of the same name; this puts a finder first on
``sys.meta_path`` that loads ``replay.engine.<name>`` from ``replay/engine/<name>.py`` (and hides the C
extension ``replay.engine._link``: the engine then links the chain with hashlib, as a plain-Python install
does). The benchmark (``--pure``) and the test comparing the compiled engine with the pure one run it in
a fresh process.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import pathlib
import sys
from collections.abc import Sequence
from types import ModuleType

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "replay" / "engine"


class _PureFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        parts = fullname.split(".")
        if len(parts) != 3 or parts[:2] != ["replay", "engine"]:
            return None
        source = PACKAGE / f"{parts[2]}.py"
        if not source.is_file():
            if (
                PACKAGE / f"{parts[2]}.c"
            ).is_file():  # a C extension (replay/engine/_link.c): as if not built
                raise ModuleNotFoundError(f"{fullname} is hidden: the pure engine", name=fullname)
            return None
        return importlib.util.spec_from_file_location(fullname, source)


class _PureImporterFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        parts = fullname.split(".")
        if parts == ["replay", "sources", "table"] or (len(parts) == 4 and parts[:3] == IMPORTER_PACKAGE):
            source = ROOT.joinpath(*parts[:-1], f"{parts[-1]}.py")
            if source.is_file():
                return importlib.util.spec_from_file_location(fullname, source)
        return None


ROOT = PACKAGE.parent.parent
IMPORTER_PACKAGE = ["replay", "sources", "ptcgl"]


def use_pure_importer() -> None:
    """Load the PTCGL importer's modules from source from now on (call before importing replay)."""
    if any(name == "replay" or name.startswith("replay.") for name in sys.modules):
        raise RuntimeError("use_pure_importer() must run before replay is imported")
    sys.meta_path.insert(0, _PureImporterFinder())


def use_pure_engine() -> None:
    """Load every engine module (replay/engine/) from source from now on (call before importing replay)."""
    if any(name == "replay" or name.startswith("replay.") for name in sys.modules):
        raise RuntimeError("use_pure_engine() must run before replay is imported")
    sys.meta_path.insert(0, _PureFinder())
