"""What the compiled-build tests share (tests/engine/test_compiled.py, tests/sources/test_ptcgl_compiled.py):
a part's manifest (``make compile``, tools/compile_engine.py), and that each module it lists is current and
is the one imported."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sysconfig
from pathlib import Path

import pytest

from tests.paths import ROOT

EXT_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def manifest(path: Path, part: str) -> dict[str, str]:
    """The modules of ``part`` (``"engine"``, ``"importer"``) the build at ``path`` lists, each with its
    source's digest. ``make test`` sets PRIZECHECK_EXPECT_COMPILED=1: a build that silently did not happen
    fails there instead of testing plain Python twice; elsewhere the test is skipped."""
    if not path.exists():
        if os.environ.get("PRIZECHECK_EXPECT_COMPILED") == "1":
            pytest.fail(f"make test expects the compiled {part}: {path.relative_to(ROOT)} is missing")
        pytest.skip(f"the {part} is not compiled (make compile)")
    modules: dict[str, str] = json.loads(path.read_text("utf-8"))["modules"]
    return modules


def assert_current_and_imported(modules: dict[str, str]) -> None:
    """Each module's source is the one compiled (its digest), and the module imported is the extension."""
    for path, digest in modules.items():
        source = ROOT / path
        assert hashlib.sha256(source.read_bytes()).hexdigest() == digest, (
            f"{path} changed since it was compiled: run make compile"
        )
        name = path.removesuffix(".py").removesuffix(".c").replace("/", ".")
        module = importlib.import_module(name)
        assert str(module.__file__).endswith(EXT_SUFFIX), f"{name} was imported from {module.__file__}"
        assert (source.parent / (source.stem + EXT_SUFFIX)).is_file()
