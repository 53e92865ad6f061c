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
