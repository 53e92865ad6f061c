"""Shared fixtures. Each area keeps its fixtures in its own plugin module beside this file."""

import importlib.util

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
