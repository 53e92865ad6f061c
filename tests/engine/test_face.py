"""The engine's one public face, ``replay.engine`` (issue 41 item 2): what it exports is what its modules
define, mypy reads the same names the package gives at run time, importing it loads nothing of the engine,
and the edge's check of an amended event is handed in to a game (the engine imports nothing of the edge).
Outside code importing the engine's modules is the import linter's "one face" contract (``make lint``)."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from typing import Any

import pytest

import replay.engine as face
from replay.contract.validate import validate_event
from tests.builder import Stream, card
from tests.paths import ROOT

C_SCANNERS = {"frames", "span", "timestamps"}


def _c_extension_built() -> bool:
    try:
        importlib.import_module("replay.engine._link")
    except ImportError:
        return False
    return True


def test_every_name_of_the_face_is_its_module_s_own() -> None:
    table: dict[str, tuple[str, str]] = face._FACE
    assert set(table) | {"compiled"} == set(face.__all__) and len(face.__all__) == len(set(face.__all__))
    for name, (module, attr) in table.items():
        if name in C_SCANNERS and not _c_extension_built():
            with pytest.raises(ImportError):
                getattr(face, name)
            continue
        assert getattr(face, name) is getattr(importlib.import_module(f"replay.engine.{module}"), attr), name
    assert face.steps_due is importlib.import_module("replay.engine.due").due
    unknown = "Unknown"  # not face.Unknown: mypy knows the face has no such name
    with pytest.raises(AttributeError):
        getattr(face, unknown)


def test_mypy_and_the_import_linter_read_the_names_the_face_gives() -> None:
    """The ``TYPE_CHECKING`` imports (what mypy and grimp read) name exactly the exported names, each from
    the module the run-time table takes it from."""
    tree = ast.parse((ROOT / "replay" / "engine" / "__init__.py").read_text("utf-8"))
    seen: dict[str, tuple[str, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module is not None
                for alias in imp.names:
                    seen[alias.asname or alias.name] = (imp.module.removeprefix("replay.engine."), alias.name)
    assert seen == face._FACE


PROBE = """
import json, sys
import replay.engine
before = sorted(m for m in sys.modules if m.startswith("replay.engine.") or m == "msgspec")
from replay.engine import InputError
after = sorted(m for m in sys.modules if m.startswith("replay.engine.") or m == "msgspec")
print(json.dumps([before, after]))
"""


def test_the_face_loads_only_what_is_asked_for() -> None:
    """A command's usage line imports the package (every ``replay.engine`` module does) and its errors:
    neither loads the engine's rules or msgspec (tests/cli/test_startup.py counts the whole command)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, cwd=ROOT, check=True
    )
    assert json.loads(done.stdout) == [[], ["replay.engine.errors"]]


def _amended(**game: Any) -> tuple[dict[str, Any], int]:
    s = Stream("m1")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.turn("ash")
    s.turn("misty")
    dmg = s.add("damage", pid="a1", amount=30)
    s.add("correction", target=dmg["seq"], action="amend", event={"amount": 60})
    g = face.Game(**game)
    for e in s.events:
        g.apply(e)
    return g.record(), dmg["seq"]


def test_the_edge_hands_its_check_of_an_amended_event_in_to_the_game() -> None:
    """The check a game is given decides which amendments stand: the contract's validator passes this one
    (the damage amended to 60 knocks the Pikachu out), a stricter check refuses it, with its words as the
    judge's detail; a game given no check takes an amendment that is an event object as it is."""
    assert [k["pid"] for k in _amended(check_amendment=validate_event)[0]["knockouts"]] == ["a1"]
    assert [k["pid"] for k in _amended()[0]["knockouts"]] == ["a1"]

    def no_sixty(event: dict[str, Any]) -> None:
        if event.get("amount") == 60:
            raise face.EventError("amount 60 is not allowed here", field="amount")

    record, seq = _amended(check_amendment=no_sixty)
    assert record["knockouts"] == []
    refused = record["findings"][-1]
    assert refused["message"] == f"amendment of seq {seq} ignored: the amended event is not valid"
    assert refused["detail"] == "amount 60 is not allowed here in amount"
