"""The engine (replay/engine/) is pure: no I/O, clock, randomness or concurrency (docs/engine-api.md)."""

from __future__ import annotations

import ast

from tests.paths import ROOT

# The engine (replay/engine/) is pure: no I/O, clock, randomness or concurrency. What it may import from
# the project is checked by import-linter (pyproject.toml, make lint); this checks the standard library.
FORBIDDEN = {"asyncio", "redis", "faust", "time", "random", "os", "socket", "datetime", "subprocess"}


def test_engine_modules_are_pure() -> None:
    root = ROOT / "replay" / "engine"
    modules = sorted(root.glob("*.py"))
    assert {"game", "knockout", "result", "playoff"} <= {p.stem for p in modules}
    for path in modules:
        name = path.stem
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [(node.module or "").split(".")[0]]
            else:
                continue
            assert not FORBIDDEN & set(mods), f"replay/engine/{name}.py imports {mods}"
