"""The fault suite: `make test` runs the cases marked ``ci`` (about a minute); `make test-faults`
(``PRIZECHECK_FAULTS=full``) runs every case and then writes docs/reliability.md's figures section.

The figures are written only by a full run in which every case of the suite ran (whatever their result:
a failed case is in the table as failed).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.harness import CaseFigures, Figures, write_figures
from tests.paths import ROOT

HERE = Path(__file__).resolve().parent
FULL = os.environ.get("PRIZECHECK_FAULTS", "").strip().lower() == "full"
DOC = ROOT / "docs" / "reliability.md"

_figures = Figures()
_started = time.monotonic()
_collected: set[str] = set()
_ran: set[str] = set()


def _ours(item: pytest.Item) -> bool:
    return HERE in Path(str(item.fspath)).resolve().parents


@pytest.hookimpl(tryfirst=True)  # before -k / -m deselect: a partial run never writes the figures
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip = pytest.mark.skip(reason="the full fault suite: make test-faults (PRIZECHECK_FAULTS=full)")
    for item in items:
        if not _ours(item):
            continue
        if FULL or item.get_closest_marker("ci") is not None:
            _collected.add(item.nodeid)
        else:
            item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    if _ours(item) and item.nodeid in _collected:
        case = _figures.case(_name(item))
        if report.when == "call" or (report.when == "setup" and report.failed):
            case.outcome = "passed" if report.passed else ("skipped" if report.skipped else "FAILED")
            _ran.add(item.nodeid)
        elif report.when == "teardown" and report.failed:
            case.outcome = "FAILED (teardown)"
    return report


def _name(item: pytest.Item) -> str:
    doc = getattr(getattr(item, "function", None), "__doc__", None) or ""
    first = doc.strip().splitlines()[0].strip() if doc.strip() else item.name
    return first.rstrip(".")


@pytest.fixture
def case(request: pytest.FixtureRequest) -> Iterator[CaseFigures]:
    """This case's figures (named by the first line of the test's docstring)."""
    figures = _figures.case(_name(request.node))
    started = time.monotonic()
    try:
        yield figures
    finally:
        figures.seconds = time.monotonic() - started


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    files = {nodeid.split("::")[0].rsplit("/", 1)[-1] for nodeid in _collected}
    whole = files == {p.name for p in HERE.glob("test_*.py")}
    if not FULL or not whole or _ran != _collected:
        return  # only a full run of the whole suite writes the figures
    write_figures(DOC, _figures, time.monotonic() - _started)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"fault suite: figures written to {DOC.relative_to(ROOT)}")
