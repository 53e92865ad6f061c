"""Fixtures of the HTTP tests: the real service with tokens (``served``), see served.py."""

from tests.streams.http.served import served  # noqa: F401  (a fixture, found by name)
