"""docs/rules.md cites code and tests that exist: every name after a "Code:" resolves, every "Tests:" line
names test files (and tests) that are there, and every rule that cites its code cites its tests.

The page is the judges' and the developers' map from a rule to where it is decided and checked; a name
that a refactor moved or renamed would send them nowhere, so a stale citation fails here.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from types import ModuleType

import pytest

from tests.paths import ROOT

RULES = (ROOT / "docs" / "rules.md").read_text("utf-8")
# Code paths in the page are modules of replay/engine/ unless another folder is named (its Sources).
ENGINE = sorted(p.stem for p in (ROOT / "replay" / "engine").glob("*.py") if p.stem != "__init__")
NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def blocks() -> list[str]:
    """The page's paragraphs and list items: where a rule, its Code: and its Tests: sit together."""
    return [b for b in re.split(r"\n\s*\n|\n(?=\s*(?:\d+\.|-) )", RULES) if b.strip()]


def code_spans() -> list[str]:
    """Each "Code:" with what follows it up to its block's "Tests:" (or end)."""
    spans = []
    for b in blocks():
        for part in b.split("Code:")[1:]:
            spans.append(part.split("Tests:")[0])
    return spans


def cited_test_lines() -> list[str]:
    return [line.strip()[len("Tests:") :] for line in RULES.splitlines() if line.strip().startswith("Tests:")]


def module_of_path(path: str) -> ModuleType:
    """``replay/series.py`` -> the module; a module that became a package of the same name counts too."""
    name = path.removesuffix(".py").replace("/", ".")
    assert importlib.util.find_spec(name) is not None, f"docs/rules.md cites {path}, which is not a module"
    return importlib.import_module(name)


def resolve(module: ModuleType, dotted: str, cited: str) -> None:
    obj: object = module
    for part in dotted.split("."):
        assert hasattr(obj, part), f"docs/rules.md cites `{cited}`: {obj!r} has no {part!r}"
        obj = getattr(obj, part)


def cited_code() -> list[tuple[str, str]]:
    """(kind, name) of every code name the "Code:" spans cite: engine ``module.attr`` names, modules of the
    engine, file paths, names in parentheses after a file path, and ``_private`` names of the module cited
    last. Other backticked words there are findings, events and fields, not code."""
    out = []
    for span in code_spans():
        for path, inner in re.findall(r"`([\w/]+\.py)` \(([^)]*)\)", span):
            out += [(f"attr:{path}", n) for n in re.findall(r"`(\w+)`", inner)]
        last = ""
        for token in re.findall(r"`([^`]+)`", span):
            head = token.split(".")[0]
            if "/" in token:
                out.append(("path", token))
            elif NAME.fullmatch(token) and head in ENGINE:
                out.append(("engine", token))
                last = head
            elif NAME.fullmatch(token) and token.startswith("_") and last:
                out.append(("engine", f"{last}.{token}"))
    return out


def test_the_page_cites_code_in_every_rule_area() -> None:
    names = cited_code()
    # not vacuous: the page cites its code throughout (over 80 names when this test was written)
    assert len(names) > 80
    assert {"setup", "turn", "attack", "checkup", "knockout", "result", "penalties", "playoff"} <= {
        n.split(".")[0] for k, n in names if k == "engine"
    }


@pytest.mark.parametrize(("kind", "name"), sorted(set(cited_code())))
def test_every_cited_code_name_exists(kind: str, name: str) -> None:
    if kind == "path":
        if name.endswith(".py"):
            module_of_path(name)
        else:
            assert list(ROOT.glob(name)), f"docs/rules.md cites {name}, which matches no file"
    elif kind == "engine":
        head, _, rest = name.partition(".")
        module = importlib.import_module(f"replay.engine.{head}")
        if rest:
            resolve(module, rest, name)
    else:
        resolve(module_of_path(kind.removeprefix("attr:")), name, name)


def cited_tests() -> list[str]:
    return sorted({t for line in cited_test_lines() for t in re.findall(r"`([^`]+)`", line)})


@pytest.mark.parametrize("cited", cited_tests())
def test_every_cited_test_exists(cited: str) -> None:
    path, _, name = cited.partition("::")
    assert path.startswith("tests/") and path.endswith(".py"), f"docs/rules.md: `{cited}` is not a test file"
    file = ROOT / path
    assert file.is_file(), f"docs/rules.md cites {path}, which does not exist"
    tests = {n.name for n in ast.walk(ast.parse(file.read_text("utf-8"))) if isinstance(n, ast.FunctionDef)}
    assert any(t.startswith("test_") for t in tests), f"{path} holds no test"
    assert not name or name in tests, f"docs/rules.md cites {cited}: {path} has no {name}"


def test_every_rule_that_cites_its_code_cites_its_tests() -> None:
    missing = [b.strip().splitlines()[0] for b in blocks() if "Code:" in b and "Tests:" not in b]
    assert not missing, f"docs/rules.md: a Code: without a Tests: line in {missing}"


def test_every_numbered_section_cites_its_tests() -> None:
    sections = re.split(r"\n(?=## \d)", RULES)[1:]
    assert len(sections) >= 9
    bare = [s.splitlines()[0] for s in sections if not re.search(r"\n\s*Tests:", s)]
    assert not bare, f"docs/rules.md: sections without a Tests: line: {bare}"
