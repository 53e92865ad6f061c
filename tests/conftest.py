"""Shared fixtures. Each area keeps its fixtures in its own plugin module beside this file."""

import importlib.util
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

# No deadline per example: how long an example takes says nothing about correctness on these shared,
# noisy machines (a deadline made a test fail under load), nor does a slow data generator. Speed is
# checked by the benchmarks in bench/.
settings.register_profile("prizecheck", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("prizecheck")

pytest_plugins = [
    name
    for name in ("tests.fixtures_redis", "tests.fixtures_kafka", "tests.fixtures_browser")
    if importlib.util.find_spec(name) is not None
]


@pytest.fixture(scope="session", autouse=True)
def _private_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tests never write into the user's data directory (the embedded store's default): a test that
    starts an embedded store without its own PRIZECHECK_DATA_DIR, and every process it starts, gets a
    directory of this session's instead."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PRIZECHECK_DATA_DIR", str(tmp_path_factory.mktemp("prizecheck-data")))
        yield


#: Test files that take the longest on one worker (make unit's --durations), started first. make unit
#: shares whole files among its workers (--dist loadfile, --no-loadscope-reorder); xdist's own order is
#: by number of tests, which left the files of one or two long tests (a scan accuracy run, the hidden-card
#: sweep) to the end: one worker ran them alone for the suite's last five minutes (2026-12-07: 899 s).
#: A file not named here keeps its place; a name that no longer exists is ignored.
LONGEST_FIRST = (
    "tests/scan/test_scan_accuracy_a.py",
    "tests/streams/http/test_hidden.py",
    "tests/report/test_report_parquet.py",
    "tests/streams/http/test_console_game.py",
    "tests/scan/test_scan_accuracy_b.py",
    "tests/streams/http/test_import_browser.py",
    "tests/scan/test_sheet_languages.py",
    "tests/faults/test_kafka.py",
    "tests/scan/test_scan_accuracy_c.py",
    "tests/streams/test_cluster_spread.py",
    "tests/cli/test_faults.py",
    "tests/engine/test_properties.py",
    "tests/streams/kafka/test_kafka.py",
    "tests/streams/http/test_console_clock.py",
    "tests/streams/test_check_languages.py",
    "tests/test_quickstarts.py",
    "tests/streams/ingest/test_write.py",
    "tests/scan/test_scan_hall.py",
    "tests/streams/http/test_console_keys.py",
    "tests/scan/test_scan_cli.py",
    "tests/streams/test_cluster_service.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first (:data:`LONGEST_FIRST`), every file's tests kept together and in order."""
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))
