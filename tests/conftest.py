"""Shared fixtures. Each area keeps its fixtures in its own plugin module beside this file."""

import importlib.util

pytest_plugins = [
    name
    for name in ("tests.fixtures_redis", "tests.fixtures_kafka", "tests.fixtures_browser")
    if importlib.util.find_spec(name) is not None
]
