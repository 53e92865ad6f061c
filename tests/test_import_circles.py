"""No import circles anywhere in the tree (issue 21 item 5), enforced by ``make lint``.

The contract is the project's own (``tools/import_contracts.py``), registered with import-linter in
``pyproject.toml``; here it is shown to find circles (between siblings, through a package's ``__init__``,
across packages) and to keep a graph without any, and the tree itself, the two circles the issue named
included, to have none.
"""

from __future__ import annotations

import tomllib

import grimp
import pytest

from tests.paths import ROOT
from tools.import_contracts import NoCyclesContract, circles


def graph(*imports: tuple[str, str]) -> grimp.ImportGraph:
    g = grimp.ImportGraph()
    for importer, imported in imports:
        g.add_import(importer=importer, imported=imported, line_number=3, line_contents=f"import {imported}")
    return g


def check(g: grimp.ImportGraph) -> tuple[bool, list[list[str]]]:
    contract = NoCyclesContract(name="no circles", session_options={}, contract_options={})
    result = contract.check(g, verbose=False)
    return result.kept, result.metadata["components"]


@pytest.mark.parametrize(
    ("imports", "components"),
    [
        # siblings: report/build <-> report/reconcile, the circle the issue named
        ((("p.build", "p.reconcile"), ("p.reconcile", "p.build")), [["p.build", "p.reconcile"]]),
        # through a package's __init__ (import-linter's acyclic_siblings keeps this one)
        (
            (("p", "p.html"), ("p.html", "p.svg"), ("p.svg", "p")),
            [["p", "p.html", "p.svg"]],
        ),
        # across packages, and two circles at once
        (
            (("a.x", "b.y"), ("b.y", "a.z"), ("a.z", "a.x"), ("c.q", "c.r"), ("c.r", "c.q"), ("c.r", "a.x")),
            [["a.x", "a.z", "b.y"], ["c.q", "c.r"]],
        ),
    ],
)
def test_the_contract_finds_every_circle(
    imports: tuple[tuple[str, str], ...], components: list[list[str]]
) -> None:
    assert check(graph(*imports)) == (False, components)


def test_the_contract_keeps_a_graph_without_circles() -> None:
    g = graph(("p", "p.build"), ("p.build", "p.reconcile"), ("p.html", "p.svg"), ("p.html", "p.build"))
    assert check(g) == (True, [])


def test_a_broken_contract_shows_the_chain_that_closes_the_circle() -> None:
    g = graph(("p", "p.html"), ("p.html", "p.svg"), ("p.svg", "p"))
    result = NoCyclesContract(name="n", session_options={}, contract_options={}).check(g, verbose=False)
    (chain,) = result.metadata["chains"]
    assert [(h["importer"], h["imported"], h["lines"]) for h in chain] == [
        ("p", "p.html", [3]),
        ("p.html", "p.svg", [3]),
        ("p.svg", "p", [3]),
    ]


def test_the_tree_has_no_circle_and_lint_checks_for_them() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    assert "no_cycles: tools.import_contracts.NoCyclesContract" in config["contract_types"]
    assert any(c["type"] == "no_cycles" for c in config["contracts"])
    g = grimp.build_graph(*config["root_packages"], cache_dir=None)
    assert circles(g) == []
    # the circles issue 21 named, and the one found after them, are gone (each way round)
    for a, b in (
        ("replay.report.build", "replay.report.reconcile"),
        ("streams.http.api", "streams.http.pages"),
        ("replay.cli.import_", "replay.cli.import_scan"),
    ):
        assert not (g.chain_exists(importer=a, imported=b) and g.chain_exists(importer=b, imported=a)), (a, b)
