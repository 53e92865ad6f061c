"""An import-linter contract of the project's own: no import circles anywhere (``make lint``).

import-linter's ``acyclic_siblings`` contract looks for circles between the children of each package, but
not through a package's own ``__init__`` (``replay.report.svg`` importing ``replay.report``, whose
``render`` imports ``replay.report.html``, which imports ``svg``: a circle it keeps). This contract takes
every module of the root packages as a node of grimp's import graph, the graph import-linter already
built, and finds its strongly connected components (Tarjan): any with two modules or more is a circle,
shown as the chain of imports that closes it, with the line of each import. Imports inside functions
count: a circle broken only by importing late is still a circle.

Registered in ``pyproject.toml``: ``contract_types = ["no_cycles: tools.import_contracts.NoCyclesContract"]``.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from typing import Any

from grimp import ImportGraph
from importlinter.application import output
from importlinter.domain.contract import Contract, ContractCheck


def circles(graph: ImportGraph) -> list[list[str]]:
    """The import circles of ``graph``: each strongly connected component of two modules or more, its
    modules sorted; the components sorted by their first module. Iterative (no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = []
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work.append((root, iter(sorted(graph.find_modules_directly_imported_by(root)))))
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.find_modules_directly_imported_by(nxt)))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def closing_chain(graph: ImportGraph, component: list[str]) -> list[str]:
    """One circle through the component's first module: it, a module it imports in the component, and
    the shortest chain of imports from there back to it."""
    start = component[0]
    members = set(component)
    for nxt in sorted(graph.find_modules_directly_imported_by(start) & members):
        back = graph.find_shortest_chain(importer=nxt, imported=start)
        if back is not None:
            return [start, *back]
    raise AssertionError(f"{start} is in a circle that does not pass through it")  # Tarjan says it does


class NoCyclesContract(Contract):
    """No module of the root packages reaches itself through its imports."""

    type_name = "no_cycles"

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        found = circles(graph)
        output.verbose_print(verbose, f"{len(graph.modules)} modules, {len(found)} import circle(s)")
        chains = [closing_chain(graph, component) for component in found]
        steps: list[list[dict[str, Any]]] = []
        for chain in chains:
            hops = []
            for importer, imported in pairwise(chain):
                details = graph.get_import_details(importer=importer, imported=imported)
                lines = sorted({int(d["line_number"]) for d in details})
                hops.append({"importer": importer, "imported": imported, "lines": lines})
            steps.append(hops)
        return ContractCheck(kept=not found, warnings=None, metadata={"components": found, "chains": steps})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for component, hops in zip(check.metadata["components"], check.metadata["chains"], strict=True):
            output.print_error(f"An import circle of {len(component)} modules: {', '.join(component)}")
            output.new_line()
            for hop in hops:
                where = ", ".join(f"l.{n}" for n in hop["lines"])
                output.print_error(f"    {hop['importer']} -> {hop['imported']} ({where})", bold=False)
            output.new_line()
