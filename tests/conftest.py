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


#: Test files that take the longest on one worker, started first, longest first: make unit shares whole
#: files among its workers (--dist loadfile, --no-loadscope-reorder) and gives a worker the next file as it
#: runs out, so the long files started first leave the short ones to even out the end. xdist's own order,
#: by number of tests, left files of one or two long tests to the end (2026-12-07: one worker alone for the
#: suite's last five minutes). Each file's seconds (setup, call and teardown of all its tests) as make unit's
#: --durations=0 gave them on a fresh clone (2026-12-07, 2,225 s in all on three workers); refresh the list
#: when a file grows past the last one here. A file not named here keeps its place in the collection's
#: order; a name that no longer exists is ignored.
LONGEST_FIRST = (
    "tests/streams/http/test_console_outbox.py",  # 108 s
    "tests/scan/test_scan_printed.py",  # 70 s
    "tests/streams/http/test_review.py",  # 68 s
    "tests/streams/http/test_import_browser.py",  # 66 s
    "tests/faults/test_serve.py",  # 64 s
    "tests/streams/http/test_pages.py",  # 57 s
    "tests/streams/http/test_console_touch.py",  # 56 s
    "tests/streams/http/test_i18n_pages.py",  # 50 s
    "tests/faults/test_kafka.py",  # 46 s
    "tests/scan/test_scan_hall.py",  # 45 s
    "tests/streams/http/test_openapi.py",  # 44 s
    "tests/streams/http/test_import_scan_names.py",  # 41 s
    "tests/streams/http/test_console_settled.py",  # 41 s
    "tests/report/test_report_parquet.py",  # 39 s
    "tests/scan/test_sheet_languages.py",  # 37 s
    "tests/engine/test_validate_fast.py",  # 36 s
    "tests/scan/test_scan_two.py",  # 35 s
    "tests/cli/test_faults.py",  # 34 s
    "tests/scan/test_scan_read.py",  # 33 s
    "tests/streams/http/test_review_log.py",  # 33 s
    "tests/cli/test_import_gc.py",  # 31 s
    "tests/streams/kafka/test_kafka.py",  # 31 s
    "tests/scan/test_scan_match.py",  # 31 s
    "tests/streams/http/test_review_long.py",  # 30 s
    "tests/streams/kafka/test_agent_unit.py",  # 28 s
    "tests/streams/http/test_console_game.py",  # 28 s
    "tests/scan/test_scan_spare.py",  # 27 s
    "tests/scan/test_scan_accuracy_b.py",  # 24 s
    "tests/streams/http/test_console_cards.py",  # 24 s
    "tests/streams/http/test_hidden.py",  # 24 s
    "tests/test_quickstarts.py",  # 22 s
    "tests/streams/http/test_scan_marks.py",  # 21 s
    "tests/streams/ingest/test_write.py",  # 20 s
    "tests/streams/http/test_console_clock.py",  # 20 s
    "tests/test_packaging.py",  # 20 s
    "tests/streams/http/test_console_restart.py",  # 19 s
    "tests/scan/test_scan_cli.py",  # 19 s
    "tests/streams/http/test_access.py",  # 19 s
    "tests/streams/test_cluster_service.py",  # 19 s
    "tests/streams/http/test_console_keys.py",  # 17 s
    "tests/report/test_report_browser.py",  # 17 s
    "tests/streams/http/test_serve.py",  # 16 s
    "tests/cli/test_key_languages.py",  # 16 s
    "tests/engine/test_canonical_check.py",  # 16 s
    "tests/scan/test_scan_accuracy_c.py",  # 16 s
    "tests/scan/test_scan_accuracy_a.py",  # 16 s
    "tests/scan/test_sheet_print.py",  # 16 s
    "tests/engine/test_properties.py",  # 16 s
    "tests/test_codec.py",  # 15 s
    "tests/streams/test_cluster_spread.py",  # 15 s
    "tests/scan/test_scan_cancel.py",  # 14 s
    "tests/streams/test_check.py",  # 14 s
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first (:data:`LONGEST_FIRST`), every file's tests kept together and in order."""
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))
